//! Reductions of fragments, and fragments as gemm operands. A fragment's rows are spread over
//! several threads' registers.
//! Along its last axis, into a shared tile, it is left as it is: the lowering reduces it in
//! registers first (`ReduceStrategy::Registers`), and only per-thread results (value and, for
//! argmax/argmin, column) meet in threadgroup memory. Any other reduction of a fragment
//! (another axis, a fragment destination, a gemm accumulator that may live in matrix units)
//! goes through shared scratch tiles: the pass copies the fragment to one, reduces that,
//! and (for a fragment destination) copies the result back. A fragment operand of a gemm (the
//! probabilities of attention's second product) is copied to a shared scratch tile the gemm
//! reads, as every gemm lowering reads its operands from threadgroup memory. The scratch tiles
//! count against the profile's threadgroup memory like any other.

use crate::ir::{Kernel, Region, Scope, Stmt, Tile, TileId, visit};

fn scratch(k: &mut Kernel, of: TileId) -> TileId {
    let t = &k.tiles[of.0];
    let mut name = format!("{}_scratch", t.name);
    while k.tiles.iter().any(|x| x.name == name) {
        name.push('_');
    }
    let tile =
        Tile { name, scope: Scope::Shared, dtype: t.dtype, shape: t.shape.clone(), stages: 1 };
    k.tiles.push(tile);
    TileId(k.tiles.len() - 1)
}

fn copy(src: TileId, dst: TileId) -> Stmt {
    Stmt::Copy {
        src: Region::Tile { tile: src, stage: None },
        dst: Region::Tile { tile: dst, stage: None },
        sync: true,
    }
}

/// Whether `tile` accumulates a gemm (and so may be laid out over matrix units).
fn gemm_accumulator(k: &Kernel, tile: TileId) -> bool {
    let mut found = false;
    visit::each_stmt(&k.body, &mut |s| {
        if let Stmt::Gemm { c, .. } = s {
            found |= *c == tile;
        }
    });
    found
}

/// Whether the lowering reduces this in registers (see the module docs).
fn in_registers(k: &Kernel, s: &Stmt) -> bool {
    let Stmt::Reduce { op, src, src_stage: None, dst, axis, clear } = s else {
        return false;
    };
    let t = &k.tiles[src.0];
    t.scope == Scope::Fragment
        && k.tiles[dst.0].scope == Scope::Shared
        && (!op.is_arg() || *clear)
        && (1..=2).contains(&t.shape.len())
        && *axis + 1 == t.shape.len()
        && !gemm_accumulator(k, *src)
}

fn block(k: &mut Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(body.len());
    for s in body {
        if in_registers(k, &s) {
            out.push(s);
            continue;
        }
        match s {
            // Rows of a fragment into a row statistic: reduced in registers into a shared
            // scratch row, then read back by every thread holding part of each row.
            Stmt::Reduce { op, src, src_stage: None, dst, axis: 1, clear }
                if k.tiles[src.0].scope == Scope::Fragment
                    && k.tiles[src.0].shape.len() == 2
                    && k.tiles[dst.0].scope == Scope::Fragment
                    && k.tiles[dst.0].shape.len() == 1
                    && !op.is_arg()
                    && !gemm_accumulator(k, src) =>
            {
                let d2 = scratch(k, dst);
                if !clear {
                    out.push(copy(dst, d2));
                }
                out.push(Stmt::Reduce { op, src, src_stage: None, dst: d2, axis: 1, clear });
                out.push(copy(d2, dst));
            }
            Stmt::Reduce { op, src, src_stage, dst, axis, clear }
                if k.tiles[src.0].scope == Scope::Fragment
                    || k.tiles[dst.0].scope == Scope::Fragment =>
            {
                let src2 = if k.tiles[src.0].scope == Scope::Fragment {
                    let s2 = scratch(k, src);
                    out.push(copy(src, s2));
                    s2
                } else {
                    src
                };
                if k.tiles[dst.0].scope == Scope::Fragment {
                    let d2 = scratch(k, dst);
                    if !clear {
                        out.push(copy(dst, d2));
                    }
                    out.push(Stmt::Reduce { op, src: src2, src_stage, dst: d2, axis, clear });
                    out.push(copy(d2, dst));
                } else {
                    out.push(Stmt::Reduce { op, src: src2, src_stage, dst, axis, clear });
                }
            }
            Stmt::Gemm { a, b, c, trans_a, trans_b } => {
                let mut operand = |r: Region, out: &mut Vec<Stmt>| match r {
                    Region::Tile { tile, stage: None }
                        if k.tiles[tile.0].scope == Scope::Fragment =>
                    {
                        let s = scratch(k, tile);
                        out.push(copy(tile, s));
                        Region::Tile { tile: s, stage: None }
                    }
                    other => other,
                };
                let a = operand(a, &mut out);
                let b = operand(b, &mut out);
                out.push(Stmt::Gemm { a, b, c, trans_a, trans_b });
            }
            Stmt::For { var, extent, body } => {
                let body = block(k, body);
                out.push(Stmt::For { var, extent, body });
            }
            Stmt::Pipelined { var, extent, stages, body } => {
                let body = block(k, body);
                out.push(Stmt::Pipelined { var, extent, stages, body });
            }
            Stmt::If { cond, then, otherwise } => {
                let then = block(k, then);
                let otherwise = block(k, otherwise);
                out.push(Stmt::If { cond, then, otherwise });
            }
            other => out.push(other),
        }
    }
    out
}

/// Rewrites every reduction that touches a fragment, and every gemm with a fragment operand.
pub fn fragment_reductions(k: &mut Kernel) {
    let body = std::mem::take(&mut k.body);
    k.body = block(k, body);
}
