//! Every catalog kernel compiles for every named profile, and MSL / SPIR-V come out of naga.

use tilecast_kernels::{CATALOG, by_name_for};
use tilecast_lang::back::emit;
use tilecast_lang::{Profile, compile};

#[test]
fn catalog_compiles_for_every_profile() {
    for (name, _) in CATALOG {
        for profile in Profile::NAMES {
            let p = Profile::named(profile).unwrap();
            let c = compile(&by_name_for(name, &p).unwrap(), &p)
                .unwrap_or_else(|e| panic!("{name} on {profile}: {e}"));
            assert!(c.wgsl().contains("@compute"), "{name}");
            emit::spirv(&c).unwrap_or_else(|e| panic!("{name} spirv: {e}"));
            let msl = emit::msl(&c).unwrap_or_else(|e| panic!("{name} msl: {e}"));
            assert!(msl.contains("kernel void"), "{name}: {msl}");
        }
    }
}
