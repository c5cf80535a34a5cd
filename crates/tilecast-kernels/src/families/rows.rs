//! Kernels over the last axis of `X[R, C]`: softmax, log_softmax, rms_norm, layer_norm and the
//! fused residual-add + rms_norm. Values are computed in f32 whatever the storage type.
//!
//! A threadgroup holds its rows in registers, as a fragment: each thread owns a few elements of
//! each row, so maps run in registers and reductions fold registers first (only one value per
//! thread or subgroup meets the others in threadgroup memory). Rows of up to [`MAX_ROW`]
//! elements ([`MAX_WIDE_ROW`] with 1024 threads) are read once and written once (one pass
//! over the data); longer rows are read in chunks twice (statistics, then output). `C` is
//! baked into the kernel, so a launch with another row length is refused by the shape check
//! instead of reading past the tile.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, GlobalParam, Kernel, TileRef, ceil_div, select, sym};

use crate::families::grid::{flat_block, flat_grid};

/// Threads per threadgroup of the short-row and chunked plans.
const THREADS: u32 = 256;
/// Threads per threadgroup holding one wide row whole.
const WIDE_THREADS: u32 = 1024;
/// Longest row read in one pass by 256 threads (32 f32 registers each): holding longer rows
/// in 256 threads (128 registers each for 32768 elements) was slower than two chunked passes
/// for every row kernel (softmax aside).
pub const MAX_ROW: usize = 8192;
/// Longest row read in one pass at all: by 1024 threads, again 32 registers each, where the
/// device allows threadgroups that large and the kernel holds one copy of the row.
pub const MAX_WIDE_ROW: usize = 32768;
/// Most row-sized fragments a kernel may hold and still keep wide rows whole: two (64
/// registers per thread of 1024, the most such a threadgroup may use on NVIDIA GPUs).
pub const MAX_WIDE_COPIES: u32 = 2;
/// Chunk width of the two-pass path.
const CHUNK: u32 = 4096;

/// How rows are spread over threadgroups.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowPlan {
    /// Rows per threadgroup.
    pub rows: u32,
    /// Tile width: the row rounded up to a multiple of the threads per row (one pass) or the
    /// chunk width.
    pub width: u32,
    /// Rows too long to hold whole: statistics over chunks, then a second pass.
    pub chunked: bool,
    /// Threads per threadgroup.
    pub threads: u32,
}

impl std::fmt::Display for RowPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = if self.chunked { "in chunks, two passes" } else { "held whole, one pass" };
        write!(
            f,
            "{} row(s) per threadgroup of {} threads, width {}, {how}",
            self.rows, self.threads, self.width
        )
    }
}

impl RowPlan {
    /// The plan for rows of `c` elements read in chunks past [`MAX_ROW`]: short rows share a
    /// threadgroup of 256 threads (up to 8, a power of two), so each moves at least 4096
    /// elements; the width is the row rounded up to a multiple of `256 / rows`, so every thread
    /// holds the same number of elements; longer rows are read in chunks of 4096. Plain
    /// reductions use it: chunked, their long rows run faster than held whole by 1024 threads
    /// (32768 elements: 85% of copy bandwidth against 62%).
    pub fn for_width(c: usize) -> RowPlan {
        if c > MAX_ROW {
            return RowPlan { rows: 1, width: CHUNK, chunked: true, threads: THREADS };
        }
        let w32 = c.div_ceil(32).max(1) as u32 * 32;
        let fit = (4096 / w32).clamp(1, 8);
        let rows = 1 << (31 - fit.leading_zeros());
        let step = THREADS / rows;
        let width = (c.max(1) as u32).div_ceil(step) * step;
        RowPlan { rows, width, chunked: false, threads: THREADS }
    }

    /// As [`for_width`](Self::for_width), except that rows of up to [`MAX_WIDE_ROW`] are held
    /// whole by one threadgroup of 1024 threads (32 registers per copy of the row), read once
    /// and written once, when the device allows 1024 threads and the kernel holds at most
    /// [`MAX_WIDE_COPIES`] row-sized fragments. The kernels that write rows back use it: one
    /// pass is faster for them than two (4096x32768 f16 rms_norm: 64% of copy bandwidth
    /// against 51%).
    pub fn for_row(c: usize, max_threads: u32, copies: u32) -> RowPlan {
        if c > MAX_ROW
            && c <= MAX_WIDE_ROW
            && copies <= MAX_WIDE_COPIES
            && max_threads >= WIDE_THREADS
        {
            let width = (c as u32).div_ceil(WIDE_THREADS) * WIDE_THREADS;
            return RowPlan { rows: 1, width, chunked: false, threads: WIDE_THREADS };
        }
        RowPlan::for_width(c)
    }
}

/// Which row operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RowOp {
    /// `exp(x - max) / sum(exp(x - max))`.
    Softmax,
    /// `x - max - log(sum(exp(x - max)))`.
    LogSoftmax,
    /// `x / sqrt(mean(x^2) + eps) * w`.
    RmsNorm,
    /// `(x - mean) / sqrt(var + eps) * w (+ b)`.
    LayerNorm {
        /// Whether a bias `B[C]` is added.
        bias: bool,
    },
    /// `H = X + Res; Y = rms_norm(H) * w`: the residual update and norm engines run between
    /// layers, reading each input once.
    AddRmsNorm,
}

impl RowOp {
    /// How rows of `c` elements are spread over threadgroups of at most `max_threads`: the
    /// family's one decision ([`RowPlan::for_row`]; log_softmax holds two copies of the row,
    /// `exp(x - max)` beside `x`).
    pub fn plan(self, c: usize, max_threads: u32) -> RowPlan {
        let copies = if self == RowOp::LogSoftmax { 2 } else { 1 };
        RowPlan::for_row(c, max_threads, copies)
    }

    /// Kernel name.
    pub fn name(self) -> &'static str {
        match self {
            RowOp::Softmax => "softmax",
            RowOp::LogSoftmax => "log_softmax",
            RowOp::RmsNorm => "rms_norm",
            RowOp::LayerNorm { bias: true } => "layer_norm",
            RowOp::LayerNorm { bias: false } => "layer_norm_nobias",
            RowOp::AddRmsNorm => "add_rms_norm",
        }
    }
}

/// Shared state of one row kernel while it is being built.
struct Rows<'a> {
    k: &'a Kernel,
    plan: RowPlan,
    c: Expr,
    row0: Expr,
    t: TileRef,
    /// Whether some window reaches past `C` (else padding is never needed).
    ragged: bool,
}

impl Rows<'_> {
    fn stat(&self, name: &str) -> TileRef {
        self.k.shared_named(name, DType::F32, [self.plan.rows])
    }

    /// Loads the window at column `col0` into the tile; columns past `C` hold `pad`.
    fn load(&self, x: &GlobalParam, col0: &Expr, pad: Option<Expr>) {
        let RowPlan { rows, width, .. } = self.plan;
        self.k.copy(x.tile([self.row0.clone(), col0.clone()]), &self.t);
        if let Some(pad) = pad.filter(|_| self.ragged) {
            let (t, c) = (&self.t, &self.c);
            self.k.parallel([rows, width], |k, [i, j]| {
                let inside = (col0.clone() + &j).lt(c);
                k.store(t, [&i, &j], select(inside, t.at([&i, &j]), pad.clone()));
            });
        }
    }

    /// `tile[i, j] = f(tile[i, j], i, column)`.
    fn map(&self, col0: &Expr, f: impl Fn(Expr, &Expr, &Expr) -> Expr) {
        let RowPlan { rows, width, .. } = self.plan;
        let t = &self.t;
        self.k.parallel([rows, width], |k, [i, j]| {
            let col = col0.clone() + &j;
            k.store(t, [&i, &j], f(t.at([&i, &j]), &i, &col));
        });
    }

    fn save(&self, y: &GlobalParam, col0: &Expr) {
        self.k.copy(&self.t, y.tile([self.row0.clone(), col0.clone()]));
    }

    fn cf(&self) -> Expr {
        self.c.clone().cast(DType::F32)
    }
}

/// The kernel for `op` on `dtype` rows of `c` elements, for a device allowing `max_threads`
/// threads per threadgroup (see [`RowPlan::for_row`]).
/// Arguments: `X[R, C]` (+ `Res[R, C]` for add_rms_norm), then `W[C]`, `B[C]` where the op has
/// them, then outputs (`H[R, C]` for add_rms_norm) and `Y[R, C]`, then the f32 scalar `eps` for
/// the norms.
/// `plan` spreads the rows over threadgroups (see [`RowOp::plan`]).
pub fn row_kernel(op: RowOp, dtype: DType, c: usize, plan: &RowPlan) -> Ir {
    let c_len = c;
    let (r, c) = (sym("R"), Expr::from(c as u32));
    let blocks = ceil_div(&r, plan.rows);
    let k = Kernel::new(op.name()).grid(flat_grid(&blocks)).threads(plan.threads);
    let x = k.input("X", dtype, [&r, &c]);
    let res = (op == RowOp::AddRmsNorm).then(|| k.input("Res", dtype, [&r, &c]));
    let norm = !matches!(op, RowOp::Softmax | RowOp::LogSoftmax);
    let w = norm.then(|| k.input("W", dtype, [&c]));
    let b = matches!(op, RowOp::LayerNorm { bias: true }).then(|| k.input("B", dtype, [&c]));
    let h = (op == RowOp::AddRmsNorm).then(|| k.param("H", dtype, [&r, &c]));
    let y = k.param("Y", dtype, [&r, &c]);
    let eps = norm.then(|| k.scalar("eps", DType::F32));
    let t = k.fragment_named("rows", DType::F32, [plan.rows, plan.width]);
    let ragged = !c_len.is_multiple_of(plan.width as usize);
    let rows = Rows { k: &k, plan: *plan, c, row0: flat_block(&blocks) * plan.rows, t, ragged };
    let weight = |col: &Expr| {
        w.as_ref().map_or(Expr::from(1.0f32), |w| w.at([col.clone()]).cast(DType::F32))
    };
    let bias = |col: &Expr| {
        b.as_ref().map_or(Expr::from(0.0f32), |b| b.at([col.clone()]).cast(DType::F32))
    };
    let add_res = |rows: &Rows, col0: &Expr| {
        if let Some(res) = &res {
            let row0 = rows.row0.clone();
            rows.map(col0, |v, i, col| {
                v + res.at([row0.clone() + i, col.clone()]).cast(DType::F32)
            });
        }
    };
    let zero = Expr::from(0u32);
    if !plan.chunked {
        match op {
            RowOp::Softmax | RowOp::LogSoftmax => {
                let (mx, sum) = (rows.stat("row_max"), rows.stat("row_sum"));
                rows.load(&x, &zero, Some(Expr::neg_inf()));
                k.reduce_max(&rows.t, &mx, 1);
                if op == RowOp::Softmax {
                    rows.map(&zero, |v, i, _| (v - mx.at([i.clone()])).exp());
                    k.reduce_sum(&rows.t, &sum, 1);
                    rows.map(&zero, |v, i, _| v / sum.at([i.clone()]));
                    rows.save(&y, &zero);
                } else {
                    // The output needs x - max, so exp(x - max) goes to a second fragment
                    // (registers) instead of replacing the row: x is read once.
                    let e = k.fragment_named("exp", DType::F32, [plan.rows, plan.width]);
                    let t = &rows.t;
                    k.parallel([plan.rows, plan.width], |k, [i, j]| {
                        k.store(&e, [&i, &j], (t.at([&i, &j]) - mx.at([&i])).exp());
                    });
                    k.reduce_sum(&e, &sum, 1);
                    rows.map(&zero, |v, i, _| v - mx.at([i.clone()]) - sum.at([i.clone()]).log());
                    rows.save(&y, &zero);
                }
            }
            RowOp::RmsNorm | RowOp::AddRmsNorm => {
                let ss = rows.stat("sum_sq");
                rows.load(&x, &zero, None);
                add_res(&rows, &zero);
                if let Some(h) = &h {
                    rows.save(h, &zero);
                }
                k.reduce_sq_sum(&rows.t, &ss, 1);
                let eps = eps.clone().expect("norms take eps");
                let cf = rows.cf();
                rows.map(&zero, |v, i, col| {
                    v * (ss.at([i.clone()]) / cf.clone() + eps.clone()).rsqrt() * weight(col)
                });
                rows.save(&y, &zero);
            }
            RowOp::LayerNorm { .. } => {
                let (sum, ss) = (rows.stat("sum"), rows.stat("sum_sq"));
                rows.load(&x, &zero, None);
                k.reduce_sum(&rows.t, &sum, 1);
                let cf = rows.cf();
                let c = rows.c.clone();
                // Centered in place; padding columns stay zero so they add nothing below.
                rows.map(&zero, |v, i, col| {
                    select(col.clone().lt(&c), v - sum.at([i.clone()]) / cf.clone(), 0.0f32)
                });
                k.reduce_sq_sum(&rows.t, &ss, 1);
                let eps = eps.clone().expect("norms take eps");
                rows.map(&zero, |v, i, col| {
                    v * (ss.at([i.clone()]) / cf.clone() + eps.clone()).rsqrt() * weight(col)
                        + bias(col)
                });
                rows.save(&y, &zero);
            }
        }
        return k.build();
    }
    // Rows longer than MAX_ROW: statistics over chunks, then the output pass.
    let chunks = ceil_div(&rows.c, plan.width);
    let col0 = |j: &Expr| j.clone() * plan.width;
    match op {
        RowOp::Softmax | RowOp::LogSoftmax => {
            let (mx, sum, cmax) =
                (rows.stat("row_max"), rows.stat("row_sum"), rows.stat("chunk_max"));
            k.fill(&mx, Expr::neg_inf());
            k.clear(&sum);
            k.serial(chunks.clone(), |k, j| {
                let c0 = col0(&j);
                rows.load(&x, &c0, Some(Expr::neg_inf()));
                k.reduce_max(&rows.t, &cmax, 1);
                // Online rescale: the running sum is relative to the running max.
                k.parallel([plan.rows], |k, [i]| {
                    let m = mx.at([&i]).max(cmax.at([&i]));
                    k.store(&sum, [&i], sum.at([&i]) * (mx.at([&i]) - m.clone()).exp());
                    k.store(&mx, [&i], m);
                });
                rows.map(&c0, |v, i, _| (v - mx.at([i.clone()])).exp());
                k.reduce_sum_into(&rows.t, &sum, 1);
            });
            k.serial(chunks, |_, j| {
                let c0 = col0(&j);
                rows.load(&x, &c0, None);
                if op == RowOp::Softmax {
                    rows.map(&c0, |v, i, _| (v - mx.at([i.clone()])).exp() / sum.at([i.clone()]));
                } else {
                    rows.map(&c0, |v, i, _| v - mx.at([i.clone()]) - sum.at([i.clone()]).log());
                }
                rows.save(&y, &c0);
            });
        }
        RowOp::RmsNorm | RowOp::AddRmsNorm | RowOp::LayerNorm { .. } => {
            let (sum, ss) = (rows.stat("sum"), rows.stat("sum_sq"));
            k.clear(&sum);
            k.clear(&ss);
            let layer = matches!(op, RowOp::LayerNorm { .. });
            k.serial(chunks.clone(), |k, j| {
                let c0 = col0(&j);
                rows.load(&x, &c0, None);
                add_res(&rows, &c0);
                if let Some(h) = &h {
                    rows.save(h, &c0);
                }
                if layer {
                    k.reduce_sum_into(&rows.t, &sum, 1);
                }
                k.reduce_sq_sum_into(&rows.t, &ss, 1);
            });
            let eps = eps.clone().expect("norms take eps");
            let cf = rows.cf();
            k.serial(chunks, |_, j| {
                let c0 = col0(&j);
                rows.load(&x, &c0, None);
                add_res(&rows, &c0);
                rows.map(&c0, |v, i, col| {
                    let i = i.clone();
                    if layer {
                        // Two moments from one pass: var = E[x^2] - mean^2 (f32).
                        let mean = sum.at([&i]) / cf.clone();
                        let var = ss.at([&i]) / cf.clone() - mean.clone() * mean.clone();
                        (v - mean) * (var.max(0.0f32) + eps.clone()).rsqrt() * weight(col)
                            + bias(col)
                    } else {
                        v * (ss.at([&i]) / cf.clone() + eps.clone()).rsqrt() * weight(col)
                    }
                });
                rows.save(&y, &c0);
            });
        }
    }
    k.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_rows_are_held_whole_up_to_two_copies_where_1024_threads_are_allowed() {
        let whole = RowPlan { rows: 1, width: 32768, chunked: false, threads: 1024 };
        assert_eq!(RowPlan::for_row(32001, 1024, 1), whole);
        assert_eq!(RowPlan::for_row(32001, 1024, 2), whole);
        assert!(RowPlan::for_row(32001, 1024, 3).chunked);
        assert!(RowPlan::for_row(32001, 512, 1).chunked);
        assert!(RowPlan::for_row(MAX_WIDE_ROW + 1, 1024, 1).chunked);
        assert_eq!(RowPlan::for_row(9000, 1024, 2).threads, 1024);
        assert_eq!(RowPlan::for_row(8192, 1024, 1), RowPlan::for_width(8192));
    }
}
