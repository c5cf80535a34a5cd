//! How a parallel loop's elements are spread over the threadgroup.

use crate::ir::{Expr, Kernel, Scope, Stmt, Target, visit};
use crate::lir::{Dist, TileIx};

/// A parallel loop follows the layout of a fragment it touches; one that stores per-thread tiles
/// runs whole in every thread; any other spreads elements over threads.
pub(crate) fn parallel_dist(k: &Kernel, body: &[Stmt]) -> Dist {
    let mut frag: Option<usize> = None;
    let mut local = false;
    // A loop over a fragment that reads row statistics of it follows the fragment: of the
    // fragments touched, the first of the highest rank (stores first).
    let offer = |t: usize, frag: &mut Option<usize>| {
        if frag.is_none_or(|f| k.tiles[t].shape.len() > k.tiles[f].shape.len()) {
            *frag = Some(t);
        }
    };
    visit::each_stmt(body, &mut |s| {
        if let Stmt::Store { target: Target::Tile(t), .. } = s {
            match k.tiles[t.0].scope {
                Scope::Fragment => offer(t.0, &mut frag),
                Scope::Local => local = true,
                Scope::Shared => {}
            }
        }
    });
    visit::each_expr(body, &mut |e| {
        if let Expr::LoadTile(t, _) = e
            && k.tiles[t.0].scope == Scope::Fragment
        {
            offer(t.0, &mut frag);
        }
    });
    match (frag, local) {
        (Some(f), _) => Dist::Fragment(TileIx(f)),
        (None, true) => Dist::PerThread,
        (None, false) => Dist::Threads,
    }
}
