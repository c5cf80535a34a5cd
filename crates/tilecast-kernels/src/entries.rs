//! The registry's table: one [`Entry`] per library kernel. Shapes of the quick suite are ragged
//! (multiples of no tile size) and small enough for lavapipe; the full suite's memory-bound
//! shapes move tensors of 256 MiB (f16) or more.

use std::sync::Arc;

use tilecast_lang::DType::{self, BF16, F8E4M3, F8E5M2, F16, F32, U32};

use crate::elementwise::{self, Binary, Unary};
use crate::expected::{FULL_CHECK_MACS, gemm_expected, sample_positions};
use crate::gemm::{self, GemmConfig, Scales};
use crate::reference as r0;
use crate::reference_ops as r;
use crate::registry::{ArgSpec, Bound, Entry, Expected, Problem, Role, Tolerance};
use crate::rope::{self, RopeLayout};
use crate::rows::{RowOp, row_kernel};
use crate::{bf16, bf16_plan};
use crate::{gemv, linear, reduce};

pub(crate) fn input(name: &'static str, dtype: DType, shape: &[usize]) -> ArgSpec {
    ArgSpec { name, dtype, shape: shape.to_vec(), role: Role::Input }
}

pub(crate) fn output(name: &'static str, dtype: DType, shape: &[usize]) -> ArgSpec {
    ArgSpec { name, dtype, shape: shape.to_vec(), role: Role::Output }
}

/// An entry with no scalars, no extra constraints and no FLOPs; the builders below fill in the
/// rest.
#[allow(clippy::too_many_arguments)]
pub(crate) fn entry(
    name: &'static str,
    summary: &'static str,
    dims: &'static [&'static str],
    dtypes: &'static [DType],
    quick: &'static [&'static str],
    full: &'static [&'static str],
    bound: Bound,
    build: impl Fn(&Problem, &tilecast_lang::Profile) -> tilecast_lang::ir::Kernel
    + Send
    + Sync
    + 'static,
    args: impl Fn(&Problem) -> Vec<ArgSpec> + Send + Sync + 'static,
    reference: impl Fn(&Problem, &[Vec<f32>]) -> Vec<Expected> + Send + Sync + 'static,
    tolerance: impl Fn(&Problem) -> Tolerance + Send + Sync + 'static,
) -> Entry {
    Entry {
        name,
        summary,
        dims,
        dtypes,
        quick,
        full,
        bound,
        build: Arc::new(move |p, prof| Ok(build(p, prof))),
        args: Arc::new(args),
        scalars: Arc::new(|_| Vec::new()),
        reference: Arc::new(reference),
        flops: Arc::new(|_| 0.0),
        tolerance: Arc::new(tolerance),
        check: Arc::new(|_| Ok(())),
        plan: Arc::new(|_, _| Ok(None)),
    }
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

fn rows_entry(op: RowOp, summary: &'static str) -> Entry {
    let args = move |p: &Problem| {
        let (rr, c, d) = (p.dims[0], p.dims[1], p.dtype);
        let mut a = vec![input("X", d, &[rr, c])];
        if op == RowOp::AddRmsNorm {
            a.push(input("Res", d, &[rr, c]));
        }
        if !matches!(op, RowOp::Softmax | RowOp::LogSoftmax) {
            a.push(input("W", d, &[c]));
        }
        if op == (RowOp::LayerNorm { bias: true }) {
            a.push(input("B", d, &[c]));
        }
        if op == RowOp::AddRmsNorm {
            a.push(output("H", d, &[rr, c]));
        }
        a.push(output("Y", d, &[rr, c]));
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
    let mut e = entry(
        op.name(),
        summary,
        &["R", "C"],
        FLOAT,
        ROW_QUICK,
        ROW_FULL,
        Bound::Memory,
        move |p, profile| row_kernel(op, p.dtype, p.dims[1], profile.max_threads),
        args,
        reference,
        tolerance,
    );
    if !matches!(op, RowOp::Softmax | RowOp::LogSoftmax) {
        e.scalars = Arc::new(|_| vec![("eps", EPS)]);
    }
    e.flops = Arc::new(|p| 5.0 * (p.dims[0] * p.dims[1]) as f64);
    e
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

fn unary_entry(op: Unary, f: fn(f64) -> f64, summary: &'static str) -> Entry {
    entry(
        op.name(),
        summary,
        &["N"],
        FLOAT,
        FLAT_QUICK,
        FLAT_FULL,
        Bound::Memory,
        move |p, _| elementwise::unary(op, p.dtype),
        |p| vec![input("X", p.dtype, &p.dims), output("Y", p.dtype, &p.dims)],
        move |_, ins| vec![Expected::all(ins[0].iter().map(|&v| f(v as f64) as f32).collect())],
        |p| Tolerance::stored_as(p.dtype, 1e-5),
    )
}

fn binary_entry(op: Binary, f: fn(f64, f64) -> f64, summary: &'static str) -> Entry {
    entry(
        op.name(),
        summary,
        &["N"],
        FLOAT,
        FLAT_QUICK,
        FLAT_FULL,
        Bound::Memory,
        move |p, _| elementwise::binary(op, p.dtype),
        |p| {
            vec![
                input("X", p.dtype, &p.dims),
                input("Y2", p.dtype, &p.dims),
                output("Y", p.dtype, &p.dims),
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
    entry(
        name,
        summary,
        &["N"],
        &[F32, F16, BF16, F8E4M3, F8E5M2],
        FLAT_QUICK,
        FLAT_FULL,
        Bound::Memory,
        move |p, _| elementwise::cast(p.dtype, to),
        move |p| vec![input("X", p.dtype, &p.dims), output("Y", to, &p.dims)],
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
    entry(
        op.name(),
        summary,
        &["R", "C"],
        FLOAT,
        ROW_QUICK,
        ROW_FULL,
        Bound::Memory,
        move |p, _| reduce::reduce_rows(op, p.dtype, p.dims[1]),
        move |p| {
            let out = if op == reduce::Reduction::Argmax { U32 } else { F32 };
            vec![input("X", p.dtype, &p.dims), output("Y", out, &p.dims[..1])]
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

fn rope_entry(layout: RopeLayout, summary: &'static str) -> Entry {
    /// The position offset the suite passes: tokens sit after a 7-token cache.
    const OFFSET: usize = 7;
    let mut e = entry(
        layout.name(),
        summary,
        &["B", "S", "H", "D"],
        FLOAT,
        &["1x1x1x2", "2x7x3x66", "3x5x9x128", "2x3x41x130", "2x3x8x128", "1x2x64x128"],
        &["8x2048x32x128", "1x65536x32x64"],
        Bound::Memory,
        move |p, _| rope::rope(layout, p.dtype, p.dims[2], p.dims[3]),
        |p| {
            let (s, d) = (p.dims[1], p.dims[3]);
            let table = [s + OFFSET, d / 2];
            vec![
                input("X", p.dtype, &p.dims),
                input("Cos", F32, &table),
                input("Sin", F32, &table),
                output("Y", p.dtype, &p.dims),
            ]
        },
        move |p, ins| {
            let dims = [p.dims[0], p.dims[1], p.dims[2], p.dims[3]];
            let half = layout == RopeLayout::HalfSplit;
            vec![Expected::all(r::rope(&ins[0], dims, &ins[1], &ins[2], OFFSET, half))]
        },
        |p| Tolerance::stored_as(p.dtype, 1e-6),
    );
    e.scalars = Arc::new(|_| vec![("offset", OFFSET as f64)]);
    e.check = Arc::new(|p| {
        if p.dims[3] % 2 == 1 {
            return Err(format!("head size D = {} must be even (pairs rotate)", p.dims[3]));
        }
        Ok(())
    });
    e
}

pub(crate) fn gemm_config(
    p: &Problem,
    prof: &tilecast_lang::Profile,
    m: usize,
    n: usize,
) -> GemmConfig {
    let cfg = GemmConfig::for_shape(prof, p.dtype, F32, m, n);
    match p.gemm {
        Some(g) => GemmConfig { input: p.dtype, output: F32, ..g },
        None => cfg,
    }
}

fn gemm_entry() -> Entry {
    let fp8 = |d: DType| matches!(d, F8E4M3 | F8E5M2);
    let mut e = entry(
        "gemm",
        "C[M,N] = A[M,K] x B[K,N], f32 accumulator and result, matrix units where the device has \
         them; fp8 inputs take f32 scales SA[M] and SB[N]",
        &["M", "N", "K"],
        &[F16, F32, BF16, F8E4M3, F8E5M2],
        &["1x1x1", "33x65x17", "67x45x131", "5x300x77"],
        &["4096x4096x4096", "1024x1024x1024", "16x4096x4096", "4000x4000x4000"],
        Bound::Compute,
        move |p, prof| {
            if let Some(cfg) = crate::entries_bf16::bf16_config(p, prof, p.dims[0], p.dims[1]) {
                return bf16::bf16_gemm(&cfg);
            }
            let cfg = gemm_config(p, prof, p.dims[0], p.dims[1]);
            if fp8(p.dtype) { gemm::scaled_gemm(&cfg, Scales::PerRow) } else { gemm::gemm(&cfg) }
        },
        move |p| {
            let (m, n, k, d) = (p.dims[0], p.dims[1], p.dims[2], p.dtype);
            let mut a = vec![input("A", d, &[m, k]), input("B", d, &[k, n])];
            if fp8(d) {
                a.push(input("SA", F32, &[m]));
                a.push(input("SB", F32, &[n]));
            }
            a.push(output("C", F32, &[m, n]));
            a
        },
        move |p, ins| {
            let dims = [p.dims[0], p.dims[1], p.dims[2]];
            let e = if fp8(p.dtype) {
                let (sa, sb) = (&ins[2], &ins[3]);
                gemm_expected(&ins[0], &ins[1], dims, |i, j| sa[i] as f64 * sb[j] as f64)
            } else {
                gemm_expected(&ins[0], &ins[1], dims, |_, _| 1.0)
            };
            vec![e]
        },
        // f32 accumulation of K products of values in [-1, 1] (scales in [-1, 1] too).
        |p| Tolerance { abs: 1e-5 * p.dims[2] as f64 + 1e-6, rel: 1e-5 },
    );
    e.flops = Arc::new(|p| 2.0 * (p.dims[0] * p.dims[1] * p.dims[2]) as f64);
    e.plan = Arc::new(|p, prof| {
        let [m, n, k] = [p.dims[0], p.dims[1], p.dims[2]];
        if let Some(cfg) = crate::entries_bf16::fp8_plan_config(p, prof) {
            return Ok(Some(bf16_plan::fp8_gemm_plan(m, n, k, p.dtype, &cfg)));
        }
        Ok(crate::entries_bf16::bf16_plan_config(p, prof, false)
            .map(|cfg| bf16_plan::gemm_plan(m, n, k, &cfg)))
    });
    e
}

fn batched_gemm_entry() -> Entry {
    let mut e = entry(
        "batched_gemm",
        "C[b] = A[b] x B[b] for A[BT,M,K], B[BT,K,N], f32 accumulator and result",
        &["BT", "M", "N", "K"],
        &[F16, F32, BF16],
        &["3x33x65x17", "2x5x40x129"],
        &["32x1024x1024x128", "8x2048x2048x2048"],
        Bound::Compute,
        // This kernel gathers its windows element by element, so on matrix units it wants
        // K steps of 16 (H200, 8x2048^3 f16: 1.24 ms with 128x128x16, found by --tune; 10.5 ms
        // with the gemm's 128x128x32; 4.8 SIMT).
        // Tiles for more than 64 rows and few threadgroups stay 64x64 over 4 subgroups: the
        // item count multiplies the grid, which `for_shape` does not see.
        |p, prof| {
            let mut cfg = gemm_config(p, prof, p.dims[1], p.dims[2]);
            if p.gemm.is_none() && p.dims[1] > 64 && cfg.bm == 64 && cfg.bk >= 16 {
                cfg = GemmConfig { bn: 64, bk: 32, threads: 4 * prof.simd_width, ..cfg };
            }
            if p.gemm.is_none() && cfg.bk == 32 {
                cfg.bk = 16;
            }
            linear::batched_gemm(&cfg)
        },
        |p| {
            let (bt, m, n, k, d) = (p.dims[0], p.dims[1], p.dims[2], p.dims[3], p.dtype);
            vec![
                input("A", d, &[bt, m, k]),
                input("B", d, &[bt, k, n]),
                output("C", F32, &[bt, m, n]),
            ]
        },
        |p, ins| {
            let (bt, m, n, k) = (p.dims[0], p.dims[1], p.dims[2], p.dims[3]);
            if bt * m * n * k > FULL_CHECK_MACS {
                // Sampled positions in every batch item.
                let mut values = Vec::new();
                let mut indices = Vec::new();
                for b in 0..bt {
                    let (a, bb) = (&ins[0][b * m * k..][..m * k], &ins[1][b * k * n..][..k * n]);
                    for (i, j) in sample_positions(m, n).into_iter().take(32) {
                        let s: f64 =
                            (0..k).map(|q| a[i * k + q] as f64 * bb[q * n + j] as f64).sum();
                        values.push(s as f32);
                        indices.push(b * m * n + i * n + j);
                    }
                }
                return vec![Expected { values, indices: Some(indices) }];
            }
            let out = (0..bt)
                .flat_map(|b| {
                    r0::gemm(&ins[0][b * m * k..][..m * k], &ins[1][b * k * n..][..k * n], m, n, k)
                })
                .collect();
            vec![Expected::all(out)]
        },
        |p| Tolerance { abs: 1e-5 * p.dims[3] as f64 + 1e-6, rel: 1e-5 },
    );
    e.flops = Arc::new(|p| 2.0 * (p.dims[0] * p.dims[1] * p.dims[2] * p.dims[3]) as f64);
    e
}

fn linear_entry(name: &'static str, act: Option<Unary>, summary: &'static str) -> Entry {
    let mut e = entry(
        name,
        summary,
        &["M", "N", "K"],
        &[F16, F32, BF16],
        &["1x33x17", "37x65x131", "70x24x40"],
        &["4096x4096x4096", "16x14336x4096"],
        Bound::Compute,
        move |p, prof| match crate::entries_bf16::bf16_config(p, prof, p.dims[0], p.dims[1]) {
            Some(cfg) => bf16::bf16_linear(&cfg, act),
            None => linear::linear(&gemm_config(p, prof, p.dims[0], p.dims[1]), act),
        },
        |p| {
            let (m, n, k, d) = (p.dims[0], p.dims[1], p.dims[2], p.dtype);
            vec![
                input("X", d, &[m, k]),
                input("W", d, &[n, k]),
                input("Bias", F32, &[n]),
                output("Y", F32, &[m, n]),
            ]
        },
        move |p, ins| {
            let (m, n, k) = (p.dims[0], p.dims[1], p.dims[2]);
            let f: fn(f64) -> f64 = match act {
                Some(Unary::GeluErf) => r::gelu_erf,
                Some(Unary::Silu) => r::silu,
                _ => |v| v,
            };
            if m * n * k > FULL_CHECK_MACS {
                let pos = sample_positions(m, n);
                let values = pos
                    .iter()
                    .map(|&(i, j)| {
                        let s: f64 = (0..k)
                            .map(|q| ins[0][i * k + q] as f64 * ins[1][j * k + q] as f64)
                            .sum();
                        f(s + ins[2][j] as f64) as f32
                    })
                    .collect();
                let indices = Some(pos.iter().map(|&(i, j)| i * n + j).collect());
                return vec![Expected { values, indices }];
            }
            vec![Expected::all(r::linear(&ins[0], &ins[1], &ins[2], [m, n, k], f))]
        },
        |p| Tolerance { abs: 1e-5 * p.dims[2] as f64 + 1e-6, rel: 1e-5 },
    );
    e.flops = Arc::new(|p| 2.0 * (p.dims[0] * p.dims[1] * p.dims[2]) as f64);
    e.plan = Arc::new(move |p, prof| {
        Ok(crate::entries_bf16::bf16_plan_config(p, prof, true)
            .map(|cfg| bf16_plan::linear_plan(p.dims[0], p.dims[1], p.dims[2], &cfg, act)))
    });
    e
}

fn gemv_entry() -> Entry {
    let mut e = entry(
        "gemv",
        "y[N] = W[N,K] x[K], f32 accumulation (the decode step of a linear layer)",
        &["N", "K"],
        FLOAT,
        // 6x2048: whole chunks proven inside (no fallback); 9x3100: an odd last row and a tail.
        &["1x1", "37x1001", "300x4099", "6x2048", "9x3100"],
        &["14336x4096", "4096x14336"],
        Bound::Memory,
        |p, prof| gemv::gemv(p.dtype, p.dims[0], p.dims[1], prof),
        |p| {
            let (n, k, d) = (p.dims[0], p.dims[1], p.dtype);
            vec![input("W", d, &[n, k]), input("X", d, &[k]), output("Y", d, &[n])]
        },
        |p, ins| vec![Expected::all(r::gemv(&ins[0], &ins[1], p.dims[0], p.dims[1]))],
        |p| {
            let t = Tolerance::stored_as(p.dtype, 0.0);
            Tolerance { abs: t.abs + 1e-6 * p.dims[1] as f64, ..t }
        },
    );
    e.flops = Arc::new(|p| 2.0 * (p.dims[0] * p.dims[1]) as f64);
    e
}

fn transpose_entry() -> Entry {
    entry(
        "transpose",
        "Y[b, j, i] = X[b, i, j]: the last two axes of X[B,R,C] swapped",
        &["B", "R", "C"],
        FLOAT,
        &["1x1x1", "2x33x65", "3x100x7", "2x132x200", "1x67x131"],
        &["1x8192x8192", "16x4096x1024"],
        Bound::Memory,
        |p, _| elementwise::transpose(p.dtype),
        |p| {
            let (b, rr, c) = (p.dims[0], p.dims[1], p.dims[2]);
            vec![input("X", p.dtype, &[b, rr, c]), output("Y", p.dtype, &[b, c, rr])]
        },
        |p, ins| vec![Expected::all(r::transpose(&ins[0], [p.dims[0], p.dims[1], p.dims[2]]))],
        |_| Tolerance::EXACT,
    )
}

/// The table.
pub(crate) fn all() -> Vec<Entry> {
    use reduce::Reduction;
    vec![
        gemm_entry(),
        batched_gemm_entry(),
        linear_entry("linear", None, "Y[M,N] = X[M,K] W[N,K]^T + Bias[N] (f32 result)"),
        linear_entry(
            "linear_gelu",
            Some(Unary::GeluErf),
            "Y = gelu(X W^T + Bias), the activation applied to the accumulator",
        ),
        crate::entries_bf16::scale_rows_entry(),
        crate::entries_bf16::linear_prescaled_entry(),
        crate::entries_bf16::scale_cols_entry(),
        crate::entries_bf16::gemm_prescaled_entry(),
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
            "rotary embedding of X[B,S,H,D], pairs (2i, 2i+1), tables Cos/Sin[S+offset, D/2]",
        ),
        rope_entry(
            RopeLayout::HalfSplit,
            "rotary embedding, NeoX half-split pairs (i, i+D/2), tables Cos/Sin[S+offset, D/2]",
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
    ]
}
