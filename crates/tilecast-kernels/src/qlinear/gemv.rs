//! `Y[M, N] = X[M, K] W[N, K]^T` with quantized `W` and 1 to 8 activation rows: the decode step
//! of a quantized linear layer, bound by the bytes of `W`. Each thread decodes whole units of a
//! row straight from memory into registers (each word loaded once) and keeps one running dot
//! product per activation row, so 8 rows read `W` once; a reduction in registers per row ends it.
//! Threadgroups take `256 / P` rows of `P` units at a time, so 4096 rows alone give thousands
//! of threadgroups.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, ceil_div, select};

use super::WeightFormat;
use super::decode::{self, Part};
use crate::grid::{flat_block, flat_grid};

/// Threads per threadgroup.
const THREADS: u32 = 256;

/// Units each row takes per step: the row's units rounded up to a power of two, at most 256
/// (one unit per thread and step).
fn units_per_step(units: usize) -> u32 {
    (units.next_power_of_two() as u32).clamp(1, THREADS)
}

/// `x · values` of one unit for activation row `m`, in f32: per part, `scale * Σ level x +
/// bias * Σ x`.
pub(crate) fn unit_dot(k: &Kernel, parts: &[Part], x: &dyn Fn(usize) -> Expr) -> Expr {
    let mut total: Option<Expr> = None;
    for p in parts {
        let xs: Vec<Expr> = if p.bias.is_some() {
            (0..p.levels.len()).map(|i| k.let_named("x", x(p.offset + i))).collect()
        } else {
            (0..p.levels.len()).map(|i| x(p.offset + i)).collect()
        };
        let mut dot = p.levels[0].clone() * xs[0].clone();
        for (l, xv) in p.levels.iter().zip(&xs).skip(1) {
            dot = l.clone().fma(xv.clone(), dot);
        }
        let mut v = p.scale.clone() * dot;
        if let Some(b) = &p.bias {
            let sum = xs.iter().skip(1).fold(xs[0].clone(), |a, x| a + x.clone());
            v = b.clone().fma(sum, v);
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
    let units = kd / format.unit_values();
    let p = units_per_step(units);
    let rows = THREADS / p;
    let steps = units.div_ceil(p as usize) as u32;
    let blocks = ceil_div(Expr::from(n as u32), rows);
    let k =
        Kernel::new(&format!("qgemv_{}", format.name())).grid(flat_grid(&blocks)).threads(THREADS);
    let x = k.input("X", act, [m as u32, kd as u32]);
    let wp = decode::declare(&k, format, act, n, kd, group);
    let y = k.param("Y", act, [m as u32, n as u32]);
    let prods: Vec<_> =
        (0..m).map(|r| k.fragment_named(&format!("dot{r}"), DType::F32, [rows, p])).collect();
    let sums: Vec<_> =
        (0..m).map(|r| k.shared_named(&format!("sum{r}"), DType::F32, [rows])).collect();
    let row0 = flat_block(&blocks) * rows;
    for d in &prods {
        k.clear(d);
    }
    let uv = format.unit_values() as u32;
    let step = |k: &Kernel, u0: Expr| {
        k.parallel([rows, p], |k, [i, q]| {
            let u = k.let_named("u", u0.clone() + &q);
            // Past the row's last unit: decode the last one again, add nothing.
            let inside = k.let_named("inside", u.clone().lt(units as u32));
            let uc = select(inside.clone(), u.clone(), Expr::from(units as u32 - 1));
            let row = row0.clone() + &i;
            let parts = decode::unit(k, format, &wp, &row, &uc, kd, group);
            for (r, d) in prods.iter().enumerate() {
                let col0 = uc.clone() * uv;
                let xv = |j: usize| {
                    x.at([Expr::from(r as u32), col0.clone() + j as u32]).cast(DType::F32)
                };
                let dot = unit_dot(k, &parts, &xv);
                k.store(d, [&i, &q], d.at([&i, &q]) + select(inside.clone(), dot, 0.0f32));
            }
        });
    };
    if steps == 1 {
        step(&k, Expr::from(0u32));
    } else {
        k.serial(steps, |k, s| step(k, s * p));
    }
    for r in 0..m {
        k.reduce_sum(&prods[r], &sums[r], 1);
        k.copy(&sums[r], y.window([Expr::from(r as u32), row0.clone()], [1]));
    }
    k.build()
}
