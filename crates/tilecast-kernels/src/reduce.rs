//! Reductions along the last axis of `X[R, C]`: sum and max (f32 results) and argmax (u32, the
//! first largest element). Rows are read in chunks of at most [`crate::rows::MAX_ROW`].

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, ceil_div, select, sym};

use crate::grid::{flat_block, flat_grid};
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

/// `Y[r] = op(X[r, :])` for `dtype` rows of `c` elements; `Y` is f32 (u32 for argmax).
pub fn reduce_rows(op: Reduction, dtype: DType, c: usize) -> Ir {
    let plan = RowPlan::for_width(c);
    let (rows, width) = (plan.rows, plan.width);
    let c_len = c;
    let (r, c) = (sym("R"), Expr::from(c as u32));
    let blocks = ceil_div(&r, rows);
    let k = Kernel::new(op.name()).grid(flat_grid(&blocks)).threads(plan.threads);
    let x = k.input("X", dtype, [&r, &c]);
    let out_type = if op == Reduction::Argmax { DType::U32 } else { DType::F32 };
    let y = k.param("Y", out_type, [&r]);
    let row0 = flat_block(&blocks) * rows;
    // The rows live in registers (see `crate::rows`).
    let t = k.fragment_named("rows", DType::F32, [rows, width]);
    if op == Reduction::Argmax && !plan.chunked {
        // The whole row at once: one index reduction from registers, nothing to carry.
        let best = k.shared_named("best_arg", DType::U32, [rows]);
        k.copy(x.tile([row0.clone(), Expr::from(0u32)]), &t);
        if !c_len.is_multiple_of(width as usize) {
            k.parallel([rows, width], |k, [i, q]| {
                let v = select(q.clone().lt(&c), t.at([&i, &q]), Expr::neg_inf());
                k.store(&t, [&i, &q], v);
            });
        }
        k.reduce_argmax(&t, &best, 1);
        k.copy(&best, y.tile([row0]));
        return k.build();
    }
    let acc = k.shared_named("acc", DType::F32, [rows]);
    // Argmax: the chunk's winner and the running best index.
    let argmax = (op == Reduction::Argmax).then(|| {
        (
            k.shared_named("chunk", DType::F32, [rows]),
            k.shared_named("chunk_arg", DType::U32, [rows]),
            k.shared_named("best_arg", DType::U32, [rows]),
        )
    });
    match op {
        Reduction::Sum => k.clear(&acc),
        _ => k.fill(&acc, Expr::neg_inf()),
    }
    if let Some((_, _, best)) = &argmax {
        k.clear(best);
    }
    k.serial(ceil_div(&c, width), |k, j| {
        let col0 = j.clone() * width;
        k.copy(x.tile([row0.clone(), col0.clone()]), &t);
        if op != Reduction::Sum && !c_len.is_multiple_of(width as usize) {
            // Columns past C must never win.
            k.parallel([rows, width], |k, [i, q]| {
                let inside = (col0.clone() + &q).lt(&c);
                k.store(&t, [&i, &q], select(inside, t.at([&i, &q]), Expr::neg_inf()));
            });
        }
        match op {
            Reduction::Sum => k.reduce_sum_into(&t, &acc, 1),
            Reduction::Max => k.reduce_max_into(&t, &acc, 1),
            Reduction::Argmax => {
                let (chunk, arg, best) = argmax.as_ref().expect("declared for argmax");
                // The chunk's max and its first column: two reductions from registers (the
                // index one keeps the smallest column among equal maxima).
                k.reduce_max(&t, chunk, 1);
                k.reduce_argmax(&t, arg, 1);
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
    if let Some((_, _, best)) = &argmax {
        k.copy(best, y.tile([row0]));
    } else {
        k.copy(&acc, y.tile([row0]));
    }
    k.build()
}
