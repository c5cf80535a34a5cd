//! `Y[M, N] = X[M, K] W[N, K]^T` with quantized `W` and f16 activations: the prefill form of a
//! quantized linear layer, two ways (the gemm family's
//! [`decide`](crate::gemm::strategy::decide) chooses, [`plan`] builds the launches):
//!
//! - **fused** ([`qgemm`]): each K step decodes the threadgroup's `[bn, bk]` window of `W` into
//!   an f16 threadgroup tile (each thread a slice at a time, through the same decoder as
//!   [`super::gemv`]) beside the `[bm, bk]` window of `X`, and the gemm multiplies them: on
//!   matrix units where the profile has f16 ones, SIMT otherwise. `W` is read and decoded
//!   once per row block of `X`.
//! - **decoded once** ([`dequantize`], then [`matmul_t`]): `W` decoded to an f16 scratch copy,
//!   then the f16 gemm, for many rows, where decoding each window `M / bm` times costs more
//!   than writing the copy.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, block_x, block_y, ceil_div, select, sym};

use super::WeightFormat;
use super::decode;
use crate::gemm::{GemmConfig, GemmPath, GemmStrategy, Operands, k_loop};
use crate::registry::{ArgSpec, Launch, Plan, Slot, Strategy};

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
            let gc = g.clone().min(row_slices - 1);
            let (u, s) = (gc.clone() / spu, gc % spu);
            let row = &bx * bn + &i;
            // Values land where the slice really lies: past K that is the tile's tail, which
            // must read zero (a clamped slice's own columns hold the last slice's values).
            let real = decode::slice_columns(format, &(g.clone() / spu), &(g.clone() % spu));
            let parts = decode::slice(k, format, &wp, &row, &u, &s, kd, group);
            for (part, first) in parts.iter().zip(real) {
                let col0 = k.let_named("col", first - ko.clone() * bk);
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

/// `Wd[N, K] = W` decoded to f16, for an `[n, kd]` matrix in `format`. Arguments `W` (then `S`,
/// `B` for MLX), `Wd`. Each thread decodes one slice; threadgroups take 8 rows of 32 slices.
pub fn dequantize(format: WeightFormat, n: usize, kd: usize, group: usize) -> Ir {
    let act = DType::F16;
    let spu = decode::slices_per_unit(format) as u32;
    let slices = (kd / format.unit_values()) as u32 * spu;
    let (rows, per) = (8u32, 32u32);
    let k = Kernel::new(&format!("qdequant_{}", format.name()))
        .grid([ceil_div(Expr::from(slices), per), ceil_div(Expr::from(n as u32), rows)])
        .threads(rows * per);
    let wp = decode::declare(&k, format, act, n, kd, group);
    let wd = k.param("Wd", act, [n as u32, kd as u32]);
    let (bx, by) = (block_x(), block_y());
    k.parallel([rows, per], |k, [i, q]| {
        let g = k.let_named("slice", &bx * per + &q);
        let inside = k.let_named("inside", g.clone().lt(slices));
        let gc = g.min(slices - 1);
        let (u, s) = (gc.clone() / spu, gc % spu);
        let row = &by * rows + &i;
        for part in decode::slice(k, format, &wp, &row, &u, &s, kd, group) {
            for (j, level) in part.levels.iter().enumerate() {
                let v = match &part.bias {
                    Some(b) => level.clone().fma(part.scale.clone(), b.clone()),
                    None => part.scale.clone() * level.clone(),
                };
                // Past the last slice the column lies past K too: the store is dropped.
                let col =
                    select(inside.clone(), part.first.clone() + j as u32, Expr::from(kd as u32));
                k.store(&wd, [row.clone(), col], v.cast(act));
            }
        }
    });
    k.build()
}

/// `Y = X Wd^T` in f16 (f32 accumulation) for `X[M, K]`, `Wd[N, K]`, `Y[M, N]` (shapes bound at
/// launch), on the f16 gemm family's K loop.
pub fn matmul_t(cfg: &GemmConfig) -> Ir {
    matmul_t_dims(cfg, [sym("M"), sym("N"), sym("K")], false)
}

/// [`matmul_t`] with M, N and K fixed, for workgroup-scope matrices (see
/// [`crate::gemm::gemm_fixed`]): the accumulator is saved by one converting copy, which they
/// take as a tensor store.
pub fn matmul_t_fixed(cfg: &GemmConfig, dims: [u32; 3]) -> Ir {
    matmul_t_dims(cfg, dims.map(Expr::from), true)
}

fn matmul_t_dims(cfg: &GemmConfig, [m, n, kd]: [Expr; 3], copy_out: bool) -> Ir {
    let k = Kernel::new("qgemm_f16")
        .grid([ceil_div(&n, cfg.bn), ceil_div(&m, cfg.bm)])
        .threads(cfg.threads);
    let x = k.input("X", DType::F16, [&m, &kd]);
    let w = k.input("Wd", DType::F16, [&n, &kd]);
    let y = k.param("Y", DType::F16, [&m, &n]);
    let acc = k_loop(&k, cfg, Operands::Linear, [&x, &w], DType::F32, &kd);
    if copy_out {
        k.copy(&acc, y.tile([&block_y() * cfg.bm, &block_x() * cfg.bn]));
    } else {
        crate::gemm::linear::save_output(&k, &acc, &y, [cfg.bm, cfg.bn], DType::F16);
    }
    k.build()
}

/// The launches of `strategy` (the gemm family's decision, [`crate::gemm::strategy::decide`]
/// for [`GemmKind::Quantized`](crate::gemm::GemmKind::Quantized)) for an `[m, kd] x [n, kd]^T`
/// problem in `format`: fused, one launch; decoded once (any other path), the decoding pass
/// then the f16 product.
pub fn plan(format: WeightFormat, strategy: &GemmStrategy, dims: [usize; 3], group: usize) -> Plan {
    let [m, n, kd] = dims;
    let plan = match strategy.path {
        GemmPath::QuantFused => Plan::single(qgemm(format, &strategy.tiles, m, n, kd, group)),
        _ => decoded_plan(format, strategy, dims, group),
    };
    plan.with_strategy(Strategy::Gemm(*strategy))
}

/// `W` decoded into a scratch copy, then the f16 product on `strategy`'s tiles: the f16
/// linear's own kernel, its shape fixed, on workgroup-scope matrices.
fn decoded_plan(
    format: WeightFormat,
    strategy: &GemmStrategy,
    [m, n, kd]: [usize; 3],
    group: usize,
) -> Plan {
    let weights = if format.mlx_bits().is_some() { 3 } else { 1 };
    let decode = Launch {
        ir: dequantize(format, n, kd, group),
        bind: (1..=weights).map(Slot::Arg).chain([Slot::Scratch(0)]).collect(),
    };
    let multiply = Launch {
        ir: if strategy.workgroup_matrix {
            matmul_t_fixed(&strategy.tiles, [m, n, kd].map(|d| d as u32))
        } else {
            matmul_t(&strategy.tiles)
        },
        bind: vec![Slot::Arg(0), Slot::Scratch(0), Slot::Arg(weights + 1)],
    };
    Plan {
        strategy: Strategy::Gemm(*strategy),
        scratch: vec![ArgSpec::output("Wd", DType::F16, &[n, kd])],
        launches: vec![decode, multiply],
    }
}
