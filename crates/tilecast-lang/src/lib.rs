//! tilecast-lang: the tile language.
//!
//! Write a kernel as tiles with the [`Kernel`] builder; [`compile`] verifies it against a
//! target [`Profile`], lowers it (fragment layouts, software pipelining, SIMT gemm, masking at
//! ragged edges) and emits WGSL that naga validates, plus the launch description the runtime
//! executes ([`Compiled`], run with [`TileKernel`]). Laid out like naga: `ir` (plain data),
//! `builder` (the front end), `verify`, `passes`, `back`.

pub mod back;
mod builder;
mod compile;
mod error;
pub mod ir;
mod launch;
pub mod passes;
mod profile;
mod types;
mod verify;

pub use builder::{GlobalParam, Kernel, TileRef, block_x, block_y, block_z};
pub use compile::{Compiled, ParamBinding, compile, eval, validate_wgsl};
pub use error::{Error, Result};
pub use ir::{DType, Expr, ceil_div, select, sym};
pub use launch::TileKernel;
pub use profile::{MatrixShape, Profile};
pub use verify::{verify, verify_shared_memory};
