//! The gemm family beyond plain `C = A x B`: batched gemm over a leading batch axis, and
//! `linear` (`Y = X W^T + bias`, optionally followed by an activation), the layer every
//! transformer block runs. Both use the same tiles and matrix-unit selection as [`crate::gemm`].

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, block_x, block_y, block_z, ceil_div, sym};

use super::{GemmConfig, Operands, staged_type};
use crate::elementwise::Unary;

/// `C[b] = A[b] x B[b]` for `A[BT, M, K]`, `B[BT, K, N]`, `C[BT, M, N]`; one grid layer per
/// batch item. Windows are gathered element by element, so a window that crosses a batch edge
/// reads zeros, never the neighbouring item.
pub fn batched_gemm(cfg: &GemmConfig) -> Ir {
    batched_gemm_dims(cfg, [sym("BT"), sym("M"), sym("N"), sym("K")], false)
}

/// [`batched_gemm`] with its shape fixed, for workgroup-scope matrices: windows are copies of
/// one batch item's `[bm, bk]` and `[bk, bn]` (a window never spans two items: the batch axis
/// is its own), which those matrices load by tensor addressing.
pub fn batched_gemm_fixed(cfg: &GemmConfig, dims: [u32; 4]) -> Ir {
    batched_gemm_dims(cfg, dims.map(Expr::from), true)
}

fn batched_gemm_dims(cfg: &GemmConfig, [bt, m, n, kd]: [Expr; 4], windows: bool) -> Ir {
    let GemmConfig { bm, bn, bk, threads, input, output, .. } = *cfg;
    let k = Kernel::new("batched_gemm")
        .grid([ceil_div(&n, bn), ceil_div(&m, bm), bt.clone()])
        .threads(threads);
    let a = k.input("A", input, [&bt, &m, &kd]);
    let b = k.input("B", input, [&bt, &kd, &n]);
    let c = k.param("C", output, [&bt, &m, &n]);
    let st = staged_type(input);
    let (a_s, b_s) =
        (k.shared_named("A_shared", st, [bm, bk]), k.shared_named("B_shared", st, [bk, bn]));
    let acc = k.fragment_named("acc", output, [bm, bn]);
    let (bx, by, bz) = (block_x(), block_y(), block_z());
    k.clear(&acc);
    if windows {
        k.serial(ceil_div(&kd, bk), |k, ko| {
            k.copy(a.window([bz.clone(), &by * bm, &ko * bk], [1, 2]), &a_s);
            k.copy(b.window([bz.clone(), &ko * bk, &bx * bn], [1, 2]), &b_s);
            k.gemm(&a_s, &b_s, &acc);
        });
        k.copy(&acc, c.window([bz, &by * bm, &bx * bn], [1, 2]));
        return k.build();
    }
    k.serial(ceil_div(&kd, bk), |k, ko| {
        let k0 = ko * bk;
        k.parallel([bm, bk], |k, [i, q]| {
            let v = a.at([bz.clone(), &by * bm + &i, k0.clone() + &q]).cast(st);
            k.store(&a_s, [&i, &q], v);
        });
        k.parallel([bk, bn], |k, [q, j]| {
            let v = b.at([bz.clone(), k0.clone() + &q, &bx * bn + &j]).cast(st);
            k.store(&b_s, [&q, &j], v);
        });
        k.gemm(&a_s, &b_s, &acc);
    });
    k.parallel([bm, bn], |k, [i, j]| {
        k.store(&c, [bz.clone(), &by * bm + &i, &bx * bn + &j], acc.at([&i, &j]).cast(output));
    });
    k.build()
}

/// `Y = act(X W^T + Bias)` for `X[M, K]`, `W[N, K]` (the layout checkpoints store), `Bias[N]`
/// (f32), `Y[M, N]` of `cfg.output`; `act` is applied in f32 on the accumulator.
pub fn linear(cfg: &GemmConfig, act: Option<Unary>) -> Ir {
    linear_dims(cfg, act, sym("M"), sym("N"), sym("K"))
}

/// [`linear`] with M, N and K fixed, for workgroup-scope matrices (see
/// [`super::gemm_fixed`]): the bias and activation run as a per-element operation there.
pub fn linear_fixed(cfg: &GemmConfig, act: Option<Unary>, [m, n, kd]: [u32; 3]) -> Ir {
    linear_dims(cfg, act, Expr::from(m), Expr::from(n), Expr::from(kd))
}

fn linear_dims(cfg: &GemmConfig, act: Option<Unary>, m: Expr, n: Expr, kd: Expr) -> Ir {
    let GemmConfig { bm, bn, threads, input, output, .. } = *cfg;
    let k = Kernel::new("linear").grid([ceil_div(&n, bn), ceil_div(&m, bm)]).threads(threads);
    let x = k.input("X", input, [&m, &kd]);
    let w = k.input("W", input, [&n, &kd]);
    let bias = k.input("Bias", DType::F32, [&n]);
    let y = k.param("Y", output, [&m, &n]);
    let acc = super::k_loop(&k, cfg, Operands::Linear, [&x, &w], DType::F32, &kd);
    let bx = block_x();
    k.parallel([bm, bn], |k, [i, j]| {
        let v = acc.at([&i, &j]) + bias.at([&bx * bn + &j]);
        let v: Expr = match act {
            Some(f) => f.apply(v),
            None => v,
        };
        k.store(&acc, [&i, &j], v);
    });
    save_output(&k, &acc, &y, [bm, bn], output);
    k.build()
}

/// The `[bm, bn]` f32 accumulator to its window of `y` (of `output`): a fragment copy for f32,
/// element stores with the cast otherwise.
pub(crate) fn save_output(
    k: &Kernel,
    acc: &tilecast_lang::TileRef,
    y: &tilecast_lang::GlobalParam,
    [bm, bn]: [u32; 2],
    output: DType,
) {
    let (bx, by) = (block_x(), block_y());
    if output == DType::F32 {
        k.copy(acc, y.tile([&by * bm, &bx * bn]));
    } else {
        k.parallel([bm, bn], |k, [i, j]| {
            k.store(y, [&by * bm + &i, &bx * bn + &j], acc.at([&i, &j]).cast(output));
        });
    }
}
