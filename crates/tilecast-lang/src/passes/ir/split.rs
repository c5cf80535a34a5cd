//! Matrix twins of accumulators read element by element. A fragment that accumulates a gemm
//! but is also masked, reduced, or read beside another fragment (attention's scores: scaled,
//! masked, row-reduced and exponentiated into the probabilities) cannot live on matrix units,
//! whose element layout is opaque. Where its gemms alone would fit them, this pass gives it a
//! twin: each `clear F; ...; gemm(A, B, F)` becomes `clear F_mma; ...; gemm(A, B, F_mma)`
//! followed by `F_mma -> F_stage -> F`, the matrices stored into a shared `F_stage` tile and read
//! back in `F`'s register layout, so the product runs on matrix units and everything else sees
//! an ordinary fragment. It applies only where every gemm into `F` starts from a clear of `F`
//! in the same block with nothing touching `F` in between (so `F` is whole after the copy);
//! the stage counts against threadgroup memory like any tile.

use super::select::gemms_fit_matrix_units;
use crate::Profile;
use crate::ir::{Expr, Kernel, Region, Scope, Stmt, Tile, TileId, visit};

/// Whether statement `s` reads or writes `tile` in any way.
fn touches(s: &Stmt, tile: TileId) -> bool {
    let is = |r: &Region| matches!(r, Region::Tile { tile: t, .. } if *t == tile);
    let mut hit = false;
    visit::each_stmt(std::slice::from_ref(s), &mut |s| {
        hit |= match s {
            Stmt::Fill { tile: t, .. } => *t == tile,
            Stmt::Copy { src, dst, .. } => is(src) || is(dst),
            Stmt::Gemm { a, b, c, .. } => is(a) || is(b) || *c == tile,
            Stmt::Reduce { src, dst, .. } | Stmt::Cumsum { src, dst, .. } => {
                *src == tile || *dst == tile
            }
            Stmt::Store { target: crate::ir::Target::Tile(t), .. } => *t == tile,
            _ => false,
        };
    });
    visit::each_expr(std::slice::from_ref(s), &mut |e| {
        hit |= matches!(e, Expr::LoadTile(t, _) if *t == tile);
    });
    hit
}

fn zero_fill(s: &Stmt, tile: TileId) -> bool {
    matches!(s, Stmt::Fill { tile: t, value } if *t == tile
        && (matches!(value, Expr::Int(0)) || *value == Expr::Float(0.0)))
}

/// Every gemm into `tile` follows a clear of it in the same block, nothing touching it between.
fn cleared_before_each_gemm(body: &[Stmt], tile: TileId) -> bool {
    for (i, s) in body.iter().enumerate() {
        if matches!(s, Stmt::Gemm { c, .. } if *c == tile) {
            let before = body[..i].iter().rposition(|p| touches(p, tile));
            if !before.is_some_and(|f| zero_fill(&body[f], tile)) {
                return false;
            }
        }
        let nested_ok = match s {
            Stmt::For { body, .. } | Stmt::Pipelined { body, .. } => {
                cleared_before_each_gemm(body, tile)
            }
            Stmt::If { then, otherwise, .. } => {
                cleared_before_each_gemm(then, tile) && cleared_before_each_gemm(otherwise, tile)
            }
            _ => true,
        };
        if !nested_ok {
            return false;
        }
    }
    true
}

fn rewrite(body: Vec<Stmt>, tile: TileId, mma: TileId, stage: TileId) -> Vec<Stmt> {
    let copy = |src: TileId, dst: TileId| Stmt::Copy {
        src: Region::Tile { tile: src, stage: None },
        dst: Region::Tile { tile: dst, stage: None },
        sync: true,
    };
    let mut out = Vec::with_capacity(body.len() + 2);
    let last_gemm = |body: &[Stmt], i: usize| {
        !body[i + 1..].iter().any(|s| matches!(s, Stmt::Gemm { c, .. } if *c == tile))
    };
    let n = body.len();
    let copy_after: Vec<bool> = (0..n)
        .map(|i| matches!(&body[i], Stmt::Gemm { c, .. } if *c == tile) && last_gemm(&body, i))
        .collect();
    for (i, s) in body.into_iter().enumerate() {
        match s {
            Stmt::Fill { tile: t, value } if t == tile && copy_after[i..].iter().any(|&c| c) => {
                out.push(Stmt::Fill { tile: mma, value });
            }
            Stmt::Gemm { a, b, c, trans_a, trans_b } if c == tile => {
                out.push(Stmt::Gemm { a, b, c: mma, trans_a, trans_b });
                if copy_after[i] {
                    out.push(copy(mma, stage));
                    out.push(copy(stage, tile));
                }
            }
            Stmt::For { var, extent, body } => {
                out.push(Stmt::For { var, extent, body: rewrite(body, tile, mma, stage) })
            }
            Stmt::Pipelined { var, extent, stages, body } => out.push(Stmt::Pipelined {
                var,
                extent,
                stages,
                body: rewrite(body, tile, mma, stage),
            }),
            Stmt::If { cond, then, otherwise } => out.push(Stmt::If {
                cond,
                then: rewrite(then, tile, mma, stage),
                otherwise: rewrite(otherwise, tile, mma, stage),
            }),
            other => out.push(other),
        }
    }
    out
}

fn add_tile(k: &mut Kernel, of: TileId, suffix: &str, scope: Scope) -> TileId {
    let t = &k.tiles[of.0];
    let mut name = format!("{}_{suffix}", t.name);
    while k.tiles.iter().any(|x| x.name == name) {
        name.push('_');
    }
    let tile = Tile { name, scope, dtype: t.dtype, shape: t.shape.clone(), stages: 1 };
    k.tiles.push(tile);
    TileId(k.tiles.len() - 1)
}

/// Gives each fragment that accumulates gemms fitting `profile`'s matrix units, but is also
/// read element by element, a matrix twin (see the module docs). Returns the split fragments.
pub fn matrix_accumulators(k: &mut Kernel, profile: &Profile) -> Vec<TileId> {
    let mut split = Vec::new();
    for i in 0..k.tiles.len() {
        let tile = TileId(i);
        if k.tiles[i].scope != Scope::Fragment || k.tiles[i].shape.len() != 2 {
            continue;
        }
        let mut accumulates = false;
        visit::each_stmt(&k.body, &mut |s| {
            accumulates |= matches!(s, Stmt::Gemm { c, .. } if *c == tile)
        });
        if !accumulates
            || super::select::fits_matrix_units(k, tile, profile)
            || !gemms_fit_matrix_units(k, tile, profile)
            || !cleared_before_each_gemm(&k.body, tile)
        {
            continue;
        }
        let mma = add_tile(k, tile, "mma", Scope::Fragment);
        let stage = add_tile(k, tile, "stage", Scope::Shared);
        let body = std::mem::take(&mut k.body);
        k.body = rewrite(body, tile, mma, stage);
        split.push(tile);
    }
    split
}
