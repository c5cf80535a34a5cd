//! `Y[M, N] = X[M, K] W[N, K]^T` with quantized `W` and 1 to 8 activation rows: the decode step
//! of a quantized linear layer, bound by the bytes of `W`. This is the float kernel, for `mlx8`
//! and rows whose length the integer dot products ([`super::int8`]) do not take; both build on
//! the same frame of threads and rows.
//!
//! Each thread decodes one unit at a time straight from memory into registers, a slice (a word
//! of levels), neighbouring threads taking neighbouring units of a row, so the weights and the
//! activations they meet are read in contiguous runs. A thread does the same unit of
//! [`ROWS_PER_THREAD`] rows, so each activation value it loads serves that many rows; it keeps
//! one running dot product per (activation row, weight row), and a reduction per pair ends it.
//! The shape is fixed when the kernel is built, so range analysis proves every read inside (no
//! bounds tests) where weight rows are clamped to the matrix and units fill whole steps.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, GlobalParam, Kernel, ceil_div, select};

use super::WeightFormat;
use super::decode::{self, Part};
use crate::families::grid::{flat_block, flat_grid};

/// Threads per threadgroup.
pub(super) const THREADS: u32 = 256;

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

/// How a mat-vec of `m` activation rows over `n` weight rows of `units` units each spreads over
/// threadgroups: `p` threads per row block (a power of two, at most [`STEP_SLICES`]) take
/// neighbouring units, `steps` times; a thread does its unit of `rt` weight rows against the
/// activation rows of its split (all `m`, or `m / splits` where the rows are split over
/// `splits` threads, which then decode the same weights).
pub(super) struct Frame {
    m: usize,
    n: usize,
    units: u32,
    p: u32,
    threads: u32,
    splits: u32,
    blocks_per_tg: u32,
    rt: u32,
    rows: u32,
    blocks: Expr,
}

/// Adds a contribution to the running dot product of (the thread's activation row, weight row).
pub(super) type Accumulate<'a> = dyn Fn(&Kernel, usize, usize, Expr) + 'a;

impl Frame {
    /// Up to [`STEP_SLICES`] threads per row block, as many as a row has units, and up to
    /// [`MAX_DOTS`] running dot products per thread.
    pub(super) fn new(m: usize, n: usize, units: u32) -> Frame {
        let p = units.next_power_of_two().clamp(1, STEP_SLICES);
        Frame::with(m, n, units, p, MAX_DOTS, THREADS, 1)
    }

    /// `p` threads per row block (a power of two up to `threads`), which take a row's units
    /// `p` at a time, each keeping up to `dots` running dot products, `threads` per
    /// threadgroup; the activation rows split over `splits` threads (a divisor of `m`).
    pub(super) fn with(
        m: usize,
        n: usize,
        units: u32,
        p: u32,
        dots: u32,
        threads: u32,
        splits: u32,
    ) -> Frame {
        debug_assert!(m.is_multiple_of(splits as usize));
        let blocks_per_tg = threads / (p * splits);
        let rt = Frame::rows_per_thread(m / splits as usize, dots);
        let rows = blocks_per_tg * rt;
        let blocks = ceil_div(Expr::from(n as u32), rows);
        Frame { m, n, units, p, threads, splits, blocks_per_tg, rt, rows, blocks }
    }

    /// Threads per threadgroup.
    pub(super) fn threads(&self) -> u32 {
        self.threads
    }

    /// Weight rows per threadgroup.
    pub(super) fn rows_per_group(&self) -> u32 {
        self.rows
    }

    /// Weight rows a thread decodes the same unit of, for `m` activation rows and up to
    /// `dots` running dot products per thread.
    pub(super) fn rows_per_thread(m: usize, dots: u32) -> u32 {
        (dots / m as u32).clamp(1, ROWS_PER_THREAD)
    }

    /// The launch grid.
    pub(super) fn grid(&self) -> [Expr; 2] {
        flat_grid(&self.blocks)
    }

    /// The kernel `k` (parameters declared) finished storing into `y` (`[m, n]` of `out`):
    /// `unit(k, weight_rows, act_rows, unit, add)` decodes one unit of each of the thread's
    /// weight rows (clamped to the matrix, and the unit to the row) and adds each (activation
    /// row, weight row) pair's share through `add` (activation rows by their place in
    /// `act_rows`), which drops it where the unit lies past the row.
    pub(super) fn build(
        &self,
        k: Kernel,
        y: &GlobalParam,
        out: DType,
        unit: impl Fn(&Kernel, &[Expr], &[Expr], &Expr, &Accumulate),
    ) -> Ir {
        let Frame { m, n, units, p, splits, blocks_per_tg, rt, rows, .. } = *self;
        debug_assert_eq!(blocks_per_tg * p * splits, self.threads);
        let steps = units.div_ceil(p);
        let ragged_units = !units.is_multiple_of(p);
        let ragged_rows = !(n as u32).is_multiple_of(rows);
        let ma = m / splits as usize;
        // Threads as [row block and activation rows' split, lane]: row block `x / splits`,
        // split `x % splits` (fragments are at most 2-D).
        let split = splits > 1;
        let blocks = blocks_per_tg * splits;
        // dots[r][t]: the thread's activation row r against weight row row0 + t * blocks_per_tg + i.
        let dots: Vec<Vec<_>> = (0..ma)
            .map(|r| {
                (0..rt)
                    .map(|t| k.fragment_named(&format!("dot{r}_{t}"), DType::F32, [blocks, p]))
                    .collect()
            })
            .collect();
        let sums: Vec<Vec<_>> = (0..ma)
            .map(|r| {
                (0..rt)
                    .map(|t| k.shared_named(&format!("sum{r}_{t}"), DType::F32, [blocks]))
                    .collect()
            })
            .collect();
        let row0 = flat_block(&self.blocks) * rows;
        dots.iter().flatten().for_each(|d| k.clear(d));
        let step = |k: &Kernel, g0: Expr| {
            k.parallel([blocks, p], |k, [x, q]| {
                let (i, h) = if split {
                    (x.clone() / splits, Some(x.clone() % splits))
                } else {
                    (x.clone(), None)
                };
                // Not a let: range analysis sees through expressions, not lets.
                let g = g0.clone() + &q;
                // Past the row's last unit: decode the last one again, add nothing. Clamped
                // with min (not a let) so range analysis proves the reads' columns.
                let (inside, gc) = if ragged_units {
                    (Some(k.let_named("inside", g.clone().lt(units))), g.min(units - 1))
                } else {
                    (None, g)
                };
                let weight_rows: Vec<Expr> = (0..rt)
                    .map(|t| {
                        let row = row0.clone() + t * blocks_per_tg + &i;
                        if ragged_rows { row.min(n as u32 - 1) } else { row }
                    })
                    .collect();
                let act_rows: Vec<Expr> = (0..ma as u32)
                    .map(|r| match &h {
                        Some(h) => h.clone() * ma as u32 + r,
                        None => Expr::from(r),
                    })
                    .collect();
                let add = |k: &Kernel, r: usize, t: usize, v: Expr| {
                    let v = match &inside {
                        Some(c) => select(c.clone(), v, 0.0f32),
                        None => v,
                    };
                    let d = &dots[r][t];
                    k.store(d, [&x, &q], d.at([&x, &q]) + v);
                };
                unit(k, &weight_rows, &act_rows, &gc, &add);
            });
        };
        if steps == 1 {
            step(&k, Expr::from(0u32));
        } else {
            k.serial(steps, |k, st| step(k, st * p));
        }
        for r in 0..ma {
            for t in 0..rt as usize {
                k.reduce_sum(&dots[r][t], &sums[r][t], 1);
                let first = row0.clone() + t as u32 * blocks_per_tg;
                if split {
                    // Group h's row r is activation row h * ma + r: a strided window, stored
                    // element by element (rows past the matrix store their clamped row's
                    // value again).
                    let sum = &sums[r][t];
                    k.parallel([blocks], |k, [x]| {
                        let row = (first.clone() + x.clone() / splits).min(n as u32 - 1);
                        let v = sum.at([&x]).cast(out);
                        k.store(y, [x % splits * ma as u32 + r as u32, row], v);
                    });
                } else {
                    k.copy(&sums[r][t], y.window([Expr::from(r as u32), first], [1]));
                }
            }
        }
        k.build()
    }
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
    let frame = Frame::new(m, n, units);
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
