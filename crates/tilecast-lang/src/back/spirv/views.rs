//! Parameters read and written through their vector views: runs of four elements (`vec4`,
//! or two words for bf16), and runs of four words of u8/i8 parameters (`vec4<u32>`). Lets
//! reading the lanes of one run share its load ([`Printer::run_load`]).

use rspirv::spirv::{Op, Word};

use super::kinds::Kind;
use super::{Printer, Unsupported};
use crate::lir::{ParamIx, TExpr};

impl Printer<'_> {
    /// The four elements from `coords` (a multiple of 4 along the last axis) of parameter
    /// `p`, through its `vec4` view; zero when `masked` and the first is out of bounds.
    pub(crate) fn vector_load(&mut self, p: ParamIx, coords: &[Word], masked: bool) -> Word {
        let (lin, inside) = self.param_index(p, coords).expect("shapes are symbols");
        let b = self.buffers[p.0];
        let v4 = self.vec_ty(b.kind, 4);
        let four = self.u(4);
        let q = self.uop(Op::UDiv, lin, four);
        let read = |pr: &mut Self, at: Word| match b.packed {
            Some(d) => pr.packed_vector(p, d, at),
            None => {
                let view = pr.views[p.0].expect("vector reads go through a vec4 view");
                let ptr = pr.buffer_ptr(view, v4, at);
                pr.inst(Op::Load, v4, &[ptr])
            }
        };
        if !masked {
            return read(self, q);
        }
        let kind = b.kind;
        let cond = self.all(&inside);
        let zero_u = self.u(0);
        let u = self.ty(Kind::U32);
        let safe = self.inst(Op::Select, u, &[cond, q, zero_u]);
        let v = read(self, safe);
        let zero = self.constant(kind, 0.0);
        let z4 = self.b.constant_composite(v4, [zero; 4]);
        let b4 = self.vec_ty(Kind::Bool, 4);
        let c4 = self.inst(Op::CompositeConstruct, b4, &[cond; 4]);
        self.inst(Op::Select, v4, &[c4, v, z4])
    }

    /// The vector load of the run at `coords` (the first element's, or the first word's) of
    /// parameter `p`: made by `load` (given the coordinates' values) where the block has not
    /// loaded that run yet, before the let that first reads it. Runs are told apart by their
    /// coordinates' expressions, so lets whose coordinates are equal share one load; only
    /// coordinates that read no memory are kept, since a store between two lets could change
    /// what the same expression reads.
    pub(super) fn run_load(
        &mut self,
        p: ParamIx,
        coords: &[TExpr],
        masked: bool,
        load: impl FnOnce(&mut Self, &[Word]) -> Word,
    ) -> Result<Word, Unsupported> {
        let key = (p, coords.to_vec(), masked);
        if let Some((_, v)) = self.lane_loads.iter().find(|(c, _)| *c == key) {
            return Ok(*v);
        }
        let at = coords.iter().map(|i| self.expr(i)).collect::<Result<Vec<_>, _>>()?;
        let v = load(self, &at);
        if !coords.iter().any(TExpr::reads_memory) {
            self.lane_loads.push((key, v));
        }
        Ok(v)
    }

    /// Stores vector `v` at `coords` (aligned, inside) of parameter `p` through its view.
    pub(crate) fn vector_store(&mut self, p: ParamIx, coords: &[Word], v: Word) {
        let (lin, _) = self.param_index(p, coords).expect("shapes are symbols");
        if let Some(d) = self.buffers[p.0].packed {
            return self.packed_store4(p, d, lin, v);
        }
        let view = self.views[p.0].expect("vector writes go through a vec4 view");
        let v4 = self.vec_ty(self.buffers[p.0].kind, 4);
        let four = self.u(4);
        let q = self.uop(Op::UDiv, lin, four);
        let ptr = self.buffer_ptr(view, v4, q);
        self.b.store(ptr, v, None, []).expect("in a block");
    }

    /// Words `first..first + 4` (`first` a multiple of 4, inside) of u8/i8 parameter `p`,
    /// through its `vec4<u32>` view.
    pub(super) fn word_run(&mut self, p: ParamIx, first: Word) -> Word {
        let view = self.views[p.0].expect("word runs go through a vec4<u32> view");
        let v4 = self.vec_ty(Kind::U32, 4);
        let four = self.u(4);
        let q = self.uop(Op::UDiv, first, four);
        let ptr = self.buffer_ptr(view, v4, q);
        self.inst(Op::Load, v4, &[ptr])
    }
}
