//! Registry entries for bf16 weights converted once: `scale_rows_f16` turns a bf16 weight
//! matrix into scaled f16 rows and their exponents (the conversion [`crate::bf16_plan`] runs
//! on every call), and `linear_prescaled` multiplies bf16 activations by such a matrix;
//! `scale_cols_f16` and `gemm_prescaled` do the same for a gemm's `B[K, N]` (scaled per
//! column). An inference engine converts each weight at load time and then runs every token's
//! product on the f16 kernel, still exact to bf16 precision (see [`crate::bf16`]).

use std::sync::Arc;

use half::f16;
use tilecast_lang::DType::{BF16, F16, F32};

use crate::bf16_plan::{col_max, cols_to_f16, parts, rows_to_f16, unscaled_gemm, unscaled_linear};
use crate::entries::{entry, gemm_config, input, output};
use crate::expected::{expected_by, gemm_expected};
use crate::gemm::GemmConfig;
use crate::registry::{Bound, Entry, Expected, Launch, Plan, Problem, Slot, Tolerance};

/// The scale exponent the GPU picks for a row whose largest finite magnitude is `mx` (see
/// `bf16::scale_exponent`): `2^e * mx` lies in [2^12, 2^14).
fn exponent(mx: f32) -> f32 {
    if mx > 0.0 { (13.0 - mx.log2().floor()).clamp(-126.0, 126.0) } else { 0.0 }
}

/// `Q` and `E` for rows of `k` values.
fn scale_rows(x: &[f32], k: usize) -> (Vec<f32>, Vec<f32>) {
    let (mut q, mut e) = (Vec::with_capacity(x.len()), Vec::new());
    for row in x.chunks(k.max(1)) {
        let mx = row.iter().map(|v| v.abs()).filter(|a| a.is_finite()).fold(0f32, f32::max);
        let ex = exponent(mx);
        e.push(ex);
        q.extend(row.iter().map(|&v| f16::from_f32(v * ex.exp2()).to_f32()));
    }
    (q, e)
}

/// `Q` and `E` for the columns of `x[k, n]` (`E` one per column).
fn scale_cols(x: &[f32], k: usize, n: usize) -> (Vec<f32>, Vec<f32>) {
    let e: Vec<f32> = (0..n)
        .map(|j| {
            let col = (0..k).map(|q| x[q * n + j].abs()).filter(|a| a.is_finite());
            exponent(col.fold(0f32, f32::max))
        })
        .collect();
    let q = (0..k * n).map(|i| f16::from_f32(x[i] * e[i % n].exp2()).to_f32()).collect();
    (q, e)
}

/// `scale_cols_f16`: bf16 `X[K, N]` to `Q[K, N]` (f16) and `E[1, N]` (f32),
/// `Q = X * 2^E[0, n]`: column maxima in parts of K, their exponents, then the conversion.
pub(crate) fn scale_cols_entry() -> Entry {
    let mut e = entry(
        "scale_cols_f16",
        "Q[K,N] = X * 2^E[0,n] as f16, E[1,N]: bf16 columns scaled exactly into f16's range \
         (weights for gemm_prescaled)",
        &["K", "N"],
        &[BF16],
        &["1x1", "1001x3", "300x1030", "96x33"],
        &["4096x14336", "32768x4096"],
        Bound::Memory,
        |_, _| cols_to_f16(),
        |p| {
            let (k, n) = (p.dims[0], p.dims[1]);
            vec![input("X", BF16, &[k, n]), output("Q", F16, &[k, n]), output("E", F32, &[1, n])]
        },
        |p, ins| {
            let (q, e) = scale_cols(&ins[0], p.dims[0], p.dims[1]);
            vec![Expected::all(q), Expected::all(e)]
        },
        |_| Tolerance::EXACT,
    );
    e.plan = Arc::new(|p, _| {
        use Slot::{Arg, Scratch};
        let (k, n) = (p.dims[0], p.dims[1]);
        let kp = parts(k);
        Ok(Some(Plan {
            scratch: vec![output("partial_max", F32, &[kp as usize, n])],
            launches: vec![
                Launch { ir: col_max(BF16, kp, false), bind: vec![Arg(0), Scratch(0)] },
                Launch { ir: col_max(F32, 1, true), bind: vec![Scratch(0), Arg(2)] },
                Launch { ir: cols_to_f16(), bind: vec![Arg(0), Arg(2), Arg(1)] },
            ],
        }))
    });
    e
}

/// `gemm_prescaled`: `C = A B` for bf16 `A[M, K]` and `B` given as `scale_cols_f16`'s
/// `B16[K, N]` and `EB[1, N]`; A's rows are scaled by a first launch.
pub(crate) fn gemm_prescaled_entry() -> Entry {
    let mut e = entry(
        "gemm_prescaled",
        "C[M,N] = A[M,K] B for bf16 A and B = B16 * 2^-EB from scale_cols_f16 (f16 kernel, \
         f32 result)",
        &["M", "N", "K"],
        &[BF16],
        &["1x33x17", "37x65x131", "70x24x40"],
        &["16x4096x4096", "4096x4096x4096"],
        Bound::Compute,
        // The plan's last kernel (A16, B16, EA, EB, C); the plan converts A first.
        |p, prof| unscaled_gemm(&f16_config(p, prof)),
        |p| {
            let (m, n, k) = (p.dims[0], p.dims[1], p.dims[2]);
            vec![
                input("A", BF16, &[m, k]),
                input("B16", F16, &[k, n]),
                input("EB", F32, &[1, n]),
                output("C", F32, &[m, n]),
            ]
        },
        |p, ins| {
            let dims = [p.dims[0], p.dims[1], p.dims[2]];
            let eb = &ins[2];
            vec![gemm_expected(&ins[0], &ins[1], dims, |_, j| (-(eb[j] as f64)).exp2())]
        },
        |p| Tolerance { abs: 2e-5 * p.dims[2] as f64 + 1e-6, rel: 1e-5 },
    );
    e.flops = Arc::new(|p| 2.0 * (p.dims[0] * p.dims[1] * p.dims[2]) as f64);
    e.plan = Arc::new(|p, prof| {
        use Slot::{Arg, Scratch};
        let (m, k) = (p.dims[0], p.dims[2]);
        Ok(Some(Plan {
            // 0 A16, 1 EA.
            scratch: vec![output("A16", F16, &[m, k]), output("EA", F32, &[m])],
            launches: vec![
                Launch { ir: rows_to_f16(k), bind: vec![Arg(0), Scratch(0), Scratch(1)] },
                Launch {
                    ir: unscaled_gemm(&f16_config(p, prof)),
                    bind: vec![Scratch(0), Arg(1), Scratch(1), Arg(2), Arg(3)],
                },
            ],
        }))
    });
    e
}

/// `scale_rows_f16`: bf16 `X[R, K]` to `Q[R, K]` (f16) and `E[R]` (f32), `Q = X * 2^E[r]`.
pub(crate) fn scale_rows_entry() -> Entry {
    entry(
        "scale_rows_f16",
        "Q[R,K] = X * 2^E[r] as f16, E[R]: bf16 rows scaled exactly into f16's range (weights \
         for linear_prescaled)",
        &["R", "K"],
        &[BF16],
        &["1x1", "3x1001", "5x9000", "33x96"],
        &["14336x4096", "4096x32768"],
        Bound::Memory,
        |p, _| rows_to_f16(p.dims[1]),
        |p| {
            let (r, k) = (p.dims[0], p.dims[1]);
            vec![input("X", BF16, &[r, k]), output("Q", F16, &[r, k]), output("E", F32, &[r])]
        },
        |p, ins| {
            let (q, e) = scale_rows(&ins[0], p.dims[1]);
            vec![Expected::all(q), Expected::all(e)]
        },
        // Powers of two and an exact conversion: nothing to round.
        |_| Tolerance::EXACT,
    )
}

/// `linear_prescaled`: `Y = X W^T + Bias` for bf16 `X[M, K]` and `W` given as
/// `scale_rows_f16`'s `W16[N, K]` and `EW[N]`; X's rows are scaled by a first launch.
pub(crate) fn linear_prescaled_entry() -> Entry {
    let mut e = entry(
        "linear_prescaled",
        "Y[M,N] = X[M,K] W^T + Bias[N] for bf16 X and W = W16 * 2^-EW from scale_rows_f16 \
         (f16 kernel, f32 result)",
        &["M", "N", "K"],
        &[BF16],
        &["1x33x17", "37x65x131", "70x24x40"],
        &["16x14336x4096", "4096x4096x4096"],
        Bound::Compute,
        // The plan's last kernel (X16, W16, EX, EW, Bias, Y); the plan converts X first.
        |p, prof| unscaled_linear(&f16_config(p, prof), None),
        |p| {
            let (m, n, k) = (p.dims[0], p.dims[1], p.dims[2]);
            vec![
                input("X", BF16, &[m, k]),
                input("W16", F16, &[n, k]),
                input("EW", F32, &[n]),
                input("Bias", F32, &[n]),
                output("Y", F32, &[m, n]),
            ]
        },
        |p, ins| {
            let k = p.dims[2];
            let (x, w, ew, bias) = (&ins[0], &ins[1], &ins[2], &ins[3]);
            vec![expected_by([p.dims[0], p.dims[1], k], |i, j| {
                let s: f64 = (0..k).map(|q| x[i * k + q] as f64 * w[j * k + q] as f64).sum();
                (s * (-(ew[j] as f64)).exp2() + bias[j] as f64) as f32
            })]
        },
        // f32 accumulation of K products of values in [-1, 1], scaled by 2^-EW (EW in [-1, 1)
        // in the tests, so the scale is an exp2 within an ulp or two).
        |p| Tolerance { abs: 2e-5 * p.dims[2] as f64 + 1e-6, rel: 1e-5 },
    );
    e.flops = Arc::new(|p| 2.0 * (p.dims[0] * p.dims[1] * p.dims[2]) as f64);
    e.plan = Arc::new(|p, prof| {
        use Slot::{Arg, Scratch};
        let (m, k) = (p.dims[0], p.dims[2]);
        Ok(Some(Plan {
            // 0 X16, 1 EX.
            scratch: vec![output("X16", F16, &[m, k]), output("EX", F32, &[m])],
            launches: vec![
                Launch { ir: rows_to_f16(k), bind: vec![Arg(0), Scratch(0), Scratch(1)] },
                Launch {
                    ir: unscaled_linear(&f16_config(p, prof), None),
                    bind: vec![Scratch(0), Arg(1), Scratch(1), Arg(2), Arg(3), Arg(4)],
                },
            ],
        }))
    });
    e
}

/// For bf16 problems on devices with f16 matrix units (which [`crate::bf16`] runs them on): the f16
/// problem's tiles, adjusted for bf16's staging unless the caller chose them.
pub(crate) fn bf16_config(
    p: &Problem,
    prof: &tilecast_lang::Profile,
    m: usize,
    n: usize,
) -> Option<GemmConfig> {
    (p.dtype == BF16 && crate::gemm::bf16_on_matrix_units(prof)).then(|| {
        let cfg = gemm_config(&Problem { dtype: F16, ..p.clone() }, prof, m, n);
        match p.gemm {
            Some(_) => GemmConfig { input: BF16, ..cfg },
            None => GemmConfig::for_bf16(cfg, prof),
        }
    })
}

/// The converting plan of [`crate::bf16_plan`] for a bf16 problem on f16 matrix units, where it wins
/// ([`crate::bf16_plan::plan_wins`]); its K loop takes the f16 problem's tiles (or the caller's).
pub(crate) fn bf16_plan_config(
    p: &Problem,
    prof: &tilecast_lang::Profile,
    linear: bool,
) -> Option<GemmConfig> {
    let (m, n) = (p.dims[0], p.dims[1]);
    (p.dtype == BF16
        && crate::gemm::bf16_on_matrix_units(prof)
        && crate::bf16_plan::plan_wins(linear, m, n))
    .then(|| {
        let f16 = Problem { dtype: F16, ..p.clone() };
        GemmConfig { input: F16, ..gemm_config(&f16, prof, m, n) }
    })
}

/// The decode-once plan ([`crate::bf16_plan::fp8_gemm_plan`]) for an e4m3 gemm of at least
/// 1024 rows and columns on f16 matrix units; its K loop takes the f16 problem's tiles (or the
/// caller's). On the H200 (`bench/results/h200-2026-11-24e-fp8-plan.txt`) 4096^3 ran 754.4 us
/// against 968.1 in one launch and 1024^3 28.7 against 31.8, but 128x4096x4096 85.8 against
/// 64.8: with few rows, decoding B once costs more than decoding it per threadgroup. e5m2
/// decodes in two instructions per pair of codes (each is an f16's top byte) and keeps the
/// single launch (699 us at 4096^3 against f16's 689).
pub(crate) fn fp8_plan_config(p: &Problem, prof: &tilecast_lang::Profile) -> Option<GemmConfig> {
    let (m, n) = (p.dims[0], p.dims[1]);
    let on_units = crate::gemm::bf16_on_matrix_units(prof);
    (p.dtype == tilecast_lang::DType::F8E4M3 && on_units && m >= 1024 && n >= 1024)
        .then(|| f16_config(p, prof))
}

/// The f16 problem's tiles (or the caller's), for the f16 kernel.
fn f16_config(p: &Problem, prof: &tilecast_lang::Profile) -> GemmConfig {
    let f16 = Problem { dtype: F16, ..p.clone() };
    GemmConfig { input: F16, ..gemm_config(&f16, prof, p.dims[0], p.dims[1]) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponents_bring_the_row_maximum_into_2_12_to_2_14() {
        for mx in [1e-30f32, 3e-5, 0.99, 1.0, 7e4, 3e38] {
            let s = mx * exponent(mx).exp2();
            assert!((4096.0..16384.0).contains(&s), "{mx}: {s}");
        }
        assert_eq!(exponent(0.0), 0.0);
        let (q, e) = scale_rows(&[0.0, f32::INFINITY, 2.0, -1e30, 3.0], 1);
        assert_eq!(e, vec![0.0, 0.0, 12.0, -86.0, 12.0]);
        assert!(q[1].is_infinite() && q[2] == 8192.0 && q[4] == 12288.0);
        // Columns: [[2, 1e-30], [-3, 0]] -> exponents 12 and 113.
        let (q, e) = scale_cols(&[2.0, 1e-30, -3.0, 0.0], 2, 2);
        assert_eq!(e, vec![12.0, 113.0]);
        assert_eq!((q[0], q[2]), (8192.0, -12288.0));
    }
}
