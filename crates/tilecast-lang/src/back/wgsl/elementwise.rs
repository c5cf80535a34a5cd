//! Parallel loops (spread over threads, run whole per thread, or following a fragment's
//! layout), element stores and atomic adds.

use super::Printer;
use super::names::{frag_col, frag_col0, frag_row0};
use crate::ir::{Var, var_name};
use crate::lir::{Dist, ElemRef, Op, ParamIx, TExpr, TileIx, VectorRead, VectorSource};

impl Printer<'_> {
    /// An unrolled loop over a fragment with runs of 4 columns whose body reads parameters
    /// at the column (`vector_reads`): per run, the coordinates of its first column are bound,
    /// each such read is loaded once as a vector, and the run's four slots take its
    /// components.
    fn parallel_runs(&mut self, f: TileIx, vars: &[Var], vector_reads: &[VectorRead], body: &[Op]) {
        let b = self.l.tiles[f].blocks().expect("parallel loops follow SIMT blocks");
        let bind = |p: &mut Self, si: u32, sj: u32| {
            let col = format!("{} + {}u", frag_col0(&b), b.col_step(sj));
            if vars.len() == 2 {
                p.line(&format!("let {} = {} + {si}u;", var_name(vars[0]), frag_row0(&b)));
                p.line(&format!("let {} = {col};", var_name(vars[1])));
            } else {
                p.line(&format!("let {} = {col};", var_name(vars[0])));
            }
        };
        for si in 0..b.tm {
            for g in (0..b.tn).step_by(b.run as usize) {
                self.open("");
                bind(self, si, g);
                let mut reads: Vec<(ParamIx, Vec<TExpr>, String, u32)> = Vec::new();
                for r in vector_reads {
                    let v = match &r.source {
                        VectorSource::Shared(j) => reads[*j].2.clone(),
                        VectorSource::Load(at) => {
                            let args: Vec<String> = at.iter().map(|i| self.expr(i)).collect();
                            let v = self.fresh("rv");
                            // Whole vectors: tested at their first element (the masked
                            // accessor) unless every coordinate is proven inside.
                            let f = if r.tests.iter().any(|t| *t) { "ldv" } else { "ldvu" };
                            let name = &self.l.params[r.param].named.ident;
                            self.line(&format!("let {v} = {f}_{name}({});", args.join(", ")));
                            v
                        }
                    };
                    reads.push((r.param, r.index.clone(), v, r.xor));
                }
                let outer_reads = std::mem::replace(&mut self.run_reads, reads);
                for lane in 0..b.run {
                    let sj = g + lane;
                    self.open("");
                    bind(self, si, sj);
                    self.run_lane = Some(lane);
                    let outer = self.slot.replace(format!("{}u", si * b.tn + sj));
                    let outer_row = self.row_slot.replace(format!("{si}u"));
                    self.ops(body);
                    self.slot = outer;
                    self.row_slot = outer_row;
                    self.run_lane = None;
                    self.close();
                }
                self.run_reads = outer_reads;
                self.close();
            }
        }
    }

    pub(crate) fn parallel(
        &mut self,
        extents: &[u32],
        vars: &[Var],
        dist: Dist,
        (unrolled, vector_reads): (bool, &[VectorRead]),
        body: &[Op],
    ) {
        if let Dist::Matrix(f) = dist {
            return self.parallel_matrix(f, vars, body);
        }
        if let (Dist::Fragment(f), true) = (dist, unrolled)
            && !vector_reads.is_empty()
            && self.l.tiles[f].blocks().is_some_and(|b| b.run == 4)
        {
            return self.parallel_runs(f, vars, vector_reads, body);
        }
        if let (Dist::Fragment(f), true) = (dist, unrolled) {
            // One copy of the body per register slot, every slot index a constant. Over a row
            // statistic, the index is the row, and only a row's first thread stores to memory.
            let b = self.l.tiles[f].blocks().expect("parallel loops follow SIMT blocks");
            let rows = self.l.tiles[f].row_statistic();
            let outer_owner =
                if rows { self.owner.replace(format!("({}) == 0u", frag_col0(&b))) } else { None };
            for si in 0..b.tm {
                for sj in 0..b.tn {
                    self.open("");
                    let col = format!("{} + {}u", frag_col0(&b), b.col_step(sj));
                    if vars.len() == 2 {
                        self.line(&format!(
                            "let {} = {} + {si}u;",
                            var_name(vars[0]),
                            frag_row0(&b)
                        ));
                        self.line(&format!("let {} = {col};", var_name(vars[1])));
                    } else if rows {
                        self.line(&format!(
                            "let {} = {} + {si}u;",
                            var_name(vars[0]),
                            frag_row0(&b)
                        ));
                    } else {
                        self.line(&format!("let {} = {col};", var_name(vars[0])));
                    }
                    let outer = self.slot.replace(format!("{}u", si * b.tn + sj));
                    let outer_row = self.row_slot.replace(format!("{si}u"));
                    self.ops(body);
                    self.slot = outer;
                    self.row_slot = outer_row;
                    self.close();
                }
            }
            if rows {
                self.owner = outer_owner;
            }
            return;
        }
        if let Dist::Fragment(f) = dist {
            let b = self.l.tiles[f].blocks().expect("parallel loops follow SIMT blocks");
            let (i, j) = (self.fresh("i"), self.fresh("j"));
            self.open(&format!("for (var {i} = 0u; {i} < {}u; {i}++)", b.tm));
            self.open(&format!("for (var {j} = 0u; {j} < {}u; {j}++)", b.tn));
            let col = frag_col(&b, &frag_col0(&b), &j);
            let rows = self.l.tiles[f].row_statistic();
            if vars.len() == 2 {
                self.line(&format!("let {} = {} + {i};", var_name(vars[0]), frag_row0(&b)));
                self.line(&format!("let {} = {col};", var_name(vars[1])));
            } else if rows {
                self.line(&format!("let {} = {} + {i};", var_name(vars[0]), frag_row0(&b)));
            } else {
                self.line(&format!("let {} = {col};", var_name(vars[0])));
            }
            let outer_owner =
                if rows { self.owner.replace(format!("({}) == 0u", frag_col0(&b))) } else { None };
            let outer = self.slot.replace(format!("{i} * {}u + {j}", b.tn));
            let outer_row = self.row_slot.replace(i.clone());
            self.ops(body);
            self.slot = outer;
            self.row_slot = outer_row;
            if rows {
                self.owner = outer_owner;
            }
            self.close();
            self.close();
            return;
        }
        let n: u64 = extents.iter().map(|&e| e as u64).product();
        let e = self.fresh("e");
        self.open_elements(&e, n, dist);
        let names = self.coords(&e, extents, "v");
        for (v, c) in vars.iter().zip(names) {
            self.line(&format!("let {} = {c};", var_name(*v)));
        }
        self.ops(body);
        self.close();
    }

    pub(crate) fn store(&mut self, target: &ElemRef, value: &TExpr) {
        let v = self.expr(value);
        if let (Some(owner), ElemRef::Tile(_) | ElemRef::Param(..)) = (self.owner.clone(), target) {
            self.open(&format!("if ({owner})"));
            let saved = self.owner.take();
            self.store_value(target, v);
            self.owner = saved;
            return self.close();
        }
        self.store_value(target, v);
    }

    fn store_value(&mut self, target: &ElemRef, v: String) {
        match target {
            ElemRef::Tile(el) => {
                let name = self.l.tiles[el.tile].named.ident.clone();
                match self.tile_index(el) {
                    (lin, None) => self.line(&format!("{name}[{lin}] = {v};")),
                    (lin, Some(cond)) => {
                        self.line(&format!("if ({cond}) {{ {name}[{lin}] = {v}; }}"))
                    }
                }
            }
            ElemRef::FragmentSlot(t) => {
                let slot = self.slot.clone().unwrap_or_else(|| "0u".into());
                let name = self.fragment_array(*t);
                self.line(&format!("{name}[{slot}] = {v};"));
            }
            ElemRef::Param(p, idx, tests) => {
                let args: Vec<String> = idx.iter().map(|i| self.expr(i)).collect();
                let name = self.accessor(true, *p, tests);
                self.line(&format!("{name}({}, {v});", args.join(", ")));
            }
        }
    }

    pub(crate) fn atomic_add(&mut self, param: ParamIx, index: &[TExpr], value: &TExpr) {
        let v = self.expr(value);
        let args: Vec<String> = index.iter().map(|i| self.expr(i)).collect();
        let name = &self.l.params[param].named.ident;
        self.line(&format!("add_{name}({}, {v});", args.join(", ")));
    }
}
