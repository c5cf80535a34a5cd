//! Refinements of SIMT register blocks, decided per fragment shape after the layouts are
//! chosen: rows reduced into a row statistic kept within one subgroup's lanes, and runs of
//! columns per thread for vector loads and stores.

use super::selected::Selected;
use crate::Profile;
use crate::analysis::index::{mentions, unit_stride};
use crate::analysis::layout::fragment_layout_with_rows;
use crate::ir::{DType, Expr, Kernel, Region, Scope, Stmt, Target, TileId, visit};
use crate::lir::FragmentLayout;

/// Whether `tile` accumulates a gemm.
fn gemm_accumulator(k: &Kernel, tile: usize) -> bool {
    let mut found = false;
    visit::each_stmt(&k.body, &mut |s| found |= matches!(s, Stmt::Gemm { c, .. } if c.0 == tile));
    found
}

/// Fragments reduced into a row statistic take the fewest rows per thread whose threads of a
/// row still fit one subgroup (a power of two dividing its smallest size): each row is then
/// `log2(lanes)` exchanges with no threadgroup memory (`passes::ir::lanes`), and a thread
/// holding one row of 8 lanes does 3 of them where a squarer block of 4 rows over 32 lanes
/// does 20. Decided per shape, as runs are; gemm accumulators keep the squarest blocks, which
/// the product's reuse wants.
pub(super) fn few_lanes_per_row(k: &Kernel, profile: &Profile, out: &mut [Option<Selected>]) {
    if !profile.subgroups {
        return;
    }
    let min = profile.simd_width_min.max(1);
    for src in crate::passes::ir::lanes::reduced_into_statistics(k) {
        let tile = &k.tiles[src.0];
        let same: Vec<usize> = (0..out.len()).filter(|&j| k.tiles[j].shape == tile.shape).collect();
        let simt = |j: usize| {
            matches!(out[j], Some(Selected { layout: FragmentLayout::Simt(_), .. }))
                && !gemm_accumulator(k, j)
        };
        if !same.iter().all(|&j| k.tiles[j].scope != Scope::Fragment || simt(j)) {
            continue;
        }
        let rows = tile.shape.first().copied().unwrap_or(1);
        let best = (1..=rows).find_map(|tm| {
            fragment_layout_with_rows(tile, k.threads, tm).ok().filter(|b| {
                let lanes = b.thread_cols();
                lanes.is_power_of_two() && min.is_multiple_of(lanes)
            })
        });
        let Some(best) = best else { continue };
        for &j in &same {
            if let Some(Selected { layout: FragmentLayout::Simt(b), reason }) = &mut out[j]
                && *b != best
            {
                *b = best;
                reason.push_str(&format!(
                    "; {} rows per thread, so a row's {} threads share a subgroup (its rows are \
                     reduced into a row statistic)",
                    best.tm,
                    best.thread_cols()
                ));
            }
        }
    }
}

/// Columns a thread owns side by side where runs are allowed ([`crate::lir::RegisterBlocks::run`]).
const VECTOR_RUN: u32 = 4;

/// Gives SIMT fragments runs of [`VECTOR_RUN`] columns where every fragment of the same shape
/// only moves between registers and global memory, is reduced along its last axis or touched
/// by parallel loops: their loads and saves then take one vector per run (f16 rms_norm on an
/// H200: 2303 GB/s with scalar loads, 3650 with 16-byte ones). Gemm
/// operands and accumulators and fragments copied to or from tiles keep the strided layout
/// (neighbouring threads on neighbouring columns) that conflict-free threadgroup reads rely
/// on. Decided per shape: fragments one parallel loop touches share a shape, and so must share
/// a layout.
pub(super) fn vector_runs(k: &Kernel, out: &mut [Option<Selected>]) {
    let fragments: Vec<usize> = (0..out.len()).filter(|&i| out[i].is_some()).collect();
    for &i in &fragments {
        let Some(Selected { layout: FragmentLayout::Simt(b), .. }) = out[i] else { continue };
        let same: Vec<usize> =
            fragments.iter().copied().filter(|&j| k.tiles[j].shape == k.tiles[i].shape).collect();
        let simt =
            |j: usize| matches!(out[j], Some(Selected { layout: FragmentLayout::Simt(_), .. }));
        let global_rows = same.iter().any(|&j| loaded_from_global(k, TileId(j)))
            && same.iter().all(|&j| simt(j) && runs_serve_any_use(k, TileId(j)));
        let moves = same.iter().all(|&j| {
            simt(j)
                && ((moves_only_to_global(k, TileId(j)) && loops_read_along_runs(k, TileId(j)))
                    || packed_window(k, TileId(j)))
        });
        let global_rows = global_rows && !moves;
        let allowed = b.tn.is_multiple_of(VECTOR_RUN) && (moves || global_rows);
        let packed = same.iter().any(|&j| packed_window(k, TileId(j)));
        if allowed && let Some(Selected { layout: FragmentLayout::Simt(b), reason }) = &mut out[i] {
            b.run = VECTOR_RUN;
            reason.push_str(&format!(
                "; runs of {VECTOR_RUN} columns per thread: {}",
                if packed {
                    "bf16 windows load 4 elements (two words) at once"
                } else if global_rows {
                    "rows copied from global memory load as vectors, however they are used"
                } else {
                    "fragments of this shape only move to and from global memory"
                }
            ));
        }
    }
}

/// `tile` is copied from a window of global memory (whose rows are contiguous).
fn loaded_from_global(k: &Kernel, tile: TileId) -> bool {
    let mut found = false;
    visit::each_stmt(
        &k.body,
        &mut |s| found |= matches!(s, Stmt::Copy { src: Region::Global { .. }, dst: Region::Tile { tile: t, .. }, .. } if *t == tile),
    );
    found
}

/// Runs serve every use of `tile` a fragment copied from global memory can have, however
/// they cost elsewhere: it is no gemm operand or accumulator and no scan, its reductions are
/// value reductions (no column is reported), and the loops touching it read and write global
/// memory along their column index with unit stride or not at all (a strided global read
/// through runs touches 4x the cache lines; threadgroup reads at the column index are
/// allowed, their bank conflicts costing less than scalar loads of the rows).
fn runs_serve_any_use(k: &Kernel, tile: TileId) -> bool {
    let is = |r: &Region| matches!(r, Region::Tile { tile: t, .. } if *t == tile);
    let mut ok = true;
    visit::each_stmt(&k.body, &mut |s| match s {
        Stmt::Gemm { a, b, c, .. } if is(a) || is(b) || *c == tile => ok = false,
        Stmt::Cumsum { src, dst, .. } if *src == tile || *dst == tile => ok = false,
        Stmt::Reduce { op, src, .. } if *src == tile && op.is_arg() => ok = false,
        Stmt::Parallel { vars, body, .. } => {
            let Some(&col) = vars.last() else { return };
            let mut touches = false;
            visit::each_expr(body, &mut |e| {
                touches |= matches!(e, Expr::LoadTile(t, _) if *t == tile)
            });
            visit::each_stmt(body, &mut |s| {
                touches |= matches!(s, Stmt::Store { target: Target::Tile(t), .. } if *t == tile)
            });
            if !touches {
                return;
            }
            visit::each_expr(body, &mut |e| {
                if let Expr::LoadParam(_, idx) = e {
                    ok &= unit_stride(idx, col)
                }
            });
            visit::each_stmt(body, &mut |s| {
                if let Stmt::Store { target: Target::Param(_), index, .. }
                | Stmt::AtomicAdd { index, .. } = s
                {
                    ok &= unit_stride(index, col)
                }
            });
        }
        _ => {}
    });
    ok
}

/// `tile` is loaded from a bf16 parameter and otherwise only copied into threadgroup tiles
/// or touched by parallel loops (a bf16 gemm's staged windows). Each scalar load of a packed
/// element reads its whole word, so runs (one 8-byte load per 4 elements) halve the words read
/// and quarter the loads; that outweighs the runs' strided threadgroup stores and reads.
fn packed_window(k: &Kernel, tile: TileId) -> bool {
    let is = |r: &Region| matches!(r, Region::Tile { tile: t, .. } if *t == tile);
    let (mut from_bf16, mut ok) = (false, true);
    visit::each_stmt(&k.body, &mut |s| match s {
        Stmt::Copy { src: Region::Global { param, .. }, dst, .. } if is(dst) => {
            from_bf16 = k.params[param.0].dtype == DType::BF16;
            ok &= from_bf16;
        }
        Stmt::Copy { src, dst: Region::Tile { tile: t, .. }, .. } if is(src) => {
            ok &= k.tiles[t.0].scope == Scope::Shared;
        }
        Stmt::Copy { src, dst, .. } if is(src) || is(dst) => ok = false,
        Stmt::Gemm { a, b, c, .. } if is(a) || is(b) || *c == tile => ok = false,
        Stmt::Reduce { src, dst, .. } if *src == tile || *dst == tile => ok = false,
        Stmt::Cumsum { src, dst, .. } if *src == tile || *dst == tile => ok = false,
        _ => {}
    });
    from_bf16 && ok
}

/// Every parallel loop touching `tile` reads and writes other memory at its column index with
/// unit stride or not at all (`W[c]`, `X[r, k0 + c]`, `sum[r]`; threadgroup tiles only in the
/// last way). With runs, lanes of a subgroup sit 4 columns apart: a strided read like rope's
/// pairs `X[2c]` then touches 4x the cache lines per instruction (f16 rope on an H200 fell from
/// 79% to 36% of the copy roofline), and a threadgroup read `s[c]` conflicts in banks 4 ways.
/// A threadgroup read down a column, `s[c, x]`, is allowed: a transpose saves its window
/// through runs, and the vector stores to global memory that buys outweigh the padded column
/// walk.
fn loops_read_along_runs(k: &Kernel, tile: TileId) -> bool {
    let mut ok = true;
    visit::each_stmt(&k.body, &mut |s| {
        let Stmt::Parallel { vars, body, .. } = s else { return };
        let Some(&col) = vars.last() else { return };
        let mut touches = false;
        visit::each_expr(body, &mut |e| touches |= matches!(e, Expr::LoadTile(t, _) if *t == tile));
        visit::each_stmt(body, &mut |s| {
            touches |= matches!(s, Stmt::Store { target: Target::Tile(t), .. } if *t == tile)
        });
        if !touches {
            return;
        }
        let shared = |t: TileId| k.tiles[t.0].scope != Scope::Fragment;
        visit::each_expr(body, &mut |e| match e {
            Expr::LoadParam(_, idx) => ok &= unit_stride(idx, col),
            // A walk down a column (`s[c, x]`: the column index in a row axis only) is padded
            // to an odd word pitch by the padding pass, which leaves lanes 4 rows apart in
            // 2-way conflicts at worst; along a row (`s[x, c]`) they would conflict 4 ways.
            Expr::LoadTile(t, idx) if shared(*t) => {
                ok &= !idx.last().is_some_and(|i| mentions(i, col))
            }
            _ => {}
        });
        visit::each_stmt(body, &mut |s| match s {
            Stmt::Store { target: Target::Param(_), index, .. } | Stmt::AtomicAdd { index, .. } => {
                ok &= unit_stride(index, col)
            }
            Stmt::Store { target: Target::Tile(t), index, .. } if shared(*t) => {
                ok &= !index.iter().any(|i| mentions(i, col))
            }
            _ => {}
        });
    });
    ok
}

/// `tile` is no gemm operand or accumulator, is copied only to or from global memory, and is
/// reduced only along its last axis (so where an element lives is free to choose).
fn moves_only_to_global(k: &Kernel, tile: TileId) -> bool {
    let is = |r: &Region| matches!(r, Region::Tile { tile: t, .. } if *t == tile);
    let last = k.tiles[tile.0].shape.len().saturating_sub(1);
    let mut ok = true;
    visit::each_stmt(&k.body, &mut |s| {
        let bad = match s {
            Stmt::Gemm { a, b, c, .. } => is(a) || is(b) || *c == tile,
            Stmt::Copy { src, dst, .. } => {
                (is(src) && !matches!(dst, Region::Global { .. }))
                    || (is(dst) && !matches!(src, Region::Global { .. }))
            }
            Stmt::Reduce { src, dst, axis, .. } => *dst == tile || (*src == tile && *axis != last),
            Stmt::Cumsum { src, dst, .. } => *src == tile || *dst == tile,
            _ => false,
        };
        ok &= !bad;
    });
    ok
}
