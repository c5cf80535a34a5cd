//! Parallel loops (spread over threads, run whole per thread, or following a fragment's
//! layout, one copy per register slot or with vector reads per run of columns) and element
//! stores.

use rspirv::spirv::{Op, Word};

use super::{Printer, Unsupported};
use crate::ir::Var;
use crate::lir::{Dist, ElemRef, Op as LOp, ParamIx, TExpr, TileIx, VectorRead, VectorSource};

type R = Result<(), Unsupported>;

impl Printer<'_> {
    /// Binds a fragment loop's variables for slot (row `si`, column value `col`).
    fn bind(&mut self, vars: &[Var], row: Word, col: Word, rows: bool) {
        if vars.len() == 2 {
            self.vars.insert(vars[0], row);
            self.vars.insert(vars[1], col);
        } else if rows {
            self.vars.insert(vars[0], row);
        } else {
            self.vars.insert(vars[0], col);
        }
    }

    /// An unrolled loop over a fragment with runs of 4 columns whose body reads parameters at
    /// the column: per run, each such read is loaded once as a vector, and the run's four
    /// slots take its components.
    fn parallel_runs(
        &mut self,
        f: TileIx,
        vars: &[Var],
        vector_reads: &[VectorRead],
        body: &[LOp],
    ) -> R {
        let b = self.l.tiles[f].blocks().expect("parallel loops follow SIMT blocks");
        let (r0, c0) = (self.frag_row0(&b), self.frag_col0(&b));
        for si in 0..b.tm {
            for g in (0..b.tn).step_by(b.run as usize) {
                let row = self.add_const(r0, si);
                let col = self.add_const(c0, b.col_step(g));
                self.bind(vars, row, col, false);
                let mut reads: Vec<(ParamIx, Vec<TExpr>, Word, u32)> = Vec::new();
                for r in vector_reads {
                    let v = match &r.source {
                        VectorSource::Shared(j) => reads[*j].2,
                        VectorSource::Load(at) => {
                            let args =
                                at.iter().map(|i| self.expr(i)).collect::<Result<Vec<_>, _>>()?;
                            self.vector_load(r.param, &args, r.tests.iter().any(|t| *t))
                        }
                    };
                    reads.push((r.param, r.index.clone(), v, r.xor));
                }
                let outer_reads = std::mem::replace(&mut self.run_reads, reads);
                for lane in 0..b.run {
                    let sj = g + lane;
                    let col = self.add_const(c0, b.col_step(sj));
                    self.bind(vars, row, col, false);
                    self.run_lane = Some(lane);
                    self.ops_at_slot(body, si * b.tn + sj, si)?;
                    self.run_lane = None;
                }
                self.run_reads = outer_reads;
            }
        }
        Ok(())
    }

    /// Runs `body` at constant fragment register slot `slot` (row statistic slot `row`),
    /// restoring the enclosing slots after.
    fn ops_at_slot(&mut self, body: &[LOp], slot: u32, row: u32) -> R {
        let (s, rs) = (self.u(slot), self.u(row));
        let outer = self.slot.replace(s);
        let outer_row = self.row_slot.replace(rs);
        self.ops(body)?;
        self.slot = outer;
        self.row_slot = outer_row;
        Ok(())
    }

    pub(crate) fn parallel(
        &mut self,
        extents: &[u32],
        vars: &[Var],
        dist: Dist,
        (unrolled, vector_reads): (bool, &[VectorRead]),
        body: &[LOp],
    ) -> R {
        if let Dist::Matrix(f) = dist {
            return self.parallel_matrix(f, vars, body);
        }
        if let Dist::Workgroup(tile) = dist {
            return self.per_element_op(tile, vars, body);
        }
        if let (Dist::Fragment(f), true) = (dist, unrolled)
            && !vector_reads.is_empty()
            && self.l.tiles[f].blocks().is_some_and(|b| b.run == 4)
        {
            return self.parallel_runs(f, vars, vector_reads, body);
        }
        if let Dist::Fragment(f) = dist {
            let b = self.l.tiles[f].blocks().expect("parallel loops follow SIMT blocks");
            let rows = self.l.tiles[f].row_statistic();
            let (r0, c0) = (self.frag_row0(&b), self.frag_col0(&b));
            let outer_owner = if rows {
                let zero = self.u(0);
                let o = self.ucmp(Op::IEqual, c0, zero);
                self.owner.replace(o)
            } else {
                None
            };
            if unrolled {
                // One copy of the body per register slot, every slot index a constant.
                for si in 0..b.tm {
                    for sj in 0..b.tn {
                        let row = self.add_const(r0, si);
                        let col = self.add_const(c0, b.col_step(sj));
                        self.bind(vars, row, col, rows);
                        self.ops_at_slot(body, si * b.tn + sj, si)?;
                    }
                }
            } else {
                let (zero, one, tm, tn) = (self.u(0), self.u(1), self.u(b.tm), self.u(b.tn));
                self.loop_range(zero, tm, one, |p, i| {
                    p.loop_range(zero, tn, one, |p, j| {
                        let col = p.frag_col(&b, c0, j);
                        let row = p.uop(Op::IAdd, r0, i);
                        p.bind(vars, row, col, rows);
                        let m = p.uop(Op::IMul, i, tn);
                        let s = p.uop(Op::IAdd, m, j);
                        let outer = p.slot.replace(s);
                        let outer_row = p.row_slot.replace(i);
                        p.ops(body)?;
                        p.slot = outer;
                        p.row_slot = outer_row;
                        Ok(())
                    })
                })?;
            }
            if rows {
                self.owner = outer_owner;
            }
            return Ok(());
        }
        let n: u64 = extents.iter().map(|&e| e as u64).product();
        self.elements(n, dist, |p, e| {
            let c = p.coords(e, extents);
            for (v, c) in vars.iter().zip(c) {
                p.vars.insert(*v, c);
            }
            p.ops(body)
        })
    }

    pub(crate) fn store(&mut self, target: &ElemRef, value: &TExpr) -> R {
        let v = self.expr(value)?;
        if let (Some(owner), ElemRef::Tile(_) | ElemRef::Param(..)) = (self.owner, target) {
            return self.if_then(owner, |p| {
                let saved = p.owner.take();
                p.store_value(target, v)?;
                p.owner = saved;
                Ok(())
            });
        }
        self.store_value(target, v)
    }

    fn store_value(&mut self, target: &ElemRef, v: Word) -> R {
        match target {
            ElemRef::Tile(el) => {
                let (lin, cond) = self.tile_index(el)?;
                let tile = el.tile;
                match cond {
                    None => {
                        let ptr = self.tile_ptr(tile, lin);
                        self.b.store(ptr, v, None, []).expect("in a block");
                        Ok(())
                    }
                    Some(c) => self.if_then(c, |p| {
                        let ptr = p.tile_ptr(tile, lin);
                        p.b.store(ptr, v, None, []).expect("in a block");
                        Ok(())
                    }),
                }
            }
            ElemRef::FragmentSlot(t) if self.element_cell.is_some_and(|(c, _)| c == *t) => {
                let cell = self.element_cell.expect("tested").1;
                self.b.store(cell, v, None, []).expect("in a block");
                Ok(())
            }
            ElemRef::FragmentSlot(t) => {
                let slot = match self.slot {
                    Some(s) => s,
                    None => self.u(0),
                };
                let t = self.fragment_tile(*t);
                let ptr = self.tile_ptr(t, slot);
                self.b.store(ptr, v, None, []).expect("in a block");
                Ok(())
            }
            ElemRef::Param(p, idx, tests) => {
                let coords = idx.iter().map(|i| self.expr(i)).collect::<Result<Vec<_>, _>>()?;
                self.param_store(*p, &coords, tests, v)
            }
        }
    }
}
