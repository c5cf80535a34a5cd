//! Pass-level tests: fragment layout, selection, software pipelining and barrier placement each
//! checked on the IR they produce.

use tilecast_lang::DType::{F16, F32};
use tilecast_lang::analysis::layout;
use tilecast_lang::ir::{Region, Scope, Stmt, Tile};
use tilecast_lang::lir::FragmentLayout;
use tilecast_lang::passes::ir::{barriers, pipeline, select};
use tilecast_lang::{Expr, Kernel, Profile, block_x, ceil_div, compile, sym};

fn tile(shape: &[u32]) -> Tile {
    Tile {
        name: "acc".into(),
        scope: Scope::Fragment,
        dtype: F32,
        shape: shape.to_vec(),
        stages: 1,
    }
}

#[test]
fn layout_prefers_square_register_blocks_that_divide_both_axes() {
    let l = layout::fragment_layout(&tile(&[128, 128]), 256).unwrap();
    assert_eq!((l.tm, l.tn, l.thread_cols()), (8, 8, 16));
    let l = layout::fragment_layout(&tile(&[16, 32]), 64).unwrap();
    assert_eq!(l.per_thread(), 8);
    assert_eq!((l.tm, l.tn), (2, 4), "squarest of 1x8, 2x4, 4x2, 8x1 that divides 16 and 32");
    let l = layout::fragment_layout(&tile(&[64]), 64).unwrap();
    assert_eq!((l.rows, l.tm, l.tn), (1, 1, 1), "1-D fragments are one row");
    assert!(layout::fragment_layout(&tile(&[60, 60]), 128).unwrap_err().contains("do not divide"));
    assert!(layout::fragment_layout(&tile(&[2, 2, 2]), 8).unwrap_err().contains("1-D or 2-D"));
}

/// A 64x64 f32 gemm with K steps of 16 on 128 threads. Epilogue 1 scales the accumulator
/// element by element before saving it; epilogue 2 also copies it into a second fragment.
fn small_gemm(epilogue: u8) -> tilecast_lang::ir::Kernel {
    let (m, n, kd) = (sym("M"), sym("N"), sym("K"));
    let k = Kernel::new("g").grid([ceil_div(&n, 64u32), ceil_div(&m, 64u32)]).threads(128);
    let (a, b, c) =
        (k.input("A", F32, [&m, &kd]), k.input("B", F32, [&kd, &n]), k.param("C", F32, [&m, &n]));
    let (a_s, b_s) = (k.shared_named("A_s", F32, [64, 16]), k.shared_named("B_s", F32, [16, 64]));
    let acc = k.fragment_named("acc", F32, [64, 64]);
    k.clear(&acc);
    k.serial(ceil_div(&kd, 16u32), |k, ko| {
        k.copy(a.tile([block_x() * 64u32, &ko * 16u32]), &a_s);
        k.copy(b.tile([&ko * 16u32, block_x() * 64u32]), &b_s);
        k.gemm(&a_s, &b_s, &acc);
    });
    if epilogue >= 1 {
        k.parallel([64, 64], |k, [i, j]| k.store(&acc, [&i, &j], acc.at([&i, &j]) * 2.0f32));
    }
    if epilogue == 2 {
        let other = k.fragment_named("other", F32, [64, 64]);
        k.parallel([64, 64], |k, [i, j]| k.store(&other, [&i, &j], acc.at([&i, &j])));
        k.copy(&other, c.tile([block_x() * 64u32, block_x() * 64u32]));
    }
    k.copy(&acc, c.tile([block_x() * 64u32, block_x() * 64u32]));
    k.build()
}

#[test]
fn selection_names_its_choice_and_reason_per_profile() {
    let acc = |k: &tilecast_lang::ir::Kernel| k.tiles.iter().position(|t| t.name == "acc").unwrap();
    let mut k = small_gemm(0);
    let sel = select::select(&mut k, &Profile::named("vulkan-lavapipe").unwrap()).unwrap();
    let s = sel[acc(&k)].as_ref().unwrap();
    assert!(matches!(s.layout, FragmentLayout::Simt(b) if b.per_thread() == 32));
    assert_eq!(s.reason, "profile vulkan-lavapipe has no matrix units");

    let mut k = small_gemm(0);
    let tiles_before = k.tiles.len();
    let sel = select::select(&mut k, &Profile::named("metal-apple7").unwrap()).unwrap();
    let s = sel[acc(&k)].as_ref().unwrap();
    let FragmentLayout::Matrix(m) = s.layout else { panic!("{s:?}") };
    assert_eq!((m.shape, m.warps, m.blocks), (8, [2, 2], [4, 4]));
    assert_eq!(k.tiles.len(), tiles_before + 1, "a scratch matrix per subgroup for the save");
    assert_eq!(k.tiles[m.scratch.unwrap().0].shape, [4 * 8 * 8]);

    // A pointwise epilogue runs on the matrices, through the scratch matrix.
    let mut k = small_gemm(1);
    let sel = select::select(&mut k, &Profile::named("metal-apple7").unwrap()).unwrap();
    let s = sel[acc(&k)].as_ref().unwrap();
    let FragmentLayout::Matrix(m) = s.layout else { panic!("{s:?}") };
    assert!(m.scratch.is_some());

    // A loop that also touches another fragment (whose layout may differ) keeps SIMT.
    let mut k = small_gemm(2);
    let sel = select::select(&mut k, &Profile::named("metal-apple7").unwrap()).unwrap();
    let s = sel[acc(&k)].as_ref().unwrap();
    assert!(matches!(s.layout, FragmentLayout::Simt(_)));
    assert_eq!(
        s.reason,
        "a loop touches its elements beside another fragment's, and matrix fragments are opaque"
    );
}

fn staged_kernel(stages: u32) -> tilecast_lang::ir::Kernel {
    let (m, kd) = (sym("M"), sym("K"));
    let k = Kernel::new("staged").grid([ceil_div(&m, 16u32)]).threads(64);
    let x = k.input("X", F32, [&m, &kd]);
    let t = k.shared_named("t", F32, [16, 8]);
    let acc = k.shared_named("acc", F32, [16]);
    k.clear(&acc);
    k.pipelined(ceil_div(&kd, 8u32), stages, |k, ko| {
        k.copy(x.tile([block_x() * 16u32, &ko * 8u32]), &t);
        k.reduce_sum_into(&t, &acc, 1);
    });
    k.build()
}

#[test]
fn pipelining_multi_buffers_loaded_tiles_and_issues_loads_ahead() {
    for stages in 1..=4u32 {
        let mut k = staged_kernel(stages);
        pipeline::pipeline(&mut k).unwrap();
        let t = k.tiles.iter().find(|t| t.name == "t").unwrap();
        assert_eq!(t.stages, if stages == 1 { 1 } else { stages });
        let prologue = k.body.iter().filter(|s| matches!(s, Stmt::If { .. })).count();
        assert_eq!(prologue as u32, stages - 1, "one guarded load per stage ahead");
        let Some(Stmt::For { body, .. }) = k.body.iter().find(|s| matches!(s, Stmt::For { .. }))
        else {
            panic!("a loop remains: {k}");
        };
        if stages > 1 {
            assert_eq!(body[0], Stmt::Barrier, "one barrier heads each iteration");
            assert!(matches!(&body[1], Stmt::If { then, .. }
                if matches!(&then[0], Stmt::Copy { dst: Region::Tile { stage: Some(_), .. }, sync: false, .. })));
            assert!(matches!(&body[2], Stmt::Reduce { src_stage: Some(_), .. }), "{k}");
        }
    }
}

/// The kernel body's statements as "barrier", "fill", "parallel" or "other".
fn statement_kinds(k: &tilecast_lang::ir::Kernel) -> Vec<&'static str> {
    k.body
        .iter()
        .map(|s| match s {
            Stmt::Barrier => "barrier",
            Stmt::Fill { .. } => "fill",
            Stmt::Parallel { .. } => "parallel",
            _ => "other",
        })
        .collect()
}

#[test]
fn barriers_fence_every_write_to_threadgroup_memory_once() {
    let k = Kernel::new("fences").threads(64);
    let (a, b) = (k.shared_named("a", F32, [64]), k.shared_named("b", F32, [64]));
    let l = k.local(F32, [4]);
    k.fill(&a, 1.0f32);
    k.fill(&b, 2.0f32);
    k.fill(&l, 0.0f32);
    k.parallel([64], |k, [i]| k.store(&a, [i.clone()], b.at([i])));
    let mut k = k.build();
    barriers::place_barriers(&mut k);
    let kinds = statement_kinds(&k);
    // Nothing was touched before the first fill: no barrier before it. The two independent
    // shared fills share the barrier after them, which also serves the parallel loop (the
    // local fill between touches no threadgroup memory).
    assert_eq!(kinds, ["fill", "fill", "barrier", "fill", "parallel", "barrier"]);

    // A statement reading what the one before it wrote keeps the barrier between them.
    let k = Kernel::new("dependent").threads(64);
    let (a, b) = (k.shared_named("a", F32, [64]), k.shared_named("b", F32, [64]));
    k.fill(&b, 2.0f32);
    k.reduce_sum(&b, &a, 0);
    let mut k = k.build();
    barriers::place_barriers(&mut k);
    let barriers = k.body.iter().filter(|s| **s == Stmt::Barrier).count();
    assert_eq!(barriers, 2, "fill, barrier, reduce, barrier: {k}");

    // A write to a tile read since the last barrier waits for its readers; a write to another
    // tile does not, and may not share the interval with the first (fills of a and b would
    // otherwise share one barrier).
    let k = Kernel::new("war").threads(64);
    let (a, b) = (k.shared_named("a", F32, [64]), k.shared_named("b", F32, [64]));
    let y = k.param("Y", F32, [64u32]);
    k.fill(&a, 1.0f32);
    k.parallel([64], |k, [i]| k.store(&y, [i.clone()], a.at([i])));
    k.fill(&b, 2.0f32);
    k.fill(&a, 3.0f32);
    let mut k = k.build();
    barriers::place_barriers(&mut k);
    let kinds = statement_kinds(&k);
    assert_eq!(kinds, ["fill", "barrier", "parallel", "fill", "barrier", "fill", "barrier"], "{k}");
}

/// A parallel body over a fragment is emitted once per register slot (constant register
/// indices), and the listing says so; over a shared tile it stays a loop over threads.
#[test]
fn fragment_parallel_bodies_are_unrolled_over_register_slots() {
    let (m, n) = (sym("M"), sym("N"));
    let k = Kernel::new("unroll").grid([ceil_div(&n, 64u32), ceil_div(&m, 32u32)]).threads(128);
    let (x, y) = (k.input("X", F32, [&m, &n]), k.param("Y", F32, [&m, &n]));
    let f = k.fragment_named("f", F32, [32, 64]);
    let s = k.shared_named("s", F32, [32, 64]);
    let (bx, by) = (block_x(), tilecast_lang::block_y());
    k.copy(x.tile([&by * 32u32, &bx * 64u32]), &f);
    k.parallel([32, 64], |k, [i, j]| k.store(&f, [&i, &j], f.at([&i, &j]).erf()));
    k.copy(&f, &s);
    k.parallel([32, 64], |k, [i, j]| k.store(&s, [&i, &j], s.at([&i, &j]) * 2.0f32));
    k.copy(&s, y.tile([&by * 32u32, &bx * 64u32]));
    let c =
        tilecast_lang::compile(&k.build(), &Profile::named("vulkan-lavapipe").unwrap()).unwrap();
    assert_eq!(c.ir_lowered().matches("unrolled over its register slots").count(), 1);
    // 16 slots per thread: 16 copies of the erf body, indexed by constants 0u..15u.
    assert!(c.wgsl().contains("f0_f[15u] = "), "{}", c.wgsl());
    assert!(!c.wgsl().contains("for (var _i"), "no slot loop is left: {}", c.wgsl());
}

#[test]
fn parameter_coordinates_proven_inside_lose_their_run_time_tests() {
    // A grid of 4 blocks over 4 rows: the block index is proven below 4.
    let k = Kernel::new("pairs").grid([4u32]).threads(64);
    let x = k.input("X", F32, [4u32, 128]);
    let s = k.input("S", F32, [sym("N")]);
    let y = k.param("Y", F32, [4u32, 128]);
    let wide = k.input("W", F32, [4u32, 127]);
    let tall = k.input("T", F32, [3u32, 128]);
    k.parallel([64], |k, [q]| {
        // At most 2 * 63 + 1 = 127 < 128: proven.
        let odd = q.clone() * 2u32 + 1u32;
        // Up to 128: tested; and against a symbolic length: tested.
        let past = q.clone() * 2u32 + 2u32;
        let v = x.at([block_x(), odd.clone()])
            + x.at([block_x(), past])
            + s.at([q.clone()])
            + wide.at([block_x(), odd.clone()])
            + tall.at([block_x(), odd.clone()]);
        k.store(&y, [block_x(), odd], v);
    });
    let c = tilecast_lang::compile(&k.build(), &Profile::named("vulkan-lavapipe").unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    let ir = c.ir_lowered();
    assert_eq!(ir.matches("(proven inside)").count(), 2, "X[bx, odd] and Y[bx, odd]: {ir}");
    // T has 3 rows and the grid 4 blocks: its row stays tested.
    assert_eq!(ir.matches("(tested on axis 0)").count(), 1, "T[bx, odd]: {ir}");
    let wgsl = c.wgsl();
    assert!(wgsl.contains("fn ldu_g0_X(") && wgsl.contains("fn stu_g2_Y("), "{wgsl}");
    // 127 columns: `odd` reaches 127, so W keeps both tests; so do X[bx, past] and S[q].
    assert!(wgsl.contains(" ld_g0_X(") || wgsl.contains("(ld_g0_X("), "{wgsl}");
    assert!(!wgsl.contains("ldk0_g3_W") && !wgsl.contains("ldk0_g1_S"), "{wgsl}");
}

/// A serial loop's constant trip count bounds its counter: a read it proves inside loses its
/// test (element reads and packed words alike); one it cannot prove keeps it.
#[test]
fn loop_trip_counts_prove_reads_inside() {
    let k = Kernel::new("trips").grid([1u32]).threads(32);
    let x = k.input("X", F32, [8u32, 32]);
    let short = k.input("Z", F32, [7u32, 32]);
    let w = k.input("W", tilecast_lang::DType::U8, [8u32, 64]);
    let y = k.param("Y", F32, [32u32]);
    k.serial(8u32, |k, r| {
        k.parallel([32], |k, [q]| {
            // r < 8: X[r, q] is inside; Z has 7 rows, so Z[r, q] keeps its row test.
            let words = w.word(r.clone() * 16u32 + q.clone() / 2u32).cast(F32);
            let past = w.word(r.clone() * 16u32 + q.clone()).cast(F32);
            let v = x.at([r.clone(), q.clone()]) + short.at([r.clone(), q.clone()]) + words + past;
            k.store(&y, [q.clone()], y.at([q.clone()]) + v);
        });
    });
    let kernel = k.build();
    let c = tilecast_lang::compile(&kernel, &Profile::named("vulkan-lavapipe").unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    let ir = c.ir_lowered();
    assert!(ir.contains("X[i4, p5](proven inside)"), "{ir}");
    assert!(!ir.contains("X[i4, p5](tested"), "{ir}");
    // The guards pass's twin tests Z's row once before the loop; the other path keeps it.
    assert!(ir.contains("Z[i4, p5](tested on axis 0)"), "Z's row: {ir}");
    // 8 * 64 bytes are 128 words: word r * 16 + q / 2 is at most 127, r * 16 + q reaches 143.
    assert!(ir.contains("W.word(((i4 * 16) + (p5 / 2)))(proven inside)"), "{ir}");
    assert!(!ir.contains("W.word(((i4 * 16) + p5))(proven inside)"), "{ir}");
    let wgsl = c.wgsl();
    assert!(wgsl.contains("fn wdu_g2_W(") && wgsl.contains("fn wd_g2_W("), "{wgsl}");
    let native = tilecast_lang::compile(&kernel, &Profile::named("vulkan-nvidia").unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(native.ir_lowered().contains(")(proven inside)"));
}

/// Threadgroup-tile coordinates go through the same range analysis as parameters': an index
/// built from a loop counter and a parallel index, proven below the tile's dimension, loses
/// its test; one that can reach past it keeps it.
#[test]
fn tile_coordinates_proven_by_range_analysis_lose_their_tests() {
    let k = Kernel::new("tile_ranges").grid([1u32]).threads(64);
    let y = k.param("Y", F32, [64u32]);
    let s = k.shared_named("s", F32, [4, 64]);
    k.parallel([4, 64], |k, [i, j]| k.store(&s, [&i, &j], 1.0f32));
    k.serial(4u32, |k, r| {
        k.parallel([16], |k, [q]| {
            // r * 16 + q is at most 63 < 64: proven; r * 16 + q + 1 reaches 64: tested.
            let inside = s.at([r.clone(), r.clone() * 16u32 + q.clone()]);
            let past = s.at([r.clone(), r.clone() * 16u32 + q.clone() + 1u32]);
            k.store(&y, [r.clone() * 16u32 + q.clone()], inside + past);
        });
    });
    let c = tilecast_lang::compile(&k.build(), &Profile::named("vulkan-lavapipe").unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    let ir = c.ir_lowered();
    assert!(ir.contains("(s[i6, ((i6 * 16) + p7)] + "), "proven: {ir}");
    assert!(ir.contains("s[i6, (((i6 * 16) + p7) + 1)]?"), "tested: {ir}");
}

/// Lets reading constant offsets past 4 from an aligned base share the vector load of their
/// own run (`base + 4`, lanes 0-3), as offsets below 4 share the base's; a base not proven a
/// multiple of 4 keeps word reads.
#[test]
fn lets_read_every_aligned_run_of_a_wide_offset_as_one_vector() {
    let k = Kernel::new("runs").grid([1u32]).threads(8);
    let x = k.input("X", tilecast_lang::DType::U32, [2u32, 64]);
    let y = k.param("Y", tilecast_lang::DType::U32, [2u32, 8]);
    k.parallel([8], |k, [q]| {
        let aligned =
            (0..8u32).map(|c| k.let_named("a", x.at([Expr::from(0u32), q.clone() * 8u32 + c])));
        let odd =
            (0..8u32).map(|c| k.let_named("b", x.at([Expr::from(1u32), q.clone() * 6u32 + c])));
        let sum = aligned.chain(odd).reduce(|a, b| a + b).expect("sixteen reads");
        k.store(&y, [Expr::from(0u32), q.clone()], sum);
    });
    let c = tilecast_lang::compile(&k.build(), &Profile::named("vulkan-lavapipe").unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    let ir = c.ir_lowered();
    assert!(ir.contains("X[0, (p4 * 8)](proven inside).lane3"), "first run: {ir}");
    assert!(ir.contains("X[0, ((p4 * 8) + 4)](proven inside).lane3"), "second run: {ir}");
    assert!(ir.contains("X[1, ((p4 * 6) + 5)](proven inside)  "), "unaligned: {ir}");
    assert!(!ir.contains("X[1, ((p4 * 6) + 4)](proven inside).lane"), "unaligned: {ir}");
}

/// Words of a u8 parameter whose bytes are whole 16-byte runs, at constant offsets from a
/// base proven a multiple of 4 and proven inside, share one 16-byte load per run (lane reads
/// of its `vec4<u32>` view); words of bytes that end mid-run, or whose index is tested, stay
/// word reads.
#[test]
fn word_reads_of_aligned_runs_of_packed_bytes_share_one_vector_load() {
    use tilecast_lang::DType::{U8, U32};
    let k = Kernel::new("words").grid([1u32]).threads(4);
    let w = k.input("W", U8, [2u32, 64]);
    let v = k.input("V", U8, [3u32, 20]);
    let s = k.input("S", U8, [sym("n"), Expr::from(64u32)]);
    let y = k.param("Y", U32, [4u32]);
    k.parallel([4], |k, [q]| {
        let runs = (0..8u32).map(|c| k.let_named("a", w.word(q.clone() * 8u32 + c)));
        let short = (0..4u32).map(|c| k.let_named("b", v.word(q.clone() * 4u32 + c)));
        let tested = (0..4u32).map(|c| k.let_named("c", s.word(q.clone() * 4u32 + c)));
        let sum = runs.chain(short).chain(tested).reduce(|a, b| a + b).expect("sixteen reads");
        k.store(&y, [q.clone()], sum);
    });
    let c = tilecast_lang::compile(&k.build(), &Profile::named("vulkan-lavapipe").unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    let ir = c.ir_lowered();
    assert!(ir.contains("W.words4((p4 * 8)).lane3"), "first run: {ir}");
    assert!(ir.contains("W.words4(((p4 * 8) + 4)).lane1"), "second run: {ir}");
    assert!(
        ir.contains("param W: u8[2, 64] read, u8 packed in u32 words, widened on load, vec4 view"),
        "{ir}"
    );
    assert!(ir.contains("V.word(((p4 * 4) + 2))(proven inside)"), "bytes end mid-run: {ir}");
    assert!(!ir.contains("V.words4"), "bytes end mid-run: {ir}");
    assert!(ir.contains("S.word(((p4 * 4) + 1))"), "tested: {ir}");
    assert!(!ir.contains("S.words4"), "tested: {ir}");
    // One load per run in the WGSL and in the native module (its view named `v_g0_W`).
    assert_eq!(c.wgsl().matches("v_g0_W[").count(), 2, "{}", c.wgsl());
    let words = c.native_spirv().unwrap_or_else(|e| panic!("{e}"));
    let text = tilecast_lang::back::spirv::disassemble(words);
    let view = text
        .lines()
        .find_map(|l| l.strip_prefix("OpName ").filter(|l| l.ends_with("\"v_g0_W\"")))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("a view of W: {text}"))
        .to_string();
    let loads = text
        .lines()
        .filter(|l| l.contains("OpAccessChain") && l.contains(&format!(" {view} ")))
        .count();
    assert_eq!(loads, 2, "{text}");
}

/// A u8 parameter whose words are read as runs by lets and which is also copied into a shared
/// tile: its view holds words, so the copy stays element by element (a view of elements would
/// read words as bytes).
#[test]
fn a_word_view_does_not_make_copies_of_bytes_vector_copies() {
    use tilecast_lang::DType::{U8, U32};
    let k = Kernel::new("both").grid([1u32]).threads(4);
    let w = k.input("W", U8, [4u32, 64]);
    let y = k.param("Y", U32, [4u32]);
    let s = k.shared_named("W_shared", U8, [4, 64]);
    k.copy(w.tile([Expr::from(0u32), Expr::from(0u32)]), &s);
    k.parallel([4], |k, [q]| {
        let words = (0..4u32).map(|c| k.let_named("a", w.word(q.clone() * 16u32 + c)));
        let sum = words.reduce(|a, b| a + b).expect("four reads") + s.at([q.clone(), q.clone()]);
        k.store(&y, [q.clone()], sum);
    });
    let c = tilecast_lang::compile(&k.build(), &Profile::named("vulkan-lavapipe").unwrap())
        .unwrap_or_else(|e| panic!("{e}"));
    let ir = c.ir_lowered();
    assert!(ir.contains("W.words4((p4 * 16)).lane3"), "word runs: {ir}");
    assert!(!ir.contains("vec4 when the row length"), "the copy of W stays scalar: {ir}");
    c.naga().unwrap_or_else(|e| panic!("the WGSL checks: {e}"));
}

/// A gemv-shaped kernel on constant shapes: `[2, 1024]` windows of `W[rows, cols]` chunk by
/// chunk over a grid of `rows / 2` threadgroups (rounded up), into a fragment, then saved.
fn chunked_rows(rows: u32, cols: u32) -> tilecast_lang::ir::Kernel {
    let k = Kernel::new("chunks").grid([ceil_div(rows, 2u32)]).threads(256);
    let w = k.input("W", F32, [rows, cols]);
    let y = k.param("Y", F32, [rows, 1024]);
    let (t, sum) = (k.fragment_named("t", F32, [2, 1024]), k.fragment_named("s", F32, [2, 1024]));
    k.clear(&sum);
    k.serial(cols / 1024, |k, j| {
        k.copy(w.tile([block_x() * 2u32, j * 1024u32]), &t);
        k.parallel([2, 1024], |k, [i, c]| {
            k.store(&sum, [&i, &c], sum.at([&i, &c]) + t.at([&i, &c]))
        });
    });
    k.copy(&sum, y.tile([block_x() * 2u32, 0u32.into()]));
    k.build()
}

#[test]
fn windows_proven_inside_at_every_launch_keep_only_their_unmasked_path() {
    let profile = Profile::named("vulkan-nvidia").unwrap();
    let proven = tilecast_lang::compile(&chunked_rows(64, 4096), &profile).unwrap();
    let ir = proven.ir_lowered();
    // The load (rows bx * 2 + 0..2 of 64, columns j * 1024 + 0..1024 of 4096, j < 4) and
    // the save (rows likewise, columns 0..1024 of 1024).
    assert_eq!(ir.matches("proven inside at every launch").count(), 2, "{ir}");
    let wgsl = proven.wgsl();
    // The accessors are declared once each; only the unmasked vector ones are called.
    let calls = |f: &str| wgsl.matches(f).count() - 1;
    assert_eq!((calls("ld_g0_W("), calls("ldv_g0_W(")), (0, 0), "no masked load: {wgsl}");
    assert!(calls("ldvu_g0_W(") > 0 && calls("stvu_g1_Y(") > 0, "{wgsl}");
    assert!(!wgsl.contains("else"), "no fallback: {wgsl}");
    // 63 rows: the last threadgroup's windows cross the edge, so the run-time test and the
    // masked fallback stay.
    let ragged = tilecast_lang::compile(&chunked_rows(63, 4096), &profile).unwrap();
    let ir = ragged.ir_lowered();
    assert_eq!(ir.matches("proven inside").count(), 0, "{ir}");
    assert!(ir.contains("unmasked when the window lies inside"), "{ir}");
    assert!(ragged.wgsl().matches("ld_g0_W(").count() > 1, "the masked fallback stays");
    // Columns 4098 (not a multiple of 4): inside, but the vector path is not proven aligned.
    let unaligned = tilecast_lang::compile(&chunked_rows(64, 4098), &profile).unwrap();
    let ir = unaligned.ir_lowered();
    assert_eq!(ir.matches("proven inside at every launch").count(), 1, "only the save: {ir}");
}

/// A row kernel: each [1, 256] window of X scaled by `S[c]` (or, with `stride` 2, by
/// `S[2c]`) and summed into `Out`, then saved to Y.
fn scaled_rows(stride: u32) -> tilecast_lang::ir::Kernel {
    let k = Kernel::new("rows").grid([sym("R")]).threads(64);
    let x = k.input("X", F32, [sym("R"), 256u32.into()]);
    let s = k.input("S", F32, [512u32]);
    let y = k.param("Y", F32, [sym("R"), 256u32.into()]);
    let out = k.param("Out", F32, [sym("R")]);
    let rows = k.fragment_named("rows", F32, [1, 256]);
    let sum = k.shared_named("sum", F32, [1]);
    k.copy(x.tile([block_x(), 0u32.into()]), &rows);
    k.parallel([1, 256], |k, [i, c]| {
        k.store(&rows, [&i, &c], rows.at([&i, &c]) * s.at([c.clone() * stride]));
    });
    k.reduce_sum(&rows, &sum, 1);
    k.copy(&rows, y.tile([block_x(), 0u32.into()]));
    k.copy(&sum, out.tile([block_x()]));
    k.build()
}

#[test]
fn fragments_that_only_move_to_global_memory_get_vector_runs_unless_a_loop_reads_strided() {
    let profile = Profile::named("vulkan-lavapipe").unwrap();
    let c = tilecast_lang::compile(&scaled_rows(1), &profile).unwrap_or_else(|e| panic!("{e}"));
    let ir = c.ir_lowered();
    assert!(ir.contains("1x4 per thread over 1x64 threads, columns in runs of 4"), "{ir}");
    assert_eq!(ir.matches("vec4 when the row length and origin allow").count(), 2, "{ir}");
    let wgsl = c.wgsl();
    // Thread t owns columns 4t..4t+3: one vector load and one vector save.
    assert!(wgsl.contains("let c = (tid % 64u) * 4u;"), "{wgsl}");
    assert!(wgsl.contains("let v0 = ldvu_g0_X(") && wgsl.contains("stvu_g2_Y("), "{wgsl}");
    assert!(wgsl.contains("var<storage, read_write> v_g2_Y: array<vec4<f32>>"), "{wgsl}");
    // S[c]: S's rows are whole vectors and the offset is 0, so each run reads it once, as a
    // vector, and its four slots take the components.
    assert!(ir.contains("S read as one vector per run of columns"), "{ir}");
    assert!(wgsl.contains("= ldvu_g1_S(") && wgsl.contains("_rv1.w"), "{wgsl}");
    // S[2c] would put a subgroup's reads 8 elements apart: the strided layout stays.
    let c = tilecast_lang::compile(&scaled_rows(2), &profile).unwrap_or_else(|e| panic!("{e}"));
    let ir = c.ir_lowered();
    assert!(ir.contains("1x4 per thread over 1x64 threads (") && !ir.contains("runs of"), "{ir}");
    assert!(!c.wgsl().contains("ldvu_g0_X("), "{}", c.wgsl());
}

/// Each [64, 64] window of X staged in threadgroup memory, gathered into a fragment (down the
/// window's columns when `down_column`, along its rows otherwise) and saved to Y.
fn gathered_window(down_column: bool) -> tilecast_lang::ir::Kernel {
    let k = Kernel::new("gather").grid([ceil_div(sym("R"), 64)]).threads(256);
    let x = k.input("X", F32, [sym("R"), 64u32.into()]);
    let y = k.param("Y", F32, [sym("R"), 64u32.into()]);
    let w = k.shared_named("window", F32, [64, 64]);
    let f = k.fragment_named("out", F32, [64, 64]);
    k.copy(x.tile([block_x() * 64u32, 0u32.into()]), &w);
    k.parallel([64, 64], |k, [r, c]| {
        let v = if down_column { w.at([&c, &r]) } else { w.at([&r, &c]) };
        k.store(&f, [&r, &c], v);
    });
    k.copy(&f, y.tile([block_x() * 64u32, 0u32.into()]));
    k.build()
}

#[test]
fn a_fragment_gathered_down_a_padded_column_keeps_runs_but_not_along_a_row() {
    let profile = Profile::named("vulkan-nvidia").unwrap();
    // Down a column: runs (vector saves), and the window padded to an odd word pitch.
    let c = tilecast_lang::compile(&gathered_window(true), &profile).unwrap();
    let ir = c.ir_lowered();
    assert!(ir.contains("columns in runs of 4"), "{ir}");
    assert!(ir.contains("rows padded to 65 elements"), "{ir}");
    // Along a row, lanes 4 columns apart would conflict 4 ways: the strided layout stays.
    let c = tilecast_lang::compile(&gathered_window(false), &profile).unwrap();
    let ir = c.ir_lowered();
    assert!(!ir.contains("runs of") && !ir.contains("rows padded"), "{ir}");
}

/// sin, cos, pow and fma print as WGSL's own functions and reach Metal through naga.
#[test]
fn sin_cos_pow_and_fma_print_as_functions_on_every_target() {
    let n = sym("N");
    let k = Kernel::new("trig").grid([ceil_div(&n, 64u32)]).threads(64);
    let x = k.param("X", F16, [&n]);
    let t = k.fragment_named("t", F16, [64]);
    k.copy(x.tile([block_x() * 64u32]), &t);
    k.parallel([64], |k, [i]| {
        let v = t.at([&i]);
        k.store(&t, [&i], v.clone().sin().fma(v.clone().cos(), v.pow(2.0f32)));
    });
    k.copy(&t, x.tile([block_x() * 64u32]));
    let ir = k.build();
    for name in Profile::NAMES {
        let c = compile(&ir, &Profile::named(name).unwrap()).unwrap();
        let wgsl = c.wgsl();
        assert!(
            wgsl.contains("fma(sin(") && wgsl.contains("cos(") && wgsl.contains("pow("),
            "{wgsl}"
        );
        let msl = tilecast_lang::back::emit::msl(&c).unwrap();
        assert!(msl.contains("metal::fma(metal::sin(") && msl.contains("metal::pow("), "{msl}");
        assert!(c.ir_lowered().contains("fma(sin("), "{}", c.ir_lowered());
    }
}

/// An epilogue that names a value with a let stays pointwise: the accumulator keeps its matrix
/// units on NVIDIA, and the let is evaluated once per element through the matrix scratch.
#[test]
fn a_let_in_a_matrix_epilogue_keeps_the_matrix_units() {
    let (m, n, kd) = (sym("M"), sym("N"), sym("K"));
    let k = Kernel::new("gemm_let").grid([ceil_div(&n, 128u32), ceil_div(&m, 128u32)]).threads(128);
    let a = k.input("A", F16, [&m, &kd]);
    let b = k.input("B", F16, [&kd, &n]);
    let c = k.param("C", F32, [&m, &n]);
    let (a_s, b_s) = (k.shared(F16, [128, 32]), k.shared(F16, [32, 128]));
    let acc = k.fragment_named("acc", F32, [128, 128]);
    let (bx, by) = (block_x(), tilecast_lang::block_y());
    k.clear(&acc);
    k.serial(ceil_div(&kd, 32u32), |k, ko| {
        k.copy(a.tile([&by * 128u32, &ko * 32u32]), &a_s);
        k.copy(b.tile([&ko * 32u32, &bx * 128u32]), &b_s);
        k.gemm(&a_s, &b_s, &acc);
    });
    k.parallel([128, 128], |k, [i, j]| {
        let v = k.let_named("v", acc.at([&i, &j]) * 0.5f32);
        k.store(&acc, [&i, &j], v.clone() * v.tanh());
    });
    k.copy(&acc, c.tile([&by * 128u32, &bx * 128u32]));
    let c = compile(&k.build(), &Profile::named("vulkan-nvidia").unwrap()).unwrap();
    let ir = c.ir_lowered();
    assert!(ir.contains("16x16x16 f16 -> f32 matrix units") && ir.contains("let v = "), "{ir}");
    // Each matrix's copy of the epilogue computes v once and reads it twice.
    let wgsl = c.wgsl();
    let lets = wgsl.matches("let let0_v = ").count();
    assert!(lets > 0 && wgsl.matches("tanh(let0_v)").count() == lets, "{wgsl}");
    assert_eq!(wgsl.matches("* 0.5f").count(), lets, "{wgsl}");
}

/// Attention's two products in f16: `S = Q K^T`, `P = exp(S)` in an f16 fragment, `O += P V`.
/// P feeds the second gemm from registers (the rewrite stages it in shared scratch), and O
/// accumulates on matrix units where the profile has them.
#[test]
fn a_fragment_operand_compiles_on_every_profile_and_keeps_matrix_units() {
    let (t, d) = (sym("T"), 32u32);
    let k = Kernel::new("qk_pv").grid([Expr::from(1u32)]).threads(128);
    let q = k.input("Q", F16, [Expr::from(64u32), Expr::from(d)]);
    let kk = k.input("K", F16, [t.clone(), Expr::from(d)]);
    let v = k.input("V", F16, [t.clone(), Expr::from(d)]);
    let o = k.param("O", F32, [Expr::from(64u32), Expr::from(d)]);
    let (q_s, k_s, v_s) = (
        k.shared_named("q_s", F16, [64, d]),
        k.shared_named("k_s", F16, [64, d]),
        k.shared_named("v_s", F16, [64, d]),
    );
    let s = k.fragment_named("s", F32, [64, 64]);
    let p = k.fragment_named("p", F16, [64, 64]);
    let acc = k.fragment_named("acc", F32, [64, d]);
    k.copy(q.tile([Expr::from(0u32), Expr::from(0u32)]), &q_s);
    k.clear(&acc);
    k.serial(ceil_div(&t, 64u32), |k, j| {
        k.copy(kk.tile([&j * 64u32, Expr::from(0u32)]), &k_s);
        k.copy(v.tile([&j * 64u32, Expr::from(0u32)]), &v_s);
        k.clear(&s);
        k.gemm_t(&q_s, &k_s, &s, false, true);
        k.parallel([64, 64], |k, [i, c]| k.store(&p, [&i, &c], s.at([&i, &c]).exp().cast(F16)));
        k.gemm(&p, &v_s, &acc);
    });
    k.copy(&acc, o.tile([Expr::from(0u32), Expr::from(0u32)]));
    let ir = k.build();
    for name in Profile::NAMES {
        let c = compile(&ir, &Profile::named(name).unwrap()).unwrap();
        let lowered = c.ir_lowered();
        assert!(lowered.contains("shared p_scratch: f16[64, 64]"), "{name}: {lowered}");
        if name == "vulkan-nvidia" {
            let acc_line = lowered.lines().find(|l| l.contains("fragment acc:")).unwrap();
            assert!(acc_line.contains("matrix units"), "{acc_line}");
            // S is exponentiated beside P: its gemm runs in a matrix twin, stored through a
            // shared stage into the SIMT fragment the loop reads.
            let twin = lowered.lines().find(|l| l.contains("fragment s_mma:")).unwrap();
            assert!(twin.contains("matrix units"), "{twin}");
            assert!(lowered.contains("gemm q_s x k_s^T += s_mma"), "{lowered}");
            assert!(lowered.contains("copy s_mma -> s_stage  [by s_mma's matrices"), "{lowered}");
            assert!(lowered.contains("its gemms run on matrix units in s_mma"), "{lowered}");
            assert!(c.wgsl().contains("_s_mma_m0, &s7_s_stage["), "{}", c.wgsl());
            assert_eq!(c.matrix_fragments(), ["acc", "s_mma"]);
        }
        if name == "metal-apple7" {
            // The 16 KiB stage would not fit beside the other tiles in 32 KiB: no twin.
            assert!(!lowered.contains("s_mma"), "{lowered}");
        }
        if name == "vulkan-lavapipe" {
            assert!(!lowered.contains("s_mma"), "no matrix units, no twin: {lowered}");
            assert!(c.matrix_fragments().is_empty());
        }
        tilecast_lang::back::emit::msl(&c).unwrap();
    }
}

/// A gemm in a loop whose trip count is read from memory stays SIMT on matrix-unit profiles
/// (cooperative matrices there gave wrong results on an H200), with the reason in the
/// listing; the same gemm in a loop bounded by a symbol goes on matrix units.
#[test]
fn gemms_in_loops_bounded_by_memory_stay_simt() {
    let make = |from_memory: bool| {
        let (n, kd) = (sym("N"), sym("K"));
        let k = Kernel::new("ragged_gemm").grid([Expr::from(1u32)]).threads(128);
        let a = k.input("A", F16, [Expr::from(32u32), kd.clone()]);
        let b = k.input("B", F16, [kd.clone(), n.clone()]);
        let steps = k.input("Steps", tilecast_lang::DType::U32, [Expr::from(1u32)]);
        let c = k.param("C", F32, [Expr::from(32u32), n.clone()]);
        let (a_s, b_s) =
            (k.shared_named("a_s", F16, [32, 16]), k.shared_named("b_s", F16, [16, 32]));
        let acc = k.fragment_named("acc", F32, [32, 32]);
        k.clear(&acc);
        let trips = if from_memory { steps.at([Expr::from(0u32)]) } else { ceil_div(&kd, 16u32) };
        k.serial(trips, |k, j| {
            k.copy(a.tile([Expr::from(0u32), &j * 16u32]), &a_s);
            k.copy(b.tile([&j * 16u32, Expr::from(0u32)]), &b_s);
            k.gemm(&a_s, &b_s, &acc);
        });
        k.copy(&acc, c.tile([Expr::from(0u32), Expr::from(0u32)]));
        let c = compile(&k.build(), &Profile::named("vulkan-nvidia").unwrap()).unwrap();
        c.ir_lowered().lines().find(|l| l.contains("fragment acc:")).unwrap().to_string()
    };
    let memory = make(true);
    assert!(memory.contains("trip count is read from memory"), "{memory}");
    assert!(!memory.contains("matrix units on"), "{memory}");
    let symbol = make(false);
    assert!(symbol.contains("matrix units on profile vulkan-nvidia"), "{symbol}");
}

/// `rows` rows of `cols` f32 from `X`, each dotted with a shared row: the rows reduced into a
/// row statistic read back over the rows (a decode step's scores), 128 threads.
fn row_scores(rows: u32, cols: u32) -> tilecast_lang::ir::Kernel {
    let m = sym("M");
    let k = Kernel::new("row_scores").grid([ceil_div(&m, rows)]).threads(128);
    let x = k.input("X", F32, [m.clone(), Expr::from(cols)]);
    let y = k.param("Y", F32, [m, Expr::from(cols)]);
    let q = k.shared_named("q", F32, [cols]);
    let (xf, prod) =
        (k.fragment_named("x", F32, [rows, cols]), k.fragment_named("p", F32, [rows, cols]));
    let dot = k.fragment_named("dot", F32, [rows]);
    k.parallel([cols], |k, [c]| k.store(&q, [&c], Expr::from(1.0f32)));
    let origin = || [block_x() * rows, Expr::from(0u32)];
    k.copy(x.tile(origin()), &xf);
    k.parallel([rows, cols], |k, [i, c]| k.store(&prod, [&i, &c], xf.at([&i, &c]) * q.at([&c])));
    k.reduce_sum(&prod, &dot, 1);
    k.parallel([rows, cols], |k, [i, c]| k.store(&prod, [&i, &c], xf.at([&i, &c]) * dot.at([&i])));
    k.copy(&prod, y.tile(origin()));
    k.build()
}

/// A fragment's rows reduced into its row statistic stay in the row's lanes where those fit
/// one subgroup (no scratch row, no barrier), and the fragment, copied from memory, loads as
/// vectors although a loop reads a shared tile at its column index. Rows wider than a
/// subgroup's lanes keep the scratch row and its barriers.
#[test]
fn row_reductions_stay_in_lanes_where_a_row_fits_a_subgroup() {
    let p = Profile::named("vulkan-nvidia").unwrap();
    // 16 rows of 128 over 128 threads: one row per thread, 8 lanes per row.
    let c = compile(&row_scores(16, 128), &p).unwrap();
    let ir = c.ir_lowered().to_string();
    assert!(ir.contains("8 lanes per row exchanging within a subgroup"), "{ir}");
    assert!(ir.contains("columns in runs of 4"), "{ir}");
    assert!(!ir.contains("copy dot_scratch"), "{ir}");
    // One barrier: after the shared row is written, none around the reduction.
    assert_eq!(ir.matches("barrier").count(), 1, "{ir}");
    assert!(c.wgsl().contains("subgroupShuffleXor"));
    // 1 row of 4096 over 128 threads: 128 lanes per row, more than a subgroup.
    let c = compile(&row_scores(1, 4096), &p).unwrap();
    let ir = c.ir_lowered().to_string();
    assert!(!ir.contains("exchanging within a subgroup"), "{ir}");
    assert!(ir.contains("copy dot_scratch -> dot"), "{ir}");
    // Without subgroups (WebGPU-like profiles) nothing changes either.
    let mut plain = p.clone();
    plain.subgroups = false;
    let ir = compile(&row_scores(16, 128), &plain).unwrap().ir_lowered().to_string();
    assert!(!ir.contains("exchanging within a subgroup"), "{ir}");
}

/// `O = softmax_rows(scale * X Y^T)` for one `[rows, 64]` block of scores per threadgroup, with
/// the row logsumexp saved too when `lse`: a product feeding row reductions and element loops.
fn row_softmax(rows: u32, threads: u32, lse: bool) -> tilecast_lang::ir::Kernel {
    let (m, n) = (sym("M"), sym("N"));
    let kk = Expr::from(64u32);
    let k = Kernel::new("row_softmax").grid([ceil_div(&m, rows)]).threads(threads);
    let x = k.input("X", F16, [m.clone(), kk.clone()]);
    let y = k.input("Y", F16, [n, kk]);
    let o = k.param("O", F32, [m.clone(), Expr::from(64u32)]);
    let l_out = lse.then(|| k.param("L", F32, [m]));
    let scale = k.scalar("scale", F32);
    let (xs, ys) = (k.shared_named("xs", F16, [rows, 64]), k.shared_named("ys", F16, [64, 64]));
    let s = k.fragment_named("s", F32, [rows, 64]);
    let (mx, sum) = (k.fragment_named("mx", F32, [rows]), k.fragment_named("sum", F32, [rows]));
    let r0 = block_x() * rows;
    k.copy(x.tile([r0.clone(), Expr::from(0u32)]), &xs);
    k.copy(y.tile([Expr::from(0u32), Expr::from(0u32)]), &ys);
    k.clear(&s);
    k.gemm_t(&xs, &ys, &s, false, true);
    k.parallel([rows, 64], |k, [i, j]| k.store(&s, [&i, &j], s.at([&i, &j]) * &scale));
    k.reduce_max(&s, &mx, 1);
    k.parallel([rows, 64], |k, [i, j]| k.store(&s, [&i, &j], (s.at([&i, &j]) - mx.at([&i])).exp()));
    k.reduce_sum(&s, &sum, 1);
    k.parallel([rows, 64], |k, [i, j]| k.store(&s, [&i, &j], s.at([&i, &j]) / sum.at([&i])));
    k.copy(&s, o.tile([r0.clone(), Expr::from(0u32)]));
    if let Some(l_out) = l_out {
        let ls = k.shared_named("ls", F32, [rows]);
        k.parallel([rows], |k, [i]| k.store(&ls, [&i], mx.at([&i]) + sum.at([&i]).log()));
        k.copy(&ls, l_out.tile([r0]));
    }
    k.build()
}

/// Where the profile has workgroup-scope matrices, a kernel whose product feeds row reductions
/// and element loops runs on them end to end in the native module: row statistics are matrix
/// row reductions held 16 columns wide, element loops per-element operations (statistics
/// spread to the loop's columns first), and no tile is left in threadgroup memory. A row
/// statistic saved on its own (a logsumexp) is stored from its first column. Accumulators of
/// fewer rows than half the threads, and profiles without such matrices, keep the kernel's
/// lowering.
#[test]
fn products_feeding_row_reductions_run_on_workgroup_matrices_end_to_end() {
    let nv = Profile::named("vulkan-nvidia").unwrap();
    let c = compile(&row_softmax(128, 256, false), &nv).unwrap();
    let native = c.native_lowered().expect("a workgroup-matrix lowering");
    for expected in [
        "reduce_max s axis 1 -> mx  [mx as one workgroup-scope matrix, one matrix row reduction",
        "fragment mx: f32[128] -> one workgroup-scope f32 accumulator [128, 16]",
        "copy mx -> mx_x64  [workgroup-scope matrices: each row's value spread from 16 to 64",
        "[one per-element operation on s's workgroup-scope matrix]",
        "gemm xs x ys^T += s  [one multiply-add of workgroup-scope matrices]",
        "save s -> O[(bx * 128), 0 ..]  [s as one workgroup-scope matrix, tensor-addressed",
    ] {
        assert!(native.contains(expected), "{expected}\n{native}");
    }
    assert!(!native.contains("-> threadgroup memory"), "{native}");
    assert!(c.native_only().is_none(), "its WGSL fits threadgroup memory too");
    assert_eq!(c.shared_bytes(), 128 * 72 * 2 + 64 * 72 * 2 + 2 * 128 * 4, "the WGSL's tiles");
    // The module holds the reductions, per-element operations and conversions it needs.
    let words = c.native_spirv().unwrap();
    let text = tilecast_lang::back::spirv::disassemble(words);
    assert!(text.contains("OpCooperativeMatrixReduceNV"), "{text}");
    assert!(text.contains("OpCooperativeMatrixPerElementOpNV"), "{text}");
    assert_eq!(text.matches("OpCapability CooperativeMatrixReductionsNV").count(), 1);
    // A logsumexp saved along L's only axis, from the statistic's first column.
    let c = compile(&row_softmax(128, 256, true), &nv).unwrap();
    let native = c.native_lowered().expect("a workgroup-matrix lowering");
    assert!(native.contains("save ls -> L[(bx * 128) ..]  [ls as one workgroup-scope matrix"));
    assert!(c.native_spirv().is_ok());
    // Fewer rows than half the threads (which crashed the H200's driver): not on them.
    assert!(compile(&row_softmax(64, 256, false), &nv).unwrap().native_lowered().is_none());
    // No workgroup-scope matrices on lavapipe.
    let lp = Profile::named("vulkan-lavapipe").unwrap();
    assert!(compile(&row_softmax(128, 256, false), &lp).unwrap().native_lowered().is_none());
}

/// The softmax above with X and O of rank 3 (`[M, 2, 64]`), the block's window along their
/// first and last axes (at index 1 of the middle one).
fn row_softmax_across_axes(rows: u32, threads: u32) -> tilecast_lang::ir::Kernel {
    let (m, n) = (sym("M"), sym("N"));
    let (two, kk) = (Expr::from(2u32), Expr::from(64u32));
    let k = Kernel::new("row_softmax_axes").grid([ceil_div(&m, rows)]).threads(threads);
    let x = k.input("X", F16, [m.clone(), two.clone(), kk.clone()]);
    let y = k.input("Y", F16, [n, kk.clone()]);
    let o = k.param("O", F32, [m, two, kk]);
    let (xs, ys) = (k.shared_named("xs", F16, [rows, 64]), k.shared_named("ys", F16, [64, 64]));
    let s = k.fragment_named("s", F32, [rows, 64]);
    let (mx, sum) = (k.fragment_named("mx", F32, [rows]), k.fragment_named("sum", F32, [rows]));
    let r0 = block_x() * rows;
    let (zero, one) = (|| Expr::from(0u32), Expr::from(1u32));
    k.copy(x.window([r0.clone(), one.clone(), zero()], [0, 2]), &xs);
    k.copy(y.tile([zero(), zero()]), &ys);
    k.clear(&s);
    k.gemm_t(&xs, &ys, &s, false, true);
    k.reduce_max(&s, &mx, 1);
    k.parallel([rows, 64], |k, [i, j]| k.store(&s, [&i, &j], (s.at([&i, &j]) - mx.at([&i])).exp()));
    k.reduce_sum(&s, &sum, 1);
    k.parallel([rows, 64], |k, [i, j]| k.store(&s, [&i, &j], s.at([&i, &j]) / sum.at([&i])));
    k.copy(&s, o.window([r0, one, zero()], [0, 2]));
    k.build()
}

/// Tensor-addressed loads and stores of workgroup-scope matrices run along a parameter's last
/// two axes: a kernel whose matrix windows run along others keeps its lowering (addressed as
/// the last two, it would read and write the wrong elements).
#[test]
fn workgroup_matrices_take_windows_along_the_last_two_axes_only() {
    let nv = Profile::named("vulkan-nvidia").unwrap();
    assert!(compile(&row_softmax(128, 256, false), &nv).unwrap().native_lowered().is_some());
    let c = compile(&row_softmax_across_axes(128, 256), &nv).unwrap();
    assert!(c.native_lowered().is_none(), "{}", c.native_lowered().unwrap());
}

/// A kernel whose tiles overflow threadgroup memory still compiles where the native module
/// holds them all as workgroup-scope matrices: only that module may run it, and the reason
/// (what WGSL would need) is kept. Without such matrices the overflow is an error.
#[test]
fn kernels_only_workgroup_matrices_can_hold_compile_native_only() {
    let nv = Profile::named("vulkan-nvidia").unwrap();
    // 512 rows of 64 f16 (64 KiB) in one shared tile: too much for 48 KiB.
    let c = compile(&row_softmax(512, 1024, false), &nv).unwrap();
    let why = c.native_only().expect("native only");
    assert!(why.contains("allows 49152"), "{why}");
    assert_eq!(c.shared_bytes(), 0, "nothing in threadgroup memory natively");
    assert!(c.native_spirv().is_ok());
    let lp = Profile::named("vulkan-lavapipe").unwrap();
    let e = compile(&row_softmax(512, 1024, false), &lp).unwrap_err().to_string();
    assert!(e.contains("threadgroup memory"), "{e}");
}
