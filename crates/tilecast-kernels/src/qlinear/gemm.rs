//! `Y[M, N] = X[M, K] W[N, K]^T` with quantized `W` and f16 activations: the prefill form of a
//! quantized linear layer. Each K step decodes the threadgroup's `[bn, bk]` window of `W` into
//! an f16 threadgroup tile (each thread a slice at a time, through the same decoder as
//! [`super::gemv`]) beside the `[bm, bk]` window of `X`, and the gemm multiplies them: on
//! matrix units where the profile has f16 ones, SIMT otherwise.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, Profile, block_x, block_y, ceil_div, select};

use super::WeightFormat;
use super::decode;
use crate::gemm::GemmConfig;

/// The tiles for an `m x n` output on `profile`: the f16 gemm family's (the same shape
/// heuristics as `linear`), with K steps of whole units (the decoder fills whole slices).
pub fn config(format: WeightFormat, profile: &Profile, m: usize, n: usize) -> GemmConfig {
    let c = GemmConfig::for_shape(profile, DType::F16, DType::F32, m, n);
    let unit = format.unit_values() as u32;
    GemmConfig { bk: c.bk.max(unit).next_multiple_of(unit), stages: 1, ..c }
}

/// The kernel for an `[m, kd]` f16 `X` against an `[n, kd]` matrix in `format` (MLX groups of
/// `group`). Arguments `X`, `W` (then `S`, `B` for MLX), `Y` (f16).
pub fn qgemm(
    format: WeightFormat,
    cfg: &GemmConfig,
    m: usize,
    n: usize,
    kd: usize,
    group: usize,
) -> Ir {
    let GemmConfig { bm, bn, bk, threads, .. } = *cfg;
    let act = DType::F16;
    let k = Kernel::new(&format!("qgemm_{}", format.name()))
        .grid([ceil_div(Expr::from(n as u32), bn), ceil_div(Expr::from(m as u32), bm)])
        .threads(threads);
    let x = k.input("X", act, [m as u32, kd as u32]);
    let wp = decode::declare(&k, format, act, n, kd, group);
    let y = k.param("Y", act, [m as u32, n as u32]);
    let x_s = k.shared_named("X_shared", act, [bm, bk]);
    let w_s = k.shared_named("W_shared", act, [bn, bk]);
    let acc = k.fragment_named("acc", DType::F32, [bm, bn]);
    let (bx, by) = (block_x(), block_y());
    let spu = decode::slices_per_unit(format) as u32;
    let per_slice = format.unit_values() as u32 / spu;
    let row_slices = (kd as u32).div_ceil(per_slice);
    let tile_slices = bk / per_slice;
    k.clear(&acc);
    k.serial((kd as u32).div_ceil(bk), |k, ko| {
        k.copy(x.tile([&by * bm, &ko * bk]), &x_s);
        k.parallel([bn, tile_slices], |k, [i, q]| {
            let g = k.let_named("slice", ko.clone() * tile_slices + &q);
            // Past K: decode the row's last slice again and store zeros.
            let inside = k.let_named("inside", g.clone().lt(row_slices));
            let gc = k.let_named("g", select(inside.clone(), g, Expr::from(row_slices - 1)));
            let (u, s) = (gc.clone() / spu, gc % spu);
            let row = &bx * bn + &i;
            for part in decode::slice(k, format, &wp, &row, &u, &s, kd, group) {
                let col0 = k.let_named("col", part.first.clone() - ko.clone() * bk);
                for (j, level) in part.levels.iter().enumerate() {
                    let v = match &part.bias {
                        Some(b) => level.clone().fma(part.scale.clone(), b.clone()),
                        None => part.scale.clone() * level.clone(),
                    };
                    let v = select(inside.clone(), v, 0.0f32).cast(act);
                    k.store(&w_s, [i.clone(), col0.clone() + j as u32], v);
                }
            }
        });
        k.gemm_t(&x_s, &w_s, &acc, false, true);
    });
    k.parallel([bm, bn], |k, [i, j]| {
        k.store(&y, [&by * bm + &i, &bx * bn + &j], acc.at([&i, &j]).cast(act));
    });
    k.build()
}
