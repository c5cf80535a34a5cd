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

use crate::ir::{
    DType, Expr, Kernel, Region, Scope, Stmt, Target, Tile, TileId, Var, VarKind, visit,
};

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

/// A widening reduction (`src` f16 or bf16 into an f32 `dst`): `src` converted element by
/// element into an f32 twin of the same scope and shape, which is reduced (so every strategy
/// accumulates in f32).
fn widen(k: &mut Kernel, s: Stmt) -> Vec<Stmt> {
    let Stmt::Reduce { op, src, src_stage, dst, axis, clear } = s else { return vec![s] };
    let t = &k.tiles[src.0];
    let mut name = format!("{}_f32", t.name);
    while k.tiles.iter().any(|x| x.name == name) {
        name.push('_');
    }
    let wide = Tile { name, scope: t.scope, dtype: DType::F32, shape: t.shape.clone(), stages: 1 };
    k.tiles.push(wide);
    let wide = TileId(k.tiles.len() - 1);
    let first = visit::next_var_id(k);
    let vars: Vec<Var> = (0..k.tiles[src.0].shape.len() as u32)
        .map(|i| Var { id: first + i, kind: VarKind::Parallel })
        .collect();
    let index: Vec<Expr> = vars.iter().map(|v| Expr::Var(*v)).collect();
    let value = Expr::Cast(DType::F32, Box::new(Expr::LoadTile(src, index.clone())));
    vec![
        Stmt::Parallel {
            extents: k.tiles[src.0].shape.clone(),
            vars,
            body: vec![Stmt::Store { target: Target::Tile(wide), index, value }],
        },
        Stmt::Reduce { op, src: wide, src_stage, dst, axis, clear },
    ]
}

fn block(k: &mut Kernel, body: Vec<Stmt>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(body.len());
    for s in body {
        if let Stmt::Reduce { src, dst, .. } = &s
            && k.tiles[src.0].dtype != k.tiles[dst.0].dtype
            && k.tiles[dst.0].dtype == DType::F32
        {
            let widened = widen(k, s);
            out.extend(block(k, widened));
            continue;
        }
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
