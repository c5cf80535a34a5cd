//! Reductions (serial per output, one subgroup per output, split over subgroups; from a
//! fragment's registers in `reduce_registers`) and inclusive scans, as the WGSL back end prints them; accumulators
//! are function variables, subgroup steps `OpGroupNonUniform*` reductions.

use rspirv::spirv::{GroupOperation, Op, Scope, Word};

use super::kinds::{Kind, extremum};
use super::{Printer, Unsupported};
use crate::ir::{DType, ReduceOp};
use crate::lir::{Dist, Reduce, ReduceLines, ReducePath, ReduceStrategy, TileIx, final_op};

type R = Result<(), Unsupported>;

/// The comparison that makes `x` a better pick than the best so far for argmax / argmin.
pub(crate) fn better(op: ReduceOp, k: Kind) -> Op {
    match (op, k.is_float(), k == Kind::I32) {
        (ReduceOp::Argmax, true, _) => Op::FOrdGreaterThan,
        (ReduceOp::Argmax, _, true) => Op::SGreaterThan,
        (ReduceOp::Argmax, ..) => Op::UGreaterThan,
        (_, true, _) => Op::FOrdLessThan,
        (_, _, true) => Op::SLessThan,
        _ => Op::ULessThan,
    }
}

impl Printer<'_> {
    /// The identity of `op` on kind `k`.
    pub(crate) fn identity(&mut self, op: ReduceOp, k: Kind) -> Word {
        let d = match k {
            Kind::F32 => DType::F32,
            Kind::F16 => DType::F16,
            Kind::I32 => DType::I32,
            _ => DType::U32,
        };
        let v = op.identity(d);
        if k == Kind::F32 && v.is_infinite() {
            let t = self.ty(k);
            let bits = if v > 0.0 { 0x7f80_0000 } else { 0xff80_0000 };
            return self.bits(t, bits);
        }
        if k == Kind::F16 && v.is_infinite() {
            let t = self.ty(k);
            return self.bits(t, if v > 0.0 { 0x7c00 } else { 0xfc00 });
        }
        self.constant(k, v)
    }

    /// `acc` combined with `v` (both of kind `k`).
    pub(crate) fn combine(&mut self, op: ReduceOp, k: Kind, acc: Word, v: Word) -> Word {
        use rspirv::spirv::GlslStd450Op as G;
        let t = self.ty(k);
        let (f, s) = (k.is_float(), k == Kind::I32);
        let add = if f { Op::FAdd } else { Op::IAdd };
        match op {
            ReduceOp::Sum => self.inst(add, t, &[acc, v]),
            ReduceOp::AbsSum => {
                let a = match k {
                    Kind::F32 | Kind::F16 => self.glsl(G::FAbs, t, &[v]),
                    Kind::I32 => self.glsl(G::SAbs, t, &[v]),
                    _ => v,
                };
                self.inst(add, t, &[acc, a])
            }
            ReduceOp::SqSum => {
                let m = self.inst(if f { Op::FMul } else { Op::IMul }, t, &[v, v]);
                self.inst(add, t, &[acc, m])
            }
            ReduceOp::Max | ReduceOp::Min => {
                self.glsl(extremum(op == ReduceOp::Max, f, s), t, &[acc, v])
            }
            ReduceOp::Argmax | ReduceOp::Argmin => unreachable!("index reductions track a pair"),
        }
    }

    /// `v` reduced across the subgroup with `op` (`Sum` for the sums).
    pub(crate) fn subgroup_reduce(&mut self, op: ReduceOp, k: Kind, v: Word) -> Word {
        let t = self.ty(k);
        let (f, s) = (k.is_float(), k == Kind::I32);
        let o = match final_op(op) {
            ReduceOp::Max if f => Op::GroupNonUniformFMax,
            ReduceOp::Max if s => Op::GroupNonUniformSMax,
            ReduceOp::Max => Op::GroupNonUniformUMax,
            ReduceOp::Min if f => Op::GroupNonUniformFMin,
            ReduceOp::Min if s => Op::GroupNonUniformSMin,
            ReduceOp::Min => Op::GroupNonUniformUMin,
            _ if f => Op::GroupNonUniformFAdd,
            _ => Op::GroupNonUniformIAdd,
        };
        let scope = self.u(Scope::Subgroup as u32);
        let id = self.b.id();
        self.emit(rspirv::dr::Instruction::new(
            o,
            Some(t),
            Some(id),
            vec![
                rspirv::dr::Operand::IdScope(scope),
                rspirv::dr::Operand::GroupOperation(GroupOperation::Reduce),
                rspirv::dr::Operand::IdRef(v),
            ],
        ));
        id
    }

    /// Linear index into `shape` with `axis` at `r` and the other axes at `kept`.
    fn line_index(&mut self, shape: &[u32], axis: usize, r: Word, kept: &[Word]) -> Word {
        let mut lin = None;
        let mut q = kept.iter();
        for (i, dim) in shape.iter().enumerate() {
            let c = if i == axis { r } else { *q.next().expect("a coordinate per kept axis") };
            lin = Some(match lin {
                None => c,
                Some(l) => {
                    let d = self.u(*dim);
                    let m = self.uop(Op::IMul, l, d);
                    self.uop(Op::IAdd, m, c)
                }
            });
        }
        lin.unwrap_or(r)
    }

    /// A function variable of kind `k` holding the identity of `op`.
    pub(crate) fn accumulator(&mut self, op: ReduceOp, k: Kind) -> Word {
        let init = self.identity(op, k);
        let t = self.ty(k);
        self.local_var(t, init)
    }

    /// `acc = acc op x` on the variable `acc` (kind `k`); returns the new value.
    pub(crate) fn accumulate(&mut self, acc: Word, op: ReduceOp, k: Kind, x: Word) -> Word {
        let a = self.load_var(acc, k);
        let c = self.combine(op, k, a, x);
        self.b.store(acc, c, None, []).expect("in a block");
        c
    }

    /// `if (cond) { var = value; ... }` for each (variable, value) pair.
    pub(crate) fn keep_if(&mut self, cond: Word, pairs: [(Word, Word); 2]) -> R {
        self.if_then(cond, |p| {
            for (var, value) in pairs {
                p.b.store(var, value, None, []).expect("in a block");
            }
            Ok(())
        })
    }

    /// Element `r` along `axis` of a line of tile `t` (stage offset `so`; `shape`, with the
    /// other axes at `kept`).
    fn line_get(
        &mut self,
        t: TileIx,
        so: Option<Word>,
        (shape, axis, kept): (&[u32], usize, &[Word]),
        r: Word,
    ) -> Word {
        let at = self.line_index(shape, axis, r, kept);
        let at = self.offset(so, at);
        self.tile_get(t, at)
    }

    /// Loads element `idx` of tile `t`.
    pub(crate) fn tile_get(&mut self, t: TileIx, idx: Word) -> Word {
        let k = self.tile_kind(t);
        let ty = self.ty(k);
        let ptr = self.tile_ptr(t, idx);
        self.inst(Op::Load, ty, &[ptr])
    }

    /// Stores `v` (kind `k`) to element `idx` of tile `t`.
    pub(crate) fn tile_set(&mut self, t: TileIx, idx: Word, v: Word, k: Kind) {
        let v = self.convert(v, k, self.tile_kind(t));
        let ptr = self.tile_ptr(t, idx);
        self.b.store(ptr, v, None, []).expect("in a block");
    }

    pub(crate) fn load_var(&mut self, var: Word, k: Kind) -> Word {
        let t = self.ty(k);
        self.inst(Op::Load, t, &[var])
    }

    fn sg(&self) -> (Word, Word, Word, Word) {
        let [lane, size, id, count] = self.subgroup;
        (lane, size, id, count)
    }

    /// `if (sg_lane == 0u) { body }`.
    pub(crate) fn lane_zero(&mut self, body: impl FnOnce(&mut Self) -> R) -> R {
        let zero = self.u(0);
        let first = self.ucmp(Op::IEqual, self.subgroup[0], zero);
        self.if_then(first, body)
    }

    pub(crate) fn reduce(&mut self, r: &Reduce) -> R {
        match r.path() {
            ReducePath::Lines => self.reduce_lines(r),
            ReducePath::Split(partials) => self.reduce_split(r, partials),
            ReducePath::Registers(g) => self.reduce_registers(r, &g),
            ReducePath::RegisterArgs(g, args) => self.reduce_registers_arg(r, &g, args),
            ReducePath::Lanes(lanes, unroll) => self.reduce_lanes(r, lanes, unroll),
            ReducePath::WorkgroupRows => self.reduce_workgroup_rows(r),
        }
    }

    /// Serial (one thread per output) or subgroup (one subgroup per output) line reductions.
    fn reduce_lines(&mut self, r: &Reduce) -> R {
        let Reduce { op, ref src, dst, axis, clear, dist, strategy } = *r;
        let so = self.stage_offset(src)?;
        let sk = Kind::of(self.l.tiles[src.tile].dtype);
        let ReduceLines { shape, outputs: outs, len, out_shape } = r.lines(&self.l.tiles);
        let body = |p: &mut Self, o: Word| -> R {
            let kept = if out_shape.is_empty() { Vec::new() } else { p.coords(o, &out_shape) };
            if op.is_arg() {
                let zero = p.u(0);
                let v = p.line_get(src.tile, so, (&shape, axis, &kept), zero);
                let t = p.ty(sk);
                let best = p.local_var(t, v);
                let u = p.ty(Kind::U32);
                let arg = p.local_var(u, zero);
                let (one, end) = (p.u(1), p.u(len));
                p.loop_range(one, end, one, |p, r| {
                    let x = p.line_get(src.tile, so, (&shape, axis, &kept), r);
                    let b = p.load_var(best, sk);
                    let cmp = better(op, sk);
                    let better = p.ucmp(cmp, x, b);
                    p.keep_if(better, [(best, x), (arg, r)])
                })?;
                let a = p.load_var(arg, Kind::U32);
                p.tile_set(dst, o, a, Kind::U32);
                return Ok(());
            }
            let acc = p.accumulator(op, sk);
            let (start, step) = match strategy {
                ReduceStrategy::Serial => (p.u(0), p.u(1)),
                _ => (p.subgroup[0], p.subgroup[1]),
            };
            let end = p.u(len);
            p.loop_range(start, end, step, |p, r| {
                let x = p.line_get(src.tile, so, (&shape, axis, &kept), r);
                p.accumulate(acc, op, sk, x);
                Ok(())
            })?;
            let mut a = p.load_var(acc, sk);
            let serial = matches!(strategy, ReduceStrategy::Serial);
            if !serial {
                a = p.subgroup_reduce(op, sk, a);
            }
            let write = |p: &mut Self| -> R {
                let result = if clear {
                    a
                } else {
                    let old = p.tile_get(dst, o);
                    let old = p.convert(old, p.tile_kind(dst), sk);
                    p.combine(final_op(op), sk, old, a)
                };
                p.tile_set(dst, o, result, sk);
                Ok(())
            };
            if serial { write(p) } else { p.lane_zero(write) }
        };
        match strategy {
            ReduceStrategy::Serial => self.elements(outs, dist, body),
            _ => {
                let (_, _, id, count) = self.sg();
                let end = self.u(outs as u32);
                self.loop_range(id, end, count, body)
            }
        }
    }

    /// `g = subgroups / outputs` subgroups per output (at least one): each reduces a strided
    /// share of the line, lane 0 writes the subgroup's partial to `partials[o * g + part]`, and
    /// after a barrier one thread per output combines its `g` partials.
    fn reduce_split(&mut self, r: &Reduce, partials: TileIx) -> R {
        let Reduce { op, ref src, dst, axis, clear, .. } = *r;
        use rspirv::spirv::GlslStd450Op as G;
        let so = self.stage_offset(src)?;
        let sk = Kind::of(self.l.tiles[src.tile].dtype);
        let ReduceLines { shape, outputs: outs, len, out_shape } = r.lines(&self.l.tiles);
        let fin = final_op(op);
        let (lane, size, id, count) = self.sg();
        let u = self.ty(Kind::U32);
        let (one, outs_c, len_c) = (self.u(1), self.u(outs as u32), self.u(len));
        let per = self.uop(Op::UDiv, count, outs_c);
        let g = self.glsl(G::UMax, u, &[per, one]);
        let start = self.uop(Op::UDiv, id, g);
        let q = self.uop(Op::UDiv, count, g);
        let step = self.glsl(G::UMax, u, &[q, one]);
        self.loop_range(start, outs_c, step, |p, o| {
            let kept = if out_shape.is_empty() { Vec::new() } else { p.coords(o, &out_shape) };
            let acc = p.accumulator(op, sk);
            let part = p.uop(Op::UMod, id, g);
            let m = p.uop(Op::IMul, part, size);
            let r0 = p.uop(Op::IAdd, m, lane);
            let rstep = p.uop(Op::IMul, g, size);
            p.loop_range(r0, len_c, rstep, |p, r| {
                let x = p.line_get(src.tile, so, (&shape, axis, &kept), r);
                p.accumulate(acc, op, sk, x);
                Ok(())
            })?;
            let a = p.load_var(acc, sk);
            let a = p.subgroup_reduce(op, sk, a);
            p.lane_zero(|p| {
                let m = p.uop(Op::IMul, o, g);
                let part = p.uop(Op::UMod, id, g);
                let at = p.uop(Op::IAdd, m, part);
                p.tile_set(partials, at, a, sk);
                Ok(())
            })
        })?;
        self.barrier();
        let stride = g;
        self.combine_partials(fin, sk, (partials, stride, g), dst, outs, clear)
    }

    /// One thread per output `o < outs` combines `count` partials at
    /// `partials[o * stride + k]` with `op` (a sum for sums), and writes `dst[o]` (combined
    /// with its old value unless `clear`).
    pub(crate) fn combine_partials(
        &mut self,
        op: ReduceOp,
        sk: Kind,
        (partials, stride, count): (TileIx, Word, Word),
        dst: TileIx,
        outs: u64,
        clear: bool,
    ) -> R {
        self.elements(outs, Dist::Threads, |p, o| {
            let acc = p.accumulator(op, sk);
            let (zero, one) = (p.u(0), p.u(1));
            p.loop_range(zero, count, one, |p, k| {
                let m = p.uop(Op::IMul, o, stride);
                let at = p.uop(Op::IAdd, m, k);
                let x = p.tile_get(partials, at);
                let x = p.convert(x, p.tile_kind(partials), sk);
                p.accumulate(acc, op, sk, x);
                Ok(())
            })?;
            let a = p.load_var(acc, sk);
            let result = if clear {
                a
            } else {
                let old = p.tile_get(dst, o);
                let old = p.convert(old, p.tile_kind(dst), sk);
                p.combine(op, sk, old, a)
            };
            p.tile_set(dst, o, result, sk);
            Ok(())
        })
    }

    pub(crate) fn cumsum(&mut self, src: TileIx, dst: TileIx, axis: usize, dist: Dist) -> R {
        let s = &self.l.tiles[src];
        let (sk, shape) = (Kind::of(s.dtype), s.shape.clone());
        let len = shape[axis];
        let mut line_shape = shape.clone();
        line_shape.remove(axis);
        let lines: u64 = line_shape.iter().map(|&x| x as u64).product();
        self.elements(lines, dist, |p, o| {
            let kept = if line_shape.is_empty() { Vec::new() } else { p.coords(o, &line_shape) };
            let zero_v = p.constant(sk, 0.0);
            let t = p.ty(sk);
            let acc = p.local_var(t, zero_v);
            let (zero, end, one) = (p.u(0), p.u(len), p.u(1));
            p.loop_range(zero, end, one, |p, r| {
                let lin = p.line_index(&shape, axis, r, &kept);
                let x = p.tile_get(src, lin);
                let c = p.accumulate(acc, ReduceOp::Sum, sk, x);
                p.tile_set(dst, lin, c, sk);
                Ok(())
            })
        })
    }
}
