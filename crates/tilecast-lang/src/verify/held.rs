//! Local tiles held alike: a per-thread tile whose every write stores, in a loop over local
//! tiles alone (which each thread runs whole), a value that is the same in every thread. A
//! kernel reads such values into registers once (a sequence's length, the page indices of the
//! blocks it loads next) and places windows with them, as it may with the table entry itself.

use super::Verifier;
use crate::ir::visit::{each_stmt, let_def};
use crate::ir::{DType, Expr, Region, Scope, Stmt, Target, Var, VarKind};

impl Verifier<'_> {
    /// Whether local tile `t` is held alike in every thread (see the module docs).
    pub(crate) fn held_alike(&self, t: usize) -> bool {
        self.held.get_or_init(|| self.find_held()).get(t).copied().unwrap_or(false)
    }

    fn find_held(&self) -> Vec<bool> {
        let k = self.k;
        let mut held: Vec<bool> = k.tiles.iter().map(|t| t.scope == Scope::Local).collect();
        each_stmt(&k.body, &mut |s| match s {
            Stmt::Parallel { vars, body, .. } => self.alike_stores(body, vars, true, &mut held),
            Stmt::Reduce { dst, .. } | Stmt::Cumsum { dst, .. } | Stmt::Gemm { c: dst, .. } => {
                held[dst.0] = false
            }
            Stmt::Copy { dst: Region::Tile { tile, .. }, .. } => held[tile.0] = false,
            // A fill's value is uniform (checked with the fill).
            _ => {}
        });
        held
    }

    /// Marks the local tiles that `body` (of a parallel loop over `vars`, under conditions that
    /// are alike where `alike_here`) stores anything but an alike value into.
    fn alike_stores(&self, body: &[Stmt], vars: &[Var], alike_here: bool, held: &mut [bool]) {
        for s in body {
            match s {
                Stmt::Store { target: Target::Tile(t), index, value } => {
                    let ok = alike_here
                        && index.iter().all(|i| self.alike(i, vars))
                        && self.alike(value, vars);
                    if !ok {
                        held[t.0] = false;
                    }
                }
                Stmt::If { cond, then, otherwise } => {
                    let here = alike_here && self.alike(cond, vars);
                    self.alike_stores(then, vars, here, held);
                    self.alike_stores(otherwise, vars, here, held);
                }
                _ => {}
            }
        }
    }

    /// Whether `e` has the same value in every thread inside a local-only parallel loop over
    /// `vars`: that loop's own indices count (each thread runs every iteration), as do
    /// elements of integer parameters read at such coordinates; the thread index and other
    /// tiles do not.
    fn alike(&self, e: &Expr, vars: &[Var]) -> bool {
        match e {
            Expr::Var(v) => match v.kind {
                VarKind::Parallel => vars.contains(v),
                VarKind::Thread => false,
                VarKind::Block(_) | VarKind::Loop => true,
            },
            Expr::LoadParam(p, idx) => {
                matches!(self.k.params[p.0].dtype, DType::U32 | DType::I32)
                    && idx.iter().all(|i| self.alike(i, vars))
            }
            Expr::LoadTile(..) | Expr::LoadWord(..) => false,
            Expr::Local(id) => let_def(self.k, *id).is_some_and(|(_, v)| self.alike(v, vars)),
            _ => e.children().into_iter().all(|c| self.alike(c, vars)),
        }
    }
}
