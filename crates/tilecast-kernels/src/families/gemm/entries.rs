//! The gemm family's registry entries: `gemm`, `batched_gemm`, `linear` and `linear_gelu`.
//! Each plans its problems through [`super::strategy`] only.

use tilecast_lang::DType::{self, BF16, F8E4M3, F8E5M2, F16, F32};
use tilecast_lang::Profile;

use super::strategy::{self, GemmKind};
use crate::Result;
use crate::elementwise::Unary;
use crate::gemm::expected::{FULL_CHECK_MACS, gemm_expected, sample_positions};
use crate::reference as r0;
use crate::reference::ops as r;
use crate::registry::{About, ArgSpec, Bound, Entry, Expected, Plan, Problem, Tolerance};

/// The plan of a problem of `kind`: the family's decision, then its launches.
pub(crate) fn family_plan(
    kind: GemmKind,
) -> impl Fn(&Problem, &Profile) -> Result<Plan> + Send + Sync + 'static {
    move |p, profile| Ok(strategy::launches(kind, p, &strategy::decide(kind, p, profile)))
}

pub(crate) fn gemm_entry() -> Entry {
    let fp8 = |d: DType| matches!(d, F8E4M3 | F8E5M2);
    let e = Entry::planned(
        About {
            name: "gemm",
            summary: "C[M,N] = A[M,K] x B[K,N], f32 accumulator and result, matrix units where the device has \
         them; fp8 inputs take f32 scales SA[M] and SB[N]",
            dims: &["M", "N", "K"],
            dtypes: &[F16, F32, BF16, F8E4M3, F8E5M2],
            quick: &["1x1x1", "33x65x17", "67x45x131", "5x300x77"],
            full: &["4096x4096x4096", "1024x1024x1024", "16x4096x4096", "4000x4000x4000"],
            bound: Bound::Compute,
        },
        family_plan(GemmKind::Gemm),
        move |p| {
            let (m, n, k, d) = (p.dims[0], p.dims[1], p.dims[2], p.dtype);
            let mut a = vec![ArgSpec::input("A", d, &[m, k]), ArgSpec::input("B", d, &[k, n])];
            if fp8(d) {
                a.push(ArgSpec::input("SA", F32, &[m]));
                a.push(ArgSpec::input("SB", F32, &[n]));
            }
            a.push(ArgSpec::output("C", F32, &[m, n]));
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
    e.with_flops(|p| 2.0 * (p.dims[0] * p.dims[1] * p.dims[2]) as f64)
}

pub(crate) fn batched_gemm_entry() -> Entry {
    let e = Entry::planned(
        About {
            name: "batched_gemm",
            summary: "C[b] = A[b] x B[b] for A[BT,M,K], B[BT,K,N], f32 accumulator and result",
            dims: &["BT", "M", "N", "K"],
            dtypes: &[F16, F32, BF16],
            quick: &["3x33x65x17", "2x5x40x129"],
            full: &["32x1024x1024x128", "8x2048x2048x2048"],
            bound: Bound::Compute,
        },
        family_plan(GemmKind::BatchedGemm),
        |p| {
            let (bt, m, n, k, d) = (p.dims[0], p.dims[1], p.dims[2], p.dims[3], p.dtype);
            vec![
                ArgSpec::input("A", d, &[bt, m, k]),
                ArgSpec::input("B", d, &[bt, k, n]),
                ArgSpec::output("C", F32, &[bt, m, n]),
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
    e.with_flops(|p| 2.0 * (p.dims[0] * p.dims[1] * p.dims[2] * p.dims[3]) as f64)
}

pub(crate) fn linear_entry(name: &'static str, act: Option<Unary>, summary: &'static str) -> Entry {
    let e = Entry::planned(
        About {
            name,
            summary,
            dims: &["M", "N", "K"],
            dtypes: &[F16, F32, BF16],
            quick: &["1x33x17", "37x65x131", "70x24x40"],
            full: &["4096x4096x4096", "16x14336x4096"],
            bound: Bound::Compute,
        },
        family_plan(GemmKind::Linear(act)),
        |p| {
            let (m, n, k, d) = (p.dims[0], p.dims[1], p.dims[2], p.dtype);
            vec![
                ArgSpec::input("X", d, &[m, k]),
                ArgSpec::input("W", d, &[n, k]),
                ArgSpec::input("Bias", F32, &[n]),
                ArgSpec::output("Y", F32, &[m, n]),
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
    e.with_flops(|p| 2.0 * (p.dims[0] * p.dims[1] * p.dims[2]) as f64)
}
