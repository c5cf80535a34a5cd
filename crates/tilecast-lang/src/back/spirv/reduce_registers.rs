//! Reductions of a fragment along its last axis from registers: each thread folds its slots
//! row by row, and only the per-thread (or per-subgroup) results meet in threadgroup memory,
//! as the WGSL back end prints them. Index reductions carry each partial's column beside it.

use rspirv::spirv::{Op, Scope, Word};

use super::kinds::Kind;
use super::reduce::better;
use super::{Printer, Unsupported};
use crate::ir::ReduceOp;
use crate::lir::{Dist, Reduce, RegisterReduction, TileIx, final_op};

type R = Result<(), Unsupported>;

impl Printer<'_> {
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

    /// Register row `r` of fragment `frag` folded by `op` (its `tn` slots, each constant when
    /// `unroll`, else in a loop): the thread's own part of the row's reduction.
    fn fold_row(
        &mut self,
        frag: TileIx,
        op: ReduceOp,
        r: Word,
        unroll: bool,
    ) -> Result<Word, Unsupported> {
        let b = self.l.tiles[frag].blocks().expect("register reductions follow SIMT blocks");
        let sk = self.tile_kind(frag);
        let acc = self.accumulator(op, sk);
        let tn = self.u(b.tn);
        let base = self.uop(Op::IMul, r, tn);
        let fold = |p: &mut Self, j: Word| -> R {
            let at = p.uop(Op::IAdd, base, j);
            let x = p.tile_get(frag, at);
            p.accumulate(acc, op, sk, x);
            Ok(())
        };
        self.register_slots((0, b.tn), tn, unroll, fold)?;
        Ok(self.load_var(acc, sk))
    }

    /// `body(slot)` for the register slots `first..tn` of a row (`tn_id` the constant `tn`): each
    /// constant slot when `unroll`, else in a loop.
    fn register_slots(
        &mut self,
        (first, tn): (u32, u32),
        tn_id: Word,
        unroll: bool,
        mut body: impl FnMut(&mut Self, Word) -> R,
    ) -> R {
        if unroll {
            for j in first..tn {
                let j = self.u(j);
                body(self, j)?;
            }
            return Ok(());
        }
        let (start, one) = (self.u(first), self.u(1));
        self.loop_range(start, tn_id, one, body)
    }

    /// Each thread folds its register slots row by row; the per-thread results meet in
    /// `partials` (subgroup-reduced first when every thread holds every row), and after one
    /// barrier each row's results are combined into `dst`.
    pub(crate) fn reduce_registers(&mut self, r: &Reduce, g: &RegisterReduction) -> R {
        let (op, frag, dst, clear) = (r.op, r.src.tile, r.dst, r.clear);
        let RegisterReduction { partials, lanes, subgroup_first, unrolled: unroll, .. } = *g;
        let b = self.l.tiles[frag].blocks().expect("register reductions follow SIMT blocks");
        let sk = self.tile_kind(frag);
        let slots = self.l.tiles[partials].shape[1];
        let fin = final_op(op);
        let row0 = self.frag_row0(&b);
        self.register_rows(b.tm, unroll, |p, r| {
            let a = p.fold_row(frag, op, r, unroll)?;
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
        if let Some(finish) = g.final_combine(r) {
            return self.reduce(&finish);
        }
        let (stride, count) = (self.u(slots), self.subgroup[3]);
        self.combine_partials(fin, sk, (partials, stride, count), dst, b.rows as u64, clear)
    }

    /// Each thread folds its register slots row by row, then `log2(lanes)` exchanges with the
    /// lanes `1, 2, .. lanes / 2` apart leave every lane of a row with its result, which goes
    /// into the thread's slot of the row statistic `dst`.
    pub(crate) fn reduce_lanes(&mut self, r: &Reduce, lanes: u32, unroll: bool) -> R {
        let (op, frag, dst, clear) = (r.op, r.src.tile, r.dst, r.clear);
        let b = self.l.tiles[frag].blocks().expect("lane reductions follow SIMT blocks");
        let sk = self.tile_kind(frag);
        let fin = final_op(op);
        self.register_rows(b.tm, unroll, |p, r| {
            let mut a = p.fold_row(frag, op, r, unroll)?;
            let mut mask = lanes / 2;
            while mask > 0 {
                let other = p.shuffle_xor(sk, a, mask);
                a = p.combine(fin, sk, a, other);
                mask /= 2;
            }
            if !clear {
                let old = p.tile_get(dst, r);
                a = p.combine(fin, sk, old, a);
            }
            p.tile_set(dst, r, a, sk);
            Ok(())
        })
    }

    /// Argmax / argmin from registers: each thread scans its slots in column order keeping the
    /// first best (value, column); the pairs meet in `partials` / `args`; after one barrier one
    /// thread per row picks the best value, the smallest column among ties.
    pub(crate) fn reduce_registers_arg(
        &mut self,
        r: &Reduce,
        g: &RegisterReduction,
        args: TileIx,
    ) -> R {
        let (op, frag, dst) = (r.op, r.src.tile, r.dst);
        let RegisterReduction { partials, lanes, subgroup_first, unrolled: unroll, .. } = *g;
        let b = self.l.tiles[frag].blocks().expect("register reductions follow SIMT blocks");
        let sk = self.tile_kind(frag);
        let slots = self.l.tiles[partials].shape[1];
        let better = better(op, sk);
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
                p.keep_if(c, [(best, x), (arg, col)])
            };
            p.register_slots((1, b.tn), tn, unroll, scan)?;
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
                p.keep_if(take, [(bv, v), (bi, i)])
            })?;
            let i = p.load_var(bi, Kind::U32);
            p.tile_set(dst, o, i, Kind::U32);
            Ok(())
        })
    }
}

impl Printer<'_> {
    /// `v` (kind `k`) of the lane `mask` apart in the subgroup (`OpGroupNonUniformShuffleXor`).
    fn shuffle_xor(&mut self, k: Kind, v: Word, mask: u32) -> Word {
        let t = self.ty(k);
        let (scope, m) = (self.u(Scope::Subgroup as u32), self.u(mask));
        let id = self.b.id();
        self.emit(rspirv::dr::Instruction::new(
            Op::GroupNonUniformShuffleXor,
            Some(t),
            Some(id),
            vec![
                rspirv::dr::Operand::IdScope(scope),
                rspirv::dr::Operand::IdRef(v),
                rspirv::dr::Operand::IdRef(m),
            ],
        ));
        id
    }
}
