//! Every registry entry, every input type it takes, every quick-suite shape (ragged: multiples
//! of no tile size), run on the local device (lavapipe in CI) and checked against its CPU
//! reference through the same harness `tilecast bench` uses.

mod common;

use common::device;
use tilecast_kernels::harness::Prepared;
use tilecast_kernels::registry::Role;
use tilecast_kernels::{CodePath, LoadAs, entries, lookup};
use tilecast_runtime::{ShaderLibrary, Stream, SyncType};

/// Runs every quick case of `name` as the runtime chooses (native SPIR-V where the back end
/// prints the kernel, on devices that take it) and, where that was native, through WGSL too:
/// the quick suite through both back ends.
fn run_entry(name: &str) {
    run_entry_as(name, LoadAs::Auto);
}

/// Runs every quick case of `name` loaded `first` (and, where that ran native SPIR-V, through
/// WGSL too), checked against the CPU reference.
fn run_entry_as(name: &str, first: LoadAs) {
    let e = lookup(name).unwrap();
    let library = ShaderLibrary::with_cache_dir(device(), None);
    let mut failures = Vec::new();
    for &dtype in e.dtypes {
        for shape in e.quick {
            let p = e.problem(shape, dtype).unwrap();
            let mut ways = vec![first];
            while let Some(how) = ways.pop() {
                let prepared = Prepared::new(device(), &library, e, &p, how)
                    .unwrap_or_else(|err| panic!("{name} {shape} {dtype}: {err}"));
                let code = prepared.code();
                if how == LoadAs::Auto && code.contains("spirv") {
                    ways.push(LoadAs::Code(CodePath::Wgsl));
                }
                let mut s = Stream::new(device());
                prepared.launch(&mut s).unwrap();
                s.synchronize(SyncType::CommitAndWait).unwrap();
                let c = prepared.check().unwrap();
                assert!(c.compared > 0, "{name} {shape} {dtype}: nothing compared");
                if !c.ok {
                    failures.push(format!(
                        "{name} {shape} {dtype} ({code}): max error {:e}, worst {:.3} of the \
                         tolerance {:?}",
                        c.max_abs_error, c.worst, c.tolerance
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The WGSL of kernels that read parameters through vector views (bindings with gaps where a
/// parameter is read only that way), written as SPIR-V by naga and passed through as native
/// modules are: right where the bindings are renumbered as wgpu numbers the layout.
#[test]
fn wgsl_through_naga_spirv_matches_the_references() {
    if !device().capabilities().features.native_spirv {
        eprintln!("skipped: {:?} takes no SPIR-V modules as they are", device().name());
        return;
    }
    for name in ["gemv", "rope"] {
        run_entry_as(name, LoadAs::Code(CodePath::NagaSpirv));
    }
}

macro_rules! library_tests {
    ($($test:ident => $name:literal),* $(,)?) => {
        $(#[test] fn $test() { run_entry($name); })*

        /// Every entry has a test above.
        #[test]
        fn every_entry_is_tested() {
            let tested = [$($name),*];
            for e in entries() {
                assert!(tested.contains(&e.name), "no test runs {}", e.name);
            }
        }
    };
}

library_tests! {
    attention => "attention",
    attention_lse => "attention_lse",
    decode_attention => "decode_attention",
    paged_decode_attention => "paged_decode_attention",
    gemm => "gemm",
    batched_gemm => "batched_gemm",
    linear => "linear",
    linear_gelu => "linear_gelu",
    scale_rows_f16 => "scale_rows_f16",
    linear_prescaled => "linear_prescaled",
    scale_cols_f16 => "scale_cols_f16",
    gemm_prescaled => "gemm_prescaled",
    gemv => "gemv",
    softmax => "softmax",
    log_softmax => "log_softmax",
    rms_norm => "rms_norm",
    layer_norm => "layer_norm",
    layer_norm_nobias => "layer_norm_nobias",
    add_rms_norm => "add_rms_norm",
    rope => "rope",
    rope_neox => "rope_neox",
    embedding => "embedding",
    swap_axes => "swap_axes",
    paged_kv_write => "paged_kv_write",
    add => "add",
    mul => "mul",
    swiglu => "swiglu",
    silu => "silu",
    gelu => "gelu",
    gelu_tanh => "gelu_tanh",
    sum => "sum",
    max => "max",
    argmax => "argmax",
    cast_f32 => "cast_f32",
    cast_f16 => "cast_f16",
    cast_bf16 => "cast_bf16",
    cast_e4m3 => "cast_e4m3",
    cast_e5m2 => "cast_e5m2",
    transpose => "transpose",
    qgemv => "qgemv",
    qgemm => "qgemm",
}

/// A wrong result is caught: the harness's check fails when an output is disturbed.
#[test]
fn a_disturbed_output_fails_the_check() {
    let e = lookup("rms_norm").unwrap();
    let library = ShaderLibrary::with_cache_dir(device(), None);
    let p = e.problem("3x1001", tilecast_lang::DType::F32).unwrap();
    let prepared = Prepared::new(device(), &library, e, &p, LoadAs::Auto).unwrap();
    let mut s = Stream::new(device());
    prepared.launch(&mut s).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert!(prepared.check().unwrap().ok);
    let out = prepared.args.iter().position(|a| a.role == Role::Output).unwrap();
    let mut y = prepared.buffers[out].download::<f32>().unwrap();
    y[1500] += 1e-3;
    prepared.buffers[out].upload(&y).unwrap();
    let c = prepared.check().unwrap();
    assert!(!c.ok && c.worst > 1.0, "{c:?}");
}

/// Bad shapes, types and constraints are errors that name the kernel and the rule.
#[test]
fn bad_problems_are_refused_with_the_rule() {
    let rope = lookup("rope").unwrap();
    let err = rope.problem("2x3x4x5", tilecast_lang::DType::F32).unwrap_err().to_string();
    assert!(err.contains("rope") && err.contains("even"), "{err}");
    let err = rope.problem("2x3x4", tilecast_lang::DType::F32).unwrap_err().to_string();
    assert!(err.contains("BxSxHxD"), "{err}");
    let err = lookup("softmax").unwrap().problem("0x5", tilecast_lang::DType::F32).unwrap_err();
    assert!(err.to_string().contains("positive"), "{err}");
    let err = lookup("softmax").unwrap().problem("4x5", tilecast_lang::DType::I8).unwrap_err();
    assert!(err.to_string().contains("f16, f32"), "{err}");
    // Kernels index with 32-bit integers: a larger dimension is refused, not truncated.
    let err = lookup("softmax").unwrap().problem("4x4294967297", tilecast_lang::DType::F16);
    let err = err.unwrap_err().to_string();
    assert!(err.contains("dimension C = 4294967297 exceeds 4294967295"), "{err}");
    let err = lookup("sofmax").unwrap_err().to_string();
    assert!(err.contains("softmax"), "{err}");
}

/// Every entry recovers its problem from its inputs' shapes; a wrong shape is named.
#[test]
fn problems_are_recovered_from_input_shapes() {
    for e in entries() {
        for shape in e.quick.iter().chain(e.full) {
            let p = e.problem(shape, e.dtypes[0]).unwrap();
            let shapes: Vec<Vec<usize>> =
                e.args(&p).into_iter().filter(|a| a.role == Role::Input).map(|a| a.shape).collect();
            // A quantized matrix's format and group are the caller's to give.
            let given = tilecast_kernels::registry::Options {
                format: p.options.format,
                group: p.options.group,
                ..Default::default()
            };
            let q = e.problem_for_inputs_with(&shapes, e.dtypes[0], given).unwrap();
            let again: Vec<Vec<usize>> =
                e.args(&q).into_iter().filter(|a| a.role == Role::Input).map(|a| a.shape).collect();
            assert_eq!(again, shapes, "{} {shape}", e.name);
            // A paged cache's inputs hold its capacity (the block table's width in pages),
            // not the longest sequence: L comes back rounded up to whole pages.
            if e.name == "paged_decode_attention" {
                let page = p.options.page.unwrap_or(16);
                assert_eq!(q.dims[2], p.dims[2].div_ceil(page) * page, "{shape}");
            } else if e.name == "paged_kv_write" {
                // L is the block table's width, in pages of the default 16 unless given.
                let width = p.dims[4].div_ceil(p.options.page.unwrap_or(16));
                assert_eq!((&q.dims[..4], q.dims[4]), (&p.dims[..4], width * 16), "{shape}");
            } else {
                assert_eq!(q.dims, p.dims, "{} {shape}", e.name);
            }
        }
    }
    let e = lookup("rms_norm").unwrap();
    let err = e.problem_for_inputs(&[vec![3, 5], vec![4]], tilecast_lang::DType::F32).unwrap_err();
    assert!(err.to_string().contains("input W has shape [4]"), "{err}");
}

/// Each family's decision comes with its plan: rows held whole by 1024 threads where the kernel
/// writes them back, in chunks for plain reductions; the gemm's path and tiles.
#[test]
fn plans_carry_the_family_decision() {
    use tilecast_kernels::registry::Strategy;
    use tilecast_lang::{DType, Profile};
    let nvidia = Profile::named("vulkan-nvidia").unwrap();
    let strategy = |name: &str, shape: &str| {
        let e = lookup(name).unwrap();
        e.plan(&e.problem(shape, DType::F16).unwrap(), &nvidia).unwrap().strategy
    };
    match strategy("softmax", "4x32768") {
        Strategy::Rows(r) => assert_eq!((r.threads, r.chunked, r.width), (1024, false, 32768)),
        other => panic!("softmax: {other}"),
    }
    match strategy("sum", "4x32768") {
        Strategy::Rows(r) => assert!(r.chunked && r.threads == 256, "{r}"),
        other => panic!("sum: {other}"),
    }
    let gemm = strategy("gemm", "4000x4000x4000").to_string();
    assert!(gemm.starts_with("gemm matrix: tiles 128x128x32, 128 threads"), "{gemm}");
    // Whole tiles of the profile's workgroup-matrix tile go on those matrices.
    let gemm = strategy("gemm", "4096x4096x4096").to_string();
    assert!(
        gemm.starts_with("gemm matrix: tiles 128x256x32, 256 threads")
            && gemm.ends_with("on workgroup-scope matrices (shape fixed)"),
        "{gemm}"
    );
    assert_eq!(strategy("add", "1001"), Strategy::Fixed);
}

/// A fused qgemm whose K ends inside a K step: the tile's tail past K must read zero, not the
/// last slice again. Lavapipe's own tiles step K by one unit (no tail), so this takes K steps
/// of 64 over K = 96 (GPU profiles step by 128).
#[test]
fn qgemm_k_ending_inside_a_step() {
    let e = lookup("qgemm").unwrap();
    let library = ShaderLibrary::with_cache_dir(device(), None);
    for shape in ["33x37x96,q4_0", "33x37x96,q8_0", "21x19x160,mlx4,group=32"] {
        let mut p = e.problem(shape, tilecast_lang::DType::F16).unwrap();
        p.gemm = Some(tilecast_kernels::gemm::GemmConfig {
            bm: 32,
            bn: 32,
            bk: 64,
            threads: 64,
            ..Default::default()
        });
        let prepared = Prepared::new(device(), &library, e, &p, LoadAs::Auto).unwrap();
        launch_and_check(&prepared, shape);
    }
}

/// Rope reads tables of any length that hold its positions (`offset + S` rows or more): a
/// table of exactly S rows at the default offset 0, or a model's long table at a decode
/// position. An offset past the table is an error naming the table, its rows, the offset and
/// S, never a result of zeros.
#[test]
fn rope_takes_any_table_that_holds_its_positions() {
    use common::{buf, max_err, values};
    use tilecast_kernels::harness::{LoadedPlan, download_f32};
    use tilecast_lang::DType::F32;
    let library = ShaderLibrary::with_cache_dir(device(), None);
    let (b, s, h, d) = (2, 5, 3, 64);
    let x = values(b * s * h * d, 1);
    let launch = |e, rows: usize, offset: usize| {
        let shapes = [vec![b, s, h, d], vec![rows, d / 2], vec![rows, d / 2]];
        let p = e_problem(e, &shapes);
        let (cos, sin) = (values(rows * d / 2, 2), values(rows * d / 2, 3));
        let y = device().alloc_in(tilecast_runtime::StorageMode::Private, F32, &shapes[0]);
        let y = y.unwrap();
        let args = [&buf(&x, &shapes[0]), &buf(&cos, &shapes[1]), &buf(&sin, &shapes[2]), &y];
        let plan = LoadedPlan::new(device(), &library, e, &p, LoadAs::Auto).unwrap();
        let scratch = plan.alloc_scratch(device()).unwrap();
        let mut stream = Stream::new(device());
        plan.launch(&mut stream, &args, &scratch, &[("offset", offset as f64)])?;
        stream.synchronize(SyncType::CommitAndWait).unwrap();
        let half = e.name == "rope_neox";
        let want = tilecast_kernels::reference::ops::rope(
            &x,
            [b, s, h, d],
            &cos,
            &sin,
            &vec![offset; b],
            half,
        );
        Ok::<_, tilecast_kernels::Error>(max_err(&download_f32(&y).unwrap(), &want))
    };
    fn e_problem(e: &tilecast_kernels::Entry, shapes: &[Vec<usize>]) -> tilecast_kernels::Problem {
        let p = e.problem_for_inputs(shapes, tilecast_lang::DType::F32);
        let p = p.unwrap_or_else(|err| panic!("{} on tables {:?}: {err}", e.name, shapes[1]));
        assert_eq!(e.scalars(&p), [("offset", 0.0)], "{}: the offset defaults to 0", e.name);
        p
    }
    for name in ["rope", "rope_neox"] {
        let e = lookup(name).unwrap();
        for (rows, offset) in [(s, 0), (4096, 0), (4096, 1000), (4096, 4096 - s)] {
            let err = launch(e, rows, offset).unwrap_or_else(|err| panic!("{name}: {err}"));
            assert!(err < 1e-5, "{name}, {rows} table rows, offset {offset}: error {err}");
        }
        for (rows, offset) in [(s, 1), (4096, 4092), (4096, 5000)] {
            let err = launch(e, rows, offset).expect_err("an offset past the table").to_string();
            let named = format!("table Cos has {rows} rows; offset {offset} + S = {s}");
            assert!(err.contains(name) && err.contains(&named), "{err}");
        }
        // The shape text takes the table's rows and the offset as options; the tables' rows
        // default to offset + S.
        let p = e.problem(&format!("{b}x{s}x{h}x{d},offset=7"), F32).unwrap();
        assert_eq!(e.args(&p)[1].shape, [s + 7, d / 2]);
        assert_eq!(e.scalars(&p), [("offset", 7.0)]);
        let p = e.problem(&format!("{b}x{s}x{h}x{d},positions=4096,offset=7"), F32).unwrap();
        assert_eq!(e.args(&p)[1].shape, [4096, d / 2]);
        let err = e.problem(&format!("{b}x{s}x{h}x{d},positions=8,offset=7"), F32).unwrap_err();
        assert!(err.to_string().contains("table Cos has 8 rows; offset 7 + S = 5"), "{err}");
    }
}

/// `max` and `argmax` propagate NaN as numpy and torch do: a row holding a NaN has max NaN
/// and argmax the index of its first NaN, wherever the NaNs sit in a ragged row (first,
/// middle, last, several, negative, after an infinity), on every path (rows held whole, read
/// in chunks), for f32 and f16; the CPU reference agrees.
#[test]
fn max_and_argmax_propagate_nan() {
    use tilecast_kernels::harness::{LoadedPlan, download_f32};
    use tilecast_lang::DType::{F16, F32};
    let library = ShaderLibrary::with_cache_dir(device(), None);
    for c in [1001, 9000, 33001] {
        let mut x = common::values(8 * c, 7);
        let nan = f32::NAN;
        let mut want_arg = [0usize; 8];
        // (row, NaN columns): the first is argmax's.
        for (r, cols) in [
            (0, vec![0]),
            (1, vec![c / 2]),
            (2, vec![c - 1]),
            (3, vec![c / 3, 2 * c / 3, c - 1]),
            (4, vec![c - 2]),
            (6, vec![7]),
        ] {
            for &j in &cols {
                x[r * c + j] = if r == 6 { -nan } else { nan };
            }
            want_arg[r] = cols[0];
        }
        // An infinity before the NaN (row 4) does not win; a row without NaN keeps its max.
        x[4 * c + 5] = f32::INFINITY;
        x[5 * c + c / 2] = 2.0;
        want_arg[5] = c / 2;
        // A row of -inf: max -inf, argmax 0.
        x[7 * c..8 * c].fill(f32::NEG_INFINITY);
        assert!(-nan != -nan && (-nan).is_sign_negative());
        let reference_max = tilecast_kernels::reference::ops::max_rows(&x, c);
        let reference_arg = tilecast_kernels::reference::ops::argmax_rows(&x, c);
        for dtype in [F32, F16] {
            let input = match dtype {
                F16 => {
                    let h: Vec<half::f16> = x.iter().map(|&v| half::f16::from_f32(v)).collect();
                    device().buffer_from_slice(&h, &[8, c]).unwrap()
                }
                _ => common::buf(&x, &[8, c]),
            };
            for name in ["max", "argmax"] {
                let e = lookup(name).unwrap();
                let p = e.problem(&format!("8x{c}"), dtype).unwrap();
                let out = e.args(&p)[1].clone();
                let y = device().alloc(out.dtype, &out.shape).unwrap();
                let plan = LoadedPlan::new(device(), &library, e, &p, LoadAs::Auto).unwrap();
                let mut s = Stream::new(device());
                plan.launch(&mut s, &[&input, &y], &[], &[]).unwrap();
                s.synchronize(SyncType::CommitAndWait).unwrap();
                let got = download_f32(&y).unwrap();
                for r in 0..8 {
                    let row = &x[r * c..(r + 1) * c];
                    let what = format!("{name} {dtype} 8x{c} row {r}: got {}", got[r]);
                    if name == "argmax" {
                        assert_eq!(got[r], want_arg[r] as f32, "{what}");
                        assert_eq!(reference_arg[r], want_arg[r] as f32, "reference {what}");
                    } else if row.iter().any(|v| v.is_nan()) {
                        assert!(got[r].is_nan(), "{what}");
                        assert!(reference_max[r].is_nan(), "reference {what}");
                    } else {
                        let m = row.iter().fold(f32::NEG_INFINITY, |a, &v| a.max(v));
                        let m = if dtype == F16 { half::f16::from_f32(m).to_f32() } else { m };
                        assert_eq!(got[r], m, "{what}");
                    }
                }
            }
        }
    }
}

/// The prefill kernel with its accumulator (and V blocks) in column chunks, as 256-wide heads
/// run on NVIDIA's workgroup-scope matrices, here through the device's own lowering: ragged S
/// and T, causal with S > T, grouped and multi-query heads, checked against the reference.
#[test]
fn prefill_accumulator_in_column_chunks() {
    use tilecast_kernels::attention::{AttentionConfig, attention};
    use tilecast_kernels::registry::{Plan, Strategy};
    use tilecast_lang::Profile;
    let e = lookup("attention").unwrap();
    let library = ShaderLibrary::with_cache_dir(device(), None);
    let profile = Profile::from_capabilities(device().capabilities());
    for (shape, chunk) in
        [("2x4x19x13x64,kv=2,causal", 32), ("1x3x21x37x96,kv=1", 32), ("1x2x9x40x64,causal", 16)]
    {
        let p = e.problem(shape, tilecast_lang::DType::F16).unwrap();
        let d = p.dims[4] as u32;
        let (input, acc_columns) = (p.dtype, chunk);
        let cfg =
            AttentionConfig { bm: 32, bn: 16, d, stages: 1, threads: 128, acc_columns, input };
        let plan = Plan::single(attention(&cfg, false)).with_strategy(Strategy::Attention(cfg));
        let ir = plan.launches[0].ir.clone();
        let lowered = tilecast_lang::compile(&ir, &profile).unwrap().ir_lowered().to_string();
        assert!(lowered.contains("acc1") && lowered.contains("v_s1"), "{shape}: {lowered}");
        let prepared = Prepared::with_plan(device(), &library, e, &p, &plan, LoadAs::Auto).unwrap();
        launch_and_check(&prepared, shape);
    }
}

/// One launch of `prepared`, waited for, then its check against the entry's reference
/// (`shape` names the case in the failure).
fn launch_and_check(prepared: &Prepared, shape: &str) {
    let mut s = Stream::new(device());
    prepared.launch(&mut s).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    let c = prepared.check().unwrap();
    assert!(
        c.ok,
        "{shape}: max error {:e}, worst {:.3} of the tolerance",
        c.max_abs_error, c.worst
    );
}
