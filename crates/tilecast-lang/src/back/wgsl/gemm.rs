//! SIMT gemm: each thread updates its register block of the accumulator, reading one column of
//! A and one row of B per K step from threadgroup memory.

use super::Printer;
use super::names::{frag_col0, frag_row0, pitched, ty};
use crate::lir::{GemmLowering, GemmOperands};

impl Printer<'_> {
    pub(crate) fn gemm(&mut self, g: &GemmOperands, lowering: &GemmLowering) {
        let l = match *lowering {
            GemmLowering::Simt(l) => l,
            GemmLowering::Matrix(m) => return self.gemm_matrix(g, &m),
            GemmLowering::Workgroup => {
                unreachable!("workgroup-scope matrices are made for the native back end only")
            }
        };
        let accty = ty(self.l.tiles[g.c].dtype);
        let an = self.l.tiles[g.a.tile].named.ident.clone();
        let bn = self.l.tiles[g.b.tile].named.ident.clone();
        let cn = self.l.tiles[g.c].named.ident.clone();
        let (ao, bo) = (self.stage_offset(g.a), self.stage_offset(g.b));
        let (ap, bp) = g.pitch;
        let kk = self.fresh("kk");
        self.open("");
        self.line(&format!("let tr = {};", frag_row0(&l)));
        self.line(&format!("let tcol = {};", frag_col0(&l)));
        self.open(&format!("for (var {kk} = 0u; {kk} < {}u; {kk}++)", g.k));
        for i in 0..l.tm {
            let idx = pitched(g.a_at(&format!("tr + {i}u"), &kk), ap);
            self.line(&format!("let a{i} = {accty}({an}[{ao}{idx}]);"));
        }
        for j in 0..l.tn {
            let idx = pitched(g.b_at(&kk, &format!("tcol + {}u", l.col_step(j))), bp);
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
