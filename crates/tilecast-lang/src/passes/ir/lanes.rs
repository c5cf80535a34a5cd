//! Row reductions that stay in a subgroup's lanes. The rewrite pass sends the rows of a
//! fragment into its row statistic through a shared scratch row (`reduce frag -> scratch;
//! copy scratch -> stat`), since before layouts are chosen nothing says where a row lives.
//! Once they are, a row held by a few neighbouring lanes of one subgroup needs no
//! threadgroup memory: this pass turns the pair back into `reduce frag -> stat`, which the
//! lowering prints as exchanges among the row's lanes
//! ([`ReduceStrategy::Lanes`](crate::lir::ReduceStrategy::Lanes)), and the barriers pass then
//! places no barrier around it. The scratch row stays declared, unused (4 bytes a row).
//!
//! Lanes of a row are the threads `tid` with the same `tid / lanes`; they are neighbouring
//! lanes of one subgroup where `lanes` is a power of two dividing the smallest subgroup size
//! (invocations fill subgroups in order of their local index, as every Vulkan and Metal
//! driver does for one-dimensional threadgroups).

use super::select::selected::Selected;
use crate::Profile;
use crate::ir::{DType, Kernel, Region, Scope, Stmt, TileId};
use crate::lir::FragmentLayout;

/// Turns each fragment-to-row-statistic reduction through a scratch row whose rows fit a
/// subgroup into a direct one.
pub fn row_reductions(k: &mut Kernel, profile: &Profile, selected: &[Option<Selected>]) {
    if !profile.subgroups {
        return;
    }
    let body = std::mem::take(&mut k.body);
    k.body = block(k, body, profile, selected);
}

/// Threads holding one row of fragment `src` reduced into `dst`, if the reduction may stay in
/// their lanes: `src` is SIMT, `dst` its row statistic over the same thread grid, and a row's
/// threads are a power of two dividing the smallest subgroup.
fn lanes(
    k: &Kernel,
    profile: &Profile,
    selected: &[Option<Selected>],
    src: TileId,
    dst: TileId,
) -> Option<u32> {
    let layout = |t: TileId| selected.get(t.0)?.as_ref().map(|s| s.layout);
    let (Some(FragmentLayout::Simt(b)), Some(FragmentLayout::Rows { blocks: rb, .. })) =
        (layout(src), layout(dst))
    else {
        return None;
    };
    let lanes = b.thread_cols();
    let same_grid = rb.rows == b.rows && rb.cols == lanes && rb.tm == b.tm;
    let numeric = matches!(k.tiles[src.0].dtype, DType::F32 | DType::I32 | DType::U32)
        && k.tiles[dst.0].dtype == k.tiles[src.0].dtype;
    (same_grid
        && numeric
        && lanes.is_power_of_two()
        && lanes <= profile.simd_width_min.max(1)
        && profile.simd_width_min.is_multiple_of(lanes))
    .then_some(lanes)
}

/// Fragments reduced along their last axis into a row statistic (through the rewrite pass's
/// scratch row): the selection pass gives their shape few lanes per row, so the reduction can
/// stay in them.
pub fn reduced_into_statistics(k: &Kernel) -> Vec<TileId> {
    let mut found = Vec::new();
    fn walk(k: &Kernel, body: &[Stmt], found: &mut Vec<TileId>) {
        for (i, s) in body.iter().enumerate() {
            if let Stmt::Reduce { op, src, src_stage: None, dst, axis: 1, clear: true } = s
                && !op.is_arg()
                && k.tiles[src.0].scope == Scope::Fragment
                && let Some(Stmt::Copy {
                    src: Region::Tile { tile, stage: None },
                    dst: Region::Tile { tile: stat, stage: None },
                    ..
                }) = body.get(i + 1)
                && tile == dst
                && k.tiles[stat.0].scope == Scope::Fragment
                && k.tiles[stat.0].shape.len() == 1
            {
                found.push(*src);
            }
            for b in crate::ir::visit::stmt_bodies(s) {
                walk(k, b, found);
            }
        }
    }
    walk(k, &k.body, &mut found);
    found
}

fn block(
    k: &Kernel,
    body: Vec<Stmt>,
    profile: &Profile,
    selected: &[Option<Selected>],
) -> Vec<Stmt> {
    let mut out: Vec<Stmt> = Vec::with_capacity(body.len());
    let mut it = body.into_iter().peekable();
    while let Some(s) = it.next() {
        match s {
            Stmt::Reduce { op, src, src_stage: None, dst: scratch, axis: 1, clear: true }
                if !op.is_arg()
                    && k.tiles[src.0].scope == Scope::Fragment
                    && k.tiles[scratch.0].scope == Scope::Shared =>
            {
                let stat = match it.peek() {
                    Some(Stmt::Copy {
                        src: Region::Tile { tile, stage: None },
                        dst: Region::Tile { tile: stat, stage: None },
                        ..
                    }) if *tile == scratch && lanes(k, profile, selected, src, *stat).is_some() => {
                        Some(*stat)
                    }
                    _ => None,
                };
                match stat {
                    Some(stat) => {
                        it.next();
                        out.push(Stmt::Reduce {
                            op,
                            src,
                            src_stage: None,
                            dst: stat,
                            axis: 1,
                            clear: true,
                        });
                    }
                    None => out.push(Stmt::Reduce {
                        op,
                        src,
                        src_stage: None,
                        dst: scratch,
                        axis: 1,
                        clear: true,
                    }),
                }
            }
            Stmt::For { var, extent, body } => {
                let body = block(k, body, profile, selected);
                out.push(Stmt::For { var, extent, body });
            }
            Stmt::Pipelined { var, extent, stages, body } => {
                let body = block(k, body, profile, selected);
                out.push(Stmt::Pipelined { var, extent, stages, body });
            }
            Stmt::If { cond, then, otherwise } => {
                let then = block(k, then, profile, selected);
                let otherwise = block(k, otherwise, profile, selected);
                out.push(Stmt::If { cond, then, otherwise });
            }
            other => out.push(other),
        }
    }
    out
}
