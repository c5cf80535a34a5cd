//! Passes over the [`Lowered`](crate::lir::Lowered) form: each rewrites ops in place where a
//! cheaper equivalent is proven.

pub mod fuse;
pub mod group;
pub mod guards;
pub mod padding;
pub mod workgroup_kernel;
pub mod workgroup_matrices;
