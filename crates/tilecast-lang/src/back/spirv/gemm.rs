//! SIMT gemm: each thread updates its register block of the accumulator, reading one column of
//! A and one row of B per K step from threadgroup memory.

use rspirv::spirv::{GlslStd450Op as G, Op};

use super::{Printer, Unsupported};
use crate::lir::{GemmLowering, TileIx, TileSlot};

impl Printer<'_> {
    pub(crate) fn gemm(
        &mut self,
        a: &TileSlot,
        b: &TileSlot,
        c: TileIx,
        (ta, tb): (bool, bool),
        lowering: &GemmLowering,
    ) -> Result<(), Unsupported> {
        let l = match *lowering {
            GemmLowering::Simt(l) => l,
            GemmLowering::Matrix(m) => return self.gemm_matrix(a, b, c, (ta, tb), &m),
            GemmLowering::Workgroup => {
                self.gemm_workgroup(a.tile, b.tile, c);
                return Ok(());
            }
        };
        let ck = self.tile_kind(c);
        let cty = self.ty(ck);
        let a_t = &self.l.tiles[a.tile];
        let kdim = if ta { a_t.shape[0] } else { a_t.shape[1] };
        // Rows of the stored operands step by their pitch (padding included).
        let (ap, bp) = (a_t.row_pitch(), self.l.tiles[b.tile].row_pitch());
        let (ao, bo) = (self.stage_offset(a)?, self.stage_offset(b)?);
        let (tr, tcol) = (self.frag_row0(&l), self.frag_col0(&l));
        let (zero, end, one) = (self.u(0), self.u(kdim), self.u(1));
        let (ak, bk) = (self.tile_kind(a.tile), self.tile_kind(b.tile));
        self.loop_range(zero, end, one, |p, kk| {
            let mut avs = Vec::new();
            for i in 0..l.tm {
                let row = p.add_const(tr, i);
                let (x, y, pitch) = if ta { (kk, row, ap) } else { (row, kk, ap) };
                let pc = p.u(pitch);
                let m = p.uop(Op::IMul, x, pc);
                let idx = p.uop(Op::IAdd, m, y);
                let idx = p.offset(ao, idx);
                let t = p.ty(ak);
                let ptr = p.tile_ptr(a.tile, idx);
                let v = p.inst(Op::Load, t, &[ptr]);
                avs.push(p.convert(v, ak, ck));
            }
            let mut bvs = Vec::new();
            for j in 0..l.tn {
                let col = p.add_const(tcol, l.col_step(j));
                let (x, y) = if tb { (col, kk) } else { (kk, col) };
                let pc = p.u(bp);
                let m = p.uop(Op::IMul, x, pc);
                let idx = p.uop(Op::IAdd, m, y);
                let idx = p.offset(bo, idx);
                let t = p.ty(bk);
                let ptr = p.tile_ptr(b.tile, idx);
                let v = p.inst(Op::Load, t, &[ptr]);
                bvs.push(p.convert(v, bk, ck));
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
}
