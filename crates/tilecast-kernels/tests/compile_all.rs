//! Every registry kernel compiles for every named profile, for every input type it takes (on
//! the first full-suite shape) and every quick-suite shape (on its default type), and MSL /
//! SPIR-V come out of naga: every launch of the problem's plan. The Vulkan profiles' kernels
//! are compiled and checked so (and more: every type on every quick shape) by `spirv.rs`,
//! whose validator test compiles them anyway; here the others.

mod common;

use tilecast_lang::back::emit;
use tilecast_lang::{Profile, compile};

#[test]
fn registry_compiles_for_every_profile() {
    common::over_entries(|e| {
        let mut problems: Vec<_> =
            e.dtypes.iter().map(|&d| e.problem(e.full[0], d).unwrap()).collect();
        problems.extend(e.quick.iter().map(|s| e.problem(s, e.dtypes[0]).unwrap()));
        for p in &problems {
            for profile in Profile::NAMES.into_iter().filter(|n| !n.starts_with("vulkan-")) {
                let prof = Profile::named(profile).unwrap();
                let what = format!("{} {} {} on {profile}", e.name, p.shape_text(), p.dtype);
                let plan = e.plan(p, &prof).unwrap();
                let launches = plan.launches.iter().map(|l| l.ir.clone());
                for ir in launches {
                    let what = format!("{what}, kernel {}", ir.name);
                    let c = compile(&ir, &prof).unwrap_or_else(|err| panic!("{what}: {err}"));
                    assert!(c.wgsl().contains("@compute"), "{what}");
                    emit::spirv(&c).unwrap_or_else(|err| panic!("{what} spirv: {err}"));
                    let msl = emit::msl(&c).unwrap_or_else(|err| panic!("{what} msl: {err}"));
                    assert!(msl.contains("kernel void"), "{what}: {msl}");
                }
            }
        }
        Vec::<()>::new()
    });
}

/// The gemm family's decode-shaped tiles (K splits, skinny and 64-row tiles, bf16's scale
/// search) and bf16's converting plans (long rows in chunks) fit every profile's threadgroup
/// memory in every input type: Metal's 32 KiB too.
#[test]
fn decode_shaped_gemms_fit_every_profile_in_every_type() {
    for name in ["gemm", "linear", "linear_gelu", "batched_gemm"] {
        let e = tilecast_kernels::lookup(name).unwrap();
        for &d in e.dtypes {
            for s in [
                "1x7x9",
                "5x4096x4096",
                "16x14336x4096",
                "40x4096x4096",
                "64x14336x4096",
                "200x300x9000",
                "128x4096x4096",
                "512x4096x4096",
            ] {
                let shape = if name == "batched_gemm" { format!("2x{s}") } else { s.to_string() };
                let p = e.problem(&shape, d).unwrap();
                for profile in Profile::NAMES {
                    let prof = Profile::named(profile).unwrap();
                    let plan = e.plan(&p, &prof).unwrap();
                    let launches = plan.launches.into_iter().map(|l| l.ir);
                    for ir in launches {
                        compile(&ir, &prof).unwrap_or_else(|err| {
                            panic!("{name} {shape} {d} on {profile}, kernel {}: {err}", ir.name)
                        });
                    }
                }
            }
        }
    }
}
