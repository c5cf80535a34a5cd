//! The native SPIR-V back end: it prints every registry case (every entry and input type at
//! its quick shapes and first full shape, on both Vulkan profiles), each module passes
//! SPIRV-Tools' validator (Vulkan 1.1 rules), and so does naga's SPIR-V of each case's WGSL as
//! the passthrough path hands it over (and naga writes its MSL and SPIR-V listings: the
//! Vulkan half of `compile_all.rs`); the launcher runs native modules where the device takes
//! them, and a kernel the back end refuses runs through WGSL.

use std::path::{Path, PathBuf};

mod common;

use tilecast_kernels::{CodePath, LoadAs};
use tilecast_lang::back::emit;
use tilecast_lang::{Profile, compile};

/// SPIRV-Tools' validator: `$TILECAST_SPIRV_VAL`, else the one `scripts/ensure-spirv-val`
/// builds (a current SPIRV-Tools; Debian's predates cooperative matrices).
fn validator() -> PathBuf {
    if let Some(p) = std::env::var_os("TILECAST_SPIRV_VAL") {
        return PathBuf::from(p);
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let bin = root.join("tools/spirv-val/target/release/tilecast-spirv-val");
    assert!(
        bin.exists(),
        "no SPIR-V validator at {}: run scripts/ensure-spirv-val (scripts/test does)",
        bin.display()
    );
    bin
}

/// Validates every module (label, words) in one run of the validator per Vulkan environment
/// (SPIR-V 1.6 modules, which use tensor addressing, under Vulkan 1.3's rules; the rest under
/// Vulkan 1.1's); returns the refused ones with its message.
fn validate(modules: &[(String, Vec<u32>)]) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!("tilecast-spirv-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut refused = Vec::new();
    for (env, newer) in [("vulkan1.1", false), ("vulkan1.3", true)] {
        let batch: Vec<&(String, Vec<u32>)> =
            modules.iter().filter(|(_, w)| (w[1] > 0x0001_0300) == newer).collect();
        if batch.is_empty() {
            continue;
        }
        let mut files = Vec::new();
        for (k, (_, words)) in batch.iter().enumerate() {
            let file = dir.join(format!("{env}-{k}.spv"));
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::fs::write(&file, bytes).unwrap();
            files.push(file);
        }
        // One validator per core, each over a contiguous share of the files.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let share = files.len().div_ceil(cores);
        let runs: Vec<_> = files
            .chunks(share)
            .map(|part| {
                std::process::Command::new(validator())
                    .args(["--env", env])
                    .args(part)
                    .stdout(std::process::Stdio::piped())
                    .spawn()
                    .expect("the validator runs")
            })
            .collect();
        let text: String = runs
            .into_iter()
            .map(|run| {
                let out = run.wait_with_output().expect("the validator runs");
                String::from_utf8_lossy(&out.stdout).into_owned()
            })
            .collect();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), batch.len(), "one line per module: {text}");
        for ((label, _), line) in batch.iter().zip(&lines) {
            if !line.ends_with(": ok") {
                refused.push(format!("{label} ({env}): {line}"));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    refused
}

#[test]
fn every_native_and_naga_module_passes_the_validator() {
    // (module, naga's module of its WGSL) per launch, entries compiled on every core.
    let pairs = common::over_entries(|e| {
        let mut pairs = Vec::new();
        for &dtype in e.dtypes {
            for shape in e.quick.iter().chain(e.full.first()) {
                let p = e.problem(shape, dtype).unwrap();
                for name in ["vulkan-nvidia", "vulkan-lavapipe"] {
                    let profile = Profile::named(name).unwrap();
                    let plan = e.plan(&p, &profile).unwrap();
                    for launch in &plan.launches {
                        let c = compile(&launch.ir, &profile).unwrap();
                        let label = format!("{}.{shape}.{dtype}.{name}.{}", e.name, c.name());
                        let words = c
                            .native_spirv()
                            .unwrap_or_else(|why| panic!("{label}: not printed natively: {why}"));
                        let native = (label.clone(), words.to_vec());
                        // And naga's SPIR-V of the WGSL, as `TILECAST_BACKEND_CODE=naga-spirv`
                        // hands it to the driver.
                        let (m, info) = c.naga().unwrap_or_else(|e| panic!("{label}: {e}"));
                        let words = tilecast_runtime::passthrough_spirv(m, info).unwrap();
                        // And the listings `tilecast emit` writes from it (`compile_all.rs`
                        // checks the other profiles').
                        emit::spirv(&c).unwrap_or_else(|e| panic!("{label} spirv: {e}"));
                        let msl = emit::msl(&c).unwrap_or_else(|e| panic!("{label} msl: {e}"));
                        assert!(msl.contains("kernel void"), "{label}: {msl}");
                        pairs.push((native, (format!("{label} (naga)"), words)));
                    }
                }
            }
        }
        pairs
    });
    let (modules, through_naga): (Vec<_>, Vec<_>) = pairs.into_iter().unzip();
    let matrices =
        modules.iter().filter(|(_, w)| w.contains(&CAPABILITY_COOPERATIVE_MATRIX)).count();
    let workgroup = modules.iter().filter(|(_, w)| w[1] > 0x0001_0300).count();
    let all: Vec<_> = modules.iter().cloned().chain(through_naga).collect();
    let refused = validate(&all);
    assert!(
        refused.is_empty(),
        "{} of {} modules refused:\n{}",
        refused.len(),
        all.len(),
        refused.join("\n")
    );
    assert!(matrices > 10, "only {matrices} modules with cooperative matrices");
    assert!(
        workgroup > 0,
        "no module on workgroup-scope matrices (gemm's full shapes on vulkan-nvidia)"
    );
}

/// `OpCapability CooperativeMatrixKHR` as a word pair's second word: enough to count the
/// modules that use matrix units.
const CAPABILITY_COOPERATIVE_MATRIX: u32 = 6022;

#[test]
fn kernels_run_natively_where_the_device_takes_it_and_through_wgsl_when_asked() {
    let device = tilecast_runtime::Device::new().unwrap();
    let library = tilecast_runtime::ShaderLibrary::with_cache_dir(&device, None);
    let profile = Profile::from_capabilities(device.capabilities());
    let e = tilecast_kernels::lookup("softmax").unwrap();
    let c = first_launch("softmax", e.quick[1], e.dtypes[0], &profile);
    let auto = tilecast_kernels::TileKernel::load_as(&library, &c, LoadAs::Auto).unwrap();
    let native = device.capabilities().features.native_spirv;
    let want = if native { CodePath::NativeSpirv } else { CodePath::Wgsl };
    assert_eq!(auto.code(), want);
    let wgsl =
        tilecast_kernels::TileKernel::load_as(&library, &c, LoadAs::Code(CodePath::Wgsl)).unwrap();
    assert_eq!(wgsl.code(), CodePath::Wgsl);
    let forced =
        tilecast_kernels::TileKernel::load_as(&library, &c, LoadAs::Code(CodePath::NativeSpirv));
    match (native, forced) {
        (true, Ok(k)) => assert_eq!(k.code(), CodePath::NativeSpirv),
        (false, Err(err)) => assert!(err.to_string().contains("takes no SPIR-V modules"), "{err}"),
        (true, Err(err)) => panic!("{err}"),
        (false, Ok(_)) => panic!("a device without passthrough loaded a native module"),
    }
}

/// The first launch of registry kernel `name`'s plan for `shape` and `dtype`, compiled for
/// `profile`.
fn first_launch(
    name: &str,
    shape: &str,
    dtype: tilecast_lang::DType,
    profile: &Profile,
) -> tilecast_lang::Compiled {
    let e = tilecast_kernels::lookup(name).unwrap();
    let p = e.problem(shape, dtype).unwrap();
    compile(&e.plan(&p, profile).unwrap().launches[0].ir, profile).unwrap()
}

/// On a profile with workgroup-scope matrices, an f16 or bf16 gemm made of whole tiles goes on
/// them (natively only: the WGSL stays on subgroup matrices, or SIMT for bf16), its windows
/// proven inside, bf16 loaded as bf16; a ragged one and every other profile do not.
#[test]
fn whole_tile_gemms_go_on_workgroup_matrices_where_the_profile_has_them() {
    use tilecast_lang::DType::{BF16, F16};
    for (profile, shape, dtype, on) in [
        ("vulkan-nvidia", "4096x4096x4096", F16, true),
        ("vulkan-nvidia", "2048x2048x2048", F16, true),
        ("vulkan-nvidia", "4000x4000x4000", F16, false),
        ("vulkan-lavapipe", "4096x4096x4096", F16, false),
        ("vulkan-nvidia", "4096x4096x4096", BF16, true),
        ("vulkan-nvidia", "4000x4000x4000", BF16, false),
        ("vulkan-lavapipe", "4096x4096x4096", BF16, false),
    ] {
        let profile = Profile::named(profile).unwrap();
        let c = first_launch("gemm", shape, dtype, &profile);
        let native = c.native_lowered();
        assert_eq!(native.is_some(), on, "{shape} {dtype} on {}", profile.name);
        assert!(!c.wgsl().is_empty() && !c.wgsl().contains("workgroup-scope"));
        if let Some(text) = native {
            assert!(text.contains("one multiply-add of workgroup-scope matrices"));
            assert_eq!(text.matches("proven inside at every launch").count(), 3, "{text}");
            let words = c.native_spirv().unwrap();
            assert_eq!(words[1], 0x0001_0600, "SPIR-V 1.6");
            if dtype == BF16 {
                assert!(text.contains(&format!("{} operands", BF16)), "{text}");
                assert_eq!(text.matches("read by tensor-addressed loads only").count(), 2);
                // OpCapability BFloat16CooperativeMatrixKHR (5118).
                assert!(words.windows(2).any(|w| w == [(2 << 16) | 17, 5118]), "{text}");
            }
        }
    }
}

/// Linears of whole tiles go on workgroup-scope matrices too: `W[N, K]` loads through a
/// transposing tensor view, and the bias (and activation) run as one per-element operation
/// before the tensor store; a decode-shaped one does not.
#[test]
fn whole_tile_linears_go_on_workgroup_matrices_with_their_epilogue_per_element() {
    use tilecast_lang::DType::{BF16, F16};
    let profile = Profile::named("vulkan-nvidia").unwrap();
    for (name, shape, dtype, on) in [
        ("linear", "4096x4096x4096", F16, true),
        ("linear_gelu", "4096x4096x4096", BF16, true),
        ("linear", "16x4096x4096", F16, false),
    ] {
        let c = first_launch(name, shape, dtype, &profile);
        assert_eq!(c.native_lowered().is_some(), on, "{name} {shape} {dtype}");
        let Some(text) = c.native_lowered() else { continue };
        assert!(text.contains("loaded through a transposing view"), "{text}");
        assert!(text.contains("[one per-element operation on acc's workgroup-scope matrix]"));
        assert_eq!(text.matches("proven inside at every launch").count(), 3, "{text}");
        let words = c.native_spirv().unwrap();
        // OpCapability CooperativeMatrixPerElementOperationsNV (5432).
        assert!(words.windows(2).any(|w| w == [(2 << 16) | 17, 5432]), "{text}");
    }
}

/// Batched gemms of whole tiles go on workgroup-scope matrices with 3-D tensor layouts: each
/// window one batch item's `[1, rows, columns]` slice, all three proven inside.
#[test]
fn whole_tile_batched_gemms_go_on_workgroup_matrices() {
    use tilecast_lang::DType::{BF16, F16};
    let profile = Profile::named("vulkan-nvidia").unwrap();
    for (shape, dtype, on) in [
        ("8x2048x2048x2048", F16, true),
        ("32x1024x1024x128", BF16, true),
        ("8x2000x2048x2048", F16, false),
    ] {
        let c = first_launch("batched_gemm", shape, dtype, &profile);
        assert_eq!(c.native_lowered().is_some(), on, "{shape} {dtype}");
        if let Some(text) = c.native_lowered() {
            assert!(text.contains("load A[bz, (by * 128), (i4 * 32) ..] -> A_shared  [A_shared as one workgroup-scope matrix"), "{text}");
            assert_eq!(text.matches("proven inside at every launch").count(), 3, "{text}");
        }
    }
}
