//! bf16 gemm and linear on f16 matrix units (wgpu has no bf16 matrices).
//!
//! f16's range is too small for bf16 (past 65504 it is inf, below 2^-14 it loses bits), so
//! each row of an operand along K (and each column of a gemm's `B`) is scaled first by a power
//! of two chosen from its largest finite magnitude (`scale_exponent`). Every bf16 value of the
//! row then converts to f16 exactly, bar those below 2^-26 of the row's largest (they lose bits
//! to f16's subnormals: an error under 2^-40 of the largest product, far below bf16's own
//! 2^-9), and none overflows. The products are exact in the f32 accumulator and the epilogue
//! undoes both powers of two exactly. Inf and NaN inputs stay inf and NaN. The scales cost one
//! extra read of the threadgroup's panels of both operands before the K loop.

use tilecast_lang::DType::{F16, F32};
use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{
    DType, Expr, GlobalParam, Kernel, TileRef, block_x, block_y, ceil_div, select, sym,
};

use super::GemmConfig;
use crate::elementwise::Unary;

/// `|v|` where finite, else 0: infinities must not set a row's scale (they stay inf in f16).
pub(crate) fn finite_abs(v: Expr) -> Expr {
    let a = v.abs();
    select(a.clone().lt(Expr::inf()), a, 0.0f32)
}

/// Exponent `e` of the power of two `2^e` that brings a row's largest finite magnitude `mx`
/// into [2^12, 2^14): f16 holds every bf16 value of that row exactly from `mx * 2^-26` up
/// (bf16 has 8 significant bits, f16 11, normal down to 2^-14) and nothing overflows, even
/// where `log2` is an ulp off at a power of two. Rows without a finite nonzero value keep
/// `e = 0`; `e` stays within f32's normal exponents.
pub(crate) fn scale_exponent(mx: Expr) -> Expr {
    let e = (Expr::from(13.0f32) - mx.clone().log2().floor()).max(-126.0f32).min(126.0f32);
    select(mx.gt(0.0f32), e, 0.0f32)
}

/// One operand's scales: `exp[r]` (an integer, as f32) and `scale[r] = 2^exp[r]`.
struct Scales {
    exp: TileRef,
    scale: TileRef,
}

/// Turns the maxima in `exp` (`n` of them) into exponents, and their powers of two into a new
/// shared tile `{name}_scale`.
fn finish(k: &Kernel, exp: TileRef, n: u32, name: &str) -> Scales {
    let scale = k.shared_named(&format!("{name}_scale"), DType::F32, [n]);
    k.parallel([n], |k, [i]| {
        // The scale first: the exponent's store replaces the maximum both are made from.
        let e = scale_exponent(exp.at([&i]));
        k.store(&scale, [&i], e.clone().exp2());
        k.store(&exp, [&i], e);
    });
    Scales { exp, scale }
}

/// Scales for `rows` rows of `p[R, K]` from `row0`, each over all of K: panels of 32 elements
/// per thread, folded into a running maximum, one reduction at the end.
fn row_scales(
    k: &Kernel,
    p: &GlobalParam,
    row0: Expr,
    rows: u32,
    threads: u32,
    name: &str,
) -> Scales {
    let kd = sym("K");
    let exp = k.shared_named(&format!("{name}_exp"), DType::F32, [rows]);
    let kc = (32 * threads / rows).max(1);
    let (panel, max) = (
        k.fragment_named(&format!("{name}_panel"), DType::F32, [rows, kc]),
        k.fragment_named(&format!("{name}_max"), DType::F32, [rows, kc]),
    );
    k.clear(&max);
    k.serial(ceil_div(&kd, kc), |k, j| {
        k.copy(p.tile([row0.clone(), &j * kc]), &panel);
        k.parallel([rows, kc], |k, [i, q]| {
            k.store(&max, [&i, &q], max.at([&i, &q]).max(finite_abs(panel.at([&i, &q]))));
        });
    });
    k.reduce_max(&max, &exp, 1);
    finish(k, exp, rows, name)
}

/// Scales for `cols` columns of `p[K, C]` from `col0`, each over all of K. Columns reduce
/// through threadgroup memory (a scratch of the whole fragment), so chunks are 1024 elements.
fn col_scales(k: &Kernel, p: &GlobalParam, col0: Expr, cols: u32, name: &str) -> Scales {
    let kd = sym("K");
    let exp = k.shared_named(&format!("{name}_exp"), DType::F32, [cols]);
    let kc = (1024 / cols).max(1);
    let (panel, max) = (
        k.fragment_named(&format!("{name}_panel"), DType::F32, [kc, cols]),
        k.fragment_named(&format!("{name}_max"), DType::F32, [kc, cols]),
    );
    k.clear(&max);
    k.serial(ceil_div(&kd, kc), |k, j| {
        k.copy(p.tile([&j * kc, col0.clone()]), &panel);
        k.parallel([kc, cols], |k, [q, c]| {
            k.store(&max, [&q, &c], max.at([&q, &c]).max(finite_abs(panel.at([&q, &c]))));
        });
    });
    k.reduce_max(&max, &exp, 0);
    finish(k, exp, cols, name)
}

/// One operand of [`scaled_k_loop`]: its bf16 parameter, its name (of the tiles
/// `{name}_shared` and `{name}_window`), the `shape` of its window, where the window of K step
/// `ko` starts, and its scales, along the window's rows where `shape` is `[rows, K]` and
/// along its columns where it is `[K, cols]` (a gemm's `B`).
struct Operand<'a> {
    p: &'a GlobalParam,
    name: &'a str,
    shape: [u32; 2],
    at: &'a dyn Fn(&Expr) -> [Expr; 2],
    scales: &'a Scales,
}

/// The K loop both kernels share: each K step stages a window of `a` and of `b` into f16
/// tiles, each loaded into registers (vector loads where the launch allows), scaled there and
/// rounded to f16 on the way into threadgroup memory (exact, see the module docs), then
/// multiplies them (`b` transposed where `b_t`: a linear's `W[N, K]`) into a cleared
/// `[bm, bn]` f32 accumulator, which it returns.
fn scaled_k_loop(k: &Kernel, cfg: &GemmConfig, a: Operand, b: Operand, b_t: bool) -> TileRef {
    let GemmConfig { bm, bn, bk, stages, .. } = *cfg;
    let [a_s, b_s] = [&a, &b].map(|o| k.shared_named(&format!("{}_shared", o.name), F16, o.shape));
    let [wa, wb] = [&a, &b].map(|o| k.fragment_named(&format!("{}_window", o.name), F32, o.shape));
    let acc = k.fragment_named("acc", F32, [bm, bn]);
    k.clear(&acc);
    k.pipelined(ceil_div(sym("K"), bk), stages, |k, ko| {
        // The scales run along K's other axis: 0 for `[rows, K]`, 1 for `[K, cols]`.
        for (o, window, dst, axis) in [(&a, &wa, &a_s, 0), (&b, &wb, &b_s, usize::from(!b_t))] {
            k.copy(o.p.tile((o.at)(&ko)), window);
            k.parallel(o.shape, |k, [i, j]| {
                let r = if axis == 0 { &i } else { &j };
                k.store(window, [&i, &j], window.at([&i, &j]) * o.scales.scale.at([r]));
            });
            k.copy(window, dst);
        }
        if b_t { k.gemm_t(&a_s, &b_s, &acc, false, true) } else { k.gemm(&a_s, &b_s, &acc) }
    });
    acc
}

/// Undoes the scales of rows `a` and columns `b` on `acc`: one power of two where it is a
/// normal f32, else one at a time (a product of the two could overflow or vanish where the
/// result does not).
fn unscaled(acc: &TileRef, a: &Scales, b: &Scales, i: &Expr, j: &Expr) -> Expr {
    unscale(acc.at([i, j]), a.exp.at([i]), b.exp.at([j]))
}

/// `v * 2^-(ei + ej)`, exactly (see [`unscaled`]).
pub(crate) fn unscale(v: Expr, ei: Expr, ej: Expr) -> Expr {
    let both = ei.clone() + ej.clone();
    let once = v.clone() * (-both.clone()).exp2();
    let twice = v * (-ei).exp2() * (-ej).exp2();
    select(both.abs().le(126.0f32), once, twice)
}

/// `C = A x B` for bf16 `A[M, K]` and `B[K, N]` on f16 matrix units, rows of `A` and columns
/// of `B` scaled into f16's range (see the module docs). Arguments: A, B, C (f32).
pub fn bf16_gemm(cfg: &GemmConfig) -> Ir {
    let GemmConfig { bm, bn, bk, threads, .. } = *cfg;
    let (m, n, kd) = (sym("M"), sym("N"), sym("K"));
    let k = Kernel::new("gemm").grid([ceil_div(&n, bn), ceil_div(&m, bm)]).threads(threads);
    let (a, b, c) = (
        k.input("A", DType::BF16, [&m, &kd]),
        k.input("B", DType::BF16, [&kd, &n]),
        k.param("C", DType::F32, [&m, &n]),
    );
    let (bx, by) = (block_x(), block_y());
    let sa = row_scales(&k, &a, &by * bm, bm, threads, "A");
    let sb = col_scales(&k, &b, &bx * bn, bn, "B");
    let acc = scaled_k_loop(
        &k,
        cfg,
        Operand { p: &a, name: "A", shape: [bm, bk], at: &|ko| [&by * bm, ko * bk], scales: &sa },
        Operand { p: &b, name: "B", shape: [bk, bn], at: &|ko| [ko * bk, &bx * bn], scales: &sb },
        false,
    );
    k.parallel([bm, bn], |k, [i, j]| k.store(&acc, [&i, &j], unscaled(&acc, &sa, &sb, &i, &j)));
    k.copy(&acc, c.tile([&by * bm, &bx * bn]));
    k.build()
}

/// `Y = act(X W^T + Bias)` for bf16 `X[M, K]` and `W[N, K]` on f16 matrix units, rows of both
/// scaled into f16's range (see the module docs; both scale along K, the contiguous axis);
/// `Bias[N]` f32, `Y[M, N]` of `cfg.output`. Arguments as [`super::linear::linear`].
pub fn bf16_linear(cfg: &GemmConfig, act: Option<Unary>) -> Ir {
    let GemmConfig { bm, bn, bk, threads, output, .. } = *cfg;
    let (m, n, kd) = (sym("M"), sym("N"), sym("K"));
    let k = Kernel::new("linear").grid([ceil_div(&n, bn), ceil_div(&m, bm)]).threads(threads);
    let x = k.input("X", DType::BF16, [&m, &kd]);
    let w = k.input("W", DType::BF16, [&n, &kd]);
    let bias = k.input("Bias", DType::F32, [&n]);
    let y = k.param("Y", output, [&m, &n]);
    let (bx, by) = (block_x(), block_y());
    let sx = row_scales(&k, &x, &by * bm, bm, threads, "X");
    let sw = row_scales(&k, &w, &bx * bn, bn, threads, "W");
    let acc = scaled_k_loop(
        &k,
        cfg,
        Operand { p: &x, name: "X", shape: [bm, bk], at: &|ko| [&by * bm, ko * bk], scales: &sx },
        Operand { p: &w, name: "W", shape: [bn, bk], at: &|ko| [&bx * bn, ko * bk], scales: &sw },
        true,
    );
    k.parallel([bm, bn], |k, [i, j]| {
        let v = unscaled(&acc, &sx, &sw, &i, &j) + bias.at([&bx * bn + &j]);
        k.store(&acc, [&i, &j], act.map_or(v.clone(), |f| f.apply(v)));
    });
    super::linear::save_output(&k, &acc, &y, [bm, bn], output);
    k.build()
}
