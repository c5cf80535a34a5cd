//! Expression rules: types, load ranks, u32 indices, no constant division by zero, uniformity
//! where control flow or addressing needs it.

use super::Verifier;
use crate::ir::{BinOp, DType, Expr, Scope, Target, VarKind};
use crate::types::{Ty, assignable, name, type_of};
use crate::{Result, fold};

impl Verifier<'_> {
    /// Checks `e` and everything in it; returns its type.
    pub(crate) fn expr(&self, op: &str, e: &Expr) -> Result<Ty> {
        let k = self.k;
        match e {
            Expr::LoadTile(t, idx) => {
                self.indices(op, &k.tiles[t.0].name, k.tiles[t.0].shape.len(), idx)?
            }
            Expr::LoadParam(p, idx) => {
                self.indices(op, &k.params[p.0].name, k.params[p.0].shape.len(), idx)?
            }
            Expr::Bin(BinOp::Div | BinOp::Rem, _, b) => {
                if let Ok(Ty::IntLit | Ty::Num(DType::U32 | DType::I32)) = type_of(k, b)
                    && fold::int(b) == Some(0)
                {
                    return Err(
                        self.err(op, format!("divides by {}, which is zero", k.expr_text(b)))
                    );
                }
            }
            Expr::LoadWord(p, i) => {
                self.index(op, &format!("the word index of {}", k.params[p.0].name), i)?
            }
            Expr::Float(v) if v.is_nan() => {
                return Err(self.err(op, "a NaN literal has no portable spelling"));
            }
            _ => {}
        }
        for c in e.children() {
            self.expr(op, c)?;
        }
        type_of(k, e).map_err(|m| self.err(op, m))
    }

    /// One u32 coordinate per dimension.
    pub(crate) fn indices(&self, op: &str, name: &str, rank: usize, idx: &[Expr]) -> Result<()> {
        if idx.len() != rank {
            return Err(self.err(
                op,
                format!("{name} has rank {rank} but is indexed with {} coordinates", idx.len()),
            ));
        }
        for (d, i) in idx.iter().enumerate() {
            self.index(op, &format!("coordinate {d} of {name}"), i)?;
        }
        Ok(())
    }

    /// Tile coordinates: u32, one per dimension, and none a constant past its dimension.
    pub(crate) fn tile_indices(&self, op: &str, tile: usize, idx: &[Expr]) -> Result<()> {
        let t = &self.k.tiles[tile];
        self.indices(op, &t.name, t.shape.len(), idx)?;
        for (d, (i, &dim)) in idx.iter().zip(&t.shape).enumerate() {
            if let Some(v) = fold::int(i)
                && (v < 0 || v >= dim as i64)
            {
                return Err(self.err(
                    op,
                    format!("coordinate {d} of {} is the constant {v}, outside 0..{dim}", t.name),
                ));
            }
        }
        Ok(())
    }

    /// A u32 index expression.
    pub(crate) fn index(&self, op: &str, what: &str, e: &Expr) -> Result<()> {
        match self.expr(op, e)? {
            Ty::Num(DType::U32) | Ty::IntLit => Ok(()),
            t => Err(self.err(
                op,
                format!("{what} is {}; indices are u32 (cast it with .cast(U32))", name(t)),
            )),
        }
    }

    /// A value stored into an element of type `dtype`.
    pub(crate) fn value(&self, op: &str, e: &Expr, dtype: DType) -> Result<()> {
        self.expr(op, e)?;
        assignable(self.k, e, dtype).map_err(|m| self.err(op, m))
    }

    /// Expressions that steer control flow or address tiles must be the same in every thread.
    pub(crate) fn uniform(&self, op: &str, e: &Expr) -> Result<()> {
        let bad = match e {
            Expr::Var(v) if v.kind == VarKind::Parallel => Some("a parallel index"),
            Expr::Var(v) if v.kind == VarKind::Thread => Some("the thread index"),
            Expr::LoadTile(..) | Expr::LoadParam(..) | Expr::LoadWord(..) => Some("a memory load"),
            _ => None,
        };
        if let Some(what) = bad {
            return Err(self.err(op, format!("uses {what} where a uniform value (symbols, scalars, block and loop indices) is required")));
        }
        e.children().into_iter().try_for_each(|c| self.uniform(op, c))
    }

    /// A copy origin or a serial loop's trip count: uniform, where an element of an integer
    /// parameter read at uniform coordinates counts as uniform too (every thread reads the
    /// same element), so a page index from a block table can place a window and a sequence's
    /// length can bound a loop. The lowering makes such a trip count uniform for WGSL too
    /// (`Op::For::uniform_slot`).
    pub(crate) fn uniform_or_table(&self, op: &str, e: &Expr) -> Result<()> {
        self.uniform_read(op, e, false)
    }

    /// A copy origin: as [`Self::uniform_or_table`], where an element of a local tile held
    /// alike in every thread (`held.rs`) counts too, so a page index read into registers ahead
    /// of its use can place a window. (Not a trip count: WGSL could not prove it uniform.)
    pub(crate) fn window_origin(&self, op: &str, e: &Expr) -> Result<()> {
        self.uniform_read(op, e, true)
    }

    fn uniform_read(&self, op: &str, e: &Expr, held: bool) -> Result<()> {
        match e {
            Expr::LoadParam(p, idx) => {
                let param = &self.k.params[p.0];
                if !matches!(param.dtype, DType::U32 | DType::I32) {
                    return Err(self.err(
                        op,
                        format!(
                            "reads {}, a {} parameter, where a uniform value is required; values \
                             read from memory there come from u32 or i32 parameters",
                            param.name, param.dtype
                        ),
                    ));
                }
                idx.iter().try_for_each(|i| self.uniform_read(op, i, held))
            }
            Expr::LoadTile(t, idx) if held && self.k.tiles[t.0].scope == Scope::Local => {
                if !self.held_alike(t.0) {
                    return Err(self.err(
                        op,
                        format!(
                            "reads local tile {}, which threads may hold differently; a window \
                             may be placed by a local tile only where every store to it is a \
                             value the same in every thread, in a loop that writes local tiles \
                             alone",
                            self.k.tiles[t.0].name
                        ),
                    ));
                }
                idx.iter().try_for_each(|i| self.uniform_read(op, i, held))
            }
            Expr::LoadTile(..) | Expr::Var(_) => self.uniform(op, e),
            _ => e.children().into_iter().try_for_each(|c| self.uniform_read(op, c, held)),
        }
    }

    pub(crate) fn writable(&self, op: &str, target: Target) -> Result<()> {
        if let Target::Param(p) = target {
            let param = &self.k.params[p.0];
            if param.read_only {
                return Err(self.err(op, format!("writes {}, a read-only parameter (declared with input); declare it with param to write it", param.name)));
            }
        }
        Ok(())
    }
}
