//! bf16 gemm and linear in several launches: the operands are first converted to f16 copies
//! scaled by powers of two (the method of [`super::bf16`]: every row along K, and every column
//! of a gemm's `B`, brought into f16's range, exactly), then the plain f16 kernel runs on
//! them and undoes the scales in its epilogue.
//!
//! The single-launch kernels of [`super::bf16`] search each threadgroup's scales again and
//! stage bf16 through f32 registers; here each scale is found once for the whole problem, and
//! the K loop is the f16 gemm's own. The price is scratch memory (an f16 copy of both
//! operands) and four extra passes over them, so [`super::strategy::decide`] takes it only where it wins.

use tilecast_lang::DType::{BF16, F16, F32};
use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, block_x, block_y, ceil_div, sym};

use super::bf16::{finite_abs, scale_exponent, unscale};
use super::{GemmConfig, Operands};
use crate::elementwise::Unary;
use crate::families::grid::{flat_block, flat_grid};
use crate::registry::{ArgSpec, Launch, Plan, Slot, Strategy};
use crate::rows::RowPlan;

/// Columns per threadgroup of the column passes: 4 per thread, side by side, so each thread
/// loads 4 neighbouring elements of a row at once and no column meets another thread's.
const COLS: u32 = 1024;
/// Threads of the column passes.
const COL_THREADS: u32 = 256;
/// Rows [`col_max`] loads per step, one panel each, before folding them.
const COL_PANELS: u32 = 4;
/// Rows per threadgroup of [`cols_to_f16`].
const CONVERT_ROWS: u32 = 8;
/// Rows each part of [`col_max`]'s first pass covers, at least.
const PART_ROWS: usize = 32;
/// Parts of the first column pass, at most: its partial maxima are read again by the second.
const MAX_PARTS: usize = 128;

/// `Q[R, K] = f16(P[R, K] * 2^E[r])`: each bf16 row scaled by the power of two that brings its
/// largest finite magnitude into [2^12, 2^14) (`E[r]` f32, an integer). Rows of up to
/// [`crate::rows::MAX_ROW`] are read once and held in registers; longer ones twice.
pub fn rows_to_f16(kdim: usize) -> Ir {
    let plan = RowPlan::for_width(kdim);
    let (rows, width) = (plan.rows, plan.width);
    let (r, c) = (sym("R"), Expr::from(kdim as u32));
    let blocks = ceil_div(&r, rows);
    let k = Kernel::new("bf16_rows_to_f16").grid(flat_grid(&blocks)).threads(plan.threads);
    let p = k.input("P", BF16, [&r, &c]);
    let q = k.param("Q", F16, [&r, &c]);
    let e = k.param("E", F32, [&r]);
    let row0 = flat_block(&blocks) * rows;
    let t = k.fragment_named("row", F32, [rows, width]);
    let mag = k.fragment_named("magnitude", F32, [rows, width]);
    let exp = k.shared_named("row_exp", F32, [rows]);
    let scale = k.shared_named("row_scale", F32, [rows]);
    let chunks = ceil_div(&c, width);
    // Masked loads past K read zeros, which never raise a maximum.
    k.clear(&exp);
    k.serial(chunks.clone(), |k, j| {
        k.copy(p.tile([row0.clone(), &j * width]), &t);
        k.parallel([rows, width], |k, [i, x]| {
            k.store(&mag, [&i, &x], finite_abs(t.at([&i, &x])));
        });
        k.reduce_max_into(&mag, &exp, 1);
    });
    k.parallel([rows], |k, [i]| {
        // The scale first: the exponent replaces the maximum both are made from.
        let ex = scale_exponent(exp.at([&i]));
        k.store(&scale, [&i], ex.clone().exp2());
        k.store(&exp, [&i], ex);
    });
    k.copy(&exp, e.tile([row0.clone()]));
    let scaled = |k: &Kernel, j: Expr| {
        k.parallel([rows, width], |k, [i, x]| {
            k.store(&t, [&i, &x], t.at([&i, &x]) * scale.at([&i]));
        });
        k.copy(&t, q.tile([row0.clone(), j * width]));
    };
    if plan.chunked {
        k.serial(chunks, |k, j| {
            k.copy(p.tile([row0.clone(), &j * width]), &t);
            scaled(k, j);
        });
    } else {
        scaled(&k, Expr::from(0u32));
    }
    k.build()
}

/// Column maxima of `P[K, N]` in `parts` parts of K: `M[p, n]` is the largest finite `|P[k, n]|`
/// over the rows of part `p` (0 where none). With `exponents`, `M` holds each maximum's scale
/// exponent instead (see [`rows_to_f16`]). Each thread keeps its own columns' maxima: the rows
/// of a step are separate one-row panels, so nothing is reduced across threads.
pub fn col_max(dtype: DType, parts: u32, exponents: bool) -> Ir {
    let (kd, n) = (sym("K"), sym("N"));
    let name = if exponents { "bf16_col_exponents" } else { "bf16_col_max" };
    let k = Kernel::new(name).grid([ceil_div(&n, COLS), Expr::from(parts)]).threads(COL_THREADS);
    let p = k.input("P", dtype, [&kd, &n]);
    let m = k.param("M", F32, [Expr::from(parts), n.clone()]);
    let (bx, part) = (block_x(), block_y());
    let panels: Vec<_> =
        (0..COL_PANELS).map(|u| k.fragment_named(&format!("panel{u}"), F32, [1, COLS])).collect();
    let max = k.fragment_named("max", F32, [1, COLS]);
    let steps = ceil_div(ceil_div(&kd, parts), COL_PANELS);
    // Masked loads past K read zeros, which never raise a maximum.
    k.clear(&max);
    k.serial(steps.clone(), |k, j| {
        let row0 = (&part * &steps + j) * COL_PANELS;
        for (u, panel) in panels.iter().enumerate() {
            k.copy(p.tile([row0.clone() + u as u32, &bx * COLS]), panel);
        }
        k.parallel([1, COLS], |k, [i, c]| {
            let m =
                panels.iter().fold(max.at([&i, &c]), |m, pn| m.max(finite_abs(pn.at([&i, &c]))));
            k.store(&max, [&i, &c], m);
        });
    });
    if exponents {
        k.parallel([1, COLS], |k, [i, c]| {
            k.store(&max, [&i, &c], scale_exponent(max.at([&i, &c])))
        });
    }
    k.copy(&max, m.tile([part, &bx * COLS]));
    k.build()
}

/// `Q[K, N] = f16(P[K, N] * 2^E[0, n])`: each bf16 column scaled by its exponent from
/// [`col_max`].
pub fn cols_to_f16() -> Ir {
    let (kd, n) = (sym("K"), sym("N"));
    let k = Kernel::new("bf16_cols_to_f16")
        .grid([ceil_div(&n, COLS), ceil_div(&kd, CONVERT_ROWS)])
        .threads(COL_THREADS);
    let p = k.input("P", BF16, [&kd, &n]);
    let e = k.input("E", F32, [Expr::from(1u32), n.clone()]);
    let q = k.param("Q", F16, [&kd, &n]);
    let (bx, by) = (block_x(), block_y());
    let t = k.fragment_named("rows", F32, [CONVERT_ROWS, COLS]);
    k.copy(p.tile([&by * CONVERT_ROWS, &bx * COLS]), &t);
    k.parallel([CONVERT_ROWS, COLS], |k, [i, c]| {
        // Read from global memory at the column (unit stride), which keeps the fragment's runs.
        let s = e.at([Expr::from(0u32), &bx * COLS + &c]).exp2();
        k.store(&t, [&i, &c], t.at([&i, &c]) * s);
    });
    k.copy(&t, q.tile([&by * CONVERT_ROWS, &bx * COLS]));
    k.build()
}

/// `C = A16 x B16` in f16 on `cfg`'s tiles, then `C[i, j] *= 2^-(EA[i] + EB[0, j])` exactly.
pub fn unscaled_gemm(cfg: &GemmConfig) -> Ir {
    let cfg = GemmConfig { input: F16, output: F32, ..*cfg };
    let (bm, bn) = (cfg.bm, cfg.bn);
    let (m, n, kd) = (sym("M"), sym("N"), sym("K"));
    let k = Kernel::new("gemm").grid([ceil_div(&n, bn), ceil_div(&m, bm)]).threads(cfg.threads);
    let (a, b) = (k.input("A16", F16, [&m, &kd]), k.input("B16", F16, [&kd, &n]));
    let ea = k.input("EA", F32, [&m]);
    let eb = k.input("EB", F32, [Expr::from(1u32), n.clone()]);
    let c = k.param("C", F32, [&m, &n]);
    let acc = super::k_loop(&k, &cfg, Operands::Gemm, [&a, &b], F32, &kd);
    let (bx, by) = (block_x(), block_y());
    k.parallel([bm, bn], |k, [i, j]| {
        let (ei, ej) = (ea.at([&by * bm + &i]), eb.at([Expr::from(0u32), &bx * bn + &j]));
        k.store(&acc, [&i, &j], unscale(acc.at([&i, &j]), ei, ej));
    });
    k.copy(&acc, c.tile([&by * bm, &bx * bn]));
    k.build()
}

/// `Y = act(X16 W16^T * 2^-(EX[i] + EW[j]) + Bias)` in f16 on `cfg`'s tiles; `Y` of
/// `cfg.output`.
pub fn unscaled_linear(cfg: &GemmConfig, act: Option<Unary>) -> Ir {
    let output = cfg.output;
    let cfg = GemmConfig { input: F16, ..*cfg };
    let (bm, bn) = (cfg.bm, cfg.bn);
    let (m, n, kd) = (sym("M"), sym("N"), sym("K"));
    let k = Kernel::new("linear").grid([ceil_div(&n, bn), ceil_div(&m, bm)]).threads(cfg.threads);
    let (x, w) = (k.input("X16", F16, [&m, &kd]), k.input("W16", F16, [&n, &kd]));
    let (ex, ew) = (k.input("EX", F32, [&m]), k.input("EW", F32, [&n]));
    let bias = k.input("Bias", F32, [&n]);
    let y = k.param("Y", output, [&m, &n]);
    let acc = super::k_loop(&k, &cfg, Operands::Linear, [&x, &w], F32, &kd);
    let (bx, by) = (block_x(), block_y());
    k.parallel([bm, bn], |k, [i, j]| {
        let col = &bx * bn + &j;
        let v = unscale(acc.at([&i, &j]), ex.at([&by * bm + &i]), ew.at([col.clone()]))
            + bias.at([col]);
        k.store(&acc, [&i, &j], act.map_or(v.clone(), |f| f.apply(v)));
    });
    super::linear::save_output(&k, &acc, &y, [bm, bn], output);
    k.build()
}

/// `Y[R, C] = X[R, C]` as `to` (fp8 decoded exactly to f16 on the way): the first launches of
/// [`fp8_gemm_plan`].
pub fn cast_rows(from: DType, to: DType) -> Ir {
    let (r, c) = (sym("R"), sym("C"));
    let k = Kernel::new("cast_rows")
        .grid([ceil_div(&c, COLS), ceil_div(&r, CONVERT_ROWS)])
        .threads(COL_THREADS);
    let (x, y) = (k.input("X", from, [&r, &c]), k.param("Y", to, [&r, &c]));
    let (bx, by) = (block_x(), block_y());
    let t = k.fragment_named("rows", F32, [CONVERT_ROWS, COLS]);
    k.copy(x.tile([&by * CONVERT_ROWS, &bx * COLS]), &t);
    k.copy(&t, y.tile([&by * CONVERT_ROWS, &bx * COLS]));
    k.build()
}

/// The launches of an e4m3 (or e5m2) `C = (A * SA) x (B * SB)` with per-row scales (arguments A, B, SA,
/// SB, C): both operands decoded once to f16 copies (exact: every e4m3 value is an f16), then
/// the f16 `scaled_gemm` on `cfg`, whose staging then moves 16-byte vectors instead of
/// decoding four codes per word in every threadgroup.
pub fn fp8_gemm_plan(
    m: usize,
    n: usize,
    kdim: usize,
    input: DType,
    cfg: &GemmConfig,
    fixed: bool,
) -> Plan {
    use Slot::{Arg, Scratch};
    let cfg = GemmConfig { input: F16, output: F32, ..*cfg };
    let gemm = if fixed {
        super::scaled_gemm_fixed(&cfg, super::Scales::PerRow, [m, n, kdim].map(|d| d as u32))
    } else {
        super::scaled_gemm(&cfg, super::Scales::PerRow)
    };
    Plan {
        strategy: Strategy::Fixed,
        // Scratch: 0 A16, 1 B16.
        scratch: vec![scratch(F16, &[m, kdim]), scratch(F16, &[kdim, n])],
        launches: vec![
            Launch { ir: cast_rows(input, F16), bind: vec![Arg(0), Scratch(0)] },
            Launch { ir: cast_rows(input, F16), bind: vec![Arg(1), Scratch(1)] },
            Launch { ir: gemm, bind: vec![Scratch(0), Scratch(1), Arg(2), Arg(3), Arg(4)] },
        ],
    }
}

fn scratch(dtype: DType, shape: &[usize]) -> ArgSpec {
    ArgSpec::output("scratch", dtype, shape)
}

/// Parts of [`col_max`]'s first pass over K rows.
pub(crate) fn parts(kdim: usize) -> u32 {
    (kdim / PART_ROWS).clamp(1, MAX_PARTS) as u32
}

/// The launches of `C[M, N] = A[M, K] x B[K, N]` (arguments A, B, C): rows of A and columns
/// of B to scaled f16 copies, then [`unscaled_gemm`] on `cfg` (f16 tiles).
pub fn gemm_plan(m: usize, n: usize, kdim: usize, cfg: &GemmConfig) -> Plan {
    use Slot::{Arg, Scratch};
    let kp = parts(kdim);
    // Scratch: 0 A16, 1 EA, 2 partial maxima of B, 3 EB, 4 B16.
    let scratch = vec![
        scratch(F16, &[m, kdim]),
        scratch(F32, &[m]),
        scratch(F32, &[kp as usize, n]),
        scratch(F32, &[1, n]),
        scratch(F16, &[kdim, n]),
    ];
    let launches = vec![
        Launch { ir: rows_to_f16(kdim), bind: vec![Arg(0), Scratch(0), Scratch(1)] },
        Launch { ir: col_max(BF16, kp, false), bind: vec![Arg(1), Scratch(2)] },
        Launch { ir: col_max(F32, 1, true), bind: vec![Scratch(2), Scratch(3)] },
        Launch { ir: cols_to_f16(), bind: vec![Arg(1), Scratch(3), Scratch(4)] },
        Launch {
            ir: unscaled_gemm(cfg),
            bind: vec![Scratch(0), Scratch(4), Scratch(1), Scratch(3), Arg(2)],
        },
    ];
    Plan { strategy: Strategy::Fixed, scratch, launches }
}

/// The launches of `Y = act(X W^T + Bias)` (arguments X, W, Bias, Y): rows of X and W to
/// scaled f16 copies, then [`unscaled_linear`] on `cfg` (f16 tiles).
pub fn linear_plan(m: usize, n: usize, kdim: usize, cfg: &GemmConfig, act: Option<Unary>) -> Plan {
    use Slot::{Arg, Scratch};
    // Scratch: 0 X16, 1 EX, 2 W16, 3 EW.
    let scratch = vec![
        scratch(F16, &[m, kdim]),
        scratch(F32, &[m]),
        scratch(F16, &[n, kdim]),
        scratch(F32, &[n]),
    ];
    let launches = vec![
        Launch { ir: rows_to_f16(kdim), bind: vec![Arg(0), Scratch(0), Scratch(1)] },
        Launch { ir: rows_to_f16(kdim), bind: vec![Arg(1), Scratch(2), Scratch(3)] },
        Launch {
            ir: unscaled_linear(cfg, act),
            bind: vec![Scratch(0), Scratch(2), Scratch(1), Scratch(3), Arg(2), Arg(3)],
        },
    ];
    Plan { strategy: Strategy::Fixed, scratch, launches }
}

/// The launches of `gemm_prescaled` (arguments A, B16, EB, C) or, with `linear`, of
/// `linear_prescaled` (X, W16, EW, Bias, Y): the first operand's rows to a scaled f16 copy, then
/// [`unscaled_gemm`] or [`unscaled_linear`] on `cfg` against the prescaled second operand.
pub fn prescaled_plan(m: usize, kdim: usize, cfg: &GemmConfig, linear: bool) -> Plan {
    use Slot::{Arg, Scratch};
    let last = if linear { unscaled_linear(cfg, None) } else { unscaled_gemm(cfg) };
    // Its parameters: A16, B16, EA, then the entry's arguments from EB on.
    let bind = [Scratch(0), Arg(1), Scratch(1)]
        .into_iter()
        .chain((2..last.params.len() - 1).map(Arg))
        .collect();
    Plan {
        strategy: Strategy::Fixed,
        // Scratch: 0 A16, 1 EA.
        scratch: vec![scratch(F16, &[m, kdim]), scratch(F32, &[m])],
        launches: vec![
            Launch { ir: rows_to_f16(kdim), bind: vec![Arg(0), Scratch(0), Scratch(1)] },
            Launch { ir: last, bind },
        ],
    }
}
