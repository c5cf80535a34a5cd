//! Golden files: the IR listing (as written and after passes), WGSL, MSL and native SPIR-V
//! (disassembled, Vulkan profiles) of every registry
//! entry and input type, at one ragged quick shape, on every named profile, kept in `tests/out/`
//! (as naga keeps its own), so that every change to generated code shows in review; and, on
//! `vulkan-nvidia`, the IR and SPIR-V of a few whole-tile problems that run on workgroup-scope
//! matrices; and a few kernels built directly (not through the registry) or at a large shape,
//! whose lowering differs from the quick shapes' (`language_cases`).
//!
//! `scripts/bless` (`TILECAST_BLESS=1 cargo test -p tilecast-kernels --test golden`) rewrites
//! them; without it a difference, a missing file or a file no case makes fails the test, naming
//! each.

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tilecast_kernels::Entry;
use tilecast_kernels::listing::{Target, render};
use tilecast_lang::Profile;

/// The environment variable that turns the check into a rewrite.
const BLESS_ENV: &str = "TILECAST_BLESS";

/// Each target: its folder under `tests/out/` and the listing. Files end in `.txt`: they are
/// generated text, not sources to lint or search for duplicates.
/// `spirv` holds the native back end's disassembly on the Vulkan profiles, or the reason it
/// does not print the kernel yet.
const TARGETS: [(&str, Target); 4] = [
    ("ir", Target::Ir),
    ("wgsl", Target::Wgsl),
    ("msl", Target::Msl),
    ("spirv", Target::Spirv { binary: false }),
];

/// The shape a golden file is made at: the entry's second quick shape (the first is often a
/// single element), which is a multiple of no tile size.
fn golden_shape(e: &Entry) -> &'static str {
    e.quick.get(1).copied().unwrap_or(e.quick[0])
}

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/out")
}

/// Every golden file: its path relative to `tests/out/` and its contents.
fn cases() -> Vec<(String, Vec<u8>)> {
    // Entries are rendered on every core.
    let mut files = common::over_entries(|e| {
        let mut files = Vec::new();
        let mut problems: Vec<(String, tilecast_kernels::Problem)> = e
            .dtypes
            .iter()
            .map(|&dtype| {
                (format!("{}.{dtype}", e.name), e.problem(golden_shape(e), dtype).unwrap())
            })
            .collect();
        // Quantized families: each other weight format and way of running too, at the first
        // quick shape that has it.
        if e.option_names().contains(&"format") {
            let first = Profile::named(Profile::NAMES[0]).unwrap();
            let path = |p: &tilecast_kernels::Problem| match e.plan(p, &first).unwrap().strategy {
                tilecast_kernels::registry::Strategy::Gemm(g) => g.path.name().to_string(),
                _ => String::new(),
            };
            let golden = &problems[0].1;
            let mut seen = vec![(golden.options.format, path(golden))];
            for shape in e.quick {
                let p = e.problem(shape, e.dtypes[0]).unwrap();
                let key = (p.options.format, path(&p));
                if !seen.contains(&key) {
                    let f = p.options.format.map(|f| f.name()).unwrap_or("none");
                    let way = if key.1.is_empty() { String::new() } else { format!(".{}", key.1) };
                    problems.push((format!("{}.{f}{way}.{}", e.name, e.dtypes[0]), p));
                    seen.push(key);
                }
            }
        }
        for (label, problem) in problems {
            let dtype = problem.dtype;
            for name in Profile::NAMES {
                let profile = Profile::named(name).unwrap();
                let plan = e.plan(&problem, &profile).unwrap();
                let chosen: Vec<usize> = (0..plan.launches.len()).collect();
                for (dir, target) in TARGETS {
                    let native = matches!(target, Target::Spirv { .. });
                    if native && !name.starts_with("vulkan") {
                        continue;
                    }
                    let text = match render(e, &problem, &profile, &plan, &chosen, target) {
                        Ok(text) => text,
                        Err(err) if native => format!("; {err}\n").into_bytes(),
                        Err(err) => panic!("{} {dtype} on {name}: {err}", e.name),
                    };
                    files.push((format!("{dir}/{label}.{name}.txt"), text));
                }
            }
        }
        files
    });
    files.extend(workgroup_cases());
    files.extend(language_cases());
    files
}

/// Kernels built with the language directly (the gemm of `GemmConfig`'s default and of a
/// profile's choice, softmax, a row sum, decode-shaped row dots, an epilogue) and library
/// kernels at shapes the quick ones do not reach (a 4096-wide softmax row split over every
/// subgroup; rms_norm on Metal; qgemv's integer product for eight activation rows and for
/// long rows), each as the listing that shows what its case is about.
fn language_cases() -> Vec<(String, Vec<u8>)> {
    use tilecast_kernels::basic;
    use tilecast_kernels::gemm::{GemmConfig, gemm};
    use tilecast_lang::back::emit;
    use tilecast_lang::{Compiled, DType, compile};

    let built = |k: &tilecast_lang::ir::Kernel, profile: &str| -> Compiled {
        compile(k, &Profile::named(profile).unwrap()).unwrap()
    };
    // The plan's first launch, or its last (`last`): a product after the launches that feed it.
    let library_launch = |name: &str, shape: &str, profile: &str, last: bool| -> Compiled {
        let e = tilecast_kernels::lookup(name).unwrap();
        let prof = Profile::named(profile).unwrap();
        let plan = e.plan(&e.problem(shape, e.dtypes[0]).unwrap(), &prof).unwrap();
        let launch = if last { plan.launches.len() - 1 } else { 0 };
        compile(&plan.launches[launch].ir, &prof).unwrap()
    };
    let library =
        |name: &str, shape: &str, profile: &str| library_launch(name, shape, profile, false);
    let nvidia = Profile::named("vulkan-nvidia").unwrap();
    let gemm_default = built(&gemm(&GemmConfig::default()), "vulkan-lavapipe");
    let gemm_nvidia =
        built(&gemm(&GemmConfig::for_profile(&nvidia, DType::F16, DType::F32)), "vulkan-nvidia");
    let msl = |c: &Compiled| emit::msl(c).unwrap();
    // A ragged window of u32 words copied to a shared tile: 128-bit loads through a vec4 view.
    let words = {
        use tilecast_lang::{Kernel, block_x, block_y};
        let k = Kernel::new("word_window").grid([3u32, 2]).threads(32);
        let w = k.input("W", DType::U32, [13u32, 44]);
        let y = k.param("Y", DType::U32, [13u32, 44]);
        let s = k.shared_named("s", DType::U32, [8, 16]);
        k.copy(w.tile([block_y() * 8u32, block_x() * 16u32]), &s);
        k.copy(&s, y.tile([block_y() * 8u32, block_x() * 16u32]));
        built(&k.build(), "vulkan-nvidia")
    };
    vec![
        ("ir/language.word_window.vulkan-nvidia.txt", words.ir_lowered().to_string()),
        ("wgsl/language.word_window.vulkan-nvidia.txt", words.wgsl().to_string()),
        ("ir/language.gemm.vulkan-lavapipe.txt", gemm_default.ir_lowered().to_string()),
        ("wgsl/language.gemm.vulkan-lavapipe.txt", gemm_default.wgsl().to_string()),
        ("wgsl/language.gemm_for_profile.vulkan-nvidia.txt", gemm_nvidia.wgsl().to_string()),
        (
            "ir/language.softmax.vulkan-nvidia.txt",
            built(&basic::softmax(), "vulkan-nvidia").ir_lowered().to_string(),
        ),
        ("msl/language.row_sum.metal-apple7.txt", msl(&built(&basic::row_sum(), "metal-apple7"))),
        (
            "ir/language.row_dots.vulkan-nvidia.txt",
            built(&basic::row_dots(), "vulkan-nvidia").ir_lowered().to_string(),
        ),
        (
            "wgsl/language.row_dots.vulkan-lavapipe.txt",
            built(&basic::row_dots(), "vulkan-lavapipe").wgsl().to_string(),
        ),
        (
            "wgsl/language.add_gelu.vulkan-nvidia.txt",
            built(&basic::add_gelu(), "vulkan-nvidia").wgsl().to_string(),
        ),
        (
            "ir/softmax.f32.32768x4096.vulkan-nvidia.txt",
            library("softmax", "32768x4096", "vulkan-nvidia").ir_lowered().to_string(),
        ),
        (
            "msl/rms_norm.f32.4x1001.metal-apple7.txt",
            msl(&library("rms_norm", "4x1001", "metal-apple7")),
        ),
        // Eight activation rows in 4 parts: 8 threads per row block and part, threadgroups of
        // 256.
        (
            "ir/qgemv.q4_0.rows8.14336x4096.vulkan-nvidia.txt",
            library_launch("qgemv", "14336x4096,q4_0,rows=8", "vulkan-nvidia", true)
                .ir_lowered()
                .to_string(),
        ),
        // The f16 mat-vec over 8 activation rows on the same frame: 16 threads a row.
        (
            "ir/gemv.f16.rows8.14336x4096.vulkan-nvidia.txt",
            library("gemv", "14336x4096,rows=8", "vulkan-nvidia").ir_lowered().to_string(),
        ),
        // 16 threads per row would leave too few threads: a thread per unit, 4 rows a group.
        (
            "ir/qgemv.q4_k.4096x14336.vulkan-nvidia.txt",
            library_launch("qgemv", "4096x14336,q4_k", "vulkan-nvidia", true)
                .ir_lowered()
                .to_string(),
        ),
    ]
    .into_iter()
    .map(|(path, text)| (path.to_string(), text.into_bytes()))
    .collect()
}

/// Problems the native back end runs on workgroup-scope matrices that no quick shape reaches
/// (whole-tile gemms, 256-wide attention heads), on `vulkan-nvidia`: their IR listing (which
/// shows that lowering) and SPIR-V.
fn workgroup_cases() -> Vec<(String, Vec<u8>)> {
    use tilecast_lang::DType::{BF16, F16};
    let profile = Profile::named("vulkan-nvidia").unwrap();
    let mut files = Vec::new();
    for (name, shape, dtype) in [
        ("gemm", "4096x4096x4096", F16),
        ("gemm", "4096x4096x4096", BF16),
        ("linear_gelu", "4096x4096x4096", F16),
        ("batched_gemm", "8x2048x2048x2048", BF16),
        ("qgemm", "512x14336x4096,q8_0", F16),
        // 256-wide heads: the accumulator and V blocks in two chunks of 128 columns.
        ("attention", "1x2x77x150x256,causal", F16),
    ] {
        let e = tilecast_kernels::lookup(name).unwrap();
        let problem = e.problem(shape, dtype).unwrap();
        let plan = e.plan(&problem, &profile).unwrap();
        let chosen: Vec<usize> = (0..plan.launches.len()).collect();
        for (dir, target) in [TARGETS[0], TARGETS[3]] {
            let text = render(e, &problem, &profile, &plan, &chosen, target).unwrap();
            let shape = shape.replace(',', ".");
            files.push((format!("{dir}/{name}.{dtype}.{shape}.{}.txt", profile.name), text));
        }
    }
    files
}

/// Files under `dir`, relative to it.
fn existing(dir: &Path) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for (sub, _) in TARGETS {
        let Ok(read) = std::fs::read_dir(dir.join(sub)) else { continue };
        for f in read.flatten() {
            found.insert(format!("{sub}/{}", f.file_name().to_string_lossy()));
        }
    }
    found
}

#[test]
fn generated_code_matches_the_golden_files() {
    let dir = out_dir();
    let cases = cases();
    let made: BTreeSet<String> = cases.iter().map(|(p, _)| p.clone()).collect();
    let stale: Vec<String> = existing(&dir).difference(&made).cloned().collect();
    if std::env::var_os(BLESS_ENV).is_some() {
        for (dir_name, _) in TARGETS {
            std::fs::create_dir_all(dir.join(dir_name)).unwrap();
        }
        for (path, text) in &cases {
            let file = dir.join(path);
            if std::fs::read(&file).ok().as_deref() != Some(&text[..]) {
                std::fs::write(&file, text).unwrap();
            }
        }
        for path in &stale {
            std::fs::remove_file(dir.join(path)).unwrap();
        }
        return;
    }
    let mut problems = Vec::new();
    for (path, text) in &cases {
        match std::fs::read(dir.join(path)) {
            Ok(old) if old == *text => {}
            Ok(old) => problems.push(format!("changed: {path}{}", first_difference(&old, text))),
            Err(_) => problems.push(format!("missing: {path}")),
        }
    }
    problems.extend(stale.iter().map(|p| format!("made by no case: {p}")));
    assert!(
        problems.is_empty(),
        "{} of {} golden files under {} differ from what the compiler makes now; review the \
         change and run scripts/bless to accept it:\n{}",
        problems.len(),
        cases.len(),
        dir.display(),
        problems.join("\n")
    );
}

/// ` (line N: "old" -> "new")` for the first line that differs.
fn first_difference(old: &[u8], new: &[u8]) -> String {
    let (old, new) = (String::from_utf8_lossy(old), String::from_utf8_lossy(new));
    let mut lines = old.lines().zip(new.lines()).enumerate();
    match lines.find(|(_, (a, b))| a != b) {
        Some((i, (a, b))) => format!(" (line {}: {a:?} -> {b:?})", i + 1),
        None => format!(" ({} lines -> {})", old.lines().count(), new.lines().count()),
    }
}
