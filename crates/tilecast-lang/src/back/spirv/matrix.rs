//! Fragments on matrix units, as `SPV_KHR_cooperative_matrix` subgroup-scope matrices: each
//! subgroup owns a block of accumulators (one function variable each), loads A and B from
//! threadgroup memory, multiply-accumulates, and saves through its scratch matrix in
//! threadgroup memory so the global store is masked at the parameter's edges. The same plan
//! the WGSL back end prints with `coop_mat`.

use rspirv::spirv::{CooperativeMatrixLayout, Op, Scope, Word};

use super::kinds::Kind;
use super::{Printer, Unsupported};
use crate::ir::Var;
use crate::lir::{GemmOperands, MatrixTiling, Op as LOp, ParamIx, TileIx, TileSlot};

type R = Result<(), Unsupported>;

/// `OpTypeCooperativeMatrixKHR` operand: what a matrix is for.
#[derive(Clone, Copy)]
pub(crate) enum Use {
    A = 0,
    B = 1,
    Accumulator = 2,
}

/// One element of a matrix fragment as [`Printer::visit_through_scratch`] hands it to a lane:
/// which matrix of the subgroup's block it is in, where that block starts, and where the element
/// lies in the matrix and in scratch.
#[derive(Clone, Copy)]
struct ScratchElement {
    /// The matrix unit's M = N.
    shape: u32,
    /// The matrix's row and column in the subgroup's block of matrices.
    block: (u32, u32),
    /// The fragment row and column the subgroup's block starts at.
    origin: (Word, Word),
    /// The element's index in its matrix (row-major).
    e: Word,
    /// Its index in the scratch tile.
    at: Word,
}

impl Printer<'_> {
    /// The subgroup-scope `s` x `s` matrix of `k` elements used as `role`.
    pub(crate) fn coop_ty(&mut self, k: Kind, s: u32, role: Use) -> Word {
        let t = self.ty(k);
        let (scope, n, r) = (self.u(Scope::Subgroup as u32), self.u(s), self.u(role as u32));
        self.b.type_cooperative_matrix_khr(t, scope, n, n, r)
    }

    /// The accumulator variables of matrix fragment `tile` (zero), declared in the entry block.
    pub(crate) fn declare_matrix(&mut self, tile: TileIx) {
        let t = &self.l.tiles[tile];
        let m = t.matrix().expect("a matrix fragment");
        let c = self.coop_ty(Kind::of(t.dtype), m.shape, Use::Accumulator);
        let zero = self.b.constant_null(c);
        let vars = (0..m.per_subgroup()).map(|_| self.local_var(c, zero)).collect();
        self.matrix_vars.insert(tile, vars);
    }

    /// The first row and column of the subgroup's block.
    fn subgroup_origin(&mut self, m: &MatrixTiling) -> (Word, Word) {
        let s = m.shape;
        let mut sg = self.subgroup[2];
        if m.k_split > 1 {
            let g = self.u(m.grid_subgroups());
            sg = self.uop(Op::UMod, sg, g);
        }
        let w1 = self.u(m.warps[1]);
        let (h, w) = (self.u(m.blocks[0] * s), self.u(m.blocks[1] * s));
        let q = self.uop(Op::UDiv, sg, w1);
        let wr = self.uop(Op::IMul, q, h);
        let r = self.uop(Op::UMod, sg, w1);
        let wc = self.uop(Op::IMul, r, w);
        (wr, wc)
    }

    pub(crate) fn fill_matrix(&mut self, tile: TileIx) {
        // Selection admits only zero fills.
        let t = &self.l.tiles[tile];
        let m = t.matrix().expect("a matrix fragment");
        let c = self.coop_ty(Kind::of(t.dtype), m.shape, Use::Accumulator);
        let zero = self.b.constant_null(c);
        for v in self.matrix_vars[&tile].clone() {
            self.b.store(v, zero, None, []).expect("in a block");
        }
    }

    /// A matrix of type `ty` loaded from element `at` of tile `tile`, rows `stride` apart.
    fn coop_load(
        &mut self,
        ty: Word,
        tile: TileIx,
        at: Word,
        row_major: bool,
        stride: u32,
    ) -> Word {
        let ptr = self.tile_ptr(tile, at);
        let layout = if row_major {
            CooperativeMatrixLayout::RowMajorKHR
        } else {
            CooperativeMatrixLayout::ColumnMajorKHR
        };
        let (layout, stride) = (self.u(layout as u32), self.u(stride));
        self.b
            .cooperative_matrix_load_khr(ty, None, ptr, layout, Some(stride), None, [])
            .expect("in a block")
    }

    /// Matrix `v` stored row-major at element `at` of tile `tile`, rows `stride` apart.
    fn coop_store(&mut self, v: Word, tile: TileIx, at: Word, stride: u32) {
        let ptr = self.tile_ptr(tile, at);
        let layout = self.u(CooperativeMatrixLayout::RowMajorKHR as u32);
        let stride = self.u(stride);
        self.b
            .cooperative_matrix_store_khr(ptr, v, layout, Some(stride), None, [])
            .expect("in a block");
    }

    /// The matrix at stored element `(x, y)` of operand `tile` (rows `pitch` apart, stage offset
    /// `o`), read row-major or, for a transposed operand, column-major.
    fn operand_matrix(
        &mut self,
        ty: Word,
        tile: TileIx,
        o: Option<Word>,
        (x, y): (Word, Word),
        pitch: u32,
        row_major: bool,
    ) -> Word {
        let at = self.at2(o, x, pitch, y);
        self.coop_load(ty, tile, at, row_major, pitch)
    }

    /// `o + a * pitch + b` (`o` optional).
    pub(crate) fn at2(&mut self, o: Option<Word>, a: Word, pitch: u32, b: Word) -> Word {
        let p = self.u(pitch);
        let m = self.uop(Op::IMul, a, p);
        let s = self.uop(Op::IAdd, m, b);
        self.offset(o, s)
    }

    pub(crate) fn gemm_matrix(&mut self, g: &GemmOperands, m: &MatrixTiling) -> R {
        let (a, b, c) = (g.a, g.b, g.c);
        let s = m.shape;
        let (ap, bp) = g.pitch;
        let input = Kind::of(m.input);
        let (amat, bmat) = (self.coop_ty(input, s, Use::A), self.coop_ty(input, s, Use::B));
        let cmat = self.coop_ty(Kind::of(self.l.tiles[c].dtype), s, Use::Accumulator);
        let (ao, bo) = (self.stage_offset(a)?, self.stage_offset(b)?);
        let (wr, wc) = self.subgroup_origin(m);
        let (start, step) = if m.k_split > 1 {
            // Each K slice takes every k_split-th step of the staged tile.
            let w = self.u(m.grid_subgroups());
            let q = self.uop(Op::UDiv, self.subgroup[2], w);
            let ss = self.u(s);
            (self.uop(Op::IMul, q, ss), self.u(m.k_split * s))
        } else {
            (self.u(0), self.u(s))
        };
        let end = self.u(g.k);
        let vars = self.matrix_vars[&c].clone();
        self.loop_range(start, end, step, |p, kk| {
            // Row-major [M, K] (stride K), or stored [K, M]: column-major (stride M); B alike.
            let mut avs = Vec::new();
            for i in 0..m.blocks[0] {
                let row = p.add_const(wr, i * s);
                avs.push(p.operand_matrix(amat, a.tile, ao, g.a_at(row, kk), ap, !g.trans.0));
            }
            let mut bvs = Vec::new();
            for j in 0..m.blocks[1] {
                let col = p.add_const(wc, j * s);
                bvs.push(p.operand_matrix(bmat, b.tile, bo, g.b_at(kk, col), bp, !g.trans.1));
            }
            for i in 0..m.blocks[0] {
                for j in 0..m.blocks[1] {
                    let var = vars[(i * m.blocks[1] + j) as usize];
                    let acc = p.inst(Op::Load, cmat, &[var]);
                    let r =
                        p.b.cooperative_matrix_mul_add_khr(
                            cmat,
                            None,
                            avs[i as usize],
                            bvs[j as usize],
                            acc,
                            None,
                        )
                        .expect("in a block");
                    p.b.store(var, r, None, []).expect("in a block");
                }
            }
            Ok(())
        })
    }

    /// Stores each matrix of fragment `tile` into its place in the shared tile `dst`.
    pub(crate) fn store_matrices(&mut self, tile: TileIx, dst: &TileSlot) -> R {
        let t = &self.l.tiles[tile];
        let m = t.matrix().expect("a matrix fragment");
        let (s, cty) = (m.shape, Kind::of(t.dtype));
        let pitch = self.l.tiles[dst.tile].row_pitch();
        let off = self.stage_offset(dst)?;
        let cmat = self.coop_ty(cty, s, Use::Accumulator);
        let (wr, wc) = self.subgroup_origin(&m);
        let vars = self.matrix_vars[&tile].clone();
        for i in 0..m.blocks[0] {
            for j in 0..m.blocks[1] {
                let v = self.inst(Op::Load, cmat, &[vars[(i * m.blocks[1] + j) as usize]]);
                let (r, c) = (self.add_const(wr, i * s), self.add_const(wc, j * s));
                let at = self.at2(off, r, pitch, c);
                self.coop_store(v, dst.tile, at, pitch);
            }
        }
        Ok(())
    }

    /// Visits each matrix of fragment `tile` through the subgroup's scratch matrix (see the
    /// WGSL back end's `visit_through_scratch`): stores it there, runs `lane` on the scratch
    /// elements each lane takes, then `after` (given the matrix's variable).
    fn visit_through_scratch(
        &mut self,
        tile: TileIx,
        mut lane: impl FnMut(&mut Self, ScratchElement) -> R,
        mut after: impl FnMut(&mut Self, Word, Word) -> R,
    ) -> R {
        let t = &self.l.tiles[tile];
        let m = t.matrix().expect("a matrix fragment");
        let (s, ss) = (m.shape, m.shape * m.shape);
        let scratch =
            m.scratch.ok_or_else(|| Unsupported("a matrix fragment without scratch".into()))?;
        let sk = self.tile_kind(scratch);
        let cmat = self.coop_ty(Kind::of(t.dtype), s, Use::Accumulator);
        let (wr, wc) = self.subgroup_origin(&m);
        let (lane_id, size, sg_id, _) = (self.subgroup[0], self.subgroup[1], self.subgroup[2], 0);
        let ssc = self.u(ss);
        let base = self.uop(Op::IMul, sg_id, ssc);
        let vars = self.matrix_vars[&tile].clone();
        for i in 0..m.blocks[0] {
            for j in 0..m.blocks[1] {
                let var = vars[(i * m.blocks[1] + j) as usize];
                self.barrier();
                let v = self.inst(Op::Load, cmat, &[var]);
                self.coop_store(v, scratch, base, s);
                self.barrier();
                if m.k_split > 1 {
                    let (w, ks) = (m.grid_subgroups(), m.k_split);
                    let wq = self.u(w);
                    let q = self.uop(Op::UDiv, sg_id, wq);
                    let qm = self.uop(Op::IMul, q, size);
                    let start = self.uop(Op::IAdd, qm, lane_id);
                    let ksc = self.u(ks);
                    let step = self.uop(Op::IMul, ksc, size);
                    self.loop_range(start, ssc, step, |p, e| {
                        let part = p.uop(Op::UMod, sg_id, wq);
                        let pm = p.uop(Op::IMul, part, ssc);
                        let at = p.uop(Op::IAdd, pm, e);
                        let st = p.ty(sk);
                        let add = if sk.is_float() { Op::FAdd } else { Op::IAdd };
                        let mut sum = None;
                        for t in 0..ks {
                            let slice = p.add_const(part, t * w);
                            let sm = p.uop(Op::IMul, slice, ssc);
                            let idx = p.uop(Op::IAdd, sm, e);
                            let ptr = p.tile_ptr(scratch, idx);
                            let x = p.inst(Op::Load, st, &[ptr]);
                            sum = Some(match sum {
                                None => x,
                                Some(acc) => p.inst(add, st, &[acc, x]),
                            });
                        }
                        let ptr = p.tile_ptr(scratch, at);
                        p.b.store(ptr, sum.expect("k_split > 1"), None, []).expect("in a block");
                        let origin = (wr, wc);
                        lane(p, ScratchElement { shape: s, block: (i, j), origin, e, at })
                    })?;
                } else {
                    self.loop_range(lane_id, ssc, size, |p, e| {
                        let at = p.uop(Op::IAdd, base, e);
                        let origin = (wr, wc);
                        lane(p, ScratchElement { shape: s, block: (i, j), origin, e, at })
                    })?;
                }
                after(self, var, base)?;
            }
        }
        Ok(())
    }

    /// The fragment row and column of `el`.
    fn element_position(&mut self, el: ScratchElement) -> (Word, Word) {
        let s = el.shape;
        let sc = self.u(s);
        let q = self.uop(Op::UDiv, el.e, sc);
        let r = self.uop(Op::UMod, el.e, sc);
        let row0 = self.add_const(el.origin.0, el.block.0 * s);
        let col0 = self.add_const(el.origin.1, el.block.1 * s);
        (self.uop(Op::IAdd, row0, q), self.uop(Op::IAdd, col0, r))
    }

    /// An epilogue (the loop's row and column variables, and its body) on element `el`: the
    /// variables bound to its position, the fragment read and written in scratch. Returns the
    /// position.
    fn epilogue_element(
        &mut self,
        (vars, body): (&[Var], &[LOp]),
        el: ScratchElement,
    ) -> Result<(Word, Word), Unsupported> {
        let (row, col) = self.element_position(el);
        self.vars.insert(vars[0], row);
        self.vars.insert(vars[1], col);
        let outer = self.slot.replace(el.at);
        self.ops(body)?;
        self.slot = outer;
        Ok((row, col))
    }

    /// Each matrix goes to the subgroup's scratch matrix, then its lanes store the elements,
    /// masked at the parameter's bounds, after running the fused epilogue on them if any.
    pub(crate) fn save_matrix(
        &mut self,
        tile: TileIx,
        param: ParamIx,
        org: &[Word],
        epilogue: Option<(&[Var], &[LOp])>,
    ) -> R {
        let m = self.l.tiles[tile].matrix().expect("a matrix fragment");
        let scratch =
            m.scratch.ok_or_else(|| Unsupported("a matrix fragment without scratch".into()))?;
        let (sk, pk) = (self.tile_kind(scratch), self.buffers[param.0].kind);
        let org = org.to_vec();
        self.visit_through_scratch(
            tile,
            |p, el| {
                let (row, col) = match epilogue {
                    Some(epilogue) => p.epilogue_element(epilogue, el)?,
                    None => p.element_position(el),
                };
                let coords = p.window_coords(&org, Some(row), col);
                let st = p.ty(sk);
                let ptr = p.tile_ptr(scratch, el.at);
                let v = p.inst(Op::Load, st, &[ptr]);
                let v = p.convert(v, sk, pk);
                p.param_store(param, &coords, &vec![true; coords.len()], v)
            },
            |_, _, _| Ok(()),
        )?;
        self.barrier();
        Ok(())
    }

    /// A pointwise loop over a matrix fragment (an epilogue): each matrix goes to the
    /// subgroup's scratch matrix, its lanes run the body there, and the matrix is loaded back.
    pub(crate) fn parallel_matrix(&mut self, tile: TileIx, vars: &[Var], body: &[LOp]) -> R {
        let t = &self.l.tiles[tile];
        let m = t.matrix().expect("a matrix fragment");
        let s = m.shape;
        let cmat = self.coop_ty(Kind::of(t.dtype), s, Use::Accumulator);
        let scratch =
            m.scratch.ok_or_else(|| Unsupported("a matrix fragment without scratch".into()))?;
        let sk = self.tile_kind(scratch);
        self.visit_through_scratch(
            tile,
            |p, el| {
                p.epilogue_element((vars, body), el)?;
                // With a K split the first slice's matrix now holds the value and the other
                // slices' hold zeros, so the slices' sum stays the fragment's value.
                for t in 1..m.k_split {
                    let w = m.grid_subgroups();
                    let wq = p.u(w);
                    let part = p.uop(Op::UMod, p.subgroup[2], wq);
                    let slice = p.add_const(part, t * w);
                    let ssc = p.u(s * s);
                    let sm = p.uop(Op::IMul, slice, ssc);
                    let idx = p.uop(Op::IAdd, sm, el.e);
                    let ptr = p.tile_ptr(scratch, idx);
                    let zero = p.constant(sk, 0.0);
                    p.b.store(ptr, zero, None, []).expect("in a block");
                }
                Ok(())
            },
            |p, var, base| {
                p.barrier();
                let v = p.coop_load(cmat, scratch, base, true, s);
                p.b.store(var, v, None, []).expect("in a block");
                Ok(())
            },
        )
    }
}
