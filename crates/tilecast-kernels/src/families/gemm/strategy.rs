//! How the gemm family runs a problem: the one place that decides it. [`decide`] turns the
//! problem (its shape, input type and any tiles the caller or the tuning file chose) and the
//! target profile into a [`GemmStrategy`]; [`launches`] builds that strategy's launches. The
//! registry's gemm entries (`qgemm` too, as [`GemmKind::Quantized`]), and so tests, `tilecast
//! bench`, `tilecast emit` and Python, go through these two functions only.

use tilecast_lang::DType::{self, BF16, F8E4M3, F8E5M2, F16, F32};
use tilecast_lang::Profile;

use super::config::{GemmConfig, GemmPath, GemmStrategy, bf16_on_matrix_units, has_matrix_units};
use super::{Scales, bf16, bf16_plan, linear, workgroup};
use crate::elementwise::Unary;
use crate::registry::{Plan, Problem};

/// Which member of the family: the arguments and epilogue differ, the decision is shared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmKind {
    /// `C[M,N] = A[M,K] x B[K,N]` (fp8 inputs with per-row and per-column scales).
    Gemm,
    /// `C[b] = A[b] x B[b]`, dimensions `BT x M x N x K`.
    BatchedGemm,
    /// `Y = act(X W^T + Bias)`.
    Linear(Option<Unary>),
    /// `C = A x B16 * 2^-EB` with bf16 A and B converted once by `scale_cols_f16`.
    GemmPrescaled,
    /// `Y = X W16^T * 2^-EW + Bias` with bf16 X and W converted once by `scale_rows_f16`.
    LinearPrescaled,
    /// `Y[M,N] = X[M,K] W[N,K]^T` with f16 X and W quantized (`qgemm`; the format and MLX group
    /// are the problem's options): fused or decoded once ([`DECODE_ONCE_MIN_ROWS`]).
    /// `qgemv` is not a kind of this decision but a problem of its own, by design: its own
    /// entry (`NxK`, 1 to 8 rows, f16, bf16 or f32 activations) and one memory-bound kernel
    /// with fixed constants. Nothing chooses between the two; the caller names the entry.
    Quantized,
}

/// Rows of `X` from which a quantized linear decodes `W` once rather than in every
/// threadgroup: the fused kernel is then slower than the f16 gemm alone (512x14336x4096
/// q4_0: 805 us against 406).
pub const DECODE_ONCE_MIN_ROWS: usize = 256;

/// A gemm takes the bf16 converting plan with more rows than this in A, and more columns in B.
/// At decode shapes the passes over `B` cost more than the single launch's scale search
/// (64x4096x4096: 115.3 us converted against 97.8 in one launch). Linears always convert: the
/// conversion was faster for them at every shape measured.
const BF16_CONVERT_MIN_SIDE: usize = 64;

/// e4m3 gemms decode both operands once from this many rows and columns, where the decoding
/// passes cost less than decoding in every threadgroup (4096^3: 754.4 us against 968.1 in one
/// launch). e5m2 decodes in two instructions per pair of codes and keeps the single launch.
const FP8_DECODE_MIN_SIDE: usize = 1024;

/// `(M, N, K)` of a problem of `kind` (a batched gemm's M, N, K follow its batch count).
fn mnk(kind: GemmKind, p: &Problem) -> [usize; 3] {
    match kind {
        GemmKind::BatchedGemm => [p.dims[1], p.dims[2], p.dims[3]],
        _ => [p.dims[0], p.dims[1], p.dims[2]],
    }
}

/// The caller's tiles for `input` (from `--tile` or the tuning file), else those chosen for the
/// profile and an `m x n` output.
fn tiles(p: &Problem, profile: &Profile, input: DType, m: usize, n: usize) -> GemmConfig {
    match p.gemm {
        Some(g) => GemmConfig { input, output: F32, ..g },
        None => GemmConfig::for_shape(profile, input, F32, m, n),
    }
}

/// The strategy for `p`, a problem of `kind`, on `profile`.
pub fn decide(kind: GemmKind, p: &Problem, profile: &Profile) -> GemmStrategy {
    let dims @ [m, n, _] = mnk(kind, p);
    if kind == GemmKind::Quantized {
        return quantized(p, profile, dims);
    }
    let direct_on_workgroup = match kind {
        GemmKind::Gemm | GemmKind::Linear(_) => p.dtype == BF16,
        GemmKind::BatchedGemm => matches!(p.dtype, F16 | BF16),
        _ => false,
    };
    if direct_on_workgroup && let Some(s) = workgroup::direct(kind, p, profile, dims) {
        return s;
    }
    let on_units = bf16_on_matrix_units(profile);
    let strategy = |path, tiles: GemmConfig| {
        // The single bf16 launch stages scaled f16, whatever its tiles' input type says.
        let staged = if path == GemmPath::Bf16Scaled { F16 } else { tiles.input };
        GemmStrategy {
            path,
            tiles,
            matrix_units: has_matrix_units(profile, staged, tiles.output),
            workgroup_matrix: false,
        }
    };
    // The f16 problem's tiles (or the caller's), for paths that run the f16 kernel.
    let f16_tiles = || tiles(p, profile, F16, m, n);
    let direct = |tiles: GemmConfig| {
        let path = if has_matrix_units(profile, tiles.input, F32) {
            GemmPath::Matrix
        } else {
            GemmPath::Simt
        };
        strategy(path, tiles)
    };
    match kind {
        GemmKind::GemmPrescaled | GemmKind::LinearPrescaled => {
            strategy(GemmPath::Bf16Converted, f16_tiles())
        }
        _ if p.dtype == BF16 && on_units => {
            let converts = matches!(kind, GemmKind::Linear(_))
                || (kind == GemmKind::Gemm
                    && m > BF16_CONVERT_MIN_SIDE
                    && n > BF16_CONVERT_MIN_SIDE);
            if converts {
                strategy(GemmPath::Bf16Converted, f16_tiles())
            } else if kind == GemmKind::BatchedGemm {
                // The batched kernel stages bf16 as f32 (SIMT).
                direct(batched_tiles(p, profile, m, n))
            } else {
                let cfg = f16_tiles();
                let cfg = match p.gemm {
                    Some(_) => GemmConfig { input: BF16, ..cfg },
                    None => GemmConfig::for_bf16(cfg, profile),
                };
                strategy(GemmPath::Bf16Scaled, cfg)
            }
        }
        GemmKind::Gemm
            if p.dtype == F8E4M3
                && on_units
                && m >= FP8_DECODE_MIN_SIDE
                && n >= FP8_DECODE_MIN_SIDE =>
        {
            let s = strategy(GemmPath::Fp8Decoded, f16_tiles());
            workgroup::f16(s, profile, p.gemm.as_ref(), dims)
        }
        GemmKind::BatchedGemm => direct(batched_tiles(p, profile, m, n)),
        GemmKind::Gemm | GemmKind::Linear(_)
            if p.dtype == F16 && profile.workgroup_matrix.is_some() =>
        {
            let s = direct(tiles(p, profile, F16, m, n));
            workgroup::f16(s, profile, p.gemm.as_ref(), dims)
        }
        _ => direct(tiles(p, profile, p.dtype, m, n)),
    }
}

/// A quantized linear (dimensions `mnk`, f16 activations) on `profile`: below
/// [`DECODE_ONCE_MIN_ROWS`] rows fused, on the f16 problem's tiles (or the caller's) with K
/// steps of whole units of the format (the decoder fills whole slices) and one stage; from
/// there decoded once, then the f16 product on the same tiles, or on workgroup-scope matrices
/// where [`workgroup::takes_tile`] says so (whole tiles, or the caller chose that tile).
fn quantized(p: &Problem, profile: &Profile, [m, n, k]: [usize; 3]) -> GemmStrategy {
    let f16 = tiles(p, profile, F16, m, n);
    let matrix_units = has_matrix_units(profile, F16, F32);
    if m < DECODE_ONCE_MIN_ROWS {
        let unit = crate::qlinear::entries::layout(p).0.unit_values() as u32;
        let tiles = GemmConfig { bk: f16.bk.max(unit).next_multiple_of(unit), stages: 1, ..f16 };
        return GemmStrategy {
            path: GemmPath::QuantFused,
            tiles,
            matrix_units,
            workgroup_matrix: false,
        };
    }
    let w = profile.workgroup_matrix.filter(|w| {
        workgroup::takes_tile(w, p.gemm.as_ref(), [m, n, k], workgroup::Rows::Whole(0))
    });
    GemmStrategy {
        path: GemmPath::QuantDecoded,
        tiles: w.map_or(f16, |w| workgroup::tiles_of(&w, f16)),
        matrix_units,
        workgroup_matrix: w.is_some(),
    }
}

/// The batched gemm gathers its windows element by element, so on matrix units it wants K steps
/// of 16 (8x2048^3 f16: 1.24 ms against 10.5 with the gemm's K steps of 32).
/// More than 64 rows with few threadgroups stay 64x64 over 4 subgroups: the batch multiplies
/// the grid, which [`GemmConfig::for_shape`] does not see.
fn batched_tiles(p: &Problem, profile: &Profile, m: usize, n: usize) -> GemmConfig {
    let mut cfg = tiles(p, profile, p.dtype, m, n);
    if p.gemm.is_none() && m > 64 && cfg.bm == 64 && cfg.bk >= 16 {
        cfg = GemmConfig { bn: 64, bk: 32, threads: 4 * profile.simd_width, ..cfg };
    }
    if p.gemm.is_none() && cfg.bk == 32 {
        cfg.bk = 16;
    }
    cfg
}

/// The launches of `strategy` for `p`, a problem of `kind` (arguments in the entry's order).
pub fn launches(kind: GemmKind, p: &Problem, strategy: &GemmStrategy) -> Plan {
    let [m, n, k] = mnk(kind, p);
    let cfg = &strategy.tiles;
    let fp8 = matches!(p.dtype, F8E4M3 | F8E5M2);
    let plan = match (kind, strategy.path) {
        (GemmKind::Gemm, GemmPath::Fp8Decoded) => {
            bf16_plan::fp8_gemm_plan(m, n, k, p.dtype, cfg, strategy.workgroup_matrix)
        }
        (GemmKind::Gemm, GemmPath::Bf16Converted) => bf16_plan::gemm_plan(m, n, k, cfg),
        (GemmKind::Linear(act), GemmPath::Bf16Converted) => {
            bf16_plan::linear_plan(m, n, k, cfg, act)
        }
        (GemmKind::GemmPrescaled, _) => bf16_plan::prescaled_plan(m, k, cfg, false),
        (GemmKind::LinearPrescaled, _) => bf16_plan::prescaled_plan(m, k, cfg, true),
        (GemmKind::Gemm, GemmPath::Bf16Scaled) => Plan::single(bf16::bf16_gemm(cfg)),
        (GemmKind::Linear(act), GemmPath::Bf16Scaled) => Plan::single(bf16::bf16_linear(cfg, act)),
        (GemmKind::Gemm, _) if fp8 => Plan::single(super::scaled_gemm(cfg, Scales::PerRow)),
        (GemmKind::Gemm, _) if strategy.workgroup_matrix => {
            Plan::single(super::gemm_fixed(cfg, [m, n, k].map(|d| d as u32)))
        }
        (GemmKind::Gemm, _) => Plan::single(super::gemm(cfg)),
        (GemmKind::BatchedGemm, _) if strategy.workgroup_matrix => {
            let bt = p.dims[0];
            Plan::single(linear::batched_gemm_fixed(cfg, [bt, m, n, k].map(|d| d as u32)))
        }
        (GemmKind::BatchedGemm, _) => Plan::single(linear::batched_gemm(cfg)),
        (GemmKind::Linear(act), _) if strategy.workgroup_matrix => {
            Plan::single(linear::linear_fixed(cfg, act, [m, n, k].map(|d| d as u32)))
        }
        (GemmKind::Linear(act), _) => Plan::single(linear::linear(cfg, act)),
        (GemmKind::Quantized, _) => {
            let (format, group, _) = crate::qlinear::entries::layout(p);
            crate::qlinear::gemm::plan(format, strategy, [m, n, k], group)
        }
    };
    plan.with_strategy(crate::registry::Strategy::Gemm(*strategy))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tilecast_lang::WorkgroupMatrix;

    fn decided(kind: GemmKind, shape: &str, dtype: DType, profile: &str) -> GemmStrategy {
        let dims = shape.split('x').map(|d| d.parse().unwrap()).collect();
        let p = Problem::new(dims, dtype);
        decide(kind, &p, &Profile::named(profile).unwrap())
    }

    #[test]
    fn each_path_is_taken_where_it_wins() {
        use GemmPath::*;
        let cases = [
            (GemmKind::Gemm, "4096x4096x4096", F16, "vulkan-nvidia", Matrix),
            (GemmKind::Gemm, "4096x4096x4096", F16, "vulkan-lavapipe", Simt),
            (GemmKind::Gemm, "4096x4096x4096", BF16, "vulkan-nvidia", Matrix),
            (GemmKind::Gemm, "4000x4096x4096", BF16, "vulkan-nvidia", Bf16Converted),
            (GemmKind::Gemm, "64x4096x4096", BF16, "vulkan-nvidia", Bf16Scaled),
            (GemmKind::Gemm, "4096x64x4096", BF16, "metal-apple7", Bf16Scaled),
            (GemmKind::Gemm, "4096x4096x4096", BF16, "vulkan-lavapipe", Simt),
            (GemmKind::Gemm, "1024x1024x4096", F8E4M3, "vulkan-nvidia", Fp8Decoded),
            (GemmKind::Gemm, "1023x4096x4096", F8E4M3, "vulkan-nvidia", Matrix),
            (GemmKind::Gemm, "4096x4096x4096", F8E5M2, "vulkan-nvidia", Matrix),
            (GemmKind::Linear(None), "1x4096x4096", BF16, "vulkan-nvidia", Bf16Converted),
            (GemmKind::BatchedGemm, "2x4096x4096x64", BF16, "vulkan-lavapipe", Simt),
            (GemmKind::BatchedGemm, "2x4000x4096x64", BF16, "vulkan-nvidia", Simt),
            (GemmKind::GemmPrescaled, "16x4096x4096", BF16, "vulkan-lavapipe", Bf16Converted),
        ];
        for (kind, shape, dtype, profile, want) in cases {
            let s = decided(kind, shape, dtype, profile);
            assert_eq!(s.path, want, "{kind:?} {shape} {dtype} on {profile}: {s}");
        }
    }

    #[test]
    fn converted_paths_run_f16_tiles_and_report_the_matrix_units_they_use() {
        let s = decided(GemmKind::Gemm, "4000x4096x4096", BF16, "vulkan-nvidia");
        assert_eq!((s.tiles.input, s.matrix_units), (F16, true), "{s}");
        let s = decided(GemmKind::GemmPrescaled, "16x4096x4096", BF16, "vulkan-lavapipe");
        assert_eq!((s.tiles.input, s.matrix_units), (F16, false), "{s}");
        let s = decided(GemmKind::Gemm, "16x4096x4096", BF16, "vulkan-nvidia");
        assert!(s.matrix_units && s.tiles.input == BF16, "{s}");
        assert!(s.to_string().starts_with("bf16-scaled: tiles "), "{s}");
    }

    #[test]
    fn bf16_gemms_of_whole_tiles_go_on_bf16_workgroup_matrices_where_the_profile_has_them() {
        let s = decided(GemmKind::Gemm, "4096x4096x8192", BF16, "vulkan-nvidia");
        assert!(s.workgroup_matrix && s.tiles.input == BF16, "{s}");
        assert_eq!((s.tiles.bm, s.tiles.bn, s.tiles.bk, s.tiles.threads), (128, 256, 32, 256));
        // Without bf16 workgroup matrices the converting plan runs, on f16 subgroup matrices.
        let mut profile = Profile::named("vulkan-nvidia").unwrap();
        profile.workgroup_matrix =
            profile.workgroup_matrix.map(|w| WorkgroupMatrix { bf16: false, ..w });
        let p = Problem::new(vec![4096, 4096, 8192], BF16);
        let s = decide(GemmKind::Gemm, &p, &profile);
        assert_eq!((s.path, s.workgroup_matrix), (GemmPath::Bf16Converted, false), "{s}");
        // Linears too; ragged shapes keep the converting plan.
        let s = decided(GemmKind::Linear(None), "4096x4096x4096", BF16, "vulkan-nvidia");
        assert!(s.workgroup_matrix, "{s}");
        let s = decided(GemmKind::Linear(None), "16x4096x4096", BF16, "vulkan-nvidia");
        assert!(!s.workgroup_matrix, "{s}");
        let s = decided(GemmKind::Gemm, "4096x4000x4096", BF16, "vulkan-nvidia");
        assert!(!s.workgroup_matrix, "{s}");
        // Decode shapes (rows clamped) where there are threadgroups enough.
        let s = decided(GemmKind::Gemm, "16x14336x4096", BF16, "vulkan-nvidia");
        assert!(s.workgroup_matrix, "{s}");
        let s = decided(GemmKind::Linear(None), "16x4096x4096", BF16, "vulkan-nvidia");
        assert!(!s.workgroup_matrix, "{s}");
        // f16 needs whole tiles, and threadgroups enough.
        let s = decided(GemmKind::Linear(None), "256x14336x4096", F16, "vulkan-nvidia");
        assert!(s.workgroup_matrix, "{s}");
        for shape in ["256x4096x4096", "16x14336x4096"] {
            let s = decided(GemmKind::Gemm, shape, F16, "vulkan-nvidia");
            assert!(!s.workgroup_matrix, "{shape}: {s}");
        }
        // Batched gemms of whole tiles, f16 and bf16, each window one batch item's.
        for dtype in [F16, BF16] {
            let s = decided(GemmKind::BatchedGemm, "8x2048x2048x2048", dtype, "vulkan-nvidia");
            assert!(s.workgroup_matrix && s.tiles.input == dtype, "{s}");
        }
    }

    #[test]
    fn the_callers_tiles_win_over_the_shape_heuristics() {
        let nvidia = Profile::named("vulkan-nvidia").unwrap();
        let given =
            GemmConfig { bm: 64, bn: 64, bk: 16, threads: 128, stages: 2, ..Default::default() };
        for dtype in [F16, BF16] {
            let p = Problem { gemm: Some(given), ..Problem::new(vec![4096, 4096, 4096], dtype) };
            let s = decide(GemmKind::Gemm, &p, &nvidia);
            let t = s.tiles;
            assert_eq!((t.bm, t.bn, t.bk, t.threads, t.stages), (64, 64, 16, 128, 2), "{s}");
        }
        // The batched gemm's own K-step rule applies to chosen tiles only when none were given.
        let p = Problem { gemm: Some(given), ..Problem::new(vec![2, 4096, 4096, 4096], F16) };
        assert_eq!(decide(GemmKind::BatchedGemm, &p, &nvidia).tiles.bk, 16);
    }
}
