//! Where elements are: a thread's first fragment row and column, loops over the elements a
//! distribution gives each thread, coordinates of linear elements and of window elements.

use rspirv::spirv::{Op, Word};

use super::kinds::Kind;
use super::{Printer, Unsupported};
use crate::lir::{Dist, ParamIx, RegisterBlocks, TileIx};

type R = Result<(), Unsupported>;

impl Printer<'_> {
    /// The first fragment row thread `tid` owns.
    pub(crate) fn frag_row0(&mut self, b: &RegisterBlocks) -> Word {
        let tc = self.u(b.thread_cols());
        let q = self.uop(Op::UDiv, self.tid, tc);
        let tm = self.u(b.tm);
        self.uop(Op::IMul, q, tm)
    }

    /// The first fragment column thread `tid` owns.
    pub(crate) fn frag_col0(&mut self, b: &RegisterBlocks) -> Word {
        let tc = self.u(b.thread_cols());
        let r = self.uop(Op::UMod, self.tid, tc);
        if b.run == 1 {
            return r;
        }
        let run = self.u(b.run);
        self.uop(Op::IMul, r, run)
    }

    /// The column of dynamic slot `j` of a block row, from `col0`.
    pub(crate) fn frag_col(&mut self, b: &RegisterBlocks, col0: Word, j: Word) -> Word {
        let tc = b.thread_cols();
        if b.run == 1 {
            let tc = self.u(tc);
            let m = self.uop(Op::IMul, j, tc);
            return self.uop(Op::IAdd, col0, m);
        }
        let (r, step) = (self.u(b.run), self.u(tc * b.run));
        let q = self.uop(Op::UDiv, j, r);
        let m = self.uop(Op::IMul, q, step);
        let rem = self.uop(Op::UMod, j, r);
        let s = self.uop(Op::IAdd, col0, m);
        self.uop(Op::IAdd, s, rem)
    }

    /// Calls `body(e)` for the `n` elements distributed as `dist` says (not for fragments).
    pub(crate) fn elements(
        &mut self,
        n: u64,
        dist: Dist,
        body: impl FnOnce(&mut Self, Word) -> R,
    ) -> R {
        let t = self.l.threads as u64;
        match dist {
            Dist::PerThread => {
                let (zero, end, one) = (self.u(0), self.u(n as u32), self.u(1));
                self.loop_range(zero, end, one, body)
            }
            _ if n.is_multiple_of(t) => {
                // A trip count the driver can see: it may unroll and issue loads together.
                let (zero, end, one) = (self.u(0), self.u((n / t) as u32), self.u(1));
                self.loop_range(zero, end, one, |p, k| {
                    let tt = p.u(t as u32);
                    let m = p.uop(Op::IMul, k, tt);
                    let e = p.uop(Op::IAdd, p.tid, m);
                    body(p, e)
                })
            }
            _ => {
                let (end, step) = (self.u(n as u32), self.u(t as u32));
                self.loop_range(self.tid, end, step, body)
            }
        }
    }

    /// The coordinates of linear element `e` of `shape`.
    pub(crate) fn coords(&mut self, e: Word, shape: &[u32]) -> Vec<Word> {
        let mut out = Vec::new();
        let mut stride: u64 = shape.iter().map(|&d| d as u64).product();
        for d in shape {
            stride /= *d as u64;
            let s = self.u(stride as u32);
            let q = self.uop(Op::UDiv, e, s);
            let dd = self.u(*d);
            out.push(self.uop(Op::UMod, q, dd));
        }
        out
    }

    /// `org` plus each coordinate.
    pub(crate) fn plus(&mut self, org: &[Word], c: &[Word]) -> Vec<Word> {
        org.iter().zip(c).map(|(&o, &c)| self.uop(Op::IAdd, o, c)).collect()
    }

    pub(crate) fn window(&self, tile: TileIx, param: ParamIx) -> Vec<u32> {
        let rank = self.l.params[param].shape.len();
        crate::ir::window_shape(&self.axes, &self.l.tiles[tile].shape, rank)
    }

    /// `org` with tile coordinates `(row, col)` added along the window's axes.
    pub(crate) fn window_coords(
        &mut self,
        org: &[Word],
        row: Option<Word>,
        col: Word,
    ) -> Vec<Word> {
        let mut coords = org.to_vec();
        let n = self.axes.len();
        if let Some(row) = row {
            let a = self.axes[n - 2];
            coords[a] = self.uop(Op::IAdd, org[a], row);
        }
        let a = self.axes[n - 1];
        coords[a] = self.uop(Op::IAdd, org[a], col);
        coords
    }

    /// The register slot `i` of a tile as a pointer.
    pub(crate) fn slot_ptr(&mut self, tile: TileIx, slot: u32) -> Word {
        let s = self.u(slot);
        self.tile_ptr(tile, s)
    }

    pub(crate) fn tile_kind(&self, tile: TileIx) -> Kind {
        Kind::of(self.l.tiles[tile].dtype)
    }
}
