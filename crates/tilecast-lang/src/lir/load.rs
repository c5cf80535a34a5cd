//! A window load as lowered, and which code it prints, from its copy plan: the choice both
//! back ends read (loads into fragments, workgroup-scope matrices and matrix fragments are
//! dispatched on their distribution first).

use super::copy::{CopyPlan, Dist, TileSlot};
use super::expr::TExpr;
use super::ids::ParamIx;

/// Global window -> tile ([`Op::Load`](super::Op::Load)).
#[derive(Clone, Debug, PartialEq)]
pub struct WindowLoad {
    /// Source parameter.
    pub param: ParamIx,
    /// Window origin.
    pub origin: Vec<TExpr>,
    /// The parameter axis each tile axis runs along ([`crate::ir::window_axes`]).
    pub axes: Vec<usize>,
    /// Destination.
    pub dst: TileSlot,
    /// Plan.
    pub plan: CopyPlan,
}

/// How a load over threads or per-thread elements is issued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadPath {
    /// The window lies inside at every launch: `steps` unmasked vector loads of `width` per
    /// thread, all issued before any store.
    ProvenVectors {
        /// Elements per vector.
        width: u32,
        /// Vector loads per thread.
        steps: u32,
    },
    /// Vectors of `width` where the row length and origin allow, else element loads: `steps`
    /// per thread issued together (with an unmasked twin taken when the window lies inside,
    /// if `interior`), or one per iteration of an element loop when `steps` is `None`.
    Vectors {
        /// Elements per vector.
        width: u32,
        /// Vector loads per thread issued together, and whether an unmasked twin exists.
        unrolled: Option<(u32, bool)>,
    },
    /// `steps` masked element loads per thread, all issued before any store.
    UnrolledElements {
        /// Element loads per thread.
        steps: u32,
    },
    /// One masked element load per iteration of an element loop.
    Elements,
}

impl CopyPlan {
    /// The path a load with this plan prints along.
    pub fn load_path(&self) -> LoadPath {
        match (self.proven, self.vector, self.unroll) {
            (true, Some(width), Some(steps)) => LoadPath::ProvenVectors { width, steps },
            (_, Some(width), unroll) => {
                LoadPath::Vectors { width, unrolled: unroll.map(|s| (s, self.interior)) }
            }
            (_, None, Some(steps)) if self.dist == Dist::Threads => {
                LoadPath::UnrolledElements { steps }
            }
            _ => LoadPath::Elements,
        }
    }
}
