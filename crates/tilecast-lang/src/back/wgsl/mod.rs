//! The WGSL back end: prints a [`Lowered`] kernel. Every choice (layouts, distributions, copy
//! plans, barriers, bounds checks, parameter access, types) was made by the passes; this module
//! and its parts only render them:
//! - `names`: identifiers and types;
//! - `expr`: typed expressions and element addressing;
//! - `prelude`: module header, bindings, parameter accessors, helpers;
//! - `copy`: fills and copies; `gemm`: SIMT gemm; `reduce`: reductions and scans;
//! - `elementwise`: parallel loops, stores and atomics;
//! - `write`: the entry point, which prints the body and wraps it in the prelude;
//! - `validate`: naga's check of the printed module.

mod copy;
mod elementwise;
mod expr;
mod gemm;
mod matrix;
mod names;
mod prelude;
mod reduce;
mod validate;
mod write;

pub use validate::{Validated, validate};
pub(crate) use validate::{check, codegen_error};
pub use write::write;

use std::collections::BTreeSet;

use crate::lir::{Dist, Lowered, Op, ParamIx, TileIx, issue_runs};

/// An accessor variant the body calls: a store or a load of a parameter, testing the bounds
/// of the axes marked `true` (the plain `ld_` / `st_` test them all).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Accessor {
    pub(crate) store: bool,
    pub(crate) param: ParamIx,
    pub(crate) tests: Vec<bool>,
    /// A word read of a u8 or i8 parameter (`store` false; `tests` one flag: `wd_` tested
    /// against the end of the bytes, `wdu_` proven inside).
    pub(crate) word: bool,
}

impl Accessor {
    /// `ld` / `st` when every axis is tested, `ldu` / `stu` when none is, else e.g. `ldk02`
    /// (axes 0 and 2 tested).
    pub(crate) fn prefix(&self) -> String {
        let base = if self.store { "st" } else { "ld" };
        if self.tests.iter().all(|t| *t) {
            base.to_string()
        } else if self.tests.iter().all(|t| !*t) {
            format!("{base}u")
        } else {
            let axes: String = self
                .tests
                .iter()
                .enumerate()
                .filter(|(_, t)| **t)
                .map(|(a, _)| a.to_string())
                .collect();
            format!("{base}k{axes}")
        }
    }
}

/// Printing state: output, indentation, fresh-name counter, and the current fragment slot
/// inside a parallel loop that follows a fragment's layout.
pub(crate) struct Printer<'a> {
    pub(crate) l: &'a Lowered,
    pub(crate) out: String,
    pub(crate) depth: usize,
    counter: u32,
    pub(crate) slot: Option<String>,
    /// Accessor variants called so far (the prelude defines each one used).
    pub(crate) accessors: BTreeSet<Accessor>,
    /// Inside a run of a fragment's columns: the parameter reads loaded once for the run (as
    /// the variable named) and this slot's place in the run.
    /// Vector reads of the run being printed: parameter, coordinates, vector, column xor.
    pub(crate) run_reads: Vec<(ParamIx, Vec<crate::lir::TExpr>, String, u32)>,
    pub(crate) run_lane: Option<u32>,
    /// The parameter axes the window of the copy being printed spans.
    pub(crate) axes: Vec<usize>,
    /// In a loop over a fragment: the register of the current element's row in a row
    /// statistic of it.
    pub(crate) row_slot: Option<String>,
    /// In a loop over a row statistic: the condition that makes this thread the one storing a
    /// row's value to memory (the first thread of the row; the others hold the same value).
    pub(crate) owner: Option<String>,
    /// Vector loads of runs made in the current block (call, variable), for lets reading
    /// their lanes ([`crate::lir::TKind::ParamLane`]); forgotten at every block boundary.
    pub(crate) lane_loads: Vec<(String, String)>,
}

impl<'a> Printer<'a> {
    pub(crate) fn new(l: &'a Lowered, depth: usize) -> Self {
        Printer {
            l,
            out: String::new(),
            depth,
            counter: 0,
            slot: None,
            accessors: BTreeSet::new(),
            run_reads: Vec::new(),
            run_lane: None,
            axes: Vec::new(),
            row_slot: None,
            owner: None,
            lane_loads: Vec::new(),
        }
    }

    /// The name of parameter `param`'s accessor testing the axes in `tests`, recorded so the
    /// prelude defines it.
    pub(crate) fn accessor(&mut self, store: bool, param: ParamIx, tests: &[bool]) -> String {
        let a = Accessor { store, param, tests: tests.to_vec(), word: false };
        let name = format!("{}_{}", a.prefix(), self.l.params[param].named.ident);
        self.accessors.insert(a);
        name
    }

    pub(crate) fn line(&mut self, s: &str) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    pub(crate) fn open(&mut self, head: &str) {
        self.line(&if head.is_empty() { "{".to_string() } else { format!("{head} {{") });
        self.depth += 1;
        self.lane_loads.clear();
    }

    pub(crate) fn close(&mut self) {
        self.depth -= 1;
        self.line("}");
        self.lane_loads.clear();
    }

    /// A generated name; the leading underscore keeps it apart from IR variables and arguments.
    pub(crate) fn fresh(&mut self, base: &str) -> String {
        self.counter += 1;
        format!("_{base}{}", self.counter)
    }

    /// Opens a loop over `n` elements distributed as `dist` says (not for fragments).
    pub(crate) fn open_elements(&mut self, var: &str, n: u64, dist: Dist) {
        match dist {
            Dist::PerThread => self.open(&format!("for (var {var} = 0u; {var} < {n}u; {var}++)")),
            _ => {
                let t = self.l.threads as u64;
                if n.is_multiple_of(t) {
                    // A trip count the shader compiler can see: it may unroll the loop and
                    // issue every iteration's loads together instead of one at a time.
                    let k = format!("{var}_k");
                    self.open(&format!("for (var {k} = 0u; {k} < {}u; {k}++)", n / t));
                    self.line(&format!("let {var} = tid + {k} * {t}u;"));
                } else {
                    self.open(&format!("for (var {var} = tid; {var} < {n}u; {var} += {t}u)"));
                }
            }
        }
    }

    /// The extent along each of `param`'s axes of the window of `tile` being copied (the
    /// tile's along [`Self::axes`], 1 along the others): walked in row-major order, its
    /// elements are the tile's.
    pub(crate) fn window(&self, tile: TileIx, param: ParamIx) -> Vec<u32> {
        let rank = self.l.params[param].shape.len();
        crate::ir::window_shape(&self.axes, &self.l.tiles[tile].shape, rank)
    }

    /// `org` with tile coordinates `(row, col)` of a 2-D (or 1-D: `col` only) window added
    /// along the axes it spans.
    pub(crate) fn window_coords(&self, org: &[String], row: Option<String>, col: String) -> String {
        let mut coords = org.to_vec();
        let n = self.axes.len();
        if let Some(row) = row {
            coords[self.axes[n - 2]] = format!("{} + {row}", org[self.axes[n - 2]]);
        }
        coords[self.axes[n - 1]] = format!("{} + {col}", org[self.axes[n - 1]]);
        coords.join(", ")
    }

    /// The parameter coordinates of element `e` of a window at `org` whose shape is `shape`
    /// (coordinate lets named from `prefix`).
    pub(crate) fn param_coords(
        &mut self,
        org: &[String],
        e: &str,
        shape: &[u32],
        prefix: &str,
    ) -> Vec<String> {
        let c = self.coords(e, shape, prefix);
        org.iter().zip(&c).map(|(o, c)| format!("{o} + {c}")).collect()
    }

    /// `let` lines giving the coordinates of linear element `e` of `shape`; returns their names.
    pub(crate) fn coords(&mut self, e: &str, shape: &[u32], prefix: &str) -> Vec<String> {
        let mut names = Vec::new();
        let mut stride: u64 = shape.iter().map(|&d| d as u64).product();
        for (i, d) in shape.iter().enumerate() {
            stride /= *d as u64;
            let n = format!("{prefix}{i}");
            self.line(&format!("let {n} = ({e} / {stride}u) % {d}u;"));
            names.push(n);
        }
        names
    }

    pub(crate) fn ops(&mut self, ops: &[Op]) {
        for run in issue_runs(ops) {
            // A run of loads the lowering grouped is printed together.
            match run {
                [op] => self.op(op),
                _ => self.load_group(run),
            }
        }
    }

    fn op(&mut self, op: &Op) {
        match op {
            Op::Barrier => self.line("workgroupBarrier();"),
            Op::Fill { tile, value, dist } => self.fill(*tile, value, *dist),
            Op::Load(w) => self.load(w),
            Op::Save { src, param, origin, axes, plan } => {
                self.axes = axes.clone();
                self.save(src, *param, origin, plan)
            }
            Op::EpilogueSave { vars, body, src, param, origin, axes } => {
                self.axes = axes.clone();
                let org: Vec<String> = origin.iter().map(|o| self.expr(o)).collect();
                self.save_matrix(src.tile, *param, &org, Some((vars, body)))
            }
            Op::CopyTiles { src, dst, dist } => self.copy_tiles(src, dst, *dist),
            Op::Gemm { a, b, c, trans_a, trans_b, lowering } => {
                self.gemm(&self.l.gemm_operands(a, b, *c, (*trans_a, *trans_b)), lowering)
            }
            Op::Reduce(r) => self.reduce(r),
            Op::Cumsum { src, dst, axis, dist } => self.cumsum(*src, *dst, *axis, *dist),
            Op::Parallel { extents, vars, dist, unrolled, vector_reads, body } => {
                self.parallel(extents, vars, *dist, (*unrolled, vector_reads), body)
            }
            Op::Store { target, value } => self.store(target, value),
            Op::Let { id, name, value } => {
                let v = self.expr(value);
                self.line(&format!("let {} = {v};", local_name(*id, name)));
            }
            Op::AtomicAdd { param, index, value } => self.atomic_add(*param, index, value),
            Op::For { var, extent, uniform_slot, body } => {
                let mut n = self.expr(extent);
                if let Some(s) = uniform_slot {
                    let slot = self.l.tiles[*s].named.ident.clone();
                    self.line(&format!("if (tid == 0u) {{ {slot}[0] = {n}; }}"));
                    n = self.fresh("trips");
                    self.line(&format!("let {n} = workgroupUniformLoad(&{slot}[0]);"));
                }
                let v = crate::ir::var_name(*var);
                self.open(&format!("for (var {v} = 0u; {v} < {n}; {v}++)"));
                self.ops(body);
                self.close();
            }
            Op::If { cond, then, otherwise } => {
                let c = self.expr(cond);
                self.open(&format!("if ({c})"));
                self.ops(then);
                self.close();
                if !otherwise.is_empty() {
                    self.open("else");
                    self.ops(otherwise);
                    self.close();
                }
            }
        }
    }
}

/// The WGSL name of let `id` called `name`: numbered, so names never collide.
pub(crate) fn local_name(id: usize, name: &str) -> String {
    format!("let{id}_{}", crate::passes::lower::ident(name))
}
