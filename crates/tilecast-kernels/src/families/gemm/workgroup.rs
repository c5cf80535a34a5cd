//! Workgroup-scope matrices (NVIDIA's cooperative_matrix2, printed by the native SPIR-V back
//! end): the one rule by which a gemm-family problem takes the profile's workgroup tile
//! ([`takes_tile`]), and the strategies of the paths that run on it. Only
//! [`super::strategy::decide`] calls these.

use tilecast_lang::DType::{BF16, F32};
use tilecast_lang::{Profile, WorkgroupMatrix};

use super::config::{GemmConfig, GemmPath, GemmStrategy};
use super::strategy::GemmKind;
use crate::registry::Problem;

/// Threadgroups of the workgroup-scope tile an f16 gemm or linear needs to go on those
/// matrices: fewer leave the GPU idle, and subgroup matrices are faster (with 56, 128x14336x4096
/// ran 146.6 us there against 163.0 on subgroup matrices).
const F16_WORKGROUP_MIN_GROUPS: usize = 56;

/// A bf16 gemm or linear with fewer rows than one tile (loaded clamped) goes on workgroup-scope
/// matrices from this many threadgroups, below which the single launch is faster (with 32,
/// 16x8192x4096 ran 126.2 us there against 253.0 for the gemm's single launch).
const BF16_WORKGROUP_MIN_GROUPS: usize = 32;

/// What a problem given no tiles needs of its rows, beside N and K of whole tiles, to take the
/// workgroup tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rows {
    /// Whole row tiles, making at least this many threadgroups.
    Whole(usize),
    /// Whole row tiles, or fewer rows than one tile (every row load clamped) making at least
    /// this many threadgroups.
    WholeOrClamped(usize),
}

/// Threadgroups of `tile` over an `m x n` output.
fn groups([bm, bn, _]: [u32; 3], m: usize, n: usize) -> usize {
    m.div_ceil(bm as usize) * n.div_ceil(bn as usize)
}

/// `base` on `w`'s tile: its tile and threads, one stage.
pub(crate) fn tiles_of(w: &WorkgroupMatrix, base: GemmConfig) -> GemmConfig {
    let [bm, bn, bk] = w.tile;
    GemmConfig { bm, bn, bk, threads: w.threads, stages: 1, ..base }
}

/// Whether `tiles` are `w`'s tile (its tile and threads, one stage), whatever their types.
pub(crate) fn is_tile(w: &WorkgroupMatrix, tiles: &GemmConfig) -> bool {
    let [bm, bn, bk] = w.tile;
    (tiles.bm, tiles.bn, tiles.bk, tiles.threads, tiles.stages) == (bm, bn, bk, w.threads, 1)
}

/// The rule, written once: an `m x n x k` problem takes `w`'s tile where the caller's tiles
/// (`chosen`, from `--tile` or the tuning file) are that tile (ragged edges then load clamped),
/// or, with none chosen, where N and K are whole tiles of it and its rows meet `rows`.
pub(crate) fn takes_tile(
    w: &WorkgroupMatrix,
    chosen: Option<&GemmConfig>,
    [m, n, k]: [usize; 3],
    rows: Rows,
) -> bool {
    if let Some(c) = chosen {
        return is_tile(w, c);
    }
    let [bm, bn, bk] = w.tile.map(|d| d as usize);
    let many = |min| groups(w.tile, m, n) >= min;
    let whole_m = m.is_multiple_of(bm);
    n.is_multiple_of(bn)
        && k.is_multiple_of(bk)
        && match rows {
            Rows::Whole(min) => whole_m && many(min),
            Rows::WholeOrClamped(min) => whole_m || (m < bm && many(min)),
        }
}

/// An f16 gemm or linear (or fp8 decoded to f16) on a profile with workgroup-scope matrices:
/// where the problem is a whole number of the profile's tiles, at least
/// [`F16_WORKGROUP_MIN_GROUPS`] of them, that tile instead of the chosen one, and the kernel
/// goes on workgroup-scope matrices whenever its tiles are that one (the caller's too, on any
/// shape: clamped loads at ragged edges are correct but slower). 4096^3 runs in 0.50 ms there
/// against 0.67 for the 128x128 subgroup-matrix kernel.
pub(crate) fn f16(
    s: GemmStrategy,
    profile: &Profile,
    chosen: Option<&GemmConfig>,
    mnk: [usize; 3],
) -> GemmStrategy {
    let Some(w) = profile.workgroup_matrix else { return s };
    let takes = takes_tile(&w, chosen, mnk, Rows::Whole(F16_WORKGROUP_MIN_GROUPS));
    let tiles = if takes && s.matrix_units { tiles_of(&w, s.tiles) } else { s.tiles };
    let on = is_tile(&w, &tiles) && s.matrix_units;
    GemmStrategy { tiles, workgroup_matrix: on, ..s }
}

/// A problem of `kind` (dimensions `mnk`) straight on workgroup-scope matrices of its own type:
/// bf16 gemms and linears (exact bf16 products, no scaling pass; their WGSL twin, with no bf16
/// matrices to use, is SIMT), and f16 or bf16 batched gemms (each window one batch item's).
/// Taken where [`takes_tile`] says so: whole tiles, for bf16 gemms and linears also fewer rows
/// than one tile making at least [`BF16_WORKGROUP_MIN_GROUPS`] threadgroups. There bf16 runs
/// as fast as f16 (4096^3: 0.50 ms against 0.82 for the converting plan on f16 subgroup
/// matrices).
pub(crate) fn direct(
    kind: GemmKind,
    p: &Problem,
    profile: &Profile,
    mnk: [usize; 3],
) -> Option<GemmStrategy> {
    let w = profile.workgroup_matrix.filter(|w| w.bf16 || p.dtype != BF16)?;
    let rows = match kind {
        GemmKind::BatchedGemm => Rows::Whole(0),
        _ => Rows::WholeOrClamped(BF16_WORKGROUP_MIN_GROUPS),
    };
    takes_tile(&w, p.gemm.as_ref(), mnk, rows).then(|| GemmStrategy {
        path: GemmPath::Matrix,
        tiles: tiles_of(&w, GemmConfig { input: p.dtype, output: F32, ..GemmConfig::default() }),
        matrix_units: true,
        workgroup_matrix: true,
    })
}
