//! Reductions along the last axis of `X[R, C]`: sum and max (f32 results) and argmax (u32, the
//! first largest element). Rows are read in chunks of at most [`crate::rows::MAX_ROW`].

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, GlobalParam, Kernel, ceil_div, select, sym};

use crate::families::grid::{flat_block, flat_grid};
use crate::rows::RowPlan;

/// Which reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// Sum (f32).
    Sum,
    /// Maximum (f32).
    Max,
    /// Index of the first maximum (u32).
    Argmax,
}

impl Reduction {
    /// Kernel name.
    pub fn name(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Max => "max",
            Reduction::Argmax => "argmax",
        }
    }
}

/// `Y[r] = op(X[r, :])` for `dtype` rows of `c` elements, spread as `plan` says (the family
/// takes [`RowPlan::for_width`]); `Y` is f32 (u32 for argmax). `max` and `argmax` propagate
/// NaN as numpy and torch do: a row holding a NaN has max NaN and argmax its first NaN's
/// index. They compare [`order_key`]s, not floats (WGSL's `max` is unspecified for NaN).
pub fn reduce_rows(op: Reduction, dtype: DType, c: usize, plan: &RowPlan) -> Ir {
    let (rows, width) = (plan.rows, plan.width);
    let c_len = c;
    let (r, c) = (sym("R"), Expr::from(c as u32));
    let blocks = ceil_div(&r, rows);
    let k = Kernel::new(op.name()).grid(flat_grid(&blocks)).threads(plan.threads);
    let x = k.input("X", dtype, [&r, &c]);
    let out_type = if op == Reduction::Argmax { DType::U32 } else { DType::F32 };
    let y = k.param("Y", out_type, [&r]);
    let row0 = flat_block(&blocks) * rows;
    let ragged = !c_len.is_multiple_of(width as usize);
    if op == Reduction::Argmax && plan.chunked && c_len < 1 << 24 {
        argmax_chunks(&k, &x, &y, &row0, (&c, ragged), width);
        return k.build();
    }
    // The rows live in registers (see `crate::rows`).
    let t = k.fragment_named("rows", DType::F32, [rows, width]);
    if op == Reduction::Sum {
        let acc = k.shared_named("acc", DType::F32, [rows]);
        k.clear(&acc);
        k.serial(ceil_div(&c, width), |k, j| {
            k.copy(x.tile([row0.clone(), j * width]), &t);
            k.reduce_sum_into(&t, &acc, 1);
        });
        k.copy(&acc, y.tile([row0]));
        return k.build();
    }
    // The keys of a tile of rows read at column `col0`; columns past C get key 0, below every
    // value's, so they never win.
    let keys = k.fragment_named("keys", DType::U32, [rows, width]);
    let to_keys = |k: &Kernel, col0: &Expr| {
        k.parallel([rows, width], |k, [i, q]| {
            let key = order_key(t.at([&i, &q]));
            let key = if ragged { select((col0.clone() + &q).lt(&c), key, 0u32) } else { key };
            k.store(&keys, [&i, &q], key);
        });
    };
    if op == Reduction::Argmax && !plan.chunked {
        // The whole row at once: one index reduction from registers, nothing to carry.
        let best = k.shared_named("best_arg", DType::U32, [rows]);
        k.copy(x.tile([row0.clone(), Expr::from(0u32)]), &t);
        to_keys(&k, &Expr::from(0u32));
        k.reduce_argmax(&keys, &best, 1);
        k.copy(&best, y.tile([row0]));
        return k.build();
    }
    // The running maximum's key.
    let acc = k.shared_named("acc", DType::U32, [rows]);
    // Argmax: the chunk's winner and the running best index.
    let argmax = (op == Reduction::Argmax).then(|| {
        (
            k.shared_named("chunk", DType::U32, [rows]),
            k.shared_named("chunk_arg", DType::U32, [rows]),
            k.shared_named("best_arg", DType::U32, [rows]),
        )
    });
    k.clear(&acc);
    if let Some((_, _, best)) = &argmax {
        k.clear(best);
    }
    k.serial(ceil_div(&c, width), |k, j| {
        let col0 = j.clone() * width;
        k.copy(x.tile([row0.clone(), col0.clone()]), &t);
        to_keys(k, &col0);
        match &argmax {
            None => k.reduce_max_into(&keys, &acc, 1),
            Some((chunk, arg, best)) => {
                // The chunk's max and its first column: two reductions from registers (the
                // index one keeps the smallest column among equal maxima).
                k.reduce_max(&keys, chunk, 1);
                k.reduce_argmax(&keys, arg, 1);
                // A later chunk wins only when strictly larger: the first maximum is kept.
                k.parallel([rows], |k, [i]| {
                    let better = chunk.at([&i]).gt(acc.at([&i]));
                    k.store(
                        best,
                        [&i],
                        select(better.clone(), col0.clone() + arg.at([&i]), best.at([&i])),
                    );
                    k.store(&acc, [&i], select(better, chunk.at([&i]), acc.at([&i])));
                });
            }
        }
    });
    match &argmax {
        Some((_, _, best)) => k.copy(best, y.tile([row0])),
        None => k.parallel([rows], |k, [i]| {
            k.store(&y, [row0.clone() + &i], from_order_key(acc.at([&i])));
        }),
    }
    k.build()
}

/// An f32 `v` as a u32 key that orders as the values do, with every NaN (of either sign) above
/// +inf: negative values have all bits flipped, others the sign bit set, and NaNs take
/// `u32::MAX`. The smallest key of a value is -inf's, `0x007f_ffff`.
pub fn order_key(v: Expr) -> Expr {
    let bits = v.bitcast(DType::U32);
    let negative = bits.clone().ge(0x8000_0000u32);
    let key = bits.clone() ^ select(negative, u32::MAX, 0x8000_0000u32);
    select((bits & 0x7fff_ffffu32).gt(0x7f80_0000u32), u32::MAX, key)
}

/// The f32 value of an [`order_key`] (a NaN's key gives a NaN).
pub fn from_order_key(key: Expr) -> Expr {
    let positive = key.clone().ge(0x8000_0000u32);
    (key ^ select(positive, 0x8000_0000u32, u32::MAX)).bitcast(DType::F32)
}

/// Argmax of one row read in chunks (`width` columns each) with nothing reduced per chunk:
/// each register slot keeps the largest [`order_key`] it has seen and the chunk it came from
/// (a later chunk replaces it only when strictly larger, so a slot keeps its first NaN), then
/// one max over the slots and one min over the columns of the slots holding that max give the
/// row's first largest element. Chunks and columns are carried as f32, exact below 2^24; the
/// chunk index converts once per chunk, not per element (integer-to-float conversions run at
/// a quarter of the ALU rate on NVIDIA GPUs), and both are faster than two reductions per
/// chunk. The keys' integer work makes f16 rows ALU-bound: 4096x32768 ran in 127 us on an H200
/// against 94 us for the float compare that skipped NaN.
fn argmax_chunks(
    k: &Kernel,
    x: &GlobalParam,
    y: &GlobalParam,
    row0: &Expr,
    (c, ragged): (&Expr, bool),
    width: u32,
) {
    let shape = [1, width];
    let best = k.fragment_named("best", DType::U32, shape);
    let chunk = k.fragment_named("best_chunk", DType::F32, shape);
    k.parallel(shape, |k, [i, q]| {
        k.store(&best, [&i, &q], 0u32);
        k.store(&chunk, [&i, &q], 0.0f32);
    });
    k.serial(ceil_div(c, width), |k, j| {
        let col0 = j.clone() * width;
        let jf = j.cast(DType::F32);
        k.parallel(shape, |k, [i, q]| {
            let at = col0.clone() + &q;
            let v = order_key(x.at([row0.clone(), at.clone()]).cast(DType::F32));
            // Columns past C never win: key 0 is below every value's.
            let v = if ragged { select(at.lt(c), v, 0u32) } else { v };
            let better = v.clone().gt(best.at([&i, &q]));
            k.store(&chunk, [&i, &q], select(better.clone(), jf.clone(), chunk.at([&i, &q])));
            k.store(&best, [&i, &q], select(better, v, best.at([&i, &q])));
        });
    });
    let (max, first) =
        (k.shared_named("row_max", DType::U32, [1]), k.shared_named("first", DType::F32, [1]));
    k.reduce_max(&best, &max, 1);
    // Slots below the max drop out with a column no row has.
    let none = Expr::from((1u32 << 24) as f32);
    k.parallel(shape, |k, [i, q]| {
        let top = best.at([&i, &q]).ge(max.at([&i]));
        let col = chunk.at([&i, &q]) * width as f32 + q.clone().cast(DType::F32);
        k.store(&chunk, [&i, &q], select(top, col, none.clone()));
    });
    k.reduce_min(&chunk, &first, 1);
    k.parallel([1], |k, [i]| k.store(y, [row0.clone() + &i], first.at([&i]).cast(DType::U32)));
}
