//! Parameters of narrow types (u8, i8, bf16, fp8 e4m3/e5m2) packed in u32 words: reads widen
//! an element to 32 bits exactly, written ones merge into their word with atomics on the
//! element's own bits, and runs of four are encoded and stored whole. The WGSL back end's
//! accessors and `tc_` helpers, inlined.

use rspirv::spirv::{GlslStd450Op as G, Op, Word};

use super::Printer;
use super::kinds::Kind;
use crate::ir::DType;
use crate::lir::ParamIx;

impl Printer<'_> {
    /// Word `idx` of packed parameter `p` (an atomic load where the words are written).
    pub(crate) fn word_at(&mut self, p: ParamIx, idx: Word) -> Word {
        let b = self.buffers[p.0];
        let u = self.ty(Kind::U32);
        let ptr = self.buffer_ptr(b.var, u, idx);
        if !b.atomic_words {
            return self.inst(Op::Load, u, &[ptr]);
        }
        let (scope, sem) = self.device_relaxed();
        self.inst(Op::AtomicLoad, u, &[ptr, scope, sem])
    }

    /// `x` shifted or masked: `op(x, c)` for a constant `c`.
    fn uc(&mut self, op: Op, x: Word, c: u32) -> Word {
        let c = self.u(c);
        self.uop(op, x, c)
    }

    /// Bits `[offset, offset + count)` of u32 `x`.
    fn field(&mut self, x: Word, offset: Word, count: u32) -> Word {
        let u = self.ty(Kind::U32);
        let c = self.u(count);
        self.inst(Op::BitFieldUExtract, u, &[x, offset, c])
    }

    /// The f32 an f16 in the low bits of `x` holds.
    fn low_half(&mut self, x: Word) -> Word {
        let v2 = self.vec_ty(Kind::F32, 2);
        let v = self.glsl(G::UnpackHalf2x16, v2, &[x]);
        let f = self.ty(Kind::F32);
        self.extract(f, v, 0)
    }

    /// fp8 e4m3 code `b` to f32, exactly: its bits placed in an f16 whose exponent bias is 8
    /// larger, times 2^8; 0x7f and 0xff are NaN.
    fn e4m3(&mut self, b: Word) -> Word {
        let m = self.uc(Op::BitwiseAnd, b, 0x7f);
        let hi = self.uc(Op::ShiftLeftLogical, m, 7);
        let s = self.uc(Op::BitwiseAnd, b, 0x80);
        let s = self.uc(Op::ShiftLeftLogical, s, 8);
        let h = self.uop(Op::BitwiseOr, hi, s);
        let v = self.low_half(h);
        let f = self.ty(Kind::F32);
        let k = self.constant(Kind::F32, 256.0);
        let v = self.inst(Op::FMul, f, &[v, k]);
        let c7f = self.u(0x7f);
        let nan = self.ucmp(Op::IEqual, m, c7f);
        let qnan = self.bits(f, 0x7fc0_0000);
        self.inst(Op::Select, f, &[nan, qnan, v])
    }

    /// Element `lin` of packed parameter `p`, widened to its kind (no bounds test).
    pub(crate) fn packed_element(&mut self, p: ParamIx, d: DType, lin: Word) -> Word {
        let f = self.ty(Kind::F32);
        if d == DType::BF16 {
            // bf16 is the top half of an f32.
            let q = self.uc(Op::UDiv, lin, 2);
            let w = self.word_at(p, q);
            let r = self.uc(Op::UMod, lin, 2);
            let off = self.uc(Op::IMul, r, 16);
            let h = self.field(w, off, 16);
            let top = self.uc(Op::ShiftLeftLogical, h, 16);
            return self.inst(Op::Bitcast, f, &[top]);
        }
        let q = self.uc(Op::UDiv, lin, 4);
        let w = self.word_at(p, q);
        let r = self.uc(Op::UMod, lin, 4);
        let off = self.uc(Op::IMul, r, 8);
        match d {
            DType::I8 => {
                let i = self.ty(Kind::I32);
                let wi = self.inst(Op::Bitcast, i, &[w]);
                let c8 = self.u(8);
                self.inst(Op::BitFieldSExtract, i, &[wi, off, c8])
            }
            // e5m2 is the top byte of an f16.
            DType::F8E5M2 => {
                let b = self.field(w, off, 8);
                let h = self.uc(Op::ShiftLeftLogical, b, 8);
                self.low_half(h)
            }
            DType::F8E4M3 => {
                let b = self.field(w, off, 8);
                self.e4m3(b)
            }
            _ => self.field(w, off, 8),
        }
    }

    /// The four elements from `lin` (a multiple of 4) of packed parameter `p`, as f32
    /// (bf16 through its two-word view, fp8 from one word).
    pub(crate) fn packed_vector(&mut self, p: ParamIx, d: DType, q: Word) -> Word {
        let f = self.ty(Kind::F32);
        let v4 = self.vec_ty(Kind::F32, 4);
        let lanes: Vec<Word> = match d {
            DType::BF16 => {
                let view = self.views[p.0].expect("bf16 vector reads go through a view");
                let u2 = self.vec_ty(Kind::U32, 2);
                let ptr = self.buffer_ptr(view, u2, q);
                let w = self.inst(Op::Load, u2, &[ptr]);
                let u = self.ty(Kind::U32);
                let mut out = Vec::new();
                for k in 0..2 {
                    let x = self.extract(u, w, k);
                    let lo = self.uc(Op::ShiftLeftLogical, x, 16);
                    let hi = self.uc(Op::BitwiseAnd, x, 0xffff_0000);
                    out.push(self.inst(Op::Bitcast, f, &[lo]));
                    out.push(self.inst(Op::Bitcast, f, &[hi]));
                }
                out
            }
            _ => {
                let w = self.word_at(p, q);
                (0..4)
                    .map(|k| {
                        let off = self.u(8 * k);
                        let b = self.field(w, off, 8);
                        if d == DType::F8E4M3 {
                            self.e4m3(b)
                        } else {
                            let h = self.uc(Op::ShiftLeftLogical, b, 8);
                            self.low_half(h)
                        }
                    })
                    .collect()
            }
        };
        self.inst(Op::CompositeConstruct, v4, &lanes)
    }

    /// The bits of value `v` (of the parameter's kind) as element type `d`: bf16 and fp8
    /// rounded to nearest even as torch rounds, integers wrapped to 8 bits.
    fn encode(&mut self, d: DType, v: Word) -> Word {
        let u = self.ty(Kind::U32);
        match d {
            DType::U8 => self.uc(Op::BitwiseAnd, v, 0xff),
            DType::I8 => {
                let b = self.inst(Op::Bitcast, u, &[v]);
                self.uc(Op::BitwiseAnd, b, 0xff)
            }
            DType::BF16 => {
                let b = self.inst(Op::Bitcast, u, &[v]);
                let a = self.uc(Op::BitwiseAnd, b, 0x7fff_ffff);
                let inf = self.u(0x7f80_0000);
                let nan = self.ucmp(Op::UGreaterThan, a, inf);
                let odd = self.uc(Op::ShiftRightLogical, b, 16);
                let odd = self.uc(Op::BitwiseAnd, odd, 1);
                let r = self.uc(Op::IAdd, b, 0x7fff);
                let r = self.uop(Op::IAdd, r, odd);
                let r = self.uc(Op::ShiftRightLogical, r, 16);
                let q = self.u(0x7fc0);
                self.inst(Op::Select, u, &[nan, q, r])
            }
            _ => {
                // fp8 without branches, as the WGSL back end's tc_to_e4m3 / tc_to_e5m2.
                let e4 = d == DType::F8E4M3;
                let (shift, bias, small, big_cut, add, sub) = if e4 {
                    (20, 0x3bf8_0001, 0x3c80_0000, 0x43f0_0000, 16384.0, 0x4680_0000)
                } else {
                    (21, 0x37f0_0001, 0x3880_0000, 0x4780_0000, 128.0, 0x4300_0000)
                };
                let f = self.ty(Kind::F32);
                let b = self.inst(Op::Bitcast, u, &[v]);
                let a = self.uc(Op::BitwiseAnd, b, 0x7fff_ffff);
                let lsb = self.uc(Op::ShiftRightLogical, a, shift);
                let lsb = self.uc(Op::BitwiseAnd, lsb, 1);
                let n = self.uop(Op::IAdd, a, lsb);
                let n = self.uc(Op::ISub, n, bias);
                let n = self.uc(Op::ShiftRightLogical, n, shift);
                let af = self.inst(Op::Bitcast, f, &[a]);
                let k = self.constant(Kind::F32, add);
                let s = self.inst(Op::FAdd, f, &[af, k]);
                let sb = self.inst(Op::Bitcast, u, &[s]);
                let dn = self.uc(Op::ISub, sb, sub);
                let small_c = self.u(small);
                let is_small = self.ucmp(Op::ULessThan, a, small_c);
                let r = self.inst(Op::Select, u, &[is_small, dn, n]);
                let cut = self.u(big_cut);
                let big = self.ucmp(Op::UGreaterThanEqual, a, cut);
                let top = if e4 {
                    self.u(0x7f)
                } else {
                    let inf = self.u(0x7f80_0000);
                    let nan = self.ucmp(Op::UGreaterThan, a, inf);
                    let (x7c, x7f) = (self.u(0x7c), self.u(0x7f));
                    self.inst(Op::Select, u, &[nan, x7f, x7c])
                };
                let r = self.inst(Op::Select, u, &[big, top, r]);
                let sign = self.uc(Op::ShiftRightLogical, b, 24);
                let sign = self.uc(Op::BitwiseAnd, sign, 0x80);
                self.uop(Op::BitwiseOr, r, sign)
            }
        }
    }

    fn atomic(&mut self, op: Op, ptr: Word, v: Word) {
        let u = self.ty(Kind::U32);
        let (scope, sem) = self.device_relaxed();
        if op == Op::AtomicStore {
            self.b.atomic_store(ptr, scope, sem, v).expect("in a block");
            return;
        }
        self.inst(op, u, &[ptr, scope, sem, v]);
    }

    /// Stores `v` into element `lin` of written packed parameter `p`: its word's other
    /// elements may belong to other threads, so the element is merged with two atomics on its
    /// own bits (one clears them, one sets them), which commute with merges of the others.
    pub(crate) fn packed_store(&mut self, p: ParamIx, d: DType, lin: Word, v: Word) {
        let bits = if d == DType::BF16 { 16 } else { 8 };
        let per = 32 / bits;
        let e = self.encode(d, v);
        let q = self.uc(Op::UDiv, lin, per);
        let r = self.uc(Op::UMod, lin, per);
        let sh = self.uc(Op::IMul, r, bits);
        let u = self.ty(Kind::U32);
        let ptr = self.buffer_ptr(self.buffers[p.0].var, u, q);
        let mask = self.u(if bits == 16 { 0xffff } else { 0xff });
        let m = self.uop(Op::ShiftLeftLogical, mask, sh);
        let keep = self.inst(Op::Not, u, &[m]);
        self.atomic(Op::AtomicAnd, ptr, keep);
        let set = self.uop(Op::ShiftLeftLogical, e, sh);
        self.atomic(Op::AtomicOr, ptr, set);
    }

    /// A run of four elements from `lin` (a multiple of 4, inside) stored as whole words: one
    /// for fp8, two for bf16.
    pub(crate) fn packed_store4(&mut self, p: ParamIx, d: DType, lin: Word, v4: Word) {
        let u = self.ty(Kind::U32);
        let vk = self.ty(self.buffers[p.0].kind);
        let codes: Vec<Word> = (0..4)
            .map(|k| {
                let x = self.extract(vk, v4, k);
                self.encode(d, x)
            })
            .collect();
        let var = self.buffers[p.0].var;
        if d == DType::BF16 {
            let q = self.uc(Op::UDiv, lin, 2);
            for h in 0..2 {
                let hi = self.uc(Op::ShiftLeftLogical, codes[2 * h + 1], 16);
                let w = self.uop(Op::BitwiseOr, codes[2 * h], hi);
                let at = self.add_const(q, h as u32);
                let ptr = self.buffer_ptr(var, u, at);
                self.atomic(Op::AtomicStore, ptr, w);
            }
        } else {
            let mut w = codes[0];
            for (k, &c) in codes.iter().enumerate().skip(1) {
                let s = self.uc(Op::ShiftLeftLogical, c, 8 * k as u32);
                w = self.uop(Op::BitwiseOr, w, s);
            }
            let q = self.uc(Op::UDiv, lin, 4);
            let ptr = self.buffer_ptr(var, u, q);
            self.atomic(Op::AtomicStore, ptr, w);
        }
    }

    /// Word `i` of u8/i8 parameter `p`'s bytes: zero past its end, the bytes past the end of a
    /// part-filled last word zero too. A constant whole number of words is a clamped load and
    /// a select; otherwise the masking of a part-filled last word sits in a branch only that
    /// word takes (computing the mask for every word cost q4_0 qgemv on an H100 a third).
    pub(crate) fn word_read(&mut self, p: ParamIx, i: Word) -> Result<Word, super::Unsupported> {
        let shape = self.l.params[p].shape.clone();
        let u = self.ty(Kind::U32);
        let zero = self.u(0);
        let constant: Option<u64> = shape.iter().try_fold(1u64, |acc, d| match d.kind {
            crate::lir::TKind::Lit(v) => Some(acc * v as u64),
            _ => None,
        });
        if let Some(bytes) = constant.filter(|b| b % 4 == 0 && *b > 0) {
            let last = self.u((bytes / 4 - 1) as u32);
            let at = self.glsl(G::UMin, u, &[i, last]);
            let w = self.word_at(p, at);
            let inside = self.ucmp(Op::ULessThanEqual, i, last);
            return Ok(self.inst(Op::Select, u, &[inside, w, zero]));
        }
        let mut n = None;
        for d in &shape {
            let x = self.expr(d)?;
            n = Some(match n {
                None => x,
                Some(m) => self.uop(Op::IMul, m, x),
            });
        }
        let n = n.unwrap_or_else(|| self.u(1));
        let words = self.uc(Op::IAdd, n, 3);
        let words = self.uc(Op::UDiv, words, 4);
        let valid = self.ucmp(Op::ULessThan, i, words);
        let safe = self.inst(Op::Select, u, &[valid, i, zero]);
        let w = self.word_at(p, safe);
        let kept = self.inst(Op::Select, u, &[valid, w, zero]);
        let out = self.local_var(u, kept);
        let four = self.uc(Op::IMul, safe, 4);
        let rest = self.uop(Op::ISub, n, four);
        let c4 = self.u(4);
        let short = self.ucmp(Op::ULessThan, rest, c4);
        let part = self.ucmp(Op::LogicalAnd, valid, short);
        self.if_then(part, |pr| {
            let sh = pr.uc(Op::IMul, rest, 8);
            let one = pr.u(1);
            let m = pr.uop(Op::ShiftLeftLogical, one, sh);
            let m = pr.uc(Op::ISub, m, 1);
            let v = pr.uop(Op::BitwiseAnd, w, m);
            pr.b.store(out, v, None, []).expect("in a block");
            Ok(())
        })?;
        Ok(self.inst(Op::Load, u, &[out]))
    }
}
