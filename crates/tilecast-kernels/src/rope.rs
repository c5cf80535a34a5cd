//! Rotary position embedding on `X[B, S, H, D]` with precomputed `Cos[P, D/2]` and `Sin[P, D/2]`
//! tables (f32) and a position offset: token `s` has position `offset + s`, so a decode step
//! passes the cache length.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, sym};

use crate::grid::{flat_block, flat_grid};

/// Which elements form a rotated pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RopeLayout {
    /// `(x[2i], x[2i + 1])` (GPT-J, the original paper).
    Interleaved,
    /// `(x[i], x[i + D/2])` (GPT-NeoX, Llama in Hugging Face).
    HalfSplit,
}

impl RopeLayout {
    /// Kernel name.
    pub fn name(self) -> &'static str {
        match self {
            RopeLayout::Interleaved => "rope",
            RopeLayout::HalfSplit => "rope_neox",
        }
    }
}

/// Most pairs per threadgroup: 8 per thread at 256 threads, each with two f32 results held in
/// registers until the store pass.
const MAX_BLOCK: u32 = 2048;

/// `Y = rope(X)`: for pair `i` at position `p`, `y0 = x0 cos - x1 sin`, `y1 = x1 cos + x0 sin`
/// with `cos = Cos[p, i]`, `sin = Sin[p, i]`. Arguments: `X`, `Cos`, `Sin`, `Y`, then the u32
/// scalar `offset`. `D` must be even; positions past `P` read the tables as zero, so the caller
/// (the registry's argument check) keeps `offset + S <= P`.
///
/// The head count `heads` and head size `dim` are baked into the kernel (a model fixes them;
/// B and S vary per call). A threadgroup works on one token (a `(b, s)` pair; a token of more
/// than `MAX_BLOCK` (2048) pairs is split over several): the token's batch index and position are
/// found once per threadgroup, and a pair's head and column divide by constants.
pub fn rope(layout: RopeLayout, dtype: DType, heads: usize, dim: usize) -> Ir {
    let (b, s) = (sym("B"), sym("S"));
    let (h, d) = (Expr::from(heads as u32), Expr::from(dim as u32));
    // `Cos`/`Sin` are [P, D / 2]: the launch's shape check refuses tables of another width.
    let (p, half) = (sym("P"), d.clone() / 2u32);
    // Pairs per token, and the threadgroups and pairs each token gets (a multiple of 256).
    let per_token = (heads * (dim / 2)).max(1) as u32;
    let parts = per_token.div_ceil(MAX_BLOCK);
    let block = per_token.div_ceil(parts).div_ceil(256) * 256;
    let blocks = b.clone() * &s * parts;
    let k = Kernel::new(layout.name()).grid(flat_grid(&blocks)).threads(256);
    let x = k.input("X", dtype, [&b, &s, &h, &d]);
    let (cos, sin) =
        (k.input("Cos", DType::F32, [&p, &half]), k.input("Sin", DType::F32, [&p, &half]));
    let y = k.param("Y", dtype, [&b, &s, &h, &d]);
    let offset = k.scalar("offset", DType::U32);
    let wg = flat_block(&blocks);
    let token = wg.clone() / parts;
    let (bb, ss) = (token.clone() / &s, token % &s);
    let base = (wg % parts) * block;
    // Results go to register fragments first: a pass with no global stores lets a thread keep
    // all its loads in flight; the stores follow in a second pass.
    let (y0, y1) = (
        k.fragment_named("rotated0", DType::F32, [block]),
        k.fragment_named("rotated1", DType::F32, [block]),
    );
    // Pairs past the token's last (q >= per_token) have a head index >= H: the parameters'
    // bounds checks mask their loads and stores.
    let pair = |q: &Expr| {
        let q = base.clone() + q;
        let i = q.clone() % &half;
        let hh = q / &half;
        let (i0, i1) = match layout {
            RopeLayout::Interleaved => (i.clone() * 2u32, i.clone() * 2u32 + 1u32),
            RopeLayout::HalfSplit => (i.clone(), i.clone() + &half),
        };
        let (bb, ss) = (bb.clone(), ss.clone());
        let at = move |d: &Expr| [bb.clone(), ss.clone(), hh.clone(), d.clone()];
        (i, i0, i1, at)
    };
    k.parallel([block], |k, [q]| {
        let (i, i0, i1, at) = pair(&q);
        let pos = offset.clone() + at(&i0)[1].clone();
        let (c, sn) = (cos.at([pos.clone(), i.clone()]), sin.at([pos, i]));
        let (x0, x1) = (x.at(at(&i0)).cast(DType::F32), x.at(at(&i1)).cast(DType::F32));
        k.store(&y0, [&q], x0.clone() * c.clone() - x1.clone() * sn.clone());
        k.store(&y1, [&q], x1 * c + x0 * sn);
    });
    k.parallel([block], |k, [q]| {
        let (_, i0, i1, at) = pair(&q);
        k.store(&y, at(&i0), y0.at([&q]).cast(dtype));
        k.store(&y, at(&i1), y1.at([&q]).cast(dtype));
    });
    k.build()
}
