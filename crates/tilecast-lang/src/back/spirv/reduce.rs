//! Reductions (serial per output, one subgroup per output, split over subgroups, or from a
//! fragment's registers) and inclusive scans, as the WGSL back end prints them; accumulators
//! are function variables, subgroup steps `OpGroupNonUniform*` reductions.

use rspirv::spirv::{GroupOperation, Op, Scope, Word};

use super::module::Kind;
use super::{Printer, Unsupported};
use crate::ir::ReduceOp;
use crate::lir::{Dist, ReduceStrategy, TileSlot};

type R = Result<(), Unsupported>;

/// The operator partial results combine with (they are already absolute values or squares).
fn final_op(op: ReduceOp) -> ReduceOp {
    if matches!(op, ReduceOp::AbsSum | ReduceOp::SqSum) { ReduceOp::Sum } else { op }
}

impl Printer<'_> {
    /// The identity of `op` on kind `k`.
    fn identity(&mut self, op: ReduceOp, k: Kind) -> Word {
        let v = match (op, k) {
            (ReduceOp::Max, Kind::F32 | Kind::F16) => f64::NEG_INFINITY,
            (ReduceOp::Min, Kind::F32 | Kind::F16) => f64::INFINITY,
            (ReduceOp::Max, Kind::I32) => i32::MIN as f64,
            (ReduceOp::Min, Kind::I32) => i32::MAX as f64,
            (ReduceOp::Min, _) => u32::MAX as f64,
            _ => 0.0,
        };
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
    fn combine(&mut self, op: ReduceOp, k: Kind, acc: Word, v: Word) -> Word {
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
            ReduceOp::Max => {
                let g = if f {
                    G::FMax
                } else if s {
                    G::SMax
                } else {
                    G::UMax
                };
                self.glsl(g, t, &[acc, v])
            }
            ReduceOp::Min => {
                let g = if f {
                    G::FMin
                } else if s {
                    G::SMin
                } else {
                    G::UMin
                };
                self.glsl(g, t, &[acc, v])
            }
            ReduceOp::Argmax | ReduceOp::Argmin => unreachable!("index reductions track a pair"),
        }
    }

    /// `v` reduced across the subgroup with `op` (`Sum` for the sums).
    fn subgroup_reduce(&mut self, op: ReduceOp, k: Kind, v: Word) -> Word {
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

    /// Loads element `idx` of tile `t`.
    fn tile_get(&mut self, t: usize, idx: Word) -> Word {
        let k = self.tile_kind(t);
        let ty = self.ty(k);
        let ptr = self.tile_ptr(t, idx);
        self.inst(Op::Load, ty, &[ptr])
    }

    /// Stores `v` (kind `k`) to element `idx` of tile `t`.
    fn tile_set(&mut self, t: usize, idx: Word, v: Word, k: Kind) {
        let v = self.convert(v, k, self.tile_kind(t));
        let ptr = self.tile_ptr(t, idx);
        self.b.store(ptr, v, None, []).expect("in a block");
    }

    fn load_var(&mut self, var: Word, k: Kind) -> Word {
        let t = self.ty(k);
        self.inst(Op::Load, t, &[var])
    }

    fn sg(&self) -> (Word, Word, Word, Word) {
        let [lane, size, id, count] = self.subgroup;
        (lane, size, id, count)
    }

    /// `if (sg_lane == 0u) { body }`.
    fn lane_zero(&mut self, body: impl FnOnce(&mut Self) -> R) -> R {
        let zero = self.u(0);
        let first = self.ucmp(Op::IEqual, self.subgroup[0], zero);
        self.if_then(first, body)
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn reduce(
        &mut self,
        op: ReduceOp,
        src: &TileSlot,
        dst: usize,
        axis: usize,
        clear: bool,
        dist: Dist,
        strategy: ReduceStrategy,
    ) -> R {
        if let ReduceStrategy::SplitSubgroups { partials } = strategy {
            return self.reduce_split(op, src, dst, axis, clear, partials);
        }
        if let ReduceStrategy::Registers { .. } = strategy {
            return self.reduce_registers(op, src.tile, dst, clear, strategy);
        }
        let so = self.stage_offset(src)?;
        let s = &self.l.tiles[src.tile];
        let (sk, shape) = (Kind::of(s.dtype), s.shape.clone());
        let (outs, len) = (self.l.tiles[dst].elements(), shape[axis]);
        let mut out_shape = shape.clone();
        out_shape.remove(axis);
        let body = |p: &mut Self, o: Word| -> R {
            let kept = if out_shape.is_empty() { Vec::new() } else { p.coords(o, &out_shape) };
            if op.is_arg() {
                let zero = p.u(0);
                let first = p.line_index(&shape, axis, zero, &kept);
                let first = p.offset(so, first);
                let v = p.tile_get(src.tile, first);
                let t = p.ty(sk);
                let best = p.local_var(t, v);
                let u = p.ty(Kind::U32);
                let arg = p.local_var(u, zero);
                let (one, end) = (p.u(1), p.u(len));
                p.loop_range(one, end, one, |p, r| {
                    let at = p.line_index(&shape, axis, r, &kept);
                    let at = p.offset(so, at);
                    let x = p.tile_get(src.tile, at);
                    let b = p.load_var(best, sk);
                    let cmp = match (op, sk.is_float(), sk == Kind::I32) {
                        (ReduceOp::Argmax, true, _) => Op::FOrdGreaterThan,
                        (ReduceOp::Argmax, _, true) => Op::SGreaterThan,
                        (ReduceOp::Argmax, ..) => Op::UGreaterThan,
                        (_, true, _) => Op::FOrdLessThan,
                        (_, _, true) => Op::SLessThan,
                        _ => Op::ULessThan,
                    };
                    let better = p.ucmp(cmp, x, b);
                    p.if_then(better, |p| {
                        p.b.store(best, x, None, []).expect("in a block");
                        p.b.store(arg, r, None, []).expect("in a block");
                        Ok(())
                    })
                })?;
                let a = p.load_var(arg, Kind::U32);
                p.tile_set(dst, o, a, Kind::U32);
                return Ok(());
            }
            let init = p.identity(op, sk);
            let t = p.ty(sk);
            let acc = p.local_var(t, init);
            let (start, step) = match strategy {
                ReduceStrategy::Serial => (p.u(0), p.u(1)),
                _ => (p.subgroup[0], p.subgroup[1]),
            };
            let end = p.u(len);
            p.loop_range(start, end, step, |p, r| {
                let at = p.line_index(&shape, axis, r, &kept);
                let at = p.offset(so, at);
                let x = p.tile_get(src.tile, at);
                let a = p.load_var(acc, sk);
                let c = p.combine(op, sk, a, x);
                p.b.store(acc, c, None, []).expect("in a block");
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
    fn reduce_split(
        &mut self,
        op: ReduceOp,
        src: &TileSlot,
        dst: usize,
        axis: usize,
        clear: bool,
        partials: usize,
    ) -> R {
        use rspirv::spirv::GlslStd450Op as G;
        let so = self.stage_offset(src)?;
        let s = &self.l.tiles[src.tile];
        let (sk, shape) = (Kind::of(s.dtype), s.shape.clone());
        let (outs, len) = (self.l.tiles[dst].elements(), shape[axis]);
        let mut out_shape = shape.clone();
        out_shape.remove(axis);
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
            let init = p.identity(op, sk);
            let t = p.ty(sk);
            let acc = p.local_var(t, init);
            let part = p.uop(Op::UMod, id, g);
            let m = p.uop(Op::IMul, part, size);
            let r0 = p.uop(Op::IAdd, m, lane);
            let rstep = p.uop(Op::IMul, g, size);
            p.loop_range(r0, len_c, rstep, |p, r| {
                let at = p.line_index(&shape, axis, r, &kept);
                let at = p.offset(so, at);
                let x = p.tile_get(src.tile, at);
                let a = p.load_var(acc, sk);
                let c = p.combine(op, sk, a, x);
                p.b.store(acc, c, None, []).expect("in a block");
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
    fn combine_partials(
        &mut self,
        op: ReduceOp,
        sk: Kind,
        (partials, stride, count): (usize, Word, Word),
        dst: usize,
        outs: u64,
        clear: bool,
    ) -> R {
        self.elements(outs, Dist::Threads, |p, o| {
            let init = p.identity(op, sk);
            let t = p.ty(sk);
            let acc = p.local_var(t, init);
            let (zero, one) = (p.u(0), p.u(1));
            p.loop_range(zero, count, one, |p, k| {
                let m = p.uop(Op::IMul, o, stride);
                let at = p.uop(Op::IAdd, m, k);
                let x = p.tile_get(partials, at);
                let x = p.convert(x, p.tile_kind(partials), sk);
                let a = p.load_var(acc, sk);
                let c = p.combine(op, sk, a, x);
                p.b.store(acc, c, None, []).expect("in a block");
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

    /// The rows of a thread's register block a register reduction walks: `body(row)` for each
    /// constant row when `unroll`, else in a loop.
    fn register_rows(
        &mut self,
        tm: u32,
        unroll: bool,
        mut body: impl FnMut(&mut Self, Word) -> R,
    ) -> R {
        if unroll {
            for i in 0..tm {
                let r = self.u(i);
                body(self, r)?;
            }
            return Ok(());
        }
        let (zero, end, one) = (self.u(0), self.u(tm), self.u(1));
        self.loop_range(zero, end, one, body)
    }

    /// Each thread folds its register slots row by row; the per-thread results meet in
    /// `partials` (subgroup-reduced first when every thread holds every row), and after one
    /// barrier each row's results are combined into `dst`.
    fn reduce_registers(
        &mut self,
        op: ReduceOp,
        frag: usize,
        dst: usize,
        clear: bool,
        strategy: ReduceStrategy,
    ) -> R {
        let ReduceStrategy::Registers {
            partials,
            lanes,
            subgroup_first,
            combine_subgroup,
            unrolled: unroll,
            arg_partials,
        } = strategy
        else {
            unreachable!("called for register reductions only")
        };
        if let Some(ip) = arg_partials {
            return self.reduce_registers_arg(
                op,
                frag,
                dst,
                (partials, ip),
                lanes,
                subgroup_first,
                unroll,
            );
        }
        let b = self.l.tiles[frag].blocks().expect("register reductions follow SIMT blocks");
        let sk = self.tile_kind(frag);
        let slots = self.l.tiles[partials].shape[1];
        let fin = final_op(op);
        let row0 = self.frag_row0(&b);
        self.register_rows(b.tm, unroll, |p, r| {
            let init = p.identity(op, sk);
            let t = p.ty(sk);
            let acc = p.local_var(t, init);
            let tn = p.u(b.tn);
            let base = p.uop(Op::IMul, r, tn);
            let fold = |p: &mut Self, j: Word| -> R {
                let at = p.uop(Op::IAdd, base, j);
                let x = p.tile_get(frag, at);
                let a = p.load_var(acc, sk);
                let c = p.combine(op, sk, a, x);
                p.b.store(acc, c, None, []).expect("in a block");
                Ok(())
            };
            if unroll {
                for j in 0..b.tn {
                    let j = p.u(j);
                    fold(p, j)?;
                }
            } else {
                let (zero, one) = (p.u(0), p.u(1));
                p.loop_range(zero, tn, one, fold)?;
            }
            let a = p.load_var(acc, sk);
            if subgroup_first {
                let a = p.subgroup_reduce(op, sk, a);
                p.lane_zero(|p| {
                    let s = p.u(slots);
                    let m = p.uop(Op::IMul, r, s);
                    let at = p.uop(Op::IAdd, m, p.subgroup[2]);
                    p.tile_set(partials, at, a, sk);
                    Ok(())
                })
            } else {
                let row = p.uop(Op::IAdd, row0, r);
                let l = p.u(lanes);
                let m = p.uop(Op::IMul, row, l);
                let t = p.uop(Op::UMod, p.tid, l);
                let at = p.uop(Op::IAdd, m, t);
                p.tile_set(partials, at, a, sk);
                Ok(())
            }
        })?;
        self.barrier();
        if subgroup_first {
            let (stride, count) = (self.u(slots), self.subgroup[3]);
            return self.combine_partials(
                fin,
                sk,
                (partials, stride, count),
                dst,
                b.rows as u64,
                clear,
            );
        }
        let strategy =
            if combine_subgroup { ReduceStrategy::Subgroup } else { ReduceStrategy::Serial };
        let src = TileSlot { tile: partials, stage: None };
        self.reduce(fin, &src, dst, 1, clear, Dist::Threads, strategy)
    }

    /// Argmax / argmin from registers: each thread scans its slots in column order keeping the
    /// first best (value, column); the pairs meet in `partials` / `args`; after one barrier one
    /// thread per row picks the best value, the smallest column among ties.
    #[allow(clippy::too_many_arguments)]
    fn reduce_registers_arg(
        &mut self,
        op: ReduceOp,
        frag: usize,
        dst: usize,
        (partials, args): (usize, usize),
        lanes: u32,
        subgroup_first: bool,
        unroll: bool,
    ) -> R {
        let b = self.l.tiles[frag].blocks().expect("register reductions follow SIMT blocks");
        let sk = self.tile_kind(frag);
        let slots = self.l.tiles[partials].shape[1];
        let better = match (op, sk.is_float(), sk == Kind::I32) {
            (ReduceOp::Argmax, true, _) => Op::FOrdGreaterThan,
            (ReduceOp::Argmax, _, true) => Op::SGreaterThan,
            (ReduceOp::Argmax, ..) => Op::UGreaterThan,
            (_, true, _) => Op::FOrdLessThan,
            (_, _, true) => Op::SLessThan,
            _ => Op::ULessThan,
        };
        let equal = if sk.is_float() { Op::FOrdEqual } else { Op::IEqual };
        let col0 = self.frag_col0(&b);
        let row0 = self.frag_row0(&b);
        self.register_rows(b.tm, unroll, |p, r| {
            let tn = p.u(b.tn);
            let base = p.uop(Op::IMul, r, tn);
            let first = p.tile_get(frag, base);
            let t = p.ty(sk);
            let best = p.local_var(t, first);
            let u = p.ty(Kind::U32);
            let arg = p.local_var(u, col0);
            // Columns rise with the slot: a strict comparison keeps the first best.
            let scan = |p: &mut Self, j: Word| -> R {
                let at = p.uop(Op::IAdd, base, j);
                let x = p.tile_get(frag, at);
                let bv = p.load_var(best, sk);
                let c = p.ucmp(better, x, bv);
                let col = p.frag_col(&b, col0, j);
                p.if_then(c, |p| {
                    p.b.store(best, x, None, []).expect("in a block");
                    p.b.store(arg, col, None, []).expect("in a block");
                    Ok(())
                })
            };
            if unroll {
                for j in 1..b.tn {
                    let j = p.u(j);
                    scan(p, j)?;
                }
            } else {
                let one = p.u(1);
                p.loop_range(one, tn, one, scan)?;
            }
            let bv = p.load_var(best, sk);
            let av = p.load_var(arg, Kind::U32);
            if subgroup_first {
                let m = p.subgroup_reduce(
                    if op == ReduceOp::Argmax { ReduceOp::Max } else { ReduceOp::Min },
                    sk,
                    bv,
                );
                let holds = p.ucmp(equal, bv, m);
                let none = p.u(u32::MAX);
                let cand = p.inst(Op::Select, u, &[holds, av, none]);
                let a = p.subgroup_reduce(ReduceOp::Min, Kind::U32, cand);
                p.lane_zero(|p| {
                    let s = p.u(slots);
                    let mm = p.uop(Op::IMul, r, s);
                    let at = p.uop(Op::IAdd, mm, p.subgroup[2]);
                    p.tile_set(partials, at, m, sk);
                    p.tile_set(args, at, a, Kind::U32);
                    Ok(())
                })
            } else {
                let row = p.uop(Op::IAdd, row0, r);
                let l = p.u(lanes);
                let mm = p.uop(Op::IMul, row, l);
                let tt = p.uop(Op::UMod, p.tid, l);
                let at = p.uop(Op::IAdd, mm, tt);
                p.tile_set(partials, at, bv, sk);
                p.tile_set(args, at, av, Kind::U32);
                Ok(())
            }
        })?;
        self.barrier();
        self.elements(b.rows as u64, Dist::Threads, |p, o| {
            let count = if subgroup_first { p.subgroup[3] } else { p.u(lanes) };
            let s = p.u(slots);
            let base = p.uop(Op::IMul, o, s);
            let v0 = p.tile_get(partials, base);
            let v0 = p.convert(v0, p.tile_kind(partials), sk);
            let i0 = p.tile_get(args, base);
            let t = p.ty(sk);
            let bv = p.local_var(t, v0);
            let u = p.ty(Kind::U32);
            let bi = p.local_var(u, i0);
            let one = p.u(1);
            p.loop_range(one, count, one, |p, k| {
                let at = p.uop(Op::IAdd, base, k);
                let v = p.tile_get(partials, at);
                let v = p.convert(v, p.tile_kind(partials), sk);
                let i = p.tile_get(args, at);
                let cur = p.load_var(bv, sk);
                let cur_i = p.load_var(bi, Kind::U32);
                let gt = p.ucmp(better, v, cur);
                let eq = p.ucmp(equal, v, cur);
                let lt = p.ucmp(Op::ULessThan, i, cur_i);
                let tie = p.ucmp(Op::LogicalAnd, eq, lt);
                let take = p.ucmp(Op::LogicalOr, gt, tie);
                p.if_then(take, |p| {
                    p.b.store(bv, v, None, []).expect("in a block");
                    p.b.store(bi, i, None, []).expect("in a block");
                    Ok(())
                })
            })?;
            let i = p.load_var(bi, Kind::U32);
            p.tile_set(dst, o, i, Kind::U32);
            Ok(())
        })
    }

    pub(crate) fn cumsum(&mut self, src: usize, dst: usize, axis: usize, dist: Dist) -> R {
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
                let a = p.load_var(acc, sk);
                let c = p.combine(ReduceOp::Sum, sk, a, x);
                p.b.store(acc, c, None, []).expect("in a block");
                p.tile_set(dst, lin, c, sk);
                Ok(())
            })
        })
    }
}
