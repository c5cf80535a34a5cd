//! Software pipelining. A `pipelined` loop with `num_stages = S >= 2` becomes:
//!
//! ```text
//! prologue:  for s in 0..S-1:  if s < n: load iteration s into stage s
//! loop ko:   barrier
//!            if ko + S-1 < n: load iteration ko+S-1 into stage (ko+S-1) % S
//!            compute iteration ko from stage ko % S
//! ```
//!
//! Each shared tile the loop loads gains S stages. One barrier per iteration suffices: the stage
//! written at iteration ko was last read by the compute of iteration ko-1 (before the barrier),
//! and the stage read at ko was written at iteration ko-S+1 or in the prologue (also before it).
//! The loads for later iterations are issued before this iteration's compute, so their memory
//! latency overlaps it. With S = 1 the loop is a plain serial loop.

use crate::ir::{Expr, Kernel, Region, Scope, Stmt, TileId, Var};
use crate::{Error, Result};

/// Replaces every use of `var` in `e` by `with`.
pub fn subst(e: &Expr, var: Var, with: &Expr) -> Expr {
    match e {
        Expr::Var(v) if *v == var => with.clone(),
        _ => e.map_children(&mut |c| subst(c, var, with)),
    }
}

fn region_subst(r: &Region, var: Var, with: &Expr) -> Region {
    match r {
        Region::Global { param, origin, axes } => Region::Global {
            param: *param,
            origin: origin.iter().map(|o| subst(o, var, with)).collect(),
            axes: axes.clone(),
        },
        Region::Tile { tile, stage } => {
            Region::Tile { tile: *tile, stage: stage.as_ref().map(|s| subst(s, var, with)) }
        }
    }
}

/// Loads of iteration `at` into stage `stage` (no threadgroup sync: the loop places barriers).
fn loads_at(loads: &[(Region, TileId)], var: Var, at: &Expr, stage: &Expr) -> Vec<Stmt> {
    loads
        .iter()
        .map(|(src, tile)| Stmt::Copy {
            src: region_subst(src, var, at),
            dst: Region::Tile { tile: *tile, stage: Some(stage.clone()) },
            sync: false,
        })
        .collect()
}

struct Pipeliner<'a> {
    kernel: &'a mut Kernel,
}

impl Pipeliner<'_> {
    fn err(&self, message: String) -> Error {
        Error::Verify {
            kernel: self.kernel.name.clone(),
            op: "pipelined".into(),
            message,
            at: None,
        }
    }

    fn block(&mut self, body: Vec<Stmt>) -> Result<Vec<Stmt>> {
        let mut out = Vec::with_capacity(body.len());
        for s in body {
            match s {
                Stmt::Pipelined { var, extent, stages, body } => {
                    out.extend(self.lower(var, extent, stages, body)?)
                }
                Stmt::For { var, extent, body } => {
                    out.push(Stmt::For { var, extent, body: self.block(body)? })
                }
                Stmt::If { cond, then, otherwise } => out.push(Stmt::If {
                    cond,
                    then: self.block(then)?,
                    otherwise: self.block(otherwise)?,
                }),
                other => out.push(other),
            }
        }
        Ok(out)
    }

    fn lower(&mut self, var: Var, extent: Expr, stages: u32, body: Vec<Stmt>) -> Result<Vec<Stmt>> {
        let body = self.block(body)?;
        if stages == 1 {
            return Ok(vec![Stmt::For { var, extent, body }]);
        }
        let split = body
            .iter()
            .position(|s| !matches!(s, Stmt::Copy { src: Region::Global { .. }, dst: Region::Tile { tile, .. }, .. } if self.kernel.tiles[tile.0].scope == Scope::Shared))
            .unwrap_or(body.len());
        let (loads, compute) = body.split_at(split);
        let loads: Vec<(Region, TileId)> = loads
            .iter()
            .map(|s| match s {
                Stmt::Copy { src, dst: Region::Tile { tile, .. }, .. } => (src.clone(), *tile),
                _ => unreachable!("split at the first non-load"),
            })
            .collect();
        for (_, t) in &loads {
            let tile = &self.kernel.tiles[t.0];
            if tile.stages > 1 && tile.stages != stages {
                let name = tile.name.clone();
                return Err(self.err(format!(
                    "{name} is multi-buffered by two loops with different num_stages"
                )));
            }
            self.kernel.tiles[t.0].stages = stages;
        }
        let staged: Vec<TileId> = loads.iter().map(|(_, t)| *t).collect();
        let ko = Expr::Var(var);
        let cur = &ko % stages;
        let compute =
            compute.iter().map(|s| self.restage(s, &staged, &cur)).collect::<Result<Vec<_>>>()?;
        // The prologue overwrites stages that statements before the loop may still be reading.
        let mut out = vec![Stmt::Barrier];
        for s in 0..stages - 1 {
            out.push(Stmt::If {
                cond: Expr::Int(s as i64).lt(extent.clone()),
                then: loads_at(&loads, var, &Expr::Int(s as i64), &Expr::Int(s as i64)),
                otherwise: Vec::new(),
            });
        }
        let ahead = &ko + (stages - 1);
        let mut steady = vec![Stmt::Barrier];
        steady.push(Stmt::If {
            cond: ahead.clone().lt(extent.clone()),
            then: loads_at(&loads, var, &ahead, &(&ahead % stages)),
            otherwise: Vec::new(),
        });
        steady.extend(compute);
        out.push(Stmt::For { var, extent, body: steady });
        out.push(Stmt::Barrier);
        Ok(out)
    }

    /// Points compute statements at the current stage of multi-buffered tiles.
    fn restage(&self, s: &Stmt, staged: &[TileId], cur: &Expr) -> Result<Stmt> {
        let fix = |r: &Region| match r {
            Region::Tile { tile, stage: None } if staged.contains(tile) => {
                Region::Tile { tile: *tile, stage: Some(cur.clone()) }
            }
            other => other.clone(),
        };
        Ok(match s {
            Stmt::Gemm { a, b, c, trans_a, trans_b } => {
                Stmt::Gemm { a: fix(a), b: fix(b), c: *c, trans_a: *trans_a, trans_b: *trans_b }
            }
            Stmt::Copy { src, dst, sync } => {
                Stmt::Copy { src: fix(src), dst: fix(dst), sync: *sync }
            }
            Stmt::Reduce { op, src, src_stage: None, dst, axis, clear }
                if staged.contains(src) && !staged.contains(dst) =>
            {
                Stmt::Reduce {
                    op: *op,
                    src: *src,
                    src_stage: Some(cur.clone()),
                    dst: *dst,
                    axis: *axis,
                    clear: *clear,
                }
            }
            other => {
                if let Some(t) = staged.iter().find(|t| touches(other, **t)) {
                    return Err(self.err(format!(
                        "{} is multi-buffered by this loop; read it with gemm, copy or reduce",
                        self.kernel.tiles[t.0].name
                    )));
                }
                other.clone()
            }
        })
    }
}

fn expr_touches(e: &Expr, t: TileId) -> bool {
    matches!(e, Expr::LoadTile(x, _) if *x == t)
        || e.children().into_iter().any(|c| expr_touches(c, t))
}

fn touches(s: &Stmt, t: TileId) -> bool {
    match s {
        Stmt::Fill { tile, .. } => *tile == t,
        Stmt::Reduce { src, dst, .. } | Stmt::Cumsum { src, dst, .. } => *src == t || *dst == t,
        Stmt::AtomicAdd { value, index, .. } => {
            expr_touches(value, t) || index.iter().any(|e| expr_touches(e, t))
        }
        Stmt::Let { value, .. } => expr_touches(value, t),
        Stmt::Parallel { body, .. } | Stmt::For { body, .. } | Stmt::Pipelined { body, .. } => {
            body.iter().any(|s| touches(s, t))
        }
        Stmt::Store { target, value, index } => {
            *target == crate::ir::Target::Tile(t)
                || expr_touches(value, t)
                || index.iter().any(|e| expr_touches(e, t))
        }
        Stmt::If { then, otherwise, .. } => then.iter().chain(otherwise).any(|s| touches(s, t)),
        Stmt::Gemm { a, b, .. } => {
            [a, b].iter().any(|r| matches!(r, Region::Tile { tile, .. } if *tile == t))
        }
        Stmt::Copy { src, dst, .. } => {
            [src, dst].iter().any(|r| matches!(r, Region::Tile { tile, .. } if *tile == t))
        }
        Stmt::Barrier => false,
    }
}

/// Lowers every pipelined loop of `kernel` in place.
pub fn pipeline(kernel: &mut Kernel) -> Result<()> {
    let body = std::mem::take(&mut kernel.body);
    let lowered = Pipeliner { kernel: &mut *kernel }.block(body)?;
    kernel.body = lowered;
    Ok(())
}
