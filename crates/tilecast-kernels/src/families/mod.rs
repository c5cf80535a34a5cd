//! The kernel families, each re-exported at the crate's root: a module per family, a folder
//! where it spans files, and the grids they share.

pub mod attention;
pub mod basic;
pub mod elementwise;
pub mod gemm;
pub mod gemv;
pub(crate) mod grid;
pub(crate) mod matvec;
pub mod qlinear;
pub mod quant;
pub mod reduce;
pub mod rope;
pub mod rows;
pub mod tokens;
