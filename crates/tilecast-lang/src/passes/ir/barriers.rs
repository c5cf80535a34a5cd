//! Barrier placement: a threadgroup barrier before every statement that writes threadgroup
//! memory (earlier readers must be done; not needed where nothing since the last barrier
//! touched its tiles) and after it (later readers must see it), then adjacent barriers merged. Two such statements in a row need none between them when neither
//! touches a shared tile the other writes (say, a gemm's A and B windows loaded one after the
//! other): the barrier before the first and the one after the second serve both. Copies the pipelining pass marked async are fenced by the barriers
//! it placed itself. Every statement level is uniform control flow (the verifier requires
//! uniform loop extents and conditions), so every thread reaches every barrier.

use crate::ir::{Expr, Kernel, Region, Scope, Stmt, Target, TileId, visit};

fn writes_shared(k: &Kernel, s: &Stmt) -> bool {
    let shared = |t: &TileId| k.tiles[t.0].scope == Scope::Shared;
    match s {
        Stmt::Copy { dst: Region::Tile { tile, .. }, sync, .. } => *sync && shared(tile),
        Stmt::Fill { tile, .. } => shared(tile),
        Stmt::Reduce { dst, .. } | Stmt::Cumsum { dst, .. } => shared(dst),
        Stmt::Parallel { body, .. } => stores_shared(k, body),
        _ => false,
    }
}

fn stores_shared(k: &Kernel, body: &[Stmt]) -> bool {
    body.iter().any(|b| match b {
        Stmt::Store { target: Target::Tile(t), .. } => k.tiles[t.0].scope == Scope::Shared,
        Stmt::If { then, otherwise, .. } => stores_shared(k, then) || stores_shared(k, otherwise),
        _ => false,
    })
}

/// Shared tiles `s` writes (None: it may write shared memory in ways not listed, such as
/// through nested statements, so it never shares a barrier).
fn shared_writes(k: &Kernel, s: &Stmt) -> Option<Vec<TileId>> {
    let shared = |t: &TileId| k.tiles[t.0].scope == Scope::Shared;
    match s {
        Stmt::Copy { dst: Region::Tile { tile, .. }, sync: true, .. } if shared(tile) => {
            Some(vec![*tile])
        }
        Stmt::Fill { tile, .. } if shared(tile) => Some(vec![*tile]),
        Stmt::Reduce { dst, .. } | Stmt::Cumsum { dst, .. } if shared(dst) => Some(vec![*dst]),
        _ => None,
    }
}

/// Every tile `s` names, nested statements and expressions included.
fn tiles_touched(s: &Stmt) -> Vec<TileId> {
    let mut out = Vec::new();
    let region = |r: &Region, out: &mut Vec<TileId>| {
        if let Region::Tile { tile, .. } = r {
            out.push(*tile);
        }
    };
    visit::each_stmt(std::slice::from_ref(s), &mut |s| match s {
        Stmt::Copy { src, dst, .. } => {
            region(src, &mut out);
            region(dst, &mut out);
        }
        Stmt::Gemm { a, b, c, .. } => {
            region(a, &mut out);
            region(b, &mut out);
            out.push(*c);
        }
        Stmt::Fill { tile, .. } => out.push(*tile),
        Stmt::Reduce { src, dst, .. } | Stmt::Cumsum { src, dst, .. } => {
            out.extend([*src, *dst]);
        }
        Stmt::Store { target: Target::Tile(t), .. } => out.push(*t),
        _ => {}
    });
    visit::each_expr(std::slice::from_ref(s), &mut |e| {
        if let Expr::LoadTile(t, _) = e {
            out.push(*t);
        }
    });
    out
}

/// Whether `b`, right after `a` (both writing shared memory), needs no barrier between them.
fn independent(k: &Kernel, a: &Stmt, b: &Stmt) -> bool {
    let (Some(wa), Some(wb)) = (shared_writes(k, a), shared_writes(k, b)) else {
        return false;
    };
    let (ta, tb) = (tiles_touched(a), tiles_touched(b));
    !wa.iter().any(|t| tb.contains(t)) && !wb.iter().any(|t| ta.contains(t))
}

/// Shared tiles `s` reads or writes, nested statements included.
fn shared_touched(k: &Kernel, s: &Stmt) -> Vec<TileId> {
    tiles_touched(s).into_iter().filter(|t| k.tiles[t.0].scope == Scope::Shared).collect()
}

/// Places barriers in `body`. `pending` holds the shared tiles touched since the last barrier,
/// `None` where unknown (the start of a loop body, whose previous iteration may have touched
/// anything, or of a branch): a statement writing shared memory needs the barrier before it
/// only when an earlier statement since the last barrier touched a tile it touches. At the
/// kernel's start nothing has been touched, so a row kernel's first reduction (after loads
/// into registers) starts without one (f16 softmax on an H200: 76% to 80% of the copy
/// roofline).
fn block(k: &Kernel, body: Vec<Stmt>, mut pending: Option<Vec<TileId>>) -> Vec<Stmt> {
    let mut out: Vec<Stmt> = Vec::with_capacity(body.len());
    let push = |out: &mut Vec<Stmt>, pending: &mut Option<Vec<TileId>>, s: Stmt| {
        if s == Stmt::Barrier {
            *pending = Some(Vec::new());
            if out.last() == Some(&Stmt::Barrier) {
                return;
            }
        }
        out.push(s);
    };
    // Whether the last statement out is a barrier this pass placed only to follow the one
    // before it (a barrier from the input, such as the pipelining pass's, never is).
    let mut trailing = false;
    // What was touched since the last barrier when that statement went out.
    let mut before_prev: Option<Vec<TileId>> = None;
    for s in body {
        let fence = writes_shared(k, &s);
        let touched = shared_touched(k, &s);
        let clash = |p: &Option<Vec<TileId>>| {
            p.as_ref().is_none_or(|p| touched.iter().any(|t| p.contains(t)))
        };
        let n = out.len();
        if fence && trailing && n >= 2 && independent(k, &out[n - 2], &s) && !clash(&before_prev) {
            // The interval before the previous statement and the barrier after `s` serve both.
            out.pop();
            let mut p = before_prev.clone().unwrap_or_default();
            p.extend(shared_touched(k, &out[n - 2]));
            pending = Some(p);
        } else if fence && clash(&pending) {
            push(&mut out, &mut pending, Stmt::Barrier);
        }
        if fence {
            before_prev = pending.clone();
        }
        let s = match s {
            Stmt::For { var, extent, body } => {
                Stmt::For { var, extent, body: block(k, body, None) }
            }
            Stmt::If { cond, then, otherwise } => {
                Stmt::If { cond, then: block(k, then, None), otherwise: block(k, otherwise, None) }
            }
            other => other,
        };
        push(&mut out, &mut pending, s);
        if let Some(p) = &mut pending {
            p.extend(touched);
        }
        trailing = fence;
        if fence {
            push(&mut out, &mut pending, Stmt::Barrier);
        }
    }
    out
}

/// Places barriers in `k`'s body (after pipelining).
pub fn place_barriers(k: &mut Kernel) {
    let body = std::mem::take(&mut k.body);
    k.body = block(k, body, Some(Vec::new()));
}
