//! Fragments on matrix units: each subgroup owns a block of cooperative matrices (one variable
//! each), loads A and B matrices from threadgroup memory, multiply-accumulates, and saves
//! through a per-subgroup scratch matrix in threadgroup memory so the global store is masked at
//! the parameter's edges (a cooperative store straight to global memory cannot be).

use super::Printer;
use super::names::{pitched, ty};
use crate::ir::DType;
use crate::lir::{GemmOperands, MatrixTiling, ParamIx, TExpr, TileIx, TileSlot};

/// `coop_matSxS<T, role>`.
fn mat(m: &MatrixTiling, dtype: DType, role: &str) -> String {
    format!("coop_mat{s}x{s}<{}, {role}>", ty(dtype), s = m.shape)
}

/// The subgroup's position in its grid of blocks (`sg_id` without a K split).
fn grid_position(m: &MatrixTiling) -> String {
    if m.k_split > 1 { format!("(sg_id % {}u)", m.grid_subgroups()) } else { "sg_id".into() }
}

/// The variable holding matrix `slot` of fragment `name`.
pub(crate) fn slot_var(name: &str, slot: u32) -> String {
    format!("{name}_m{slot}")
}

impl Printer<'_> {
    /// Declarations of a matrix fragment's variables (zero-initialized, as WGSL does).
    pub(crate) fn declare_matrix(&mut self, tile: TileIx) {
        let t = &self.l.tiles[tile];
        let m = t.matrix().expect("a matrix fragment");
        let (name, c) = (t.named.ident.clone(), mat(&m, t.dtype, "C"));
        for slot in 0..m.per_subgroup() {
            self.line(&format!("var {}: {c};", slot_var(&name, slot)));
        }
    }

    /// `let wr` / `let wc`: the first row and column of the subgroup's block.
    fn subgroup_origin(&mut self, m: &MatrixTiling) {
        let s = m.shape;
        let sg = grid_position(m);
        self.line(&format!("let wr = ({sg} / {}u) * {}u;", m.warps[1], m.blocks[0] * s));
        self.line(&format!("let wc = ({sg} % {}u) * {}u;", m.warps[1], m.blocks[1] * s));
    }

    pub(crate) fn fill_matrix(&mut self, tile: TileIx, _value: &TExpr) {
        // Selection admits only zero fills.
        let t = &self.l.tiles[tile];
        let m = t.matrix().expect("a matrix fragment");
        let (name, c) = (t.named.ident.clone(), mat(&m, t.dtype, "C"));
        for slot in 0..m.per_subgroup() {
            self.line(&format!("{} = {c}();", slot_var(&name, slot)));
        }
    }

    pub(crate) fn gemm_matrix(&mut self, g: &GemmOperands, m: &MatrixTiling) {
        let s = m.shape;
        let an = self.l.tiles[g.a.tile].named.ident.clone();
        let bn = self.l.tiles[g.b.tile].named.ident.clone();
        let cn = self.l.tiles[g.c].named.ident.clone();
        let (ap, bp) = g.pitch;
        let (amat, bmat) = (mat(m, m.input, "A"), mat(m, m.input, "B"));
        let (ao, bo) = (self.stage_offset(g.a), self.stage_offset(g.b));
        let (ak, kk) = (g.k, self.fresh("kk"));
        self.open("");
        self.subgroup_origin(m);
        if m.k_split > 1 {
            // Each K slice takes every k_split-th step of the staged tile.
            let (w, ks) = (m.grid_subgroups(), m.k_split);
            self.open(&format!(
                "for (var {kk} = (sg_id / {w}u) * {s}u; {kk} < {ak}u; {kk} += {}u)",
                ks * s
            ));
        } else {
            self.open(&format!("for (var {kk} = 0u; {kk} < {ak}u; {kk} += {s}u)"));
        }
        // Row-major [M, K] (coopLoadT, stride K), or stored [K, M]: column-major (stride M);
        // B alike.
        let load = |t: bool| if t { "coopLoad" } else { "coopLoadT" };
        for i in 0..m.blocks[0] {
            let at = pitched(g.a_at(&format!("wr + {}u", i * s), &kk), ap);
            let l = load(g.trans.0);
            self.line(&format!("let a{i} = {l}<{amat}>(&{an}[{ao}{at}], {ap}u);"));
        }
        for j in 0..m.blocks[1] {
            let at = pitched(g.b_at(&kk, &format!("wc + {}u", j * s)), bp);
            let l = load(g.trans.1);
            self.line(&format!("let b{j} = {l}<{bmat}>(&{bn}[{bo}{at}], {bp}u);"));
        }
        for i in 0..m.blocks[0] {
            for j in 0..m.blocks[1] {
                let v = slot_var(&cn, i * m.blocks[1] + j);
                self.line(&format!("{v} = coopMultiplyAdd(a{i}, b{j}, {v});"));
            }
        }
        self.close();
        self.close();
    }

    /// Stores each matrix of fragment `tile` into its place in the shared tile `dst` (row-major,
    /// stepping by the tile's row pitch): a split accumulator's stage. Selection admits no K
    /// split here, so each matrix is whole in one subgroup.
    pub(crate) fn store_matrices(&mut self, tile: TileIx, dst: &TileSlot) {
        let t = &self.l.tiles[tile];
        let m = t.matrix().expect("a matrix fragment");
        let (s, name) = (m.shape, t.named.ident.clone());
        let d = &self.l.tiles[dst.tile];
        let (dn, pitch) = (d.named.ident.clone(), d.row_pitch());
        let off = self.stage_offset(dst);
        self.open("");
        self.subgroup_origin(&m);
        for i in 0..m.blocks[0] {
            for j in 0..m.blocks[1] {
                let v = slot_var(&name, i * m.blocks[1] + j);
                let at = format!("{off}(wr + {}u) * {pitch}u + wc + {}u", i * s, j * s);
                self.line(&format!("coopStoreT({v}, &{dn}[{at}], {pitch}u);"));
            }
        }
        self.close();
    }

    /// Visits each matrix of fragment `tile` through the subgroup's scratch matrix: stores it
    /// there, runs `lane` in a loop over the scratch elements each lane takes (given the
    /// matrix's block row and column, the element variable and the element's scratch index),
    /// then `after` (given the matrix's variable). Opens a block (`wr`, `wc`, `base`) the caller
    /// closes. The barriers sit in uniform control flow: every subgroup visits the same number
    /// of matrices. With a K split the slices share each matrix's elements out, and each
    /// element is first replaced in the first slice's scratch matrix by the sum of the slices'
    /// partial sums: `lane` sees whole values.
    fn visit_through_scratch(
        &mut self,
        tile: TileIx,
        mut lane: impl FnMut(&mut Self, u32, u32, &str, &str),
        mut after: impl FnMut(&mut Self, &str),
    ) {
        let t = &self.l.tiles[tile];
        let m = t.matrix().expect("a matrix fragment");
        let (s, ss) = (m.shape, m.shape * m.shape);
        let name = t.named.ident.clone();
        let scratch = m.scratch.map(|x| self.l.tiles[x].named.ident.clone()).unwrap_or_default();
        self.open("");
        self.subgroup_origin(&m);
        self.line(&format!("let base = sg_id * {ss}u;"));
        for i in 0..m.blocks[0] {
            for j in 0..m.blocks[1] {
                let v = slot_var(&name, i * m.blocks[1] + j);
                self.line("workgroupBarrier();");
                self.line(&format!("coopStoreT({v}, &{scratch}[base], {s}u);"));
                self.line("workgroupBarrier();");
                let e = self.fresh("e");
                if m.k_split > 1 {
                    let (w, ks) = (m.grid_subgroups(), m.k_split);
                    self.open(&format!(
                        "for (var {e} = (sg_id / {w}u) * sg_size + sg_lane; {e} < {ss}u; {e} += {ks}u * sg_size)"
                    ));
                    let at = format!("(sg_id % {w}u) * {ss}u + {e}");
                    let sum: Vec<String> = (0..ks)
                        .map(|t| format!("{scratch}[(sg_id % {w}u + {}u) * {ss}u + {e}]", t * w))
                        .collect();
                    self.line(&format!("{scratch}[{at}] = {};", sum.join(" + ")));
                    lane(self, i, j, &e, &at);
                } else {
                    self.open(&format!("for (var {e} = sg_lane; {e} < {ss}u; {e} += sg_size)"));
                    lane(self, i, j, &e, &format!("base + {e}"));
                }
                self.close();
                after(self, &v);
            }
        }
    }

    /// The epilogue's body on one element of matrix (`i`, `j`) (lane loop variable `e`, held in
    /// scratch at `at`): the loop's row and column variables bound, the fragment read and
    /// written there.
    fn epilogue_element(
        &mut self,
        vars: &[crate::ir::Var],
        body: &[crate::lir::Op],
        s: u32,
        (i, j): (u32, u32),
        e: &str,
        at: &str,
    ) {
        let (vi, vj) = (crate::ir::var_name(vars[0]), crate::ir::var_name(vars[1]));
        self.line(&format!("let {vi} = wr + {}u + {e} / {s}u;", i * s));
        self.line(&format!("let {vj} = wc + {}u + {e} % {s}u;", j * s));
        let outer = self.slot.replace(at.to_string());
        self.ops(body);
        self.slot = outer;
    }

    /// Each matrix goes to the subgroup's scratch matrix, then its lanes store the elements,
    /// masked at the parameter's bounds. With an `epilogue` (loop variables and body, fused by
    /// `passes::lowered::fuse`) the lanes first run it on the elements there; nothing is loaded back.
    pub(crate) fn save_matrix(
        &mut self,
        tile: TileIx,
        param: ParamIx,
        org: &[String],
        epilogue: Option<(&[crate::ir::Var], &[crate::lir::Op])>,
    ) {
        let m = self.l.tiles[tile].matrix().expect("a matrix fragment");
        let (s, scratch) = (m.shape, m.scratch.map(|x| self.l.tiles[x].named.ident.clone()));
        let scratch = scratch.unwrap_or_default();
        let p = &self.l.params[param];
        let (pname, pty) = (p.named.ident.clone(), ty(p.dtype));
        self.visit_through_scratch(
            tile,
            |pr, i, j, e, at| {
                let (row, col) = match epilogue {
                    Some((vars, body)) => {
                        pr.epilogue_element(vars, body, s, (i, j), e, at);
                        (crate::ir::var_name(vars[0]), crate::ir::var_name(vars[1]))
                    }
                    None => (
                        format!("wr + {}u + {e} / {s}u", i * s),
                        format!("wc + {}u + {e} % {s}u", j * s),
                    ),
                };
                let coords = pr.window_coords(org, Some(row), col);
                pr.line(&format!("st_{pname}({coords}, {pty}({scratch}[{at}]));"));
            },
            |_, _| {},
        );
        self.line("workgroupBarrier();");
        self.close();
    }

    /// A pointwise loop over a matrix fragment (an epilogue): each matrix goes to the
    /// subgroup's scratch matrix, its lanes run the body on the elements (the fragment's
    /// elements read and written in scratch), and the matrix is loaded back.
    pub(crate) fn parallel_matrix(
        &mut self,
        tile: TileIx,
        vars: &[crate::ir::Var],
        body: &[crate::lir::Op],
    ) {
        let t = &self.l.tiles[tile];
        let m = t.matrix().expect("a matrix fragment");
        let (s, c) = (m.shape, mat(&m, t.dtype, "C"));
        let scratch = m.scratch.map(|x| self.l.tiles[x].named.ident.clone()).unwrap_or_default();
        self.visit_through_scratch(
            tile,
            |pr, i, j, e, at| {
                pr.epilogue_element(vars, body, s, (i, j), e, at);
                // With a K split the first slice's matrix now holds the value and the other
                // slices' hold zeros, so every subgroup reloads its own scratch matrix (no
                // branch: naga wants cooperative loads in uniform control flow) and the
                // slices' sum, what a later save or gemm sees, stays the fragment's value.
                for t in 1..m.k_split {
                    let w = m.grid_subgroups();
                    pr.line(&format!(
                        "{scratch}[(sg_id % {w}u + {}u) * {}u + {e}] = 0.0;",
                        t * w,
                        s * s
                    ));
                }
            },
            |pr, v| {
                pr.line("workgroupBarrier();");
                pr.line(&format!("{v} = coopLoadT<{c}>(&{scratch}[base], {s}u);"));
            },
        );
        self.close();
    }
}
