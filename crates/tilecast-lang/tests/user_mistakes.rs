//! Every mistake a new user made with the tile language is a verifier error that names the
//! thing at fault — never a "compiler bug" from naga, never a panic, never a silent success.

use tilecast_lang::DType::{F32, I32, U32};
use tilecast_lang::{Error, Expr, Kernel, Profile, block_x, ceil_div, compile, sym};

fn profile() -> Profile {
    Profile::named("vulkan-lavapipe").unwrap()
}

fn reject(k: Kernel) -> String {
    match compile(&k.build(), &profile()) {
        Err(e @ Error::Verify { .. }) => e.to_string(),
        Err(other) => panic!("expected a verifier error, got {other}"),
        Ok(c) => panic!("kernel compiled:\n{}", c.wgsl()),
    }
}

/// A one-block kernel copying X[N] through a shared tile, for tests to add one mistake to.
fn base(name: &str) -> (Kernel, tilecast_lang::GlobalParam, tilecast_lang::TileRef) {
    let n = sym("N");
    let k = Kernel::new(name).grid([ceil_div(&n, 64u32)]).threads(64);
    let x = k.param("X", F32, [&n]);
    let t = k.shared_named("t", F32, [64]);
    (k, x, t)
}

#[test]
fn a_symbol_used_only_in_the_body_needs_an_argument() {
    let (k, _, t) = base("body_symbol");
    k.serial(sym("T"), |k, _| k.fill(&t, 1.0f32));
    let e = reject(k);
    assert!(e.contains("symbol T: is used but no argument sets it"), "{e}");
    assert!(e.contains("k.scalar(\"T\", U32)"), "{e}");
}

#[test]
fn a_symbol_from_a_u32_scalar_argument_is_enough() {
    let (k, _, t) = base("scalar_symbol");
    let steps = k.scalar("T", U32);
    k.serial(steps, |k, _| k.fill(&t, 1.0f32));
    let c = compile(&k.build(), &profile()).unwrap();
    assert!(c.wgsl().contains("struct Args"), "{}", c.wgsl());
}

#[test]
fn a_grid_symbol_that_no_buffer_sets_is_refused_at_compile_time() {
    let k = Kernel::new("grid_symbol").grid([sym("G")]).threads(64);
    k.param("X", F32, [sym("N")]);
    let e = reject(k);
    assert!(e.contains("symbol G: is used but no argument sets it"), "{e}");
}

#[test]
fn a_dimension_used_only_inside_an_expression_cannot_set_its_symbol() {
    let k = Kernel::new("twice").grid([sym("N")]).threads(64);
    k.param("X", F32, [sym("N") * 2u32]);
    let e = reject(k);
    assert!(e.contains("symbol N: appears in X's shape only inside (N * 2)"), "{e}");
}

#[test]
fn duplicate_names_are_refused_and_odd_names_are_sanitized() {
    let (k, _, _) = base("dup_tiles");
    k.shared_named("t", F32, [64]);
    assert!(reject(k).contains("two tiles are named \"t\""));

    let k = Kernel::new("dup_params");
    k.param("X", F32, [4u32]);
    k.param("X", F32, [4u32]);
    assert!(reject(k).contains("two parameters are named \"X\""));

    // `a-b` and `a_b` would both become `a_b`; names starting with a digit or equal to a WGSL
    // keyword would not parse. Generated identifiers never collide and never are keywords.
    for name in ["2d_copy", "loop", "fn", "a b"] {
        let k = Kernel::new(name).threads(64);
        let a = k.input("a-b", F32, [64u32]);
        let b = k.param("a_b", F32, [64u32]);
        let t = k.shared_named("loop", F32, [64]);
        k.copy(a.tile([0u32]), &t);
        k.copy(&t, b.tile([0u32]));
        let c = compile(&k.build(), &profile()).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(c.entry().starts_with("tc_"), "{}", c.entry());
    }
}

#[test]
fn indices_must_be_u32_and_constant_division_by_zero_is_refused() {
    let (k, x, t) = base("float_index");
    k.parallel([64], |k, [i]| k.store(&t, [i.cast(F32)], x.at([0u32])));
    let e = reject(k);
    assert!(e.contains("coordinate 0 of t is f32; indices are u32"), "{e}");

    let (k, _, t) = base("int_index");
    k.parallel([64], |k, [i]| k.store(&t, [i.clone()], t.at([i.cast(I32)])));
    let e = reject(k);
    assert!(e.contains("coordinate 0 of t is i32; indices are u32"), "{e}");

    let (k, _, t) = base("div_zero");
    k.parallel([64], |k, [i]| k.store(&t, [i], t.at([Expr::from(5u32) / 0u32])));
    let e = reject(k);
    assert!(e.contains("divides by 0, which is zero"), "{e}");
}

#[test]
fn a_tile_handle_from_another_kernel_is_an_error_not_a_panic() {
    let other = Kernel::new("other");
    let mut handles = Vec::new();
    for _ in 0..4 {
        handles.push(other.shared(F32, [8]));
    }
    let (k, _, _) = base("foreign");
    k.fill(&handles[3], 0.0f32);
    let e = reject(k);
    assert!(e.contains("tile #3: does not belong to this kernel"), "{e}");
}

#[test]
fn a_parallel_body_may_not_read_what_other_threads_write() {
    let (k, _, t) = base("race");
    k.parallel([63], |k, [j]| k.store(&t, [j.clone()], t.at([&j + 1u32])));
    let e = reject(k);
    assert!(e.contains("writes t[p4] and reads t[(p4 + 1)]"), "{e}");
    assert!(e.contains("threads run in any order"), "{e}");
}

#[test]
fn grids_have_one_to_three_u32_entries() {
    let k = Kernel::new("grid4").grid([1u32, 1, 1, 1]);
    assert!(reject(k).contains("grid: has 4 entries; a grid has 1 to 3"));

    let k = Kernel::new("grid_float").grid([Expr::from(1.5f32)]);
    let e = reject(k);
    assert!(e.contains("grid[0]: is float literal; it must be a u32 expression"), "{e}");

    let k = Kernel::new("grid_block").grid([block_x()]);
    let e = reject(k);
    assert!(e.contains("grid[0]: uses a block index"), "{e}");
}

#[test]
fn scalar_and_literal_mistakes() {
    let k = Kernel::new("f16_scalar");
    k.scalar("h", tilecast_lang::DType::F16);
    assert!(reject(k).contains("scalar h: is f16; scalar arguments are f32, i32 or u32"));

    let (k, _, t) = base("overflow");
    k.parallel([64], |k, [i]| k.store(&t, [i], Expr::from(1e39f64)));
    let e = reject(k);
    assert!(e.contains("does not fit f32"), "{e}");

    let (k, _, t) = base("u32_overflow");
    let big = Expr::from(4_000_000_000u32);
    k.parallel([64], |k, [i]| k.store(&t, [i], (big.clone() + big.clone()).cast(F32)));
    let e = reject(k);
    assert!(e.contains("8000000000 does not fit u32"), "{e}");
}

#[test]
fn byte_stores_take_integers_and_atomics_need_integers() {
    let (k, _, t) = base("byte_store");
    let q = k.param("Q", tilecast_lang::DType::U8, [64u32]);
    k.parallel([64], |k, [i]| k.store(&q, [i.clone()], t.at([i])));
    let e = reject(k);
    assert!(
        e.contains(
            "value of type f32 stored into u8 (which takes u32 values) needs an explicit cast"
        ),
        "{e}"
    );

    let (k, x, _) = base("float_atomic");
    k.parallel([64], |k, [i]| k.atomic_add(&x, [i], 1.0f32));
    let e = reject(k);
    assert!(e.contains("atomic adds work on i32 and u32 parameters"), "{e}");
}

/// Found by the randomized test: constants that WGSL's own constant evaluation would reject
/// are the verifier's to report.
#[test]
fn constant_coordinates_and_conversions_must_fit() {
    let (k, _, t) = base("const_index");
    k.parallel([1], |k, [_]| k.store(&t, [70u32], 1.0f32));
    let e = reject(k);
    assert!(e.contains("coordinate 0 of t is the constant 70, outside 0..64"), "{e}");

    let (k, _, t) = base("exp_overflow");
    k.parallel([64], |k, [i]| k.store(&t, [i], (Expr::from(19u32) & 31u32).exp().cast(F32)));
    assert!(compile(&k.build(), &profile()).is_ok(), "exp(19) fits f32");

    let k = Kernel::new("f16_overflow").threads(64);
    let h = k.param("H", tilecast_lang::DType::F16, [64u32]);
    k.parallel([64], |k, [i]| {
        k.store(&h, [i], Expr::from(1e10f32).cast(tilecast_lang::DType::F16))
    });
    let e = reject(k);
    assert!(e.contains("10000000000 does not fit f16"), "{e}");

    let (k, _, t) = base("wide_shift");
    k.parallel([64], |k, [i]| k.store(&t, [i.clone()], (i << 40u32).cast(F32)));
    let e = reject(k);
    assert!(e.contains("shifts by 40, past the 32-bit width"), "{e}");
}

#[test]
fn pow_and_fma_need_floats() {
    let (k, x, t) = base("pow_ints");
    let c = k.shared_named("c", U32, [64]);
    k.copy(x.tile([block_x() * 64u32]), &t);
    k.parallel([64], |k, [i]| k.store(&c, [&i], c.at([&i]).pow(2u32)));
    let e = reject(k);
    assert!(e.contains("Pow needs a float operand, not u32"), "{e}");
    let (k, _, t) = base("fma_bools");
    k.parallel([64], |k, [i]| {
        k.store(&t, [&i], t.at([&i]).gt(0.0f32).fma(1.0f32, 2.0f32));
    });
    let e = reject(k);
    assert!(e.contains("bool"), "{e}");
}

#[test]
fn a_let_lives_in_the_parallel_body_and_branch_that_define_it() {
    let (k, _, t) = base("let_outside");
    let v = k.let_named("v", 1.0f32);
    k.fill(&t, v);
    let e = reject(k);
    assert!(e.contains("let v: belongs inside a parallel body"), "{e}");
    let (k, _, t) = base("let_other_loop");
    let mut v = None;
    k.parallel([64], |k, [i]| {
        v = Some(k.let_named("v", t.at([&i]) * 2.0f32));
        k.store(&t, [&i], 0.0f32);
    });
    k.parallel([64], |k, [i]| k.store(&t, [&i], v.clone().unwrap()));
    let e = reject(k);
    assert!(e.contains("let v: is read before its definition or outside the branch"), "{e}");
    let (k, _, t) = base("let_branch");
    k.parallel([64], |k, [i]| {
        let mut v = None;
        k.if_(t.at([&i]).gt(0.0f32), |k| v = Some(k.let_named("w", t.at([&i]))));
        k.store(&t, [&i], v.unwrap());
    });
    let e = reject(k);
    assert!(e.contains("let w: is read before its definition or outside the branch"), "{e}");
}

#[test]
fn a_window_origin_read_from_memory_needs_an_integer_element_at_uniform_coordinates() {
    let (k, x, t) = base("origin_f32");
    k.copy(x.tile([x.at([block_x()]).cast(U32)]), &t);
    let e = reject(k);
    assert!(e.contains("reads X, a f32 parameter, where a uniform value is required"), "{e}");
    let (k, x, t) = base("origin_thread");
    let table = k.input("T", U32, [sym("NB")]);
    k.copy(x.tile([table.at([tilecast_lang::thread_index()])]), &t);
    let e = reject(k);
    assert!(e.contains("uses the thread index where a uniform value"), "{e}");
}

#[test]
fn a_gemm_operand_may_be_a_fragment_but_not_its_own_accumulator() {
    let k = Kernel::new("self_gemm").grid([Expr::from(1u32)]).threads(64);
    k.param("X", F32, [sym("N")]);
    let acc = k.fragment_named("acc", F32, [16, 16]);
    let b = k.shared_named("b", F32, [16, 16]);
    k.clear(&acc);
    k.gemm(&acc, &b, &acc);
    let e = reject(k);
    assert!(e.contains("acc cannot be both operand and accumulator"), "{e}");
    let k = Kernel::new("local_operand").grid([Expr::from(1u32)]).threads(64);
    k.param("X", F32, [sym("N")]);
    let a = k.local(F32, [16, 16]);
    let acc = k.fragment_named("acc", F32, [16, 16]);
    k.gemm(&a, &a, &acc);
    let e = reject(k);
    assert!(e.contains("must be a 2-D shared tile or fragment"), "{e}");
}

/// A `[rows]` fragment that is not read at a 2-D loop's row index has no layout of its own
/// when its rows do not spread over the threads (the message says so); one that is, is a row
/// statistic, and copying it straight to memory is refused with the two ways that work.
#[test]
fn row_statistics_have_rules() {
    let k = Kernel::new("lonely_rows").grid([Expr::from(1u32)]).threads(32);
    let y = k.param("Y", F32, [Expr::from(8u32)]);
    let r = k.fragment_named("r", F32, [8]);
    k.clear(&r);
    k.copy(&r, y.tile([Expr::from(0u32)]));
    let e = reject(k);
    assert!(e.contains("8 elements do not divide evenly over 32 threads"), "{e}");
    let k = Kernel::new("stat_to_memory").grid([Expr::from(1u32)]).threads(32);
    let x = k.input("X", F32, [Expr::from(8u32), Expr::from(16u32)]);
    let y = k.param("Y", F32, [Expr::from(8u32)]);
    let f = k.fragment_named("f", F32, [8, 16]);
    let m = k.fragment_named("m", F32, [8]);
    k.copy(x.tile([Expr::from(0u32), Expr::from(0u32)]), &f);
    k.reduce_max(&f, &m, 1);
    k.parallel([8, 16], |k, [i, j]| k.store(&f, [&i, &j], f.at([&i, &j]) - m.at([&i])));
    k.copy(&m, y.tile([Expr::from(0u32)]));
    let e = reject(k);
    assert!(e.contains("m is a row statistic"), "{e}");
    assert!(e.contains("copy it through a shared tile, or store it in a parallel loop"), "{e}");
}

/// Bitcasts keep the width: f32, u32 and i32 between themselves, f16 only from a u32's low
/// bits; anything else names both types.
#[test]
fn bitcasts_keep_the_width() {
    for (from, to, ok) in [
        (U32, F32, true),
        (F32, I32, true),
        (U32, tilecast_lang::DType::F16, true),
        (F32, tilecast_lang::DType::F16, false),
        (I32, tilecast_lang::DType::U8, false),
    ] {
        let k = Kernel::new("bits").grid([Expr::from(1u32)]).threads(32);
        let x = k.input("X", from, [Expr::from(32u32)]);
        let y = k.param("Y", F32, [Expr::from(32u32)]);
        k.parallel([32], |k, [i]| k.store(&y, [&i], x.at([&i]).bitcast(to).cast(F32)));
        let got = compile(&k.build(), &profile());
        if ok {
            got.unwrap_or_else(|e| panic!("{from} -> {to}: {e}"));
        } else {
            let e = got.unwrap_err().to_string();
            assert!(
                e.contains(&format!("cannot bitcast {from} to {to}: bitcasts keep the width")),
                "{e}"
            );
        }
    }
}

/// A reduction may widen f16 or bf16 into f32, and nothing else.
#[test]
fn reductions_only_widen_half_types_to_f32() {
    let k = Kernel::new("narrow").grid([Expr::from(1u32)]).threads(32);
    k.param("Y", F32, [Expr::from(4u32)]);
    let s = k.shared_named("s", F32, [4, 32]);
    let d = k.shared_named("d", tilecast_lang::DType::F16, [4]);
    k.fill(&s, 1.0f32);
    k.reduce_sum(&s, &d, 1);
    let e = reject(k);
    assert!(
        e.contains("types differ: f32 vs f16 (a reduction may only widen f16 or bf16 to f32)"),
        "{e}"
    );
}

/// A kernel reading word `i` of a u8 parameter into a fragment, for the packed-field tests.
fn packed(name: &str, field: impl Fn(Expr) -> Expr, index: impl Fn(Expr) -> Expr) -> Kernel {
    let n = sym("N");
    let k = Kernel::new(name).grid([ceil_div(&n, 64u32)]).threads(64);
    let w = k.input("W", tilecast_lang::DType::U8, [&n]);
    let out = k.param("Out", U32, [&n]);
    let f = k.fragment(U32, [64]);
    k.parallel([64], |k, [i]| k.store(&f, [i.clone()], field(w.word(index(i.clone())))));
    k.copy(&f, out.tile([block_x() * 64u32]));
    k
}

#[test]
fn a_bit_field_outside_a_word_is_a_verify_error_naming_the_op() {
    type Field = fn(Expr) -> Expr;
    let cases: [(&str, Field, &str); 5] = [
        ("bits(20, 16)", |w| w.bits(20, 16), "bits 20..36 end past bit 32"),
        ("bits(0, 0)", |w| w.bits(0, 0), "a field has at least one bit"),
        ("signed_bits(30, 4)", |w| w.signed_bits(30, 4), "bits 30..34 end past bit 32"),
        ("nibble(8)", |w| w.nibble(8), "nibbles 0..8; 8 is past them"),
        ("byte(4)", |w| w.byte(4), "bytes 0..4; 4 is past them"),
    ];
    for (op, field, why) in cases {
        let e = reject(packed("field", field, |i| i));
        assert!(e.contains(op) && e.contains(why), "{op}: {e}");
    }
}

#[test]
fn a_word_index_must_be_u32() {
    let e = reject(packed("word_f32", |w| w, |i| i.cast(F32)));
    assert!(e.contains("the word index of W is f32; indices are u32"), "{e}");
}

#[test]
fn a_pipelined_trip_count_read_from_memory_points_to_serial() {
    let (k, _, t) = base("pipelined_from_memory");
    let lens = k.input("Lens", U32, [4u32]);
    k.pipelined(lens.at([0u32]), 2, |k, _| k.fill(&t, 1.0f32));
    let e = reject(k);
    assert!(e.contains("pipelined: the trip count is read from memory"), "{e}");
    assert!(e.contains("serial takes one"), "{e}");
}

/// A 128-thread kernel with a [32, 32] fragment `s` loaded from X and a [32] fragment `m`,
/// for the row-statistic misuse tests.
fn rows128(name: &str) -> (Kernel, tilecast_lang::TileRef, tilecast_lang::TileRef) {
    let k = Kernel::new(name).grid([Expr::from(1u32)]).threads(128);
    let x = k.input("X", F32, [Expr::from(32u32), Expr::from(32u32)]);
    let s = k.fragment_named("s", F32, [32, 32]);
    let m = k.fragment_named("m", F32, [32]);
    k.copy(x.tile([Expr::from(0u32), Expr::from(0u32)]), &s);
    (k, s, m)
}

#[test]
fn a_misused_row_statistic_says_which_rule_it_broke() {
    let rule = "a [32] fragment is a row statistic when a parallel loop over a [32, C] fragment \
                reads it at the row index";
    // Read at the column index.
    let (k, s, m) = rows128("stat_at_column");
    k.reduce_max(&s, &m, 1);
    k.parallel([32, 32], |k, [i, j]| k.store(&s, [&i, &j], s.at([&i, &j]) - m.at([&j])));
    let e = reject(k);
    assert!(e.contains("fragment m: 1x32 = 32 elements do not divide evenly over 128 threads"));
    assert!(e.contains("reads it at another index than the loop's row index"), "{e}");
    assert!(e.contains(rule), "{e}");
    // Read over a fragment of another row count.
    let (k, _, m) = rows128("stat_wrong_rows");
    let t = k.fragment_named("t", F32, [16, 32]);
    k.clear(&t);
    k.clear(&m);
    k.parallel([16, 32], |k, [i, j]| k.store(&t, [&i, &j], m.at([&i])));
    let e = reject(k);
    assert!(e.contains("it has 32 rows but is read at the row index of a loop over [16, 32]"));
    // A gemm operand.
    let (k, s, m) = rows128("stat_gemm");
    let a = k.shared_named("a", F32, [32, 1]);
    let c = k.fragment_named("c", F32, [32, 32]);
    k.clear(&c);
    k.clear(&m);
    k.gemm(&a, &m, &c);
    k.parallel([32, 32], |k, [i, j]| k.store(&s, [&i, &j], m.at([&i])));
    let e = reject(k);
    assert!(e.contains("m must be a 2-D shared tile or fragment (it is Fragment [32])"), "{e}");
    assert!(e.contains("is a row statistic, one value per row held in registers"), "{e}");
}

#[test]
fn a_fragment_only_reduced_into_names_the_rule() {
    let (k, s, m) = rows128("reduced_only");
    let y = k.param("Y", F32, [Expr::from(32u32)]);
    k.reduce_max(&s, &m, 1);
    k.parallel([32], |k, [i]| k.store(&y, [&i], m.at([&i])));
    let e = reject(k);
    assert!(e.contains("it is reduced into from the rows of s, but no parallel loop over s"));
    assert!(e.contains("reduce into a shared tile and copy that"), "{e}");
}
