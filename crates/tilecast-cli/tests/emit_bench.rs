//! `tilecast emit` without a GPU, and `tilecast bench` on whatever device exists.

use std::process::{Command, Output};

fn tilecast(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tilecast")).args(args).output().expect("run tilecast")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn emit_gemm_msl_for_the_metal_profile() {
    let o = tilecast(&["emit", "gemm", "--target", "msl", "--profile", "metal-apple7"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let msl = stdout(&o);
    assert!(
        msl.contains("profile metal-apple7") && msl.contains("#include <metal_stdlib>"),
        "{msl}"
    );
    assert!(msl.contains("kernel void tc_gemm(") && msl.contains("threadgroup "), "{msl}");
}

#[test]
fn emit_ir_wgsl_and_spirv() {
    let ir = stdout(&tilecast(&["emit", "gemm", "--target", "ir"]));
    assert!(ir.contains("pipelined") && ir.contains("stages 2"), "{ir}");
    assert!(ir.contains("// after passes") && ir.contains("A_shared<stage (i4 % 2)>"), "{ir}");
    assert!(
        ir.contains("fragment acc: f32[128, 128] -> layout SIMT register blocks 8x8 per thread")
            && ir.contains("(profile vulkan-lavapipe has no matrix units)"),
        "the selection pass names its choice per fragment: {ir}"
    );
    // A ragged shape stays on subgroup matrices; whole tiles go on workgroup-scope ones for
    // the native back end (the WGSL lowering still shows subgroup matrices).
    let nv = ["emit", "gemm", "--target", "ir", "--profile", "vulkan-nvidia", "--shape"];
    let ragged = stdout(&tilecast(&[&nv[..], &["4000x4000x4000"]].concat()));
    assert!(
        ragged.contains("layout 16x16 matrices, 2x2 subgroups each holding 4x4 (16x16x16 f16 -> f32 matrix units on profile vulkan-nvidia)")
            && ragged.contains("rows padded to 40 elements")
            && !ragged.contains("for the native SPIR-V back end"),
        "{ragged}"
    );
    let whole = stdout(&tilecast(&[&nv[..], &["4096x4096x4096"]].concat()));
    assert!(
        whole.contains("on workgroup-scope matrices (shape fixed)")
            && whole.contains("// for the native SPIR-V back end")
            && whole.contains("[one multiply-add of workgroup-scope matrices]"),
        "{whole}"
    );
    // The family's decision heads the listing: bf16 of whole tiles on bf16 workgroup matrices
    // (SIMT in WGSL), a ragged one through the converting plan.
    let bf16 = ["emit", "gemm", "--target", "ir", "--profile", "vulkan-nvidia", "--dtype", "bf16"];
    let ir = stdout(&tilecast(&bf16));
    assert!(
        ir.starts_with("// gemm 4096x4096x4096 bf16 on vulkan-nvidia: strategy gemm matrix: tiles 128x256x32")
            && ir.contains("[SIMT, 8x16 register block per thread]")
            && ir.contains("param A: bf16[4096, 4096] read, in its own type, read by tensor-addressed loads only")
            && ir.contains("accumulator matrix of the whole threadgroup (products of bf16 operands)"),
        "{ir}"
    );
    let ir = stdout(&tilecast(&[&bf16[..], &["--shape", "4000x4096x4096"]].concat()));
    assert!(
        ir.starts_with(
            "// gemm 4000x4096x4096 bf16 on vulkan-nvidia: strategy gemm bf16-converted: tiles"
        ) && ir.contains("launch 5 of 5"),
        "{ir}"
    );
    let wgsl =
        stdout(&tilecast(&["emit", "softmax", "--target", "wgsl", "--profile", "vulkan-nvidia"]));
    assert!(
        wgsl.contains("@compute @workgroup_size(256)") && wgsl.contains("fn tc_softmax("),
        "{wgsl}"
    );
    let ir = stdout(&tilecast(&["emit", "softmax", "--target", "ir", "--shape", "3x1001"]));
    assert!(ir.contains("kernel softmax 3x1001 f16") && ir.contains("f16[R, 1001]"), "{ir}");
    let spv = stdout(&tilecast(&["emit", "sum", "--target", "spirv-naga"]));
    assert!(spv.lines().nth(1).unwrap().starts_with("07230203"), "SPIR-V magic first: {spv}");
    let native = stdout(&tilecast(&["emit", "sum", "--target", "spirv"]));
    assert!(
        native.contains("; Version: 1.3") && native.contains("OpEntryPoint GLCompute"),
        "the native module's disassembly: {native}"
    );
    let dir = std::env::temp_dir().join(format!("tilecast-emit-{}.spv", std::process::id()));
    assert!(
        tilecast(&["emit", "gemm", "--target", "spirv", "-o", dir.to_str().unwrap()])
            .status
            .success()
    );
    let bytes = std::fs::read(&dir).unwrap();
    assert_eq!(&bytes[..4], &0x0723_0203u32.to_le_bytes());
    let _ = std::fs::remove_file(dir);
    let list = stdout(&tilecast(&["emit", "--list"]));
    assert!(list.lines().count() >= 25 && list.contains("rope_neox  ") && list.contains("BxSxHxD"));
}

#[test]
fn emit_rejects_unknown_names() {
    let o = tilecast(&["emit", "gemmm"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no kernel named \"gemmm\"; the library has: gemm"), "{err}");
    let o = tilecast(&["emit", "gemm", "--profile", "metal-apple9"]);
    assert!(
        String::from_utf8_lossy(&o.stderr)
            .contains("known: vulkan-nvidia, vulkan-lavapipe, metal-apple7")
    );
    // Launches are numbered from 1: 0 and one past the last are errors that say so.
    for n in ["0", "3"] {
        let args = ["emit", "decode_attention", "--shape", "1x8x64x64,kv=2", "--launch", n];
        let o = tilecast(&args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            !o.status.success()
                && err.contains("runs 2 launch(es)")
                && err.contains("numbered from 1 (--launch 1 to 2)"),
            "{err}"
        );
    }
}

#[test]
fn bench_runs_gemm_against_the_reference() {
    let o = tilecast(&[
        "bench", "--kernel", "gemm", "--shape", "33x65x70", "--dtype", "f32", "--iters", "1",
        "--json", "-",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let row = &v["rows"][0];
    assert_eq!((row["ok"].as_bool(), row["compared"].as_u64()), (Some(true), Some(2145)), "{v}");
    assert!(row["strategy"].as_str().unwrap().starts_with("gemm simt: tiles "), "{v}");
    assert!(v["roofline"]["copy_gbps"].as_f64().unwrap() > 0.0, "{v}");
    let o = tilecast(&["bench", "--kernel", "gemm", "--shape", "33x65", "--iters", "1"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not MxNxK"));
    let o = tilecast(&["bench", "--shape", "33x65"]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("--kernel"), "--shape needs --kernel");
    let o = tilecast(&[
        "bench",
        "--kernel",
        "gemm",
        "--shape",
        "8x8x8",
        "--tile",
        "60x60x8",
        "--threads",
        "128",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("do not divide evenly over 128 threads"));
}

#[test]
fn bench_with_a_shape_beyond_the_device_fails_cleanly_before_allocating() {
    let o = tilecast(&["bench", "--kernel", "gemm", "--shape", "100000x100000x100000"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "a clean error, not an abort: {err}");
    assert!(err.contains("100000") && err.contains("at most"), "names the size and limit: {err}");
}

#[test]
fn bench_suite_table_json_and_peer_column() {
    let dir = std::env::temp_dir().join(format!("tilecast-suite-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let json = dir.join("rows.json");
    let o = tilecast(&["bench", "--kernel", "rms_norm", "--json", json.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let table = stdout(&o);
    assert!(table.contains("roofline") && table.contains("rms_norm") && table.contains(" ok"));
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 8, "one row per quick shape: {v}");
    assert!(rows.iter().all(|r| r["ok"] == true && r["unit"] == "GB/s"), "{v}");
    // A peer file with one matching row: its time and the speedup column appear.
    let peer = dir.join("peer.json");
    std::fs::write(
        &peer,
        r#"{"rows": [{"kernel": "rms_norm", "shape": "3x1001", "dtype": "f16", "median_ms": 1.0}]}"#,
    )
    .unwrap();
    let o = tilecast(&["bench", "--kernel", "rms_norm", "--compare", peer.to_str().unwrap()]);
    let table = stdout(&o);
    assert!(table.contains("speedup") && table.contains("1.000 ms"), "{table}");
    let o = tilecast(&["bench", "--full", "--list"]);
    let cases: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(cases.as_array().unwrap().len() >= 25, "every kernel has full-suite cases");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_help_documents_every_kernel_shape() {
    let help = stdout(&tilecast(&["bench", "--help"]));
    for (kernel, shape) in
        [("gemm", "MxNxK"), ("softmax", "RxC"), ("rope", "BxSxHxD"), ("gemv", "NxK"), ("add", "N")]
    {
        assert!(
            help.lines().any(|l| l.trim_start().starts_with(kernel) && l.contains(shape)),
            "{kernel} {shape}: {help}"
        );
    }
}

#[test]
fn a_reader_that_stops_early_is_no_error() {
    // `tilecast bench --list | head -1`: the case list (80 KB, more than a pipe holds) meets
    // a closed pipe; tilecast stops quietly instead of panicking.
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_tilecast"))
        .args(["bench", "--list"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run tilecast");
    drop(child.stdout.take());
    let out = child.wait_with_output().expect("wait for tilecast");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !err.contains("panicked"), "{:?}\n{err}", out.status);
}

/// Mistakes a new user made, each an error that names the thing at fault (and the limit).
#[test]
fn user_mistakes_are_errors_that_name_the_argument() {
    let err = |args: &[&str]| {
        let o = tilecast(args);
        assert!(!o.status.success(), "{args:?} succeeded: {}", stdout(&o));
        (String::from_utf8_lossy(&o.stderr).into_owned(), stdout(&o))
    };
    // Dimensions of 2^32 or more were truncated to u32 (a kernel for 1 column).
    for cmd in ["emit", "bench"] {
        let (e, _) = err(&[cmd, "--kernel", "softmax", "--shape", "4x4294967297"][..]
            .iter()
            .copied()
            .filter(|a| cmd == "bench" || *a != "--kernel")
            .collect::<Vec<_>>());
        assert!(e.contains("dimension C = 4294967297 exceeds 4294967295"), "{cmd}: {e}");
    }
    let (e, _) = err(&["bench", "--kernel", "gemm", "--shape", "-3x4x4"]);
    assert!(e.contains("shape \"-3x4x4\" is not MxNxK"), "{e}");
    let (e, _) = err(&["emit", "gemm", "--shape", "-3x4x4"]);
    assert!(e.contains("shape \"-3x4x4\" is not MxNxK"), "{e}");
    let (e, _) = err(&["bench", "--kernel", "gemm", "--shape", "8x8x8", "--tile", "0x0x0"]);
    assert!(e.contains("--tile \"0x0x0\" is not BMxBNxBK with sizes of at least 1"), "{e}");
    let (e, _) = err(&["bench", "--kernel", "gemm", "--shape", "8x8x8", "--threads", "0"]);
    assert!(e.contains("--threads must be at least 1"), "{e}");
    // An unwritable --json is found before the benchmark runs: no table was printed.
    let missing = "/nonexistent-tilecast-dir/rows.json";
    let (e, out) = err(&["bench", "--kernel", "sum", "--shape", "3x5", "--json", missing]);
    assert!(e.contains(&format!("cannot write --json {missing}")) && out.is_empty(), "{e}{out}");
    let (e, _) = err(&["emit", "sum", "-o", "/nonexistent-tilecast-dir/sum.wgsl"]);
    assert!(e.contains("cannot write -o /nonexistent-tilecast-dir/sum.wgsl"), "{e}");
}
