//! The passes, in the order [`compile`](crate::compile) runs them. Each decides one kind of
//! lowering choice and records it as data; back ends only print what they decided.
//!
//! 1. [`ir`] — passes over the tile IR:
//!    - `split`: accumulators also read element by element get a matrix twin holding their
//!      gemms, stored through a shared stage into the original fragment;
//!    - `rewrite`: reductions of fragments that cannot fold registers go through shared scratch
//!      tiles (the rest the lowering reduces in registers);
//!    - `pipeline`: software pipelining of `pipelined` loops (stage-indexed shared tiles);
//!    - `select`: each fragment's layout (SIMT register blocks, matrix units, or the rows of
//!      the fragment a row statistic follows);
//!    - `barriers`: threadgroup barriers around writes to threadgroup memory (independent
//!      writes in a row share them).
//! 2. [`lower`] — the IR into the [`Lowered`](crate::lir::Lowered) form: typed expressions
//!    (`typing`), copy plans (vector width, masking; windows proven inside at every launch keep
//!    only their unmasked path), reduction strategies (serial, subgroup, split over subgroups,
//!    in registers), bounds proofs, parameter access and vector views (`vectors`).
//! 3. [`lowered`] — passes over the lowered form:
//!    - `group`: consecutive loads with unmasked vector paths issued together;
//!    - `guards`: parallel loops whose parameter accesses test coordinates that are uniform
//!      over the threadgroup get a twin without those tests, behind one test;
//!    - `padding`: padded rows for threadgroup tiles a gemm reads, so matrix loads are free of
//!      bank conflicts;
//!    - `fuse`: an epilogue on a matrix fragment runs as the fragment is saved;
//!    - `workgroup_matrices` (native SPIR-V only): a plain gemm on NVIDIA's workgroup-scope
//!      matrices, its operands tensor-loaded from global memory;
//!    - `workgroup_kernel` (native SPIR-V only): a kernel whose products feed each other or
//!      row reductions (flash attention's online softmax) on workgroup-scope matrices end to
//!      end: row statistics as matrix row reductions, element loops as per-element operations.
//!
//! Analyses the verifier shares with these passes (fragment layouts, row statistics) live in
//! [`crate::analysis`].

pub mod ir;
pub mod lower;
pub mod lowered;
