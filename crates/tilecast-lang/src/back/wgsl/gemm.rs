//! SIMT gemm: each thread updates its register block of the accumulator, reading one column of
//! A and one row of B per K step from threadgroup memory.

use super::Printer;
use super::names::{frag_col0, frag_row0, ty};
use crate::lir::{GemmLowering, TileIx, TileSlot};

impl Printer<'_> {
    pub(crate) fn gemm(
        &mut self,
        a: &TileSlot,
        b: &TileSlot,
        c: TileIx,
        ta: bool,
        tb: bool,
        lowering: &GemmLowering,
    ) {
        let l = match *lowering {
            GemmLowering::Simt(l) => l,
            GemmLowering::Matrix(m) => return self.gemm_matrix(a, b, c, (ta, tb), &m),
            GemmLowering::Workgroup => {
                unreachable!("workgroup-scope matrices are made for the native back end only")
            }
        };
        let accty = ty(self.l.tiles[c].dtype);
        let a_t = &self.l.tiles[a.tile];
        let kdim = if ta { a_t.shape[0] } else { a_t.shape[1] };
        let an = a_t.named.ident.clone();
        let bn = self.l.tiles[b.tile].named.ident.clone();
        let cn = self.l.tiles[c].named.ident.clone();
        let (ao, bo) = (self.stage_offset(a), self.stage_offset(b));
        // Rows of the stored operands step by their pitch (padding included).
        let (ap, bp) = (a_t.row_pitch(), self.l.tiles[b.tile].row_pitch());
        let kk = self.fresh("kk");
        self.open("");
        self.line(&format!("let tr = {};", frag_row0(&l)));
        self.line(&format!("let tcol = {};", frag_col0(&l)));
        self.open(&format!("for (var {kk} = 0u; {kk} < {kdim}u; {kk}++)"));
        for i in 0..l.tm {
            let idx = if ta {
                format!("{kk} * {ap}u + tr + {i}u")
            } else {
                format!("(tr + {i}u) * {ap}u + {kk}")
            };
            self.line(&format!("let a{i} = {accty}({an}[{ao}{idx}]);"));
        }
        for j in 0..l.tn {
            let col = format!("tcol + {}u", l.col_step(j));
            let idx = if tb {
                format!("({col}) * {bp}u + {kk}")
            } else {
                format!("{kk} * {bp}u + {col}")
            };
            self.line(&format!("let b{j} = {accty}({bn}[{bo}{idx}]);"));
        }
        for i in 0..l.tm {
            for j in 0..l.tn {
                let s = i * l.tn + j;
                self.line(&format!("{cn}[{s}] = fma(a{i}, b{j}, {cn}[{s}]);"));
            }
        }
        self.close();
        self.close();
    }
}
