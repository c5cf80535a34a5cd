//! Barrier placement: a threadgroup barrier before every statement that writes threadgroup
//! memory (earlier readers must be done) and after it (later readers must see it), then
//! adjacent barriers merged. Copies the pipelining pass marked async are fenced by the barriers
//! it placed itself. Every statement level is uniform control flow (the verifier requires
//! uniform loop extents and conditions), so every thread reaches every barrier.

use crate::ir::{Kernel, Region, Scope, Stmt, Target, TileId};

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

fn block(k: &Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    let mut out: Vec<Stmt> = Vec::with_capacity(body.len());
    let push = |out: &mut Vec<Stmt>, s: Stmt| {
        if !(s == Stmt::Barrier && out.last() == Some(&Stmt::Barrier)) {
            out.push(s);
        }
    };
    for s in body {
        let fence = writes_shared(k, &s);
        if fence {
            push(&mut out, Stmt::Barrier);
        }
        let s = match s {
            Stmt::For { var, extent, body } => Stmt::For { var, extent, body: block(k, body) },
            Stmt::If { cond, then, otherwise } => {
                Stmt::If { cond, then: block(k, then), otherwise: block(k, otherwise) }
            }
            other => other,
        };
        push(&mut out, s);
        if fence {
            push(&mut out, Stmt::Barrier);
        }
    }
    out
}

/// Places barriers in `k`'s body (after pipelining).
pub fn place_barriers(k: &mut Kernel) {
    let body = std::mem::take(&mut k.body);
    k.body = block(k, body);
}
