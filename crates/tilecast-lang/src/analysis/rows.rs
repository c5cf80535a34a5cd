//! Row statistics: `[R]` fragments that hold one value per row of a 2-D fragment (an online
//! softmax's running maximum and sum), found from how loops read them. The verifier checks
//! them and the selection pass gives them their layout.

use crate::ir::{Expr, Kernel, Region, Scope, Stmt, Target, TileId, visit};

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

/// Every (1-D fragment, 2-D fragment) pair where a parallel loop over the 2-D fragment reads
/// the 1-D one at its row index, in program order (a pair once).
pub(crate) fn row_reads(k: &Kernel) -> Vec<(usize, usize)> {
    let frag = |t: TileId| k.tiles[t.0].scope == Scope::Fragment;
    let mut pairs: Vec<(usize, usize)> = Vec::new();
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
                && !pairs.contains(&(t.0, of.0))
            {
                pairs.push((t.0, of.0));
            }
        });
    });
    pairs
}

/// The row statistics of `k`, each with the 2-D fragment whose rows it follows: 1-D fragments
/// read at the row index of a parallel loop over a 2-D fragment of as many rows, and the 1-D
/// fragments a 1-D loop touches beside one. Statistics a 1-D loop touches together are held
/// alike, so all of them follow the fragment of the one found first.
pub(crate) fn row_statistics(k: &Kernel) -> Vec<(usize, usize)> {
    let mut stats: Vec<(usize, usize)> = Vec::new();
    for (r, of) in row_reads(k) {
        if !stats.iter().any(|(s, _)| *s == r) {
            stats.push((r, of));
        }
    }
    // Each round gives a loop's statistics the fragment of the earliest among them, so a group
    // settles on its earliest member's within as many rounds as there are statistics.
    for _ in 0..=k.tiles.len() {
        let mut changed = false;
        visit::each_stmt(&k.body, &mut |s| {
            let Stmt::Parallel { extents, body, .. } = s else { return };
            if extents.len() != 1 {
                return;
            }
            let touched = fragments_touched(k, body);
            let Some(&(_, of)) = stats.iter().find(|(r, _)| touched.iter().any(|t| t.0 == *r))
            else {
                return;
            };
            for t in touched {
                match stats.iter_mut().find(|(r, _)| *r == t.0) {
                    Some((_, f)) if *f == of => {}
                    Some((_, f)) => {
                        *f = of;
                        changed = true;
                    }
                    None => {
                        stats.push((t.0, of));
                        changed = true;
                    }
                }
            }
        });
        if !changed {
            break;
        }
    }
    stats
}

/// Why 1-D fragment `t` is not a row statistic, for the error a layout failure of it gives:
/// the first misuse found (a reduction into it only where nothing else is), then the rule.
pub(crate) fn why_not_a_statistic(k: &Kernel, t: TileId) -> String {
    let tile = &k.tiles[t.0];
    let n = tile.shape[0];
    let (mut misuse, mut reduced): (Option<String>, Option<String>) = (None, None);
    let mut note = |m: String| {
        misuse.get_or_insert(m);
    };
    visit::each_stmt(&k.body, &mut |s| match s {
        Stmt::Gemm { a, b, c, .. } => {
            let is = |r: &Region| matches!(r, Region::Tile { tile, .. } if *tile == t);
            if is(a) || is(b) || *c == t {
                note("it is a gemm operand".into());
            }
        }
        Stmt::Reduce { src, dst, axis: 1, .. }
            if *dst == t
                && k.tiles[src.0].scope == Scope::Fragment
                && k.tiles[src.0].shape.len() == 2 =>
        {
            let f = &k.tiles[src.0];
            reduced.get_or_insert(format!(
                "it is reduced into from the rows of {}, but no parallel loop over {} reads it \
                 at the row index; to store the result, reduce into a shared tile and copy that",
                f.name, f.name
            ));
        }
        Stmt::Parallel { extents, vars, body } if extents.len() == 2 => {
            visit::each_expr(body, &mut |e| {
                if let Expr::LoadTile(x, idx) = e
                    && *x == t
                {
                    if idx[..] != [Expr::Var(vars[0])] {
                        note(format!(
                            "a parallel loop over {extents:?} reads it at another index than \
                             the loop's row index"
                        ));
                    } else if extents[0] != n {
                        note(format!(
                            "it has {n} rows but is read at the row index of a loop over \
                             {extents:?}"
                        ));
                    }
                }
            });
        }
        _ => {}
    });
    let rule = format!(
        "a [{n}] fragment is a row statistic when a parallel loop over a [{n}, C] fragment reads \
         it at the row index (m.at([&r]) inside parallel([{n}, C], |k, [r, c]| ..)); any other \
         fragment's elements must divide evenly over the threads"
    );
    match misuse.or(reduced) {
        Some(m) => format!("{m}; {rule}"),
        None => rule,
    }
}
