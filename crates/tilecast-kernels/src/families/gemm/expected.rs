//! Expected outputs of the gemm family: every element, or (above [`FULL_CHECK_MACS`]
//! multiply-adds, where the CPU reference would take minutes) a deterministic sample.

use crate::registry::Expected;

/// Up to 256 output positions of `[m, n]`, spread deterministically.
pub(crate) fn sample_positions(m: usize, n: usize) -> Vec<(usize, usize)> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..256)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x % m as u64) as usize, ((x >> 32) % n as u64) as usize)
        })
        .collect()
}

/// Above this many multiply-adds the gemm references check sampled outputs.
pub(crate) const FULL_CHECK_MACS: usize = 1 << 26;

/// The `[m, n]` output whose element `(i, j)` is `at(i, j)`, for a problem of `k`-long dot
/// products: every element, or a sample of them.
pub(crate) fn expected_by([m, n, k]: [usize; 3], at: impl Fn(usize, usize) -> f32) -> Expected {
    if m * n * k <= FULL_CHECK_MACS {
        return Expected::all((0..m * n).map(|e| at(e / n, e % n)).collect());
    }
    let pos = sample_positions(m, n);
    Expected {
        values: pos.iter().map(|&(i, j)| at(i, j)).collect(),
        indices: Some(pos.iter().map(|&(i, j)| i * n + j).collect()),
    }
}

/// `C = A x B` (+ per-row/column scales), every output or a sample.
pub(crate) fn gemm_expected(
    a: &[f32],
    b: &[f32],
    [m, n, k]: [usize; 3],
    scale: impl Fn(usize, usize) -> f64,
) -> Expected {
    expected_by([m, n, k], |i, j| {
        let s: f64 = (0..k).map(|q| a[i * k + q] as f64 * b[q * n + j] as f64).sum();
        (s * scale(i, j)) as f32
    })
}
