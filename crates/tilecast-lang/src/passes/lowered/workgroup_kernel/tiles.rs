//! What the workgroup-kernel pass asks of ops and tiles: walks over the body, the tiles an op
//! names, element indices, and the tiles it adds.

use crate::ir::{Scope, Var};
use crate::lir::{
    CopyPlan, Dist, ElemRef, Lowered, Op, TExpr, TKind, TileInfo, TileIx, TileStorage,
};

/// A workgroup-matrix copy plan for `tile` (tensor-addressed, clamped unless `proven`).
pub(super) fn tensor(tile: TileIx, proven: bool) -> CopyPlan {
    CopyPlan { proven, ..CopyPlan::masked(Dist::Workgroup(tile), None, None, false) }
}

/// Whether `index` is the loop's row variable alone.
pub(super) fn row_index(index: &[TExpr], vars: &[Var]) -> bool {
    matches!(index, [TExpr { kind: TKind::Var(v), .. }] if Some(v) == vars.first())
}

/// Whether `index` is the loop's variables in order (the loop's own element).
pub(super) fn own_index(index: &[TExpr], vars: &[Var]) -> bool {
    index.len() == vars.len()
        && index.iter().zip(vars).all(|(i, v)| matches!(i.kind, TKind::Var(x) if x == *v))
}

/// The tile holding statistic `t` spread over `columns` columns (made once).
pub(super) fn spread_tile(k: &mut Lowered, t: TileIx, columns: u32) -> TileIx {
    let name = format!("{}_x{columns}", k.tiles[t].named.name);
    if let Some(i) = k.tiles.iter().position(|x| x.named.name == name) {
        return TileIx(i);
    }
    let base = &k.tiles[t];
    let tile = TileInfo {
        named: crate::lir::Named {
            name: name.clone(),
            ident: format!("{}_x{columns}", base.named.ident),
        },
        scope: Scope::Fragment,
        dtype: base.dtype,
        shape: base.shape.clone(),
        stages: 1,
        storage: TileStorage::WorkgroupRows { columns },
        row_pad: 0,
    };
    k.tiles.push(tile);
    TileIx(k.tiles.len() - 1)
}

/// The tiles `e` reads element by element.
pub(super) fn collect_slots(e: &TExpr, out: &mut Vec<TileIx>) {
    if let TKind::FragmentSlot(t) = e.kind {
        out.push(t);
    }
    e.children().into_iter().for_each(|c| collect_slots(c, out));
}

/// Calls `f` on every op of `ops`, those inside loops and branches included.
pub(super) fn walk<'a>(ops: &'a [Op], f: &mut impl FnMut(&'a Op)) {
    for op in ops {
        f(op);
        match op {
            Op::For { body, .. } | Op::Parallel { body, .. } | Op::EpilogueSave { body, .. } => {
                walk(body, f)
            }
            Op::If { then, otherwise, .. } => {
                walk(then, f);
                walk(otherwise, f);
            }
            _ => {}
        }
    }
}

/// Marks the tiles `op` itself names (not those of ops inside it).
pub(super) fn mark(op: &Op, used: &mut [bool]) {
    fn expr(e: &TExpr, used: &mut [bool]) {
        match &e.kind {
            TKind::FragmentSlot(t) => used[t.0] = true,
            TKind::Tile(el) => used[el.tile.0] = true,
            _ => {}
        }
        e.children().into_iter().for_each(|c| expr(c, used));
    }
    match op {
        Op::Fill { tile, value, .. } => {
            used[tile.0] = true;
            expr(value, used);
        }
        Op::Load(w) => used[w.dst.tile.0] = true,
        Op::Save { src, .. } => used[src.tile.0] = true,
        Op::CopyTiles { src, dst, .. } => {
            used[src.tile.0] = true;
            used[dst.tile.0] = true;
        }
        Op::Gemm { a, b, c, .. } => {
            used[a.tile.0] = true;
            used[b.tile.0] = true;
            used[c.0] = true;
        }
        Op::Reduce(r) => {
            used[r.src.tile.0] = true;
            used[r.dst.0] = true;
        }
        Op::Parallel { dist: Dist::Workgroup(t), .. } => used[t.0] = true,
        Op::Let { value, .. } => expr(value, used),
        Op::Store { target, value } => {
            if let ElemRef::FragmentSlot(t) = target {
                used[t.0] = true;
            }
            expr(value, used);
        }
        Op::For { extent, .. } => expr(extent, used),
        _ => {}
    }
}
