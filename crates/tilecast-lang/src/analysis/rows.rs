//! Row statistics: `[R]` fragments that hold one value per row of a 2-D fragment (an online
//! softmax's running maximum and sum), found from how loops read them. The verifier checks
//! them and the selection pass gives them their layout.

use crate::ir::{Expr, Kernel, Scope, Stmt, Target, TileId, visit};

/// Fragments a parallel loop's body reads or writes element by element.
pub(crate) fn fragments_touched(k: &Kernel, body: &[Stmt]) -> Vec<TileId> {
    let mut out = Vec::new();
    let mut add = |t: TileId| {
        if k.tiles[t.0].scope == Scope::Fragment && !out.contains(&t) {
            out.push(t);
        }
    };
    visit::each_stmt(body, &mut |s| {
        if let Stmt::Store { target: Target::Tile(t), .. } = s {
            add(*t);
        }
    });
    visit::each_expr(body, &mut |e| {
        if let Expr::LoadTile(t, _) = e {
            add(*t);
        }
    });
    out
}

/// The row statistics of `k`: 1-D fragments read at the row index of a parallel loop over a
/// 2-D fragment of as many rows (with that fragment), and the 1-D fragments a 1-D loop touches
/// beside one (they share its layout).
pub(crate) fn row_statistics(k: &Kernel) -> Vec<(usize, usize)> {
    let frag = |t: TileId| k.tiles[t.0].scope == Scope::Fragment;
    let mut stats: Vec<(usize, usize)> = Vec::new();
    visit::each_stmt(&k.body, &mut |s| {
        let Stmt::Parallel { extents, vars, body } = s else { return };
        if extents.len() != 2 {
            return;
        }
        let touched = fragments_touched(k, body);
        let Some(&of) = touched.iter().find(|t| k.tiles[t.0].shape == *extents) else { return };
        visit::each_expr(body, &mut |e| {
            if let Expr::LoadTile(t, idx) = e
                && frag(*t)
                && k.tiles[t.0].shape == [extents[0]]
                && idx[..] == [Expr::Var(vars[0])]
                && !stats.iter().any(|(r, _)| *r == t.0)
            {
                stats.push((t.0, of.0));
            }
        });
    });
    // 1-D loops touching a statistic give their other 1-D fragments its layout.
    loop {
        let mut added = false;
        visit::each_stmt(&k.body, &mut |s| {
            let Stmt::Parallel { extents, body, .. } = s else { return };
            if extents.len() != 1 {
                return;
            }
            let touched = fragments_touched(k, body);
            if let Some(&(_, of)) = stats.iter().find(|(r, _)| touched.iter().any(|t| t.0 == *r)) {
                for t in touched {
                    if !stats.iter().any(|(r, _)| *r == t.0) {
                        stats.push((t.0, of));
                        added = true;
                    }
                }
            }
        });
        if !added {
            return stats;
        }
    }
}
