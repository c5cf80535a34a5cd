//! Copies between tiles (threadgroup memory, fragments, row statistics, matrices), each
//! element converted to the destination's type; a fragment's copy follows its register block.

use rspirv::spirv::{Op, Word};

use super::{Printer, Unsupported};
use crate::lir::{Dist, TileIx, TileSlot};

type R = Result<(), Unsupported>;

impl Printer<'_> {
    fn copy_value(&mut self, from: TileIx, from_idx: Word, to: TileIx, to_idx: Word) {
        let (fk, tk) = (self.tile_kind(from), self.tile_kind(to));
        let fty = self.ty(fk);
        let src = self.tile_ptr(from, from_idx);
        let v = self.inst(Op::Load, fty, &[src]);
        let v = self.convert(v, fk, tk);
        let dst = self.tile_ptr(to, to_idx);
        self.b.store(dst, v, None, []).expect("in a block");
    }

    pub(crate) fn copy_tiles(&mut self, src: &TileSlot, dst: &TileSlot, dist: Dist) -> R {
        if let Dist::Matrix(_) = dist {
            return self.store_matrices(src.tile, dst);
        }
        if let Dist::Workgroup(_) = dist {
            return self.copy_workgroup(src.tile, dst.tile);
        }
        let (so, doff) = (self.stage_offset(src)?, self.stage_offset(dst)?);
        let (st, dt) = (&self.l.tiles[src.tile], &self.l.tiles[dst.tile]);
        let (sfrag, dfrag) = (st.blocks().is_some(), dt.blocks().is_some());
        let pitch = if sfrag { dt.row_pitch() } else { st.row_pitch() };
        let n = st.elements();
        if let Dist::Fragment(f) = dist
            && self.l.tiles[f].row_statistic()
        {
            // A row statistic and a [rows] shared tile: each thread its rows; to memory, only
            // each row's first thread.
            let b = self.l.tiles[f].blocks().expect("row statistics have blocks");
            let r = self.frag_row0(&b);
            let body = |p: &mut Self| -> R {
                for i in 0..b.tm {
                    let row = p.add_const(r, i);
                    let ii = p.u(i);
                    if sfrag {
                        let to = p.offset(doff, row);
                        p.copy_value(src.tile, ii, dst.tile, to);
                    } else {
                        let from = p.offset(so, row);
                        p.copy_value(src.tile, from, dst.tile, ii);
                    }
                }
                Ok(())
            };
            if sfrag {
                let c0 = self.frag_col0(&b);
                let zero = self.u(0);
                let first = self.ucmp(Op::IEqual, c0, zero);
                return self.if_then(first, body);
            }
            return body(self);
        }
        if let Dist::Fragment(f) = dist {
            let b = self.l.tiles[f].blocks().expect("fragment copies follow SIMT blocks");
            let (r, c) = (self.frag_row0(&b), self.frag_col0(&b));
            for i in 0..b.tm {
                for j in 0..b.tn {
                    let row = self.add_const(r, i);
                    let pc = self.u(pitch);
                    let m = self.uop(Op::IMul, row, pc);
                    let m = self.uop(Op::IAdd, m, c);
                    let lin = self.add_const(m, b.col_step(j));
                    let slot = self.u(i * b.tn + j);
                    match (sfrag, dfrag) {
                        (true, true) => self.copy_value(src.tile, slot, dst.tile, slot),
                        (true, false) => {
                            let to = self.offset(doff, lin);
                            self.copy_value(src.tile, slot, dst.tile, to)
                        }
                        _ => {
                            let from = self.offset(so, lin);
                            self.copy_value(src.tile, from, dst.tile, slot)
                        }
                    }
                }
            }
            return Ok(());
        }
        self.elements(n, dist, |p, e| {
            let (sat, dat) = (p.at(src.tile, e), p.at(dst.tile, e));
            let (from, to) = (p.offset(so, sat), p.offset(doff, dat));
            p.copy_value(src.tile, from, dst.tile, to);
            Ok(())
        })
    }
}
