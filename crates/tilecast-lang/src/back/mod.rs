//! Back ends: WGSL (the portable path the runtime runs everywhere), native SPIR-V (Vulkan,
//! printed with rspirv), and MSL / SPIR-V through naga for inspection.

pub mod emit;
pub mod spirv;
pub mod wgsl;

use crate::lir::{ParamIx, TileIx};

/// A global window loaded into a tile as vectors: what the vector paths of a load
/// ([`crate::lir::Op::Load`] whose plan has a `vector` width) print from, in both back ends.
/// `V` is how a back end holds a value (WGSL text, a SPIR-V id).
pub(crate) struct VectorWindow<'a, V> {
    /// The parameter read.
    pub(crate) param: ParamIx,
    /// The window's origin in the parameter.
    pub(crate) org: &'a [V],
    /// The tile loaded into.
    pub(crate) tile: TileIx,
    /// Elements per vector (the plan's `vector`).
    pub(crate) width: u32,
}
