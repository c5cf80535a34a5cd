//! `Y[M, N] = X[M, K] W[N, K]^T` with quantized `W` and 1 to 8 activation rows: the decode step
//! of a quantized linear layer, bound by the bytes of `W`. This is the float kernel, for `mlx8`
//! and rows whose length the integer dot products ([`super::int8`]) do not take.
//!
//! Each thread decodes one unit at a time straight from memory into registers, a slice (a word
//! of levels), neighbouring threads taking neighbouring units of a row, so the weights and the
//! activations they meet are read in contiguous runs. A thread does the same unit of up to
//! four rows, so each activation value it loads serves that many rows; it keeps one running
//! dot product per (activation row, weight row), and a reduction per pair ends it (the frame
//! in `families/matvec.rs`, which the integer kernel and `gemv` over several rows share).
//! The shape is fixed when the kernel is built, so range analysis proves every read inside (no
//! bounds tests) where weight rows are clamped to the matrix and units fill whole steps.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel};

use super::WeightFormat;
use super::decode::{self, Part};
use crate::families::matvec::Frame;

/// Threads per threadgroup.
pub(super) const THREADS: u32 = 256;

/// Slices of a row the threads of one row block take per step (at most).
const STEP_SLICES: u32 = 256;

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
///
/// A thread's step is one *unit* of a row, a slice ([`decode::slice`]). Weight rows past the
/// matrix read its last row (their results are never stored), so every weight read is in
/// bounds and range analysis drops its test; where the units of a row are a whole number of
/// steps no unit is clamped or masked either.
pub fn qgemv(format: WeightFormat, act: DType, m: usize, n: usize, kd: usize, group: usize) -> Ir {
    let spu = decode::slices_per_unit(format);
    let units = (kd / format.unit_values() * spu) as u32;
    let p = units.next_power_of_two().clamp(1, STEP_SLICES);
    let frame = Frame::new(m, n, units, p, MAX_DOTS, THREADS, 1);
    let k = Kernel::new(&format!("qgemv_{}", format.name()))
        .grid(frame.grid())
        .threads(frame.threads());
    let x = k.input("X", act, [m as u32, kd as u32]);
    let wp = decode::declare(&k, format, act, n, kd, group);
    let y = k.param("Y", act, [m as u32, n as u32]);
    frame.build(k, &y, act, |k, rows, act_rows, gc, add| {
        let (u, s) = (gc.clone() / spu as u32, gc.clone() % spu as u32);
        let parts: Vec<Vec<Part>> =
            rows.iter().map(|row| decode::slice(k, format, &wp, row, &u, &s, kd, group)).collect();
        // Part by part: its activations, loaded once for every weight row, then each row's
        // share of every running dot product.
        for (j, pt) in parts[0].iter().enumerate() {
            for (r, xr) in act_rows.iter().enumerate() {
                let xs: Vec<Expr> = (0..pt.levels.len())
                    .map(|c| {
                        let col = pt.first.clone() + c as u32;
                        k.let_named("x", x.at([xr.clone(), col]).cast(DType::F32))
                    })
                    .collect();
                let sum = pt.bias.as_ref().map(|_| {
                    k.let_named("xsum", xs.iter().skip(1).fold(xs[0].clone(), |a, b| a + b.clone()))
                });
                for (t, row_parts) in parts.iter().enumerate() {
                    let v = dot(
                        std::slice::from_ref(&row_parts[j]),
                        std::slice::from_ref(&xs),
                        std::slice::from_ref(&sum),
                    );
                    add(k, r, t, v);
                }
            }
        }
    })
}
