//! Typed expressions, and element access: parameters masked at their bounds (a clamped index
//! and a select, the WGSL back end's `ld_` accessors inlined), tiles, fragment registers.

use rspirv::dr::{Instruction, Operand};
use rspirv::spirv::{GlslStd450Op as GLOp, Op, StorageClass, Word};

use super::kinds::{Kind, extremum};
use super::{Printer, Unsupported};
use crate::ir::{BinOp, MathFn, VarKind};
use crate::lir::{Bounds, ParamIx, TExpr, TKind, TileElem, TileIx, TileSlot};

impl Printer<'_> {
    /// `a op b` on u32 values.
    pub(crate) fn uop(&mut self, op: Op, a: Word, b: Word) -> Word {
        let u = self.ty(Kind::U32);
        self.inst(op, u, &[a, b])
    }

    /// `a op b` on u32 values, a comparison.
    pub(crate) fn ucmp(&mut self, op: Op, a: Word, b: Word) -> Word {
        let t = self.ty(Kind::Bool);
        self.inst(op, t, &[a, b])
    }

    /// `a + c` for a constant `c` (`a` itself for 0).
    pub(crate) fn add_const(&mut self, a: Word, c: u32) -> Word {
        if c == 0 {
            return a;
        }
        let c = self.u(c);
        self.uop(Op::IAdd, a, c)
    }

    /// The conjunction of `conds` (`true` when empty).
    pub(crate) fn all(&mut self, conds: &[Word]) -> Word {
        let t = self.ty(Kind::Bool);
        let mut it = conds.iter();
        let Some(&first) = it.next() else {
            return self.constant(Kind::Bool, 1.0);
        };
        it.fold(first, |acc, &c| self.inst(Op::LogicalAnd, t, &[acc, c]))
    }

    pub(crate) fn extract(&mut self, ty: Word, v: Word, lane: u32) -> Word {
        let id = self.b.id();
        self.emit(Instruction::new(
            Op::CompositeExtract,
            Some(ty),
            Some(id),
            vec![Operand::IdRef(v), Operand::LiteralBit32(lane)],
        ));
        id
    }

    /// Member `k` of the push-constant block.
    fn arg(&mut self, k: usize) -> Word {
        let (var, members) = self.args.clone().expect("symbols and scalars live in the block");
        let ty = members[k];
        let ptr = self.ptr(StorageClass::PushConstant, ty);
        let idx = self.u(k as u32);
        let p = self.inst(Op::AccessChain, ptr, &[var, idx]);
        self.inst(Op::Load, ty, &[p])
    }

    /// `v` (of kind `from`) converted to kind `to`.
    pub(crate) fn convert(&mut self, v: Word, from: Kind, to: Kind) -> Word {
        if from == to {
            return v;
        }
        let t = self.ty(to);
        let op = match (from, to) {
            (Kind::Bool, _) => {
                let (one, zero) = (self.constant(to, 1.0), self.constant(to, 0.0));
                return self.inst(Op::Select, t, &[v, one, zero]);
            }
            (_, Kind::Bool) => {
                let zero = self.constant(from, 0.0);
                let op = if from.is_float() { Op::FUnordNotEqual } else { Op::INotEqual };
                return self.inst(op, t, &[v, zero]);
            }
            (Kind::F32 | Kind::F16, Kind::F32 | Kind::F16) => Op::FConvert,
            (Kind::F32 | Kind::F16, Kind::U32) => Op::ConvertFToU,
            (Kind::F32 | Kind::F16, Kind::I32) => Op::ConvertFToS,
            (Kind::U32, _) if to.is_float() => Op::ConvertUToF,
            (Kind::I32, _) if to.is_float() => Op::ConvertSToF,
            _ => Op::Bitcast,
        };
        self.inst(op, t, &[v])
    }

    /// The value of `e`.
    pub(crate) fn expr(&mut self, e: &TExpr) -> Result<Word, Unsupported> {
        let k = Kind::of_ety(e.ty);
        Ok(match &e.kind {
            TKind::Lit(v) => self.constant(k, *v),
            TKind::Sym(i) => self.arg(*i),
            TKind::Scalar(i) => self.arg(self.l.symbols.len() + *i),
            TKind::Var(v) => match v.kind {
                VarKind::Block(a) => self.block_ids[a as usize],
                VarKind::Thread => self.tid,
                _ => *self.vars.get(v).ok_or_else(|| {
                    Unsupported(format!(
                        "variable {} read outside its loop",
                        crate::ir::var_name(*v)
                    ))
                })?,
            },
            TKind::Local(id, name) => *self
                .locals
                .get(id)
                .ok_or_else(|| Unsupported(format!("let {name} read before it is bound")))?,
            TKind::Bin(op, a, b) => {
                let ka = Kind::of_ety(a.ty);
                let (x, y) = (self.expr(a)?, self.expr(b)?);
                self.binary(*op, ka, k, x, y)
            }
            TKind::Math(f, a) => {
                let x = self.expr(a)?;
                self.math(*f, k, x)
            }
            TKind::Fma(a, b, c) => {
                let (x, y, z) = (self.expr(a)?, self.expr(b)?, self.expr(c)?);
                let t = self.ty(k);
                self.glsl(GLOp::Fma, t, &[x, y, z])
            }
            TKind::Select(c, a, b) => {
                let (c, x, y) = (self.expr(c)?, self.expr(a)?, self.expr(b)?);
                let t = self.ty(k);
                self.inst(Op::Select, t, &[c, x, y])
            }
            TKind::Cast(a) => {
                let x = self.expr(a)?;
                self.convert(x, Kind::of_ety(a.ty), k)
            }
            // A half in a word's low bits.
            TKind::Bitcast(a) if k == Kind::F16 => {
                let x = self.expr(a)?;
                let h = self.half_bits(x);
                self.convert(h, Kind::F32, Kind::F16)
            }
            TKind::Bitcast(a) => {
                let x = self.expr(a)?;
                let t = self.ty(k);
                self.inst(Op::Bitcast, t, &[x])
            }
            TKind::HalfBits(a) => {
                let x = self.expr(a)?;
                self.half_bits(x)
            }
            TKind::ParamLane(p, idx, tests, lane) => {
                let masked = tests.iter().any(|t| *t);
                let v = self.run_load(*p, idx, masked, |pr, at| pr.vector_load(*p, at, masked))?;
                let t = self.ty(self.buffers[p.0].kind);
                self.extract(t, v, *lane)
            }
            TKind::Tile(el) => self.tile_load(el)?,
            TKind::FragmentSlot(t) if self.element_args.contains_key(t) => self.element_args[t],
            TKind::FragmentSlot(t) if self.element_cell.is_some_and(|(c, _)| c == *t) => {
                let cell = self.element_cell.expect("tested").1;
                let ty = self.ty(Kind::of(self.l.tiles[*t].dtype));
                self.inst(Op::Load, ty, &[cell])
            }
            TKind::FragmentSlot(t) => {
                let slot = if self.l.tiles[*t].row_statistic() { self.row_slot } else { self.slot };
                let slot = match slot {
                    Some(s) => s,
                    None => self.u(0),
                };
                let t = self.fragment_tile(*t);
                let ptr = self.tile_ptr(t, slot);
                let ty = self.ty(Kind::of(self.l.tiles[t].dtype));
                self.inst(Op::Load, ty, &[ptr])
            }
            TKind::Param(p, idx, tests) => {
                if let Some(lane) = self.run_lane
                    && let Some((_, _, v, xor)) =
                        self.run_reads.iter().find(|(q, ix, _, _)| q == p && ix == idx).cloned()
                {
                    let t = self.ty(self.buffers[p.0].kind);
                    return Ok(self.extract(t, v, (lane ^ xor) % 4));
                }
                let coords = idx.iter().map(|i| self.expr(i)).collect::<Result<Vec<_>, _>>()?;
                self.param_load(*p, &coords, tests)?
            }
            TKind::Word(p, i, tested) => {
                let i = self.expr(i)?;
                if *tested { self.word_read(*p, i)? } else { self.word_at(*p, i) }
            }
            TKind::WordLane(p, first, lane) => {
                let first = std::slice::from_ref(&**first);
                let v = self.run_load(*p, first, false, |pr, at| pr.word_run(*p, at[0]))?;
                let u = self.ty(Kind::U32);
                self.extract(u, v, *lane)
            }
        })
    }

    /// The f16 in the low bits of u32 `x`, as f32.
    fn half_bits(&mut self, x: Word) -> Word {
        let v2 = self.vec_ty(Kind::F32, 2);
        let v = self.glsl(GLOp::UnpackHalf2x16, v2, &[x]);
        let f = self.ty(Kind::F32);
        self.extract(f, v, 0)
    }

    fn binary(&mut self, op: BinOp, k: Kind, result: Kind, x: Word, y: Word) -> Word {
        let t = self.ty(result);
        let (f, s) = (k.is_float(), k == Kind::I32);
        let pick = |fo: Op, uo: Op, so: Op| {
            if f {
                fo
            } else if s {
                so
            } else {
                uo
            }
        };
        let o = match op {
            BinOp::Add => pick(Op::FAdd, Op::IAdd, Op::IAdd),
            BinOp::Sub => pick(Op::FSub, Op::ISub, Op::ISub),
            BinOp::Mul => pick(Op::FMul, Op::IMul, Op::IMul),
            BinOp::Div => pick(Op::FDiv, Op::UDiv, Op::SDiv),
            BinOp::Rem => pick(Op::FRem, Op::UMod, Op::SRem),
            BinOp::Lt => pick(Op::FOrdLessThan, Op::ULessThan, Op::SLessThan),
            BinOp::Le => pick(Op::FOrdLessThanEqual, Op::ULessThanEqual, Op::SLessThanEqual),
            BinOp::Gt => pick(Op::FOrdGreaterThan, Op::UGreaterThan, Op::SGreaterThan),
            BinOp::Ge => {
                pick(Op::FOrdGreaterThanEqual, Op::UGreaterThanEqual, Op::SGreaterThanEqual)
            }
            BinOp::Eq if k == Kind::Bool => Op::LogicalEqual,
            BinOp::Ne if k == Kind::Bool => Op::LogicalNotEqual,
            BinOp::Eq => pick(Op::FOrdEqual, Op::IEqual, Op::IEqual),
            BinOp::Ne => pick(Op::FUnordNotEqual, Op::INotEqual, Op::INotEqual),
            BinOp::And if k == Kind::Bool => Op::LogicalAnd,
            BinOp::Or if k == Kind::Bool => Op::LogicalOr,
            BinOp::And | BinOp::BitAnd => Op::BitwiseAnd,
            BinOp::Or | BinOp::BitOr => Op::BitwiseOr,
            BinOp::BitXor => Op::BitwiseXor,
            BinOp::Shl => Op::ShiftLeftLogical,
            BinOp::Shr => {
                pick(Op::ShiftRightLogical, Op::ShiftRightLogical, Op::ShiftRightArithmetic)
            }
            BinOp::Max | BinOp::Min => {
                return self.glsl(extremum(op == BinOp::Max, f, s), t, &[x, y]);
            }
            BinOp::Pow => return self.glsl(GLOp::Pow, t, &[x, y]),
            BinOp::Dot4I8 => return self.packed_dot(t, x, y),
        };
        self.inst(o, t, &[x, y])
    }

    fn math(&mut self, f: MathFn, k: Kind, x: Word) -> Word {
        let t = self.ty(k);
        let g = match f {
            MathFn::Exp => GLOp::Exp,
            MathFn::Log => GLOp::Log,
            MathFn::Sqrt => GLOp::Sqrt,
            MathFn::Rsqrt => GLOp::InverseSqrt,
            MathFn::Tanh => GLOp::Tanh,
            MathFn::Abs if k.is_float() => GLOp::FAbs,
            MathFn::Abs if k == Kind::I32 => GLOp::SAbs,
            MathFn::Abs => return x,
            MathFn::Exp2 => GLOp::Exp2,
            MathFn::Log2 => GLOp::Log2,
            MathFn::Floor => GLOp::Floor,
            MathFn::Round => GLOp::RoundEven,
            MathFn::Sin => GLOp::Sin,
            MathFn::Cos => GLOp::Cos,
            MathFn::Neg => {
                let op = if k.is_float() { Op::FNegate } else { Op::SNegate };
                return self.inst(op, t, &[x]);
            }
            MathFn::Erf => {
                let x32 = self.convert(x, k, Kind::F32);
                let e = self.erf(x32);
                return self.convert(e, Kind::F32, k);
            }
        };
        self.glsl(g, t, &[x])
    }

    /// erf by Abramowitz & Stegun 7.1.26 (max error 1.5e-7), the WGSL back end's `tc_erf`.
    fn erf(&mut self, x: Word) -> Word {
        let f = self.ty(Kind::F32);
        // The coefficients as f32 literals round (the WGSL text's), from f64.
        let c = |p: &mut Self, v: f64| p.constant(Kind::F32, v);
        let ax = self.glsl(GLOp::FAbs, f, &[x]);
        let (one, a) = (c(self, 1.0), c(self, 0.3275911));
        let den = self.inst(Op::FMul, f, &[a, ax]);
        let den = self.inst(Op::FAdd, f, &[one, den]);
        let t = self.inst(Op::FDiv, f, &[one, den]);
        let mut poly = c(self, 1.061405429);
        for coef in [-1.453152027f64, 1.421413741, -0.284496736, 0.254829592] {
            poly = self.inst(Op::FMul, f, &[poly, t]);
            let cc = c(self, coef.abs());
            let op = if coef < 0.0 { Op::FSub } else { Op::FAdd };
            poly = self.inst(op, f, &[poly, cc]);
        }
        poly = self.inst(Op::FMul, f, &[poly, t]);
        let nx = self.inst(Op::FNegate, f, &[x]);
        let sq = self.inst(Op::FMul, f, &[nx, x]);
        let ex = self.glsl(GLOp::Exp, f, &[sq]);
        let prod = self.inst(Op::FMul, f, &[poly, ex]);
        let y = self.inst(Op::FSub, f, &[one, prod]);
        let ny = self.inst(Op::FNegate, f, &[y]);
        let zero = c(self, 0.0);
        let b = self.ty(Kind::Bool);
        let pos = self.inst(Op::FOrdGreaterThanEqual, b, &[x, zero]);
        self.inst(Op::Select, f, &[pos, y, ny])
    }

    /// Row-major linear index of `coords` in parameter `p`, and the bound test of each axis.
    pub(super) fn param_index(
        &mut self,
        p: ParamIx,
        coords: &[Word],
    ) -> Result<(Word, Vec<Word>), Unsupported> {
        let shape = self.l.params[p].shape.clone();
        let mut lin = coords[0];
        let mut inside = Vec::new();
        for (d, dim) in shape.iter().enumerate() {
            let n = self.expr(dim)?;
            inside.push(self.ucmp(Op::ULessThan, coords[d], n));
            if d > 0 {
                let m = self.uop(Op::IMul, lin, n);
                lin = self.uop(Op::IAdd, m, coords[d]);
            }
        }
        Ok((lin, inside))
    }

    /// A pointer to element `index` of buffer `var` of element type `ty`.
    pub(crate) fn buffer_ptr(&mut self, var: Word, ty: Word, index: Word) -> Word {
        let ptr = self.ptr(StorageClass::StorageBuffer, ty);
        let zero = self.u(0);
        self.inst(Op::AccessChain, ptr, &[var, zero, index])
    }

    /// Element `coords` of parameter `p`, zero where an axis marked in `tests` is out of bounds.
    pub(crate) fn param_load(
        &mut self,
        p: ParamIx,
        coords: &[Word],
        tests: &[bool],
    ) -> Result<Word, Unsupported> {
        let (lin, inside) = self.param_index(p, coords)?;
        let kept: Vec<Word> =
            inside.iter().zip(tests).filter(|(_, t)| **t).map(|(c, _)| *c).collect();
        let b = self.buffers[p.0];
        let t = self.ty(b.kind);
        let read = |pr: &mut Self, at: Word| match b.packed {
            Some(d) => pr.packed_element(p, d, at),
            None => {
                let ptr = pr.buffer_ptr(b.var, t, at);
                if b.atomic {
                    let (scope, sem) = pr.device_relaxed();
                    return pr.inst(Op::AtomicLoad, t, &[ptr, scope, sem]);
                }
                pr.inst(Op::Load, t, &[ptr])
            }
        };
        if kept.is_empty() {
            return Ok(read(self, lin));
        }
        // Out of bounds reads element 0 (every bound buffer holds one) and gives zero.
        let cond = self.all(&kept);
        let zero_u = self.u(0);
        let u = self.ty(Kind::U32);
        let safe = self.inst(Op::Select, u, &[cond, lin, zero_u]);
        let v = read(self, safe);
        let zero = self.constant(b.kind, 0.0);
        Ok(self.inst(Op::Select, t, &[cond, v, zero]))
    }

    /// Stores `v` to element `coords` of parameter `p`, dropped where a tested axis is out of
    /// bounds.
    pub(crate) fn param_store(
        &mut self,
        p: ParamIx,
        coords: &[Word],
        tests: &[bool],
        v: Word,
    ) -> Result<(), Unsupported> {
        let (lin, inside) = self.param_index(p, coords)?;
        let kept: Vec<Word> =
            inside.iter().zip(tests).filter(|(_, t)| **t).map(|(c, _)| *c).collect();
        let b = self.buffers[p.0];
        let t = self.ty(b.kind);
        let write = |pr: &mut Self| {
            match b.packed {
                Some(d) => pr.packed_store(p, d, lin, v),
                None if b.atomic => {
                    let ptr = pr.buffer_ptr(b.var, t, lin);
                    let (scope, sem) = pr.device_relaxed();
                    pr.b.atomic_store(ptr, scope, sem, v).expect("in a block");
                }
                None => {
                    let ptr = pr.buffer_ptr(b.var, t, lin);
                    pr.b.store(ptr, v, None, []).expect("in a block");
                }
            }
            Ok(())
        };
        if kept.is_empty() {
            return write(self);
        }
        let cond = self.all(&kept);
        self.if_then(cond, write)
    }

    /// Device scope and relaxed semantics, the operands of the atomics WGSL's are.
    pub(crate) fn device_relaxed(&mut self) -> (Word, Word) {
        let scope = self.u(rspirv::spirv::Scope::Device as u32);
        let sem = self.u(rspirv::spirv::MemorySemantics::RELAXED.bits());
        (scope, sem)
    }

    /// Adds `v` atomically to element `coords` of parameter `p`, dropped out of bounds.
    pub(crate) fn atomic_add(
        &mut self,
        p: ParamIx,
        index: &[TExpr],
        value: &TExpr,
    ) -> Result<(), Unsupported> {
        let v = self.expr(value)?;
        let coords = index.iter().map(|i| self.expr(i)).collect::<Result<Vec<_>, _>>()?;
        let (lin, inside) = self.param_index(p, &coords)?;
        let b = self.buffers[p.0];
        let t = self.ty(b.kind);
        let cond = self.all(&inside);
        self.if_then(cond, |pr| {
            let ptr = pr.buffer_ptr(b.var, t, lin);
            let (scope, sem) = pr.device_relaxed();
            pr.inst(Op::AtomicIAdd, t, &[ptr, scope, sem, v]);
            Ok(())
        })
    }

    /// The tile a fragment's elements are read and written through inside a parallel loop:
    /// its registers, or for matrix fragments the scratch tile each matrix visits in turn.
    pub(crate) fn fragment_tile(&self, tile: TileIx) -> TileIx {
        self.l.tiles[tile].matrix().and_then(|m| m.scratch).unwrap_or(tile)
    }

    /// A pointer to element `index` of tile `tile`'s array.
    pub(crate) fn tile_ptr(&mut self, tile: TileIx, index: Word) -> Word {
        let (var, class) = self.tile_vars[tile.0].expect("every non-matrix tile has an array");
        let ty = self.ty(Kind::of(self.l.tiles[tile].dtype));
        let ptr = self.ptr(class, ty);
        self.inst(Op::AccessChain, ptr, &[var, index])
    }

    /// Element `lin` (row-major over the tile's shape, stages included) of `tile` in its
    /// array: `lin` itself, or with padded rows `(lin / row) * pitch + lin % row`.
    pub(crate) fn at(&mut self, tile: TileIx, lin: Word) -> Word {
        let t = &self.l.tiles[tile];
        if t.row_pad == 0 {
            return lin;
        }
        let (row, pitch) = (t.shape.last().copied().unwrap_or(1), t.row_pitch());
        let (row, pitch) = (self.u(row), self.u(pitch));
        let q = self.uop(Op::UDiv, lin, row);
        let r = self.uop(Op::UMod, lin, row);
        let m = self.uop(Op::IMul, q, pitch);
        self.uop(Op::IAdd, m, r)
    }

    /// `stage * stored elements` of a staged slot, else `None`.
    pub(crate) fn stage_offset(&mut self, slot: &TileSlot) -> Result<Option<Word>, Unsupported> {
        match &slot.stage {
            Some(s) => {
                let s = self.expr(s)?;
                let n = self.u(self.l.tiles[slot.tile].stored_elements() as u32);
                Ok(Some(self.uop(Op::IMul, s, n)))
            }
            None => Ok(None),
        }
    }

    /// `off + i` (or `i`).
    pub(crate) fn offset(&mut self, off: Option<Word>, i: Word) -> Word {
        match off {
            Some(o) => self.uop(Op::IAdd, o, i),
            None => i,
        }
    }

    /// The linear index of `el`, and the in-bounds condition when its bounds are checked.
    pub(crate) fn tile_index(
        &mut self,
        el: &TileElem,
    ) -> Result<(Word, Option<Word>), Unsupported> {
        let t = &self.l.tiles[el.tile];
        let (shape, pitch, stored) = (t.shape.clone(), t.row_pitch(), t.stored_elements());
        let mut lin = None;
        let mut conds = Vec::new();
        for (i, e) in el.index.iter().enumerate() {
            let x = self.expr(e)?;
            let n = self.u(shape[i]);
            conds.push(self.ucmp(Op::ULessThan, x, n));
            let step = if i + 1 == shape.len() { pitch } else { shape[i] };
            lin = Some(match lin {
                None => x,
                Some(l) => {
                    let s = self.u(step);
                    let m = self.uop(Op::IMul, l, s);
                    self.uop(Op::IAdd, m, x)
                }
            });
        }
        let mut lin = lin.unwrap_or_else(|| self.u(0));
        if let Some(s) = &el.stage {
            let s = self.expr(s)?;
            let n = self.u(stored as u32);
            let m = self.uop(Op::IMul, s, n);
            lin = self.uop(Op::IAdd, m, lin);
        }
        let cond = (el.bounds == Bounds::Checked).then(|| self.all(&conds));
        Ok((lin, cond))
    }

    fn tile_load(&mut self, el: &TileElem) -> Result<Word, Unsupported> {
        let t = &self.l.tiles[el.tile];
        let (kind, total) = (Kind::of(t.dtype), t.stored_elements() * t.stages as u64);
        let ty = self.ty(kind);
        Ok(match self.tile_index(el)? {
            (lin, None) => {
                let ptr = self.tile_ptr(el.tile, lin);
                self.inst(Op::Load, ty, &[ptr])
            }
            // The clamp keeps the read inside the array; the select gives zero outside the tile.
            (lin, Some(cond)) => {
                let last = self.u(total as u32 - 1);
                let u = self.ty(Kind::U32);
                let safe = self.glsl(GLOp::UMin, u, &[lin, last]);
                let ptr = self.tile_ptr(el.tile, safe);
                let v = self.inst(Op::Load, ty, &[ptr]);
                let zero = self.constant(kind, 0.0);
                self.inst(Op::Select, ty, &[cond, v, zero])
            }
        })
    }
}
