//! How tiles and windows are moved: a tile's slot, how an element loop is spread over the
//! threadgroup, and a window copy's plan.

use super::expr::TExpr;
use super::ids::TileIx;

/// A whole tile (one stage of it).
#[derive(Clone, Debug, PartialEq)]
pub struct TileSlot {
    /// The tile.
    pub tile: TileIx,
    /// Stage.
    pub stage: Option<TExpr>,
}

/// How an element loop is spread over threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dist {
    /// Thread `t` takes elements `t, t + T, ...`.
    Threads,
    /// Every thread takes every element (per-thread tiles).
    PerThread,
    /// Each thread takes the fragment elements it owns.
    Fragment(TileIx),
    /// Each subgroup takes the matrices of a matrix fragment it owns.
    Matrix(TileIx),
    /// The whole threadgroup takes the workgroup-scope matrix at once: copies are
    /// tensor-addressed loads and stores, clamped at the parameter's edges (reads there give
    /// zero, writes there are dropped).
    Workgroup(TileIx),
}

/// How a global window is moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CopyPlan {
    /// Thread distribution.
    pub dist: Dist,
    /// Vector width of the fast path (taken when the launch's row length and origin allow).
    pub vector: Option<u32>,
    /// Elements past the parameter's edge read zero / are not written.
    pub masked: bool,
    /// Loads per thread when every thread takes the same number (at most 16): all of them are
    /// issued before any is stored, so a thread keeps that many loads in flight instead of
    /// waiting for each in turn. Counts vectors when `vector` is set.
    pub unroll: Option<u32>,
    /// The copy has an unmasked twin, taken when the whole window lies inside the parameter
    /// (the usual case away from the edges): the vector path of a load, the register windows
    /// of fragment loads and saves, and element-wise saves from threadgroup tiles. Per-element
    /// bounds tests cost a gemm's staging about a third of its time on an H200.
    pub interior: bool,
    /// Issued together with the next op, also a load with an unmasked vector path: when both
    /// windows lie inside, every global load of the run goes out before any store, so the run
    /// waits for memory once instead of once per load.
    pub issue_with_next: bool,
    /// With `interior`: the window lies inside the parameter (and, with `vector`, is aligned to
    /// it) at every launch, proven from constant shapes, grid and loop extents; only the
    /// unmasked path is emitted. The never-taken fallbacks cost more than their tests (f16 gemv
    /// on an H200: 40.7 us with them, 34.0 without).
    pub proven: bool,
}

impl CopyPlan {
    /// A masked plan, nothing issued with the next op and nothing proven yet (the lowering's
    /// starting point for every load and save).
    pub fn masked(dist: Dist, vector: Option<u32>, unroll: Option<u32>, interior: bool) -> Self {
        CopyPlan {
            dist,
            vector,
            masked: true,
            unroll,
            interior,
            issue_with_next: false,
            proven: false,
        }
    }
}
