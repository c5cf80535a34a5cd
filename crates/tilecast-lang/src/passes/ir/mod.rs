//! Passes over the tile IR, before lowering: each rewrites the [`Kernel`](crate::ir::Kernel)
//! or decides a per-tile choice the lowering reads.

pub mod barriers;
pub mod lanes;
pub mod pipeline;
pub mod rewrite;
pub mod select;
pub mod split;
