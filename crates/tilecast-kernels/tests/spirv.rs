//! The native SPIR-V back end: every module it prints for a registry case (every entry and
//! input type at its quick shapes and golden shape, on both Vulkan profiles) passes SPIRV-Tools'
//! validator (`spirv-val`, Vulkan 1.1 rules), and the launcher runs it wherever it prints.

use tilecast_kernels::{CodePath, LoadAs, entries};
use tilecast_lang::{Profile, compile};

/// `spirv-val --target-env vulkan1.1` on `words`: `Err` with its message when it refuses.
fn validate(words: &[u32], label: &str) -> Result<(), String> {
    let dir = std::env::temp_dir().join(format!("tilecast-spirv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(format!("{}.spv", label.replace(['/', ' ', ','], "_")));
    std::fs::write(&file, words.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<u8>>()).unwrap();
    let out = std::process::Command::new("spirv-val")
        .args(["--target-env", "vulkan1.1"])
        .arg(&file)
        .output()
        .unwrap_or_else(|e| {
            panic!("spirv-val could not run ({e}); scripts/ensure-spirv-val installs it")
        });
    let _ = std::fs::remove_file(&file);
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

#[test]
fn every_native_module_passes_the_validator() {
    let (mut printed, mut refused, mut failures) = (0, 0, Vec::new());
    for e in entries() {
        for &dtype in e.dtypes {
            for shape in e.quick.iter().chain(e.full.first()) {
                let p = e.problem(shape, dtype).unwrap();
                for name in ["vulkan-nvidia", "vulkan-lavapipe"] {
                    let profile = Profile::named(name).unwrap();
                    let plan = e.plan(&p, &profile).unwrap();
                    for launch in &plan.launches {
                        let c = compile(&launch.ir, &profile).unwrap();
                        let Ok(words) = c.native_spirv() else {
                            refused += 1;
                            continue;
                        };
                        printed += 1;
                        let label = format!("{}.{shape}.{dtype}.{name}.{}", e.name, c.name());
                        if let Err(msg) = validate(words, &label) {
                            failures.push(format!("{label}: {msg}"));
                        }
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{} modules refused:\n{}", failures.len(), failures.join("\n"));
    assert!(printed > 50, "only {printed} native modules printed ({refused} refused)");
}

#[test]
fn a_printable_kernel_runs_natively_and_the_rest_through_wgsl() {
    let device = tilecast_runtime::Device::new().unwrap();
    if !device.capabilities().features.native_spirv {
        eprintln!("skipped: {:?} takes no native SPIR-V", device.name());
        return;
    }
    let library = tilecast_runtime::ShaderLibrary::with_cache_dir(&device, None);
    let profile = Profile::from_capabilities(device.capabilities());
    for (name, native) in [("gelu", true), ("softmax", false)] {
        let e = tilecast_kernels::lookup(name).unwrap();
        let p = e.problem(e.quick[1], e.dtypes[0]).unwrap();
        let plan = e.plan(&p, &profile).unwrap();
        let c = compile(&plan.launches[0].ir, &profile).unwrap();
        let k = tilecast_kernels::TileKernel::load_as(&library, &c, LoadAs::Auto).unwrap();
        let want = if native { CodePath::NativeSpirv } else { CodePath::Wgsl };
        assert_eq!(k.code(), want, "{name}");
        let forced = tilecast_kernels::TileKernel::load_as(
            &library,
            &c,
            LoadAs::Code(CodePath::NativeSpirv),
        );
        match (native, forced) {
            (true, Ok(k)) => assert_eq!(k.code(), CodePath::NativeSpirv),
            (false, Err(err)) => {
                assert!(err.to_string().contains("does not print it yet"), "{err}")
            }
            (true, Err(err)) => panic!("{name}: {err}"),
            (false, Ok(_)) => panic!("{name} loaded natively though the back end refuses it"),
        }
    }
}
