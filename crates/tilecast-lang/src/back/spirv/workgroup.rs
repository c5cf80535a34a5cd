//! Operations on whole workgroup-scope matrices (`SPV_NV_cooperative_matrix2`) besides loads,
//! stores and products: fills, conversions and copies, row reductions into row statistics, and
//! element loops as per-element operations. The functions the driver calls for reductions and
//! per-element operations are printed after the entry point ([`Printer::workgroup_functions`]).

use rspirv::dr::Operand;
use rspirv::spirv::{Capability, FunctionControl, Op, Word};

use super::functions::{Combine, PerElement};
use super::kinds::Kind;
use super::{Printer, Unsupported};
use crate::ir::{ReduceOp, Var, VarKind};
use crate::lir::{ElemRef, MatrixRole, Op as LOp, Reduce, TExpr, TKind, TileIx, TileStorage};

type R = Result<(), Unsupported>;

/// `OpCooperativeMatrixReduceNV`'s mode: within each row.
const REDUCE_ROW: u32 = 0x1;

impl Printer<'_> {
    /// Declares capability `c` once.
    fn capability(&mut self, c: Capability) {
        let declared = self
            .b
            .module_ref()
            .capabilities
            .iter()
            .any(|i| matches!(i.operands.first(), Some(Operand::Capability(x)) if *x == c));
        if !declared {
            self.b.capability(c);
        }
    }

    /// The component type of workgroup matrix `tile`.
    fn workgroup_component(&self, tile: TileIx) -> Kind {
        match self.l.tiles[tile].storage {
            TileStorage::WorkgroupMatrix { role: MatrixRole::A | MatrixRole::B, input, .. } => {
                Kind::of_matrix(input)
            }
            _ => Kind::of(self.l.tiles[tile].dtype),
        }
    }

    /// `v` of kind `from` as kind `to` (the same value, converted where the kinds differ).
    fn widen(&mut self, v: Word, from: Kind, to: Kind) -> Word {
        if from == to {
            return v;
        }
        let t = self.ty(to);
        self.inst(Op::FConvert, t, &[v])
    }

    fn load_matrix(&mut self, tile: TileIx) -> Word {
        let ty = self.workgroup_ty(tile);
        let var = self.matrix_vars[&tile][0];
        self.inst(Op::Load, ty, &[var])
    }

    fn store_matrix_var(&mut self, tile: TileIx, value: Word) {
        let var = self.matrix_vars[&tile][0];
        self.b.store(var, value, None, []).expect("in a block");
    }

    /// Sets every element of workgroup matrix `tile` to `value`.
    pub(crate) fn fill_workgroup(&mut self, tile: TileIx, value: &TExpr) -> R {
        let ty = self.workgroup_ty(tile);
        let m = match value.kind {
            TKind::Lit(0.0) => self.b.constant_null(ty),
            // A constant in the matrix's own component type (an operand's may be bf16).
            TKind::Lit(v) => {
                let c = self.constant(self.workgroup_component(tile), v);
                self.inst(Op::CompositeConstruct, ty, &[c])
            }
            _ => {
                let v = self.expr(value)?;
                self.inst(Op::CompositeConstruct, ty, &[v])
            }
        };
        self.store_matrix_var(tile, m);
        Ok(())
    }

    /// Copies workgroup matrix `src` into `dst`: an accumulator converted to an operand (type
    /// and use at once), a row statistic spread over another column count (a row reduction
    /// that keeps the value), or the same type copied.
    pub(crate) fn copy_workgroup(&mut self, src: TileIx, dst: TileIx) -> R {
        let m = self.load_matrix(src);
        let ty = self.workgroup_ty(dst);
        let (s, d) = (&self.l.tiles[src].storage, &self.l.tiles[dst].storage);
        let v = match (s, d) {
            (
                TileStorage::WorkgroupRows { columns: a },
                TileStorage::WorkgroupRows { columns: b },
            ) if a != b => {
                let k = Kind::of(self.l.tiles[src].dtype);
                self.matrix_reduce(ty, m, k, Combine::First)
            }
            (
                _,
                TileStorage::WorkgroupMatrix { role: MatrixRole::A | MatrixRole::B, input, .. },
            ) => {
                self.capability(Capability::CooperativeMatrixConversionsNV);
                if Kind::of(self.l.tiles[src].dtype) == Kind::of_matrix(*input) {
                    self.inst(Op::CooperativeMatrixConvertNV, ty, &[m])
                } else {
                    self.inst(Op::FConvert, ty, &[m])
                }
            }
            _ => m,
        };
        self.store_matrix_var(dst, v);
        Ok(())
    }

    /// A row reduction of a workgroup matrix into a row statistic held as one.
    pub(crate) fn reduce_workgroup_rows(&mut self, r: &Reduce) -> R {
        let combine = match r.op {
            ReduceOp::Max => Combine::Max,
            ReduceOp::Sum => Combine::Sum,
            op => {
                return Err(Unsupported(format!(
                    "a {} reduction of a workgroup-scope matrix",
                    crate::lir::reduce_name(op)
                )));
            }
        };
        let m = self.load_matrix(r.src.tile);
        let ty = self.workgroup_ty(r.dst);
        let k = Kind::of(self.l.tiles[r.src.tile].dtype);
        let v = self.matrix_reduce(ty, m, k, combine);
        self.store_matrix_var(r.dst, v);
        Ok(())
    }

    /// `OpCooperativeMatrixReduceNV` of `m` along its rows into type `ty`.
    fn matrix_reduce(&mut self, ty: Word, m: Word, k: Kind, combine: Combine) -> Word {
        self.capability(Capability::CooperativeMatrixReductionsNV);
        let func = *self.workgroup.combines.entry((k, combine)).or_insert_with(|| self.b.id());
        let id = self.b.id();
        self.emit(rspirv::dr::Instruction::new(
            Op::CooperativeMatrixReduceNV,
            Some(ty),
            Some(id),
            vec![Operand::IdRef(m), Operand::LiteralBit32(REDUCE_ROW), Operand::IdRef(func)],
        ));
        id
    }

    /// An element loop over workgroup matrix `tile` that stores only `tile`'s element, as one
    /// per-element operation: the driver calls a function of (row, column, element, the
    /// elements of the other matrices the body reads, the enclosing loop counters it reads)
    /// for every element.
    pub(crate) fn per_element_op(&mut self, tile: TileIx, vars: &[Var], body: &[LOp]) -> R {
        if vars.is_empty() || vars.len() > 2 {
            return Err(Unsupported(format!(
                "a {}-dimensional loop over a workgroup matrix",
                vars.len()
            )));
        }
        let (mut matrices, mut counters) = (Vec::new(), Vec::new());
        for op in body {
            op_reads(op, &mut |e| match &e.kind {
                TKind::FragmentSlot(t) if *t != tile && !matrices.contains(t) => matrices.push(*t),
                TKind::Var(v)
                    if !vars.contains(v)
                        && !matches!(v.kind, VarKind::Block(_) | VarKind::Thread)
                        && !counters.contains(v) =>
                {
                    counters.push(*v)
                }
                _ => {}
            });
        }
        self.capability(Capability::CooperativeMatrixPerElementOperationsNV);
        let ty = self.workgroup_ty(tile);
        let m = self.load_matrix(tile);
        let func = self.b.id();
        let mut operands = vec![m, func];
        for &t in &matrices {
            operands.push(self.load_matrix(t));
        }
        for v in &counters {
            operands.push(*self.vars.get(v).ok_or_else(|| {
                Unsupported(format!("variable {} read outside its loop", crate::ir::var_name(*v)))
            })?);
        }
        let r = self.inst(Op::CooperativeMatrixPerElementOpNV, ty, &operands);
        self.store_matrix_var(tile, r);
        self.workgroup.per_element.push(PerElement {
            func,
            tile,
            vars: vars.to_vec(),
            body: body.to_vec(),
            matrices,
            counters,
        });
        Ok(())
    }

    /// Prints the functions the workgroup-scope operations call: each per-element operation's
    /// (its loop's variables bound to the row and column parameters, the element held in a
    /// local cell the body's reads and writes of it use, other matrices' elements and loop
    /// counters bound to the parameters after it, the builtins loaded afresh), then each
    /// reduction's combine function.
    pub(crate) fn workgroup_functions(&mut self) -> R {
        for pe in std::mem::take(&mut self.workgroup.per_element) {
            // Parameters and result in the matrices' component types (a bf16 operand's); the
            // body computes in the tiles' own types, converting at entry and return.
            let (own, et) =
                (self.workgroup_component(pe.tile), Kind::of(self.l.tiles[pe.tile].dtype));
            let (ct, et_ty, u) = (self.ty(own), self.ty(et), self.ty(Kind::U32));
            let mut params = vec![u, u, ct];
            let mut kinds = vec![Kind::U32, Kind::U32, own];
            for &t in &pe.matrices {
                let k = self.workgroup_component(t);
                params.push(self.ty(k));
                kinds.push(k);
            }
            params.extend(pe.counters.iter().map(|_| u));
            let fty = self.b.type_function(ct, params.clone());
            self.b
                .begin_function(ct, Some(pe.func), FunctionControl::NONE, fty)
                .expect("the entry point is closed");
            let values: Vec<Word> = params
                .iter()
                .map(|&t| self.b.function_parameter(t).expect("in a function"))
                .collect();
            self.block = self.b.begin_block(None).expect("in a function");
            self.lane_loads.clear();
            self.locals.clear();
            self.load_inputs();
            let first = self.widen(values[2], own, et);
            let cell = self.local_var(et_ty, first);
            self.vars.insert(pe.vars[0], values[0]);
            if let Some(&col) = pe.vars.get(1) {
                self.vars.insert(col, values[1]);
            }
            self.element_args.clear();
            for (i, &t) in pe.matrices.iter().enumerate() {
                let v = self.widen(values[3 + i], kinds[3 + i], Kind::of(self.l.tiles[t].dtype));
                self.element_args.insert(t, v);
            }
            for (i, v) in pe.counters.iter().enumerate() {
                self.vars.insert(*v, values[3 + pe.matrices.len() + i]);
            }
            self.element_cell = Some((pe.tile, cell));
            self.ops(&pe.body)?;
            self.element_cell = None;
            self.element_args.clear();
            let v = self.inst(Op::Load, et_ty, &[cell]);
            let v = self.widen(v, et, own);
            self.b.ret_value(v).expect("in a block");
            self.b.end_function().expect("in a function");
        }
        let mut combines: Vec<_> = self.workgroup.combines.iter().map(|(&k, &f)| (k, f)).collect();
        combines.sort_by_key(|&(_, f)| f);
        for ((k, combine), func) in combines {
            let t = self.ty(k);
            let fty = self.b.type_function(t, [t, t]);
            self.b
                .begin_function(t, Some(func), FunctionControl::NONE, fty)
                .expect("the entry point is closed");
            let x = self.b.function_parameter(t).expect("in a function");
            let y = self.b.function_parameter(t).expect("in a function");
            self.block = self.b.begin_block(None).expect("in a function");
            let v = match combine {
                Combine::Max => self.glsl(rspirv::spirv::GlslStd450Op::FMax, t, &[x, y]),
                Combine::Sum => self.inst(Op::FAdd, t, &[x, y]),
                Combine::First => x,
            };
            self.b.ret_value(v).expect("in a block");
            self.b.end_function().expect("in a function");
        }
        Ok(())
    }
}

/// Calls `f` on every expression `op` (and the ops inside it) reads, subexpressions included.
fn op_reads(op: &LOp, f: &mut impl FnMut(&TExpr)) {
    fn walk(e: &TExpr, f: &mut impl FnMut(&TExpr)) {
        f(e);
        for c in e.children() {
            walk(c, f);
        }
    }
    match op {
        LOp::Let { value, .. } => walk(value, f),
        LOp::Store { target, value } => {
            if let ElemRef::Tile(el) = target {
                el.index.iter().for_each(|i| walk(i, f));
            }
            walk(value, f);
        }
        LOp::If { cond, then, otherwise } => {
            walk(cond, f);
            then.iter().chain(otherwise).for_each(|o| op_reads(o, f));
        }
        _ => {}
    }
}
