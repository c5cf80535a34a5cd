//! SIMT gemm: each thread updates its register block of the accumulator, reading one column of
//! A and one row of B per K step from threadgroup memory.

use rspirv::spirv::{GlslStd450Op as G, Op, Word};

use super::kinds::Kind;
use super::{Printer, Unsupported};
use crate::lir::{GemmLowering, GemmOperands, TileIx};

type R = Result<(), Unsupported>;

impl Printer<'_> {
    pub(crate) fn gemm(&mut self, g: &GemmOperands, lowering: &GemmLowering) -> R {
        let l = match *lowering {
            GemmLowering::Simt(l) => l,
            GemmLowering::Matrix(m) => return self.gemm_matrix(g, &m),
            GemmLowering::Workgroup => {
                self.gemm_workgroup(g.a.tile, g.b.tile, g.c);
                return Ok(());
            }
        };
        let (a, b, c) = (g.a, g.b, g.c);
        let ck = self.tile_kind(c);
        let cty = self.ty(ck);
        let (ap, bp) = g.pitch;
        let (ao, bo) = (self.stage_offset(a)?, self.stage_offset(b)?);
        let (tr, tcol) = (self.frag_row0(&l), self.frag_col0(&l));
        let (zero, end, one) = (self.u(0), self.u(g.k), self.u(1));
        self.loop_range(zero, end, one, |p, kk| {
            let mut avs = Vec::new();
            for i in 0..l.tm {
                let row = p.add_const(tr, i);
                avs.push(p.operand(a.tile, ao, g.a_at(row, kk), ap, ck));
            }
            let mut bvs = Vec::new();
            for j in 0..l.tn {
                let col = p.add_const(tcol, l.col_step(j));
                bvs.push(p.operand(b.tile, bo, g.b_at(kk, col), bp, ck));
            }
            for i in 0..l.tm {
                for j in 0..l.tn {
                    let s = p.u(i * l.tn + j);
                    let ptr = p.tile_ptr(c, s);
                    let acc = p.inst(Op::Load, cty, &[ptr]);
                    let r = p.glsl(G::Fma, cty, &[avs[i as usize], bvs[j as usize], acc]);
                    p.b.store(ptr, r, None, []).expect("in a block");
                }
            }
            Ok(())
        })
    }

    /// Element `(x, y)` of a stored operand `tile` (rows `pitch` apart, stage offset `o`), as
    /// kind `to`.
    fn operand(
        &mut self,
        tile: TileIx,
        o: Option<Word>,
        (x, y): (Word, Word),
        pitch: u32,
        to: Kind,
    ) -> Word {
        let k = self.tile_kind(tile);
        let idx = self.at2(o, x, pitch, y);
        let t = self.ty(k);
        let ptr = self.tile_ptr(tile, idx);
        let v = self.inst(Op::Load, t, &[ptr]);
        self.convert(v, k, to)
    }
}
