//! Passes over the IR. Each decides one kind of lowering choice and records it as data:
//! - `split`: accumulators also read element by element get a matrix twin holding their gemms,
//!   stored through a shared stage into the original fragment;
//! - `rewrite`: reductions of fragments that cannot fold registers go through shared scratch
//!   tiles (the rest the lowering reduces in registers);
//! - `pipeline`: software pipelining of `pipelined` loops (stage-indexed shared tiles);
//! - `barriers`: threadgroup barriers around writes to threadgroup memory (independent writes in
//!   a row share them);
//! - `select` + `layout`: each fragment's layout (SIMT register blocks or matrix units);
//! - `group` (after lowering): consecutive loads with unmasked vector paths issued together;
//! - `guards` (after lowering): parallel loops whose parameter accesses test coordinates that
//!   are uniform over the threadgroup get a twin without those tests, behind one test;
//! - `fuse` (after lowering): an epilogue on a matrix fragment runs as the fragment is saved;
//! - `workgroup_matrices` (after lowering, native SPIR-V only): a plain gemm on NVIDIA's
//!   workgroup-scope matrices, its operands tensor-loaded from global memory;
//! - `padding` (after lowering): padded rows for threadgroup tiles a gemm reads, so matrix
//!   loads are free of bank conflicts;
//! - `vectors` (within lowering): `vec4` views, and parameter reads taken once per run of a
//!   fragment's columns;
//! - `lower` (with `typing`): the [`Lowered`](crate::lir::Lowered) form — typed expressions,
//!   copy plans (vector width, masking; windows proven inside at every launch keep only their
//!   unmasked path), reduction strategies (serial, subgroup, split over
//!   subgroups, in registers), bounds proofs, parameter access.
//!
//! Back ends only print what these decided.

pub mod barriers;
pub mod fuse;
pub mod group;
pub mod guards;
pub mod layout;
pub mod lower;
pub mod padding;
pub mod pipeline;
pub mod rewrite;
pub mod select;
pub mod split;
mod typing;
mod vectors;
pub mod workgroup_matrices;
