//! The ids that name a lowered kernel's tiles and parameters: indices into
//! [`Lowered::tiles`](super::Lowered::tiles) and [`Lowered::params`](super::Lowered::params).

use crate::ir::{ParamId, TileId};

/// Index of a tile in [`Lowered::tiles`](super::Lowered::tiles): the kernel's tiles first, in
/// their order (the kernel's tile `TileId(i)` is `TileIx(i)`), then the tiles the lowering adds
/// (reduction partials, a loop's uniform trip count).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TileIx(pub usize);

/// Index of a parameter in [`Lowered::params`](super::Lowered::params), the kernel's parameters
/// in their order (the kernel's `ParamId(i)` is `ParamIx(i)`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ParamIx(pub usize);

impl From<TileId> for TileIx {
    fn from(t: TileId) -> Self {
        TileIx(t.0)
    }
}

impl From<ParamId> for ParamIx {
    fn from(p: ParamId) -> Self {
        ParamIx(p.0)
    }
}
