//! The frame of a mat-vec over 1 to 8 activation rows, `Y[M, N] = X[M, K] W[N, K]^T`, shared by
//! the quantized mat-vecs (`qgemv`, float and integer) and the float one over several rows
//! (`gemv` with `rows=M`): which threads take which weight rows and units of a row, the
//! running dot products each keeps, and the reduction that ends them. The kernel decides what
//! a unit is (a quantized block pair, a slice of levels, 8 float columns) and how it decodes.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, GlobalParam, Kernel, ceil_div, select};

use crate::families::grid::{flat_block, flat_grid};

/// Weight rows one thread decodes the same unit of, at most: the activations it loads for a
/// unit (2 to 4 times a quantized unit's weight bytes) then serve four rows.
pub const ROWS_PER_THREAD: u32 = 4;

/// How a mat-vec of `m` activation rows over `n` weight rows of `units` units each spreads over
/// threadgroups: `p` threads per row block (a power of two, up to the threadgroup) take
/// neighbouring units, `steps` times; a thread does its unit of `rt` weight rows against the
/// activation rows of its split (all `m`, or `m / splits` where the rows are split over
/// `splits` threads, which then decode the same weights).
pub(crate) struct Frame {
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
pub(crate) type Accumulate<'a> = dyn Fn(&Kernel, usize, usize, Expr) + 'a;

impl Frame {
    /// `p` threads per row block (a power of two up to `threads`), which take a row's units
    /// `p` at a time, each keeping up to `dots` running dot products, `threads` per
    /// threadgroup; the activation rows split over `splits` threads (a divisor of `m`).
    pub(crate) fn new(
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
    pub(crate) fn threads(&self) -> u32 {
        self.threads
    }

    /// Weight rows per threadgroup.
    pub(crate) fn rows_per_group(&self) -> u32 {
        self.rows
    }

    /// Weight rows a thread decodes the same unit of, for `m` activation rows and up to
    /// `dots` running dot products per thread.
    pub(crate) fn rows_per_thread(m: usize, dots: u32) -> u32 {
        (dots / m as u32).clamp(1, ROWS_PER_THREAD)
    }

    /// The launch grid.
    pub(crate) fn grid(&self) -> [Expr; 2] {
        flat_grid(&self.blocks)
    }

    /// The kernel `k` (parameters declared) finished storing into `y` (`[m, n]` of `out`):
    /// `unit(k, weight_rows, act_rows, unit, add)` decodes one unit of each of the thread's
    /// weight rows (clamped to the matrix, and the unit to the row) and adds each (activation
    /// row, weight row) pair's share through `add` (activation rows by their place in
    /// `act_rows`), which drops it where the unit lies past the row.
    pub(crate) fn build(
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
