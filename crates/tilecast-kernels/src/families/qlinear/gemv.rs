//! `Y[M, N] = X[M, K] W[N, K]^T` with quantized `W` and 1 to 8 activation rows: the decode step
//! of a quantized linear layer, bound by the bytes of `W`.
//!
//! Each thread decodes one slice (a word of levels) at a time straight from memory into
//! registers, neighbouring threads taking neighbouring slices of a row, so the weights and the
//! activations they meet are read in contiguous runs. A thread does the same slice of
//! [`ROWS_PER_THREAD`] rows, so each activation value it loads serves that many rows; it keeps
//! one running dot product per (activation row, weight row), and a reduction in registers per
//! pair ends it.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, ceil_div, select};

use super::WeightFormat;
use super::decode::{self, Part};
use crate::families::grid::{flat_block, flat_grid};

/// Threads per threadgroup.
const THREADS: u32 = 256;

/// Slices of a row the threads of one row block take per step (at most).
const STEP_SLICES: u32 = 256;

/// Weight rows one thread decodes the same slice of: the activations it loads for a slice
/// (2 to 4 times the slice's weight bytes) then serve four rows. With more than 4 activation
/// rows, fewer, so a thread keeps at most 16 dot products.
pub const ROWS_PER_THREAD: u32 = 4;

/// Running dot products per thread, at most: 32 (8 activation rows against four weight rows
/// per thread) were slower (14336x4096 q4_0: 200 us against 170).
const MAX_DOTS: u32 = 16;

/// `x · values` for one weight row: per part, `scale * Σ level x + bias * Σ x`, where `xs`
/// are the part's activations (in part order) and `sums` their sums (parts with a bias).
fn dot(parts: &[Part], xs: &[Vec<Expr>], sums: &[Option<Expr>]) -> Expr {
    let mut total: Option<Expr> = None;
    for ((p, x), sum) in parts.iter().zip(xs).zip(sums) {
        let mut acc = p.levels[0].clone() * x[0].clone();
        for (l, xv) in p.levels.iter().zip(x).skip(1) {
            acc = l.clone().fma(xv.clone(), acc);
        }
        let mut v = p.scale.clone() * acc;
        if let (Some(b), Some(sum)) = (&p.bias, sum) {
            v = b.clone().fma(sum.clone(), v);
        }
        total = Some(match total {
            None => v,
            Some(t) => t + v,
        });
    }
    total.unwrap_or(Expr::Float(0.0))
}

/// The kernel for `m` activation rows of `act` (f16, bf16 or f32) against an `[n, kd]` matrix
/// in `format` (MLX groups of `group`). Arguments `X`, `W` (then `S`, `B` for MLX), `Y`.
pub fn qgemv(format: WeightFormat, act: DType, m: usize, n: usize, kd: usize, group: usize) -> Ir {
    let spu = decode::slices_per_unit(format);
    let slices = (kd / format.unit_values() * spu) as u32;
    let p = slices.next_power_of_two().clamp(1, STEP_SLICES);
    let blocks_per_tg = THREADS / p;
    let rt = (MAX_DOTS / m as u32).clamp(1, ROWS_PER_THREAD);
    let rows = blocks_per_tg * rt;
    let steps = slices.div_ceil(p);
    let blocks = ceil_div(Expr::from(n as u32), rows);
    let k =
        Kernel::new(&format!("qgemv_{}", format.name())).grid(flat_grid(&blocks)).threads(THREADS);
    let x = k.input("X", act, [m as u32, kd as u32]);
    let wp = decode::declare(&k, format, act, n, kd, group);
    let y = k.param("Y", act, [m as u32, n as u32]);
    // dots[r][t]: activation row r against weight rows row0 + t * blocks_per_tg + i.
    let dots: Vec<Vec<_>> = (0..m)
        .map(|r| {
            (0..rt)
                .map(|t| k.fragment_named(&format!("dot{r}_{t}"), DType::F32, [blocks_per_tg, p]))
                .collect()
        })
        .collect();
    let sums: Vec<Vec<_>> = (0..m)
        .map(|r| {
            (0..rt)
                .map(|t| k.shared_named(&format!("sum{r}_{t}"), DType::F32, [blocks_per_tg]))
                .collect()
        })
        .collect();
    let row0 = flat_block(&blocks) * rows;
    dots.iter().flatten().for_each(|d| k.clear(d));
    let step = |k: &Kernel, g0: Expr| {
        k.parallel([blocks_per_tg, p], |k, [i, q]| {
            let g = k.let_named("slice", g0.clone() + &q);
            // Past the row's last slice: decode the last one again, add nothing.
            let inside = k.let_named("inside", g.clone().lt(slices));
            // Clamped with min (not a let) so the bounds pass proves the activations' columns.
            let gc = g.min(slices - 1);
            let (u, s) = (gc.clone() / spu as u32, gc % spu as u32);
            let mut xs: Vec<Vec<Vec<Expr>>> = Vec::new();
            let mut xsums: Vec<Vec<Option<Expr>>> = Vec::new();
            for t in 0..rt {
                let row = row0.clone() + t * blocks_per_tg + &i;
                let parts = decode::slice(k, format, &wp, &row, &u, &s, kd, group);
                if t == 0 {
                    // The activations of the slice's columns, loaded once for every row.
                    for r in 0..m {
                        let per_part: Vec<Vec<Expr>> = parts
                            .iter()
                            .map(|pt| {
                                (0..pt.levels.len())
                                    .map(|j| {
                                        let c = pt.first.clone() + j as u32;
                                        k.let_named(
                                            "x",
                                            x.at([Expr::from(r as u32), c]).cast(DType::F32),
                                        )
                                    })
                                    .collect()
                            })
                            .collect();
                        let s: Vec<Option<Expr>> = parts
                            .iter()
                            .zip(&per_part)
                            .map(|(pt, v)| {
                                pt.bias.as_ref().map(|_| {
                                    let sum =
                                        v.iter().skip(1).fold(v[0].clone(), |a, b| a + b.clone());
                                    k.let_named("xsum", sum)
                                })
                            })
                            .collect();
                        xs.push(per_part);
                        xsums.push(s);
                    }
                }
                for r in 0..m {
                    let d = &dots[r][t as usize];
                    let v = dot(&parts, &xs[r], &xsums[r]);
                    k.store(d, [&i, &q], d.at([&i, &q]) + select(inside.clone(), v, 0.0f32));
                }
            }
        });
    };
    if steps == 1 {
        step(&k, Expr::from(0u32));
    } else {
        k.serial(steps, |k, st| step(k, st * p));
    }
    for r in 0..m {
        for t in 0..rt as usize {
            k.reduce_sum(&dots[r][t], &sums[r][t], 1);
            let first = row0.clone() + t as u32 * blocks_per_tg;
            k.copy(&sums[r][t], y.window([Expr::from(r as u32), first], [1]));
        }
    }
    k.build()
}
