//! Bad kernels are rejected with messages that name the op, the tile and the limit.

use tilecast_lang::DType::{BF16, F16, F32};
use tilecast_lang::{
    DType, Error, Expr, Kernel, Profile, block_x, ceil_div, compile, sym, thread_index,
};

fn reject(k: Kernel, profile: &str) -> String {
    match compile(&k.build(), &Profile::named(profile).unwrap()) {
        Err(e @ Error::Verify { .. }) => e.to_string(),
        Err(other) => panic!("expected a verifier error, got {other}"),
        Ok(c) => panic!("kernel compiled:\n{}", c.wgsl()),
    }
}

#[test]
fn shared_memory_over_the_profile_limit_names_every_tile() {
    let k = Kernel::new("big").threads(128);
    let (m, n) = (sym("M"), sym("N"));
    let a = k.input("A", F32, [&m, &n]);
    let a_s = k.shared_named("A_shared", F32, [128, 32]);
    let b_s = k.shared_named("B_shared", F32, [32, 128]);
    let acc = k.fragment_named("acc", F32, [128, 128]);
    k.pipelined(ceil_div(&n, 32u32), 2, |k, ko| {
        k.copy(a.tile([0u32.into(), &ko * 32]), &a_s);
        k.copy(a.tile([&ko * 32, 0u32.into()]), &b_s);
        k.gemm(&a_s, &b_s, &acc);
    });
    let e = reject(k, "metal-apple7");
    assert!(e.contains("65536 bytes of threadgroup memory"), "{e}");
    assert!(e.contains("A_shared f32[128, 32] x2 stages = 32768 bytes"), "{e}");
    assert!(e.contains("profile metal-apple7 allows 32768"), "{e}");
}

/// A kernel whose one op is `gemm(A_shared, B_shared, acc)` with these types and shapes.
fn gemm_of(
    name: &str,
    a: (DType, [u32; 2]),
    b: (DType, [u32; 2]),
    acc: (DType, [u32; 2]),
) -> Kernel {
    let k = Kernel::new(name);
    let a_s = k.shared_named("A_shared", a.0, a.1);
    let b_s = k.shared_named("B_shared", b.0, b.1);
    let acc = k.fragment_named("acc", acc.0, acc.1);
    k.gemm(&a_s, &b_s, &acc);
    k
}

#[test]
fn gemm_shape_mismatch_names_both_tiles() {
    let e = reject(
        gemm_of("bad_gemm", (F16, [64, 32]), (F16, [16, 64]), (F32, [64, 64])),
        "vulkan-lavapipe",
    );
    assert!(e.contains("gemm A_shared x B_shared -> acc"), "{e}");
    assert!(e.contains("A_shared gives K = 32, B_shared gives K = 16"), "{e}");

    let e = reject(
        gemm_of("bad_acc", (F16, [64, 16]), (F16, [16, 32]), (F32, [64, 64])),
        "vulkan-lavapipe",
    );
    assert!(e.contains("product is [64, 32] but acc is [64, 64]"), "{e}");

    // Mixed inputs accumulate into the wider type, never the narrower.
    let e = reject(
        gemm_of("mixed", (F16, [64, 16]), (F32, [16, 64]), (F16, [64, 64])),
        "vulkan-lavapipe",
    );
    assert!(e.contains("f16 x f32 inputs cannot accumulate into f16"), "{e}");
}

#[test]
fn writing_a_read_only_parameter_is_refused() {
    let k = Kernel::new("writes_input");
    let x = k.input("X", F32, [sym("N")]);
    let t = k.shared_named("t", F32, [64]);
    k.copy(x.tile([block_x() * 64u32]), &t);
    k.copy(&t, x.tile([block_x() * 64u32]));
    let e = reject(k, "vulkan-lavapipe");
    assert!(e.contains("copy t -> X") && e.contains("writes X, a read-only parameter"), "{e}");

    let k = Kernel::new("stores_input");
    let x = k.input("X", F32, [sym("N")]);
    k.parallel([64], |k, [i]| k.store(&x, [i], 1.0f32));
    assert!(reject(k, "vulkan-lavapipe").contains("store X: writes X, a read-only parameter"));
}

#[test]
fn threads_fragments_and_types_are_checked() {
    let e = reject(Kernel::new("wide").threads(2048), "vulkan-nvidia");
    assert!(
        e.contains("2048 threads per threadgroup; profile vulkan-nvidia allows 1..=1024"),
        "{e}"
    );

    let k = Kernel::new("ragged_fragment").threads(128);
    k.fragment_named("acc", F32, [60, 60]);
    let e = reject(k, "vulkan-lavapipe");
    assert!(
        e.contains("fragment acc")
            && e.contains("3600 elements do not divide evenly over 128 threads"),
        "{e}"
    );

    let k = Kernel::new("bf16_tile");
    k.shared_named("q", BF16, [64]);
    let e = reject(k, "vulkan-lavapipe");
    assert!(e.contains("tile q: element type bf16 has no SIMT path yet"), "{e}");

    let k = Kernel::new("cast_needed");
    let t = k.shared_named("t", F16, [64]);
    let f = k.shared_named("f", F32, [64]);
    k.parallel([64], |k, [i]| k.store(&t, [&i], f.at([&i])));
    let e = reject(k, "vulkan-lavapipe");
    assert!(
        e.contains("store t") && e.contains("f32 stored into f16 needs an explicit cast"),
        "{e}"
    );

    let k = Kernel::new("bad_reduce");
    let t = k.shared_named("t", F32, [32, 64]);
    let r = k.shared_named("r", F32, [64]);
    k.reduce_sum(&t, &r, 1);
    assert!(
        reject(k, "vulkan-lavapipe")
            .contains("reducing [32, 64] along axis 1 gives [32], but r is [64]")
    );
}

#[test]
fn pipelined_bodies_load_then_compute() {
    let k = Kernel::new("late_load");
    let x = k.input("X", F32, [sym("M"), sym("N")]);
    let (a_s, b_s) =
        (k.shared_named("A_shared", F32, [64, 16]), k.shared_named("B_shared", F32, [16, 64]));
    let acc = k.fragment_named("acc", F32, [64, 64]);
    k.pipelined(4u32, 2, |k, ko| {
        k.copy(x.tile([0u32.into(), &ko * 16]), &a_s);
        k.gemm(&a_s, &b_s, &acc);
        k.copy(x.tile([&ko * 16, 0u32.into()]), &b_s);
    });
    assert!(
        reject(k, "vulkan-lavapipe")
            .contains("copies into shared tiles must come before the compute")
    );
}

#[test]
fn parallel_loops_must_cover_the_fragments_they_read() {
    let k = Kernel::new("short_read").threads(64);
    let y = k.param("Y", F32, [sym("M"), sym("N")]);
    let f = k.fragment_named("f", F32, [64, 64]);
    k.clear(&f);
    k.parallel([32, 64], |k, [i, j]| k.store(&y, [&i, &j], f.at([&i, &j])));
    let e = reject(k, "vulkan-lavapipe");
    assert!(e.contains("touches fragment f of shape [64, 64]"), "{e}");
}

#[test]
fn literals_must_fit_their_type_and_grids_need_their_symbols() {
    let k = Kernel::new("negative");
    let t = k.shared_named("t", tilecast_lang::DType::U32, [64]);
    k.parallel([64], |k, [i]| k.store(&t, [&i], -1i32));
    let e = reject(k, "vulkan-lavapipe");
    assert!(e.contains("-1 does not fit u32"), "{e}");

    let k = Kernel::new("grid").grid([ceil_div(sym("N"), 64u32)]);
    k.input("X", F32, [sym("N")]);
    let c = compile(&k.build(), &Profile::named("vulkan-lavapipe").unwrap()).unwrap();
    assert_eq!(c.grid(&[130]), Some([3, 1, 1]));
    assert_eq!(c.grid(&[]), None, "missing symbol values are not a panic");
}

/// A kernel gathering rows of `X[P, 64]` through `Table[N]` into `Y`, the row index read into
/// the local tile `row` by a loop storing `value(table entry)`.
fn gather_through_local(value: impl Fn(Expr) -> Expr) -> Kernel {
    let k = Kernel::new("gather").grid([sym("N")]).threads(64);
    let x = k.input("X", F32, [sym("P"), 64u32.into()]);
    let table = k.input("Table", DType::U32, [sym("N")]);
    let y = k.param("Y", F32, [sym("N"), 64u32.into()]);
    let row = k.local_named("row", DType::U32, [1]);
    let t = k.shared_named("t", F32, [1, 64]);
    k.parallel([1], |k, [i]| k.store(&row, [i], value(table.at([block_x()]))));
    k.copy(x.tile([row.at([0u32]), 0u32.into()]), &t);
    k.copy(&t, y.tile([block_x(), 0u32.into()]));
    k
}

#[test]
fn a_local_tile_places_a_window_only_where_every_thread_holds_it_alike() {
    // A table entry read into registers places a window, as the entry itself may.
    let k = gather_through_local(|entry| entry);
    compile(&k.build(), &Profile::named("vulkan-lavapipe").unwrap()).unwrap();

    // One that differs per thread does not.
    let k = gather_through_local(|entry| entry + thread_index());
    let e = reject(k, "vulkan-lavapipe");
    assert!(
        e.contains("copy X -> t")
            && e.contains("reads local tile row, which threads may hold differently"),
        "{e}"
    );
}
