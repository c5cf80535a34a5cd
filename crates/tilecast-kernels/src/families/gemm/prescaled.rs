//! Registry entries for bf16 weights converted once: `scale_rows_f16` turns a bf16 weight
//! matrix into scaled f16 rows and their exponents (the conversion [`super::bf16_plan`] runs
//! on every call), and `linear_prescaled` multiplies bf16 activations by such a matrix;
//! `scale_cols_f16` and `gemm_prescaled` do the same for a gemm's `B[K, N]` (scaled per
//! column). An inference engine converts each weight at load time and then runs every token's
//! product on the f16 kernel, still exact to bf16 precision (see [`super::bf16`]).

use half::f16;
use tilecast_lang::DType::{BF16, F16, F32};

use super::bf16_plan::{col_max, cols_to_f16, parts, rows_to_f16};
use super::entries::family_plan;
use super::strategy::GemmKind;
use crate::gemm::expected::{expected_by, gemm_expected};
use crate::registry::{
    About, ArgSpec, Bound, Entry, Expected, Launch, Plan, Slot, Strategy, Tolerance, one_launch,
};

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
    Entry::planned(
        About {
            name: "scale_cols_f16",
            summary: "Q[K,N] = X * 2^E[0,n] as f16, E[1,N]: bf16 columns scaled exactly into f16's range \
         (weights for gemm_prescaled)",
            dims: &["K", "N"],
            dtypes: &[BF16],
            quick: &["1x1", "1001x3", "300x1030", "96x33"],
            full: &["4096x14336", "32768x4096"],
            bound: Bound::Memory,
        },
        |p, _| {
            use Slot::{Arg, Scratch};
            let (k, n) = (p.dims[0], p.dims[1]);
            let kp = parts(k);
            Ok(Plan {
                strategy: Strategy::Fixed,
                scratch: vec![ArgSpec::output("partial_max", F32, &[kp as usize, n])],
                launches: vec![
                    Launch { ir: col_max(BF16, kp, false), bind: vec![Arg(0), Scratch(0)] },
                    Launch { ir: col_max(F32, 1, true), bind: vec![Scratch(0), Arg(2)] },
                    Launch { ir: cols_to_f16(), bind: vec![Arg(0), Arg(2), Arg(1)] },
                ],
            })
        },
        |p| {
            let (k, n) = (p.dims[0], p.dims[1]);
            vec![
                ArgSpec::input("X", BF16, &[k, n]),
                ArgSpec::output("Q", F16, &[k, n]),
                ArgSpec::output("E", F32, &[1, n]),
            ]
        },
        |p, ins| {
            let (q, e) = scale_cols(&ins[0], p.dims[0], p.dims[1]);
            vec![Expected::all(q), Expected::all(e)]
        },
        |_| Tolerance::EXACT,
    )
}

/// `gemm_prescaled`: `C = A B` for bf16 `A[M, K]` and `B` given as `scale_cols_f16`'s
/// `B16[K, N]` and `EB[1, N]`; A's rows are scaled by a first launch.
pub(crate) fn gemm_prescaled_entry() -> Entry {
    let e = Entry::planned(
        About {
            name: "gemm_prescaled",
            summary: "C[M,N] = A[M,K] B for bf16 A and B = B16 * 2^-EB from scale_cols_f16 (f16 kernel, \
         f32 result)",
            dims: &["M", "N", "K"],
            dtypes: &[BF16],
            quick: &["1x33x17", "37x65x131", "70x24x40"],
            full: &["16x4096x4096", "4096x4096x4096"],
            bound: Bound::Compute,
        },
        family_plan(GemmKind::GemmPrescaled),
        |p| {
            let (m, n, k) = (p.dims[0], p.dims[1], p.dims[2]);
            vec![
                ArgSpec::input("A", BF16, &[m, k]),
                ArgSpec::input("B16", F16, &[k, n]),
                ArgSpec::input("EB", F32, &[1, n]),
                ArgSpec::output("C", F32, &[m, n]),
            ]
        },
        |p, ins| {
            let dims = [p.dims[0], p.dims[1], p.dims[2]];
            let eb = &ins[2];
            vec![gemm_expected(&ins[0], &ins[1], dims, |_, j| (-(eb[j] as f64)).exp2())]
        },
        |p| Tolerance { abs: 2e-5 * p.dims[2] as f64 + 1e-6, rel: 1e-5 },
    );
    e.with_flops(|p| 2.0 * (p.dims[0] * p.dims[1] * p.dims[2]) as f64)
}

/// `scale_rows_f16`: bf16 `X[R, K]` to `Q[R, K]` (f16) and `E[R]` (f32), `Q = X * 2^E[r]`.
pub(crate) fn scale_rows_entry() -> Entry {
    Entry::planned(
        About {
            name: "scale_rows_f16",
            summary: "Q[R,K] = X * 2^E[r] as f16, E[R]: bf16 rows scaled exactly into f16's range (weights \
         for linear_prescaled)",
            dims: &["R", "K"],
            dtypes: &[BF16],
            quick: &["1x1", "3x1001", "5x9000", "33x96"],
            full: &["14336x4096", "4096x32768"],
            bound: Bound::Memory,
        },
        one_launch(|p, _| rows_to_f16(p.dims[1])),
        |p| {
            let (r, k) = (p.dims[0], p.dims[1]);
            vec![
                ArgSpec::input("X", BF16, &[r, k]),
                ArgSpec::output("Q", F16, &[r, k]),
                ArgSpec::output("E", F32, &[r]),
            ]
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
    let e = Entry::planned(
        About {
            name: "linear_prescaled",
            summary: "Y[M,N] = X[M,K] W^T + Bias[N] for bf16 X and W = W16 * 2^-EW from scale_rows_f16 \
         (f16 kernel, f32 result)",
            dims: &["M", "N", "K"],
            dtypes: &[BF16],
            quick: &["1x33x17", "37x65x131", "70x24x40"],
            full: &["16x14336x4096", "4096x4096x4096"],
            bound: Bound::Compute,
        },
        family_plan(GemmKind::LinearPrescaled),
        |p| {
            let (m, n, k) = (p.dims[0], p.dims[1], p.dims[2]);
            vec![
                ArgSpec::input("X", BF16, &[m, k]),
                ArgSpec::input("W16", F16, &[n, k]),
                ArgSpec::input("EW", F32, &[n]),
                ArgSpec::input("Bias", F32, &[n]),
                ArgSpec::output("Y", F32, &[m, n]),
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
    e.with_flops(|p| 2.0 * (p.dims[0] * p.dims[1] * p.dims[2]) as f64)
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
