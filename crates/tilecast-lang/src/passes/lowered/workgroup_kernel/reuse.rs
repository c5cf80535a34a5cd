//! Copies between workgroup-scope matrices made again while neither side has changed: a row
//! statistic spread to the columns of several accumulators (an accumulator held in column
//! chunks) is spread once, and each chunk's per-element operation reads that one copy.

use crate::lir::{ElemRef, Op, TileIx};

/// Drops each `CopyTiles` of `ops` (and of the loops inside) that repeats one made earlier in
/// the same straight-line run, where no op between wrote its source or destination. Loop
/// bodies start with nothing known (they run again after their own end); anything after a
/// loop or branch starts afresh too.
pub(super) fn drop_repeated_copies(ops: &mut Vec<Op>) {
    let mut made: Vec<(TileIx, TileIx)> = Vec::new();
    ops.retain_mut(|op| {
        if let Op::CopyTiles { src, dst, .. } = op
            && src.stage.is_none()
            && dst.stage.is_none()
        {
            if made.contains(&(src.tile, dst.tile)) {
                return false;
            }
            made.retain(|&(s, d)| s != dst.tile && d != dst.tile);
            made.push((src.tile, dst.tile));
            return true;
        }
        match written(op) {
            Some(tiles) => made.retain(|(s, d)| !tiles.contains(s) && !tiles.contains(d)),
            None => made.clear(),
        }
        if let Op::For { body, .. } = op {
            drop_repeated_copies(body);
        }
        true
    });
}

/// The tiles `op` writes, or `None` where that is not known here (loops, branches, anything
/// this pass does not make): the caller then forgets every copy.
fn written(op: &Op) -> Option<Vec<TileIx>> {
    Some(match op {
        Op::Barrier | Op::Save { .. } => Vec::new(),
        Op::Fill { tile, .. } => vec![*tile],
        Op::Load(w) => vec![w.dst.tile],
        Op::Gemm { c, .. } => vec![*c],
        Op::Reduce(r) => vec![r.dst],
        Op::Parallel { body, .. } => {
            let mut out = Vec::new();
            for op in body {
                match op {
                    Op::Let { .. } => {}
                    Op::Store { target: ElemRef::FragmentSlot(t), .. } => out.push(*t),
                    Op::Store { target: ElemRef::Tile(el), .. } => out.push(el.tile),
                    _ => return None,
                }
            }
            out
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::DType;
    use crate::lir::{Dist, ETy, TExpr, TKind, TileSlot};

    fn copy(src: usize, dst: usize) -> Op {
        let slot = |t| TileSlot { tile: TileIx(t), stage: None };
        Op::CopyTiles { src: slot(src), dst: slot(dst), dist: Dist::Workgroup(TileIx(dst)) }
    }

    fn fill(t: usize) -> Op {
        let value = TExpr { ty: ETy::Num(DType::F32), kind: TKind::Lit(1.0) };
        Op::Fill { tile: TileIx(t), value, dist: Dist::Workgroup(TileIx(t)) }
    }

    #[test]
    fn a_copy_is_made_again_only_after_its_source_or_destination_changes() {
        // Tile 0 spread into 1, tile 2 written between: the second spread goes.
        let mut ops = vec![copy(0, 1), fill(2), copy(0, 1)];
        drop_repeated_copies(&mut ops);
        assert_eq!(ops, vec![copy(0, 1), fill(2)]);
        // The source written, or the destination overwritten: both copies stay.
        for between in [fill(0), fill(1), copy(3, 1)] {
            let mut ops = vec![copy(0, 1), between.clone(), copy(0, 1)];
            drop_repeated_copies(&mut ops);
            assert_eq!(ops.len(), 3, "{between:?}");
        }
        // A loop's body starts afresh (it runs after its own end), and so does what follows it.
        let body = vec![copy(0, 1), fill(2), copy(0, 1)];
        let lp = Op::For {
            var: crate::ir::Var { id: 0, kind: crate::ir::VarKind::Loop },
            extent: TExpr { ty: ETy::Num(DType::U32), kind: TKind::Lit(4.0) },
            uniform_slot: None,
            body,
        };
        let mut ops = vec![copy(0, 1), lp, copy(0, 1)];
        drop_repeated_copies(&mut ops);
        let Op::For { body, .. } = &ops[1] else { panic!("{ops:?}") };
        assert_eq!((ops.len(), body.len()), (3, 2));
    }
}
