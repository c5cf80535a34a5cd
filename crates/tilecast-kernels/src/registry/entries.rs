//! The registry's table: one [`Entry`] per library kernel. Shapes of the quick suite are ragged
//! (multiples of no tile size) and small enough for lavapipe; the full suite's memory-bound
//! shapes move tensors of 256 MiB (f16) or more. The gemm family's entries live with the family
//! (`families/gemm/entries.rs`, `families/gemm/prescaled.rs`).

use std::sync::LazyLock;

use tilecast_lang::DType::{self, BF16, F8E4M3, F8E5M2, F16, F32, U32};

use crate::elementwise::{self, Binary, Unary};
use crate::error::{Error, Result};
use crate::gemm::{entries as gemm_entries, prescaled};
use crate::reference::ops as r;
use crate::registry::{
    About, ArgSpec, Bound, Entry, Expected, Options, Plan, Problem, Strategy, Tolerance, one_launch,
};
use crate::rope::{self, RopeLayout};
use crate::rows::{RowOp, RowPlan, row_kernel};
use crate::{gemv, reduce};

/// Every library kernel.
pub fn entries() -> &'static [Entry] {
    static ALL: LazyLock<Vec<Entry>> = LazyLock::new(all);
    &ALL
}

/// The kernel called `name`.
pub fn lookup(name: &str) -> Result<&'static Entry> {
    entries().iter().find(|e| e.name == name).ok_or_else(|| Error::UnknownKernel {
        name: name.into(),
        known: entries().iter().map(|e| e.name).collect::<Vec<_>>().join(", "),
    })
}

const FLOAT: &[DType] = &[F16, F32];
const EPS: f64 = 1e-5;

/// Ragged shapes test the masked paths; `9x1024` and `3x8192` have rows of whole vectors, so
/// most windows take the vector path of fragments with runs of columns (the last rows of
/// `9x1024` do not).
const ROW_QUICK: &[&str] =
    &["1x1", "3x1001", "5x4099", "33x96", "2x9000", "2x33001", "9x1024", "3x8192"];
const ROW_FULL: &[&str] = &["32768x4096", "4096x32768"];
/// `10000` is a whole number of vectors: all but the last window take the vector path.
const FLAT_QUICK: &[&str] = &["1", "1001", "100003", "10000"];
const FLAT_FULL: &[&str] = &["134217728"];

/// A kernel over the rows of `X[R, C]` of f16 or f32.
fn by_rows(name: &'static str, summary: &'static str) -> About {
    About {
        name,
        summary,
        dims: &["R", "C"],
        dtypes: FLOAT,
        quick: ROW_QUICK,
        full: ROW_FULL,
        bound: Bound::Memory,
    }
}

fn rows_entry(op: RowOp, summary: &'static str) -> Entry {
    let args = move |p: &Problem| {
        let (rr, c, d) = (p.dims[0], p.dims[1], p.dtype);
        let mut a = vec![ArgSpec::input("X", d, &[rr, c])];
        if op == RowOp::AddRmsNorm {
            a.push(ArgSpec::input("Res", d, &[rr, c]));
        }
        if !matches!(op, RowOp::Softmax | RowOp::LogSoftmax) {
            a.push(ArgSpec::input("W", d, &[c]));
        }
        if op == (RowOp::LayerNorm { bias: true }) {
            a.push(ArgSpec::input("B", d, &[c]));
        }
        if op == RowOp::AddRmsNorm {
            a.push(ArgSpec::output("H", d, &[rr, c]));
        }
        a.push(ArgSpec::output("Y", d, &[rr, c]));
        a
    };
    let reference = move |p: &Problem, ins: &[Vec<f32>]| {
        let c = p.dims[1];
        let out = match op {
            RowOp::Softmax => vec![r::softmax(&ins[0], c)],
            RowOp::LogSoftmax => vec![r::log_softmax(&ins[0], c)],
            RowOp::RmsNorm => vec![r::rms_norm(&ins[0], &ins[1], EPS)],
            RowOp::LayerNorm { bias } => {
                vec![r::layer_norm(&ins[0], &ins[1], bias.then(|| &ins[2][..]), EPS)]
            }
            RowOp::AddRmsNorm => {
                // H is stored in the input type; the norm reads the f32 sum (as the kernel does).
                let h: Vec<f32> = ins[0].iter().zip(&ins[1]).map(|(a, b)| a + b).collect();
                let y = r::rms_norm(&h, &ins[2], EPS);
                vec![round_to(p.dtype, &h), y]
            }
        };
        out.into_iter().map(Expected::all).collect()
    };
    let tolerance = move |p: &Problem| match op {
        // Probabilities are small: a tight absolute part, so a wrong small value is caught.
        RowOp::Softmax => {
            let t = Tolerance::stored_as(p.dtype, 1e-4);
            Tolerance { abs: if p.dtype == F32 { 1e-7 } else { 1e-6 }, ..t }
        }
        _ => Tolerance::stored_as(p.dtype, 1e-4),
    };
    let e = Entry::planned(
        by_rows(op.name(), summary),
        move |p, profile| {
            let plan = op.plan(p.dims[1], profile.max_threads);
            let ir = row_kernel(op, p.dtype, p.dims[1], &plan);
            Ok(Plan::single(ir).with_strategy(Strategy::Rows(plan)))
        },
        args,
        reference,
        tolerance,
    );
    let e = e.with_flops(|p| 5.0 * (p.dims[0] * p.dims[1]) as f64);
    match op {
        RowOp::Softmax | RowOp::LogSoftmax => e,
        _ => e.with_scalars(|_| vec![("eps", EPS)]),
    }
}

/// `values` rounded to `dtype` (f32 or f16), as a kernel storing them would.
fn round_to(dtype: DType, values: &[f32]) -> Vec<f32> {
    use crate::reference::{e4m3_to_f32, e5m2_to_f32, f32_to_e4m3, f32_to_e5m2};
    match dtype {
        F16 => values.iter().map(|&v| half::f16::from_f32(v).to_f32()).collect(),
        BF16 => values.iter().map(|&v| half::bf16::from_f32(v).to_f32()).collect(),
        F8E4M3 => values.iter().map(|&v| e4m3_to_f32(f32_to_e4m3(v))).collect(),
        F8E5M2 => values.iter().map(|&v| e5m2_to_f32(f32_to_e5m2(v))).collect(),
        _ => values.to_vec(),
    }
}

/// An elementwise kernel over `N` elements of f16 or f32.
fn flat(name: &'static str, summary: &'static str) -> About {
    About {
        name,
        summary,
        dims: &["N"],
        dtypes: FLOAT,
        quick: FLAT_QUICK,
        full: FLAT_FULL,
        bound: Bound::Memory,
    }
}

fn unary_entry(op: Unary, f: fn(f64) -> f64, summary: &'static str) -> Entry {
    Entry::planned(
        flat(op.name(), summary),
        one_launch(move |p, _| elementwise::unary(op, p.dtype)),
        |p| vec![ArgSpec::input("X", p.dtype, &p.dims), ArgSpec::output("Y", p.dtype, &p.dims)],
        move |_, ins| vec![Expected::all(ins[0].iter().map(|&v| f(v as f64) as f32).collect())],
        |p| Tolerance::stored_as(p.dtype, 1e-5),
    )
}

fn binary_entry(op: Binary, f: fn(f64, f64) -> f64, summary: &'static str) -> Entry {
    Entry::planned(
        flat(op.name(), summary),
        one_launch(move |p, _| elementwise::binary(op, p.dtype)),
        |p| {
            vec![
                ArgSpec::input("X", p.dtype, &p.dims),
                ArgSpec::input("Y2", p.dtype, &p.dims),
                ArgSpec::output("Y", p.dtype, &p.dims),
            ]
        },
        move |_, ins| {
            let y = ins[0].iter().zip(&ins[1]).map(|(&a, &b)| f(a as f64, b as f64) as f32);
            vec![Expected::all(y.collect())]
        },
        |p| Tolerance::stored_as(p.dtype, 1e-5),
    )
}

fn cast_entry(name: &'static str, to: DType, summary: &'static str) -> Entry {
    Entry::planned(
        About { dtypes: &[F32, F16, BF16, F8E4M3, F8E5M2], ..flat(name, summary) },
        one_launch(move |p, _| elementwise::cast(p.dtype, to)),
        move |p| vec![ArgSpec::input("X", p.dtype, &p.dims), ArgSpec::output("Y", to, &p.dims)],
        move |_, ins| vec![Expected::all(round_to(to, &ins[0]))],
        // Widening is exact (fp8 values are all f16 values); f32 and bf16 to f16 round once
        // (the reference to nearest even; a device rounding otherwise is off by one ulp).
        move |p| {
            if to == F16 && matches!(p.dtype, F32 | BF16) {
                Tolerance::stored_as(F16, 0.0)
            } else {
                Tolerance::EXACT
            }
        },
    )
}

fn reduce_entry(op: reduce::Reduction, summary: &'static str) -> Entry {
    Entry::planned(
        by_rows(op.name(), summary),
        move |p, _| {
            let plan = RowPlan::for_width(p.dims[1]);
            let ir = reduce::reduce_rows(op, p.dtype, p.dims[1], &plan);
            Ok(Plan::single(ir).with_strategy(Strategy::Rows(plan)))
        },
        move |p| {
            let out = if op == reduce::Reduction::Argmax { U32 } else { F32 };
            vec![ArgSpec::input("X", p.dtype, &p.dims), ArgSpec::output("Y", out, &p.dims[..1])]
        },
        move |p, ins| {
            let c = p.dims[1];
            vec![Expected::all(match op {
                reduce::Reduction::Sum => r::sum_rows(&ins[0], c),
                reduce::Reduction::Max => r::max_rows(&ins[0], c),
                reduce::Reduction::Argmax => r::argmax_rows(&ins[0], c),
            })]
        },
        // f32 sums of C values in [-1, 1]: rounding grows with the row.
        move |p| match op {
            reduce::Reduction::Sum => Tolerance { abs: 2e-7 * p.dims[1] as f64 + 1e-6, rel: 1e-6 },
            _ => Tolerance::EXACT,
        },
    )
}

/// Rope's position offset: the problem's `offset` option, else 0.
fn rope_offset(p: &Problem) -> usize {
    p.options.offset.unwrap_or(0)
}

/// Rows of rope's tables: the problem's `positions` option, else just enough (`offset + S`).
fn rope_positions(p: &Problem) -> usize {
    p.options.positions.unwrap_or(rope_offset(p) + p.dims[1])
}

/// Each sequence's first position, for a test of rope or the cache write with `starts`: spread
/// over `0..=last` (the latest start that keeps its tokens inside), the last sequence's at it.
pub(crate) fn test_starts(b: usize, last: usize) -> Vec<u32> {
    (0..b).map(|i| if i + 1 == b { last } else { (i * 37 + 5) % (last + 1) } as u32).collect()
}

/// Whether rope's tables hold a row for every position of tokens at `offset`: past them the
/// kernel would read zeros.
fn rope_tables_hold(p: &Problem, offset: f64) -> std::result::Result<(), String> {
    if offset < 0.0 || offset.fract() != 0.0 || offset > u32::MAX as f64 {
        return Err(format!("offset {offset} must be a whole number from 0 to {}", u32::MAX));
    }
    let (rows, s) = (rope_positions(p), p.dims[1]);
    if offset as usize + s > rows {
        return Err(format!(
            "table Cos has {rows} rows; offset {offset} + S = {s} needs {} (the tables Cos and \
             Sin need a row for every position rotated)",
            offset as usize + s
        ));
    }
    Ok(())
}

fn rope_entry(layout: RopeLayout, summary: &'static str) -> Entry {
    // A test's starts: up to the last that keeps S tokens inside the tables.
    let starts = |p: &Problem| test_starts(p.dims[0], rope_positions(p).saturating_sub(p.dims[1]));
    let e = Entry::planned(
        About {
            name: layout.name(),
            summary,
            dims: &["B", "S", "H", "D"],
            dtypes: FLOAT,
            // Offsets inside tables just long enough, and inside a model's long table.
            quick: &[
                "1x1x1x2",
                "2x7x3x66",
                "3x5x9x128,offset=7",
                "2x3x41x130,positions=4096,offset=1000",
                "2x3x8x128,offset=3",
                "1x2x64x128,positions=9,offset=7",
                "3x1x40x128,positions=50,starts",
                "2x3x5x66,positions=9,starts",
            ],
            full: &["8x2048x32x128", "1x65536x32x64"],
            bound: Bound::Memory,
        },
        one_launch(move |p, _| rope::rope(layout, p.dtype, p.dims[2], p.dims[3], p.options.starts)),
        move |p| {
            let table = [rope_positions(p), p.dims[3] / 2];
            let mut args = vec![
                ArgSpec::input("X", p.dtype, &p.dims),
                ArgSpec::input("Cos", F32, &table),
                ArgSpec::input("Sin", F32, &table),
            ];
            if p.options.starts {
                args.push(ArgSpec::indices("Start", &p.dims[..1], starts(p)));
            }
            args.push(ArgSpec::output("Y", p.dtype, &p.dims));
            args
        },
        move |p, ins| {
            let dims = [p.dims[0], p.dims[1], p.dims[2], p.dims[3]];
            let half = layout == RopeLayout::HalfSplit;
            let at: Vec<usize> = match p.options.starts {
                true => ins[3].iter().map(|&v| v as usize).collect(),
                false => vec![rope_offset(p); p.dims[0]],
            };
            vec![Expected::all(r::rope(&ins[0], dims, &ins[1], &ins[2], &at, half))]
        },
        |p| Tolerance::stored_as(p.dtype, 1e-6),
    );
    e.with_scalars(|p| match p.options.starts {
        true => Vec::new(),
        false => vec![("offset", rope_offset(p) as f64)],
    })
    // The tables' rows are their own length, not S's: a caller's tables say it. A fourth
    // input is `Start`.
    .with_options(&["positions", "offset", "starts"], |shapes| {
        let positions = shapes.get(1).and_then(|s| s.first()).copied();
        (Options { positions, starts: shapes.len() == 4, ..Options::default() }, Vec::new())
    })
    .with_check(|p| {
        if p.dims[3] % 2 == 1 {
            return Err(format!("head size D = {} must be even (pairs rotate)", p.dims[3]));
        }
        if p.options.starts && p.options.offset.is_some() {
            return Err("options offset and starts exclude each other: with starts, each \
                        sequence's offset is its Start value"
                .into());
        }
        rope_tables_hold(p, rope_offset(p) as f64)
    })
    .with_scalar_check(|p, values| match values.iter().find(|(n, _)| *n == "offset") {
        Some(&(_, offset)) => rope_tables_hold(p, offset),
        None => Ok(()),
    })
    .with_validation(|p, inputs| {
        if !p.options.starts {
            return Ok(());
        }
        let starts = inputs.get(3).ok_or("missing input Start")?;
        let starts = starts.download::<u32>().map_err(|e| e.to_string())?;
        match starts.iter().position(|&st| st as f64 + p.dims[1] as f64 > rope_positions(p) as f64)
        {
            Some(i) => Err(format!(
                "Start[{i}] = {} puts S = {} tokens past the tables' {} rows",
                starts[i],
                p.dims[1],
                rope_positions(p)
            )),
            None => Ok(()),
        }
    })
}

fn gemv_entry() -> Entry {
    // Activation rows (`rows=M`): X and Y gain a leading axis past one row.
    let rows = |p: &Problem| p.options.rows.unwrap_or(1);
    let e = Entry::planned(
        About {
            name: "gemv",
            summary: "y[N] = W[N,K] x[K], f32 accumulation (the decode step of a linear layer); \
                      rows=M: Y[M,N] = X[M,K] W^T for up to 8 rows (a batch's step)",
            dims: &["N", "K"],
            dtypes: FLOAT,
            // 6x2048: whole chunks proven inside (no fallback); 9x3100: an odd last row and a
            // tail. Several rows: K of whole units of 8 on the mat-vec frame (301x1088: ragged
            // N, a masked last step; 37x1000 and 13x2048 at 3 and 2 rows), else per chunk.
            quick: &[
                "1x1",
                "37x1001",
                "300x4099",
                "6x2048",
                "9x3100",
                "37x1001,rows=3",
                "9x3100,rows=8",
                "301x1088,rows=8",
                "37x1000,rows=3",
                "13x2048,rows=2",
            ],
            full: &["14336x4096", "4096x14336", "14336x4096,rows=8"],
            bound: Bound::Memory,
        },
        one_launch(move |p, prof| gemv::gemv(p.dtype, [rows(p), p.dims[0], p.dims[1]], prof)),
        move |p| {
            let (n, k, d, m) = (p.dims[0], p.dims[1], p.dtype, rows(p));
            let (x, y): (Vec<usize>, Vec<usize>) =
                if m == 1 { (vec![k], vec![n]) } else { (vec![m, k], vec![m, n]) };
            vec![
                ArgSpec::input("W", d, &[n, k]),
                ArgSpec::input("X", d, &x),
                ArgSpec::output("Y", d, &y),
            ]
        },
        move |p, ins| {
            let (n, k) = (p.dims[0], p.dims[1]);
            let y = ins[1].chunks(k).flat_map(|x| r::gemv(&ins[0], x, n, k)).collect();
            vec![Expected::all(y)]
        },
        |p| {
            let t = Tolerance::stored_as(p.dtype, 0.0);
            Tolerance { abs: t.abs + 1e-6 * p.dims[1] as f64, ..t }
        },
    );
    e.with_flops(move |p| 2.0 * (rows(p) * p.dims[0] * p.dims[1]) as f64)
        .with_check(move |p| match rows(p) {
            1..=gemv::MAX_ROWS => Ok(()),
            m => Err(format!(
                "rows = {m}: gemv takes 1 to {} activation rows (use linear beyond)",
                gemv::MAX_ROWS
            )),
        })
        .with_options(&["rows"], |shapes| {
            // X [K] is one row; X [M, K] is M.
            let rows = shapes.get(1).filter(|x| x.len() == 2).map(|x| x[0]);
            (Options { rows, ..Options::default() }, Vec::new())
        })
}

fn transpose_entry() -> Entry {
    Entry::planned(
        About {
            name: "transpose",
            summary: "Y[b, j, i] = X[b, i, j]: the last two axes of X[B,R,C] swapped",
            dims: &["B", "R", "C"],
            dtypes: FLOAT,
            quick: &["1x1x1", "2x33x65", "3x100x7", "2x132x200", "1x67x131"],
            full: &["1x8192x8192", "16x4096x1024"],
            bound: Bound::Memory,
        },
        one_launch(|p, _| elementwise::transpose(p.dtype)),
        |p| {
            let (b, rr, c) = (p.dims[0], p.dims[1], p.dims[2]);
            vec![
                ArgSpec::input("X", p.dtype, &[b, rr, c]),
                ArgSpec::output("Y", p.dtype, &[b, c, rr]),
            ]
        },
        |p, ins| vec![Expected::all(r::transpose(&ins[0], [p.dims[0], p.dims[1], p.dims[2]]))],
        |_| Tolerance::EXACT,
    )
}

/// The table.
fn all() -> Vec<Entry> {
    use reduce::Reduction;
    let mut all = vec![
        gemm_entries::gemm_entry(),
        gemm_entries::batched_gemm_entry(),
        gemm_entries::linear_entry(
            "linear",
            None,
            "Y[M,N] = X[M,K] W[N,K]^T + Bias[N] (f32 result)",
        ),
        gemm_entries::linear_entry(
            "linear_gelu",
            Some(Unary::GeluErf),
            "Y = gelu(X W^T + Bias), the activation applied to the accumulator",
        ),
        prescaled::scale_rows_entry(),
        prescaled::linear_prescaled_entry(),
        prescaled::scale_cols_entry(),
        prescaled::gemm_prescaled_entry(),
        gemv_entry(),
        rows_entry(RowOp::Softmax, "softmax over the last axis of X[R,C], numerically stable"),
        rows_entry(RowOp::LogSoftmax, "log_softmax over the last axis of X[R,C]"),
        rows_entry(RowOp::RmsNorm, "Y = X / sqrt(mean(X^2) + eps) * W per row; eps scalar"),
        rows_entry(
            RowOp::LayerNorm { bias: true },
            "Y = (X - mean) / sqrt(var + eps) * W + B per row; eps scalar",
        ),
        rows_entry(
            RowOp::LayerNorm { bias: false },
            "layer_norm without bias: Y = (X - mean) / sqrt(var + eps) * W",
        ),
        rows_entry(
            RowOp::AddRmsNorm,
            "H = X + Res (the new residual), Y = rms_norm(H) * W, one read of each input",
        ),
        rope_entry(
            RopeLayout::Interleaved,
            "rotary embedding of X[B,S,H,D], pairs (2i, 2i+1), tables Cos/Sin[P >= offset+S, D/2]",
        ),
        rope_entry(
            RopeLayout::HalfSplit,
            "rotary embedding, NeoX half-split pairs (i, i+D/2), tables Cos/Sin[P >= offset+S, D/2]",
        ),
        binary_entry(Binary::Add, |a, b| a + b, "Y = X + Y2 elementwise"),
        binary_entry(Binary::Mul, |a, b| a * b, "Y = X * Y2 elementwise"),
        binary_entry(Binary::Swiglu, |a, b| r::silu(a) * b, "Y = silu(X) * Y2, the SwiGLU gate"),
        unary_entry(Unary::Silu, r::silu, "Y = X * sigmoid(X)"),
        unary_entry(Unary::GeluErf, r::gelu_erf, "Y = gelu(X), erf form"),
        unary_entry(Unary::GeluTanh, r::gelu_tanh, "Y = gelu(X), tanh approximation"),
        reduce_entry(Reduction::Sum, "Y[r] = sum of X[r, :] (f32)"),
        reduce_entry(Reduction::Max, "Y[r] = max of X[r, :] (f32)"),
        reduce_entry(Reduction::Argmax, "Y[r] = index of the first maximum of X[r, :] (u32)"),
        cast_entry("cast_f32", F32, "Y = X as f32, from f32, f16, bf16, e4m3 or e5m2"),
        cast_entry("cast_f16", F16, "Y = X as f16, from f32, f16, bf16, e4m3 or e5m2"),
        cast_entry(
            "cast_bf16",
            BF16,
            "Y = X as bf16 (nearest even), from f32, f16, bf16, e4m3 or e5m2",
        ),
        cast_entry(
            "cast_e4m3",
            F8E4M3,
            "Y = X as fp8 e4m3 (nearest even; |X| > 464 and NaN give NaN, as torch)",
        ),
        cast_entry(
            "cast_e5m2",
            F8E5M2,
            "Y = X as fp8 e5m2 (nearest even; |X| >= 61440 gives inf, as torch)",
        ),
        transpose_entry(),
    ];
    all.extend(crate::tokens::entries::entries());
    all.extend(crate::attention::entries::entries());
    all.push(crate::qlinear::entries::qgemv_entry());
    all.push(crate::qlinear::entries::qgemm_entry());
    all
}
