//! tilecast-lang: the tile language.
//!
//! Write a kernel as tiles with the [`Kernel`] builder; [`compile`] verifies it against a
//! target [`Profile`], runs the passes that decide the lowering (fragment layouts, software
//! pipelining, barriers, copy plans, reduction strategies, bounds proofs) into the [`lir`]
//! form, prints WGSL from it and validates that with naga, and returns the launch description
//! the runtime executes ([`Compiled`]; `tilecast-kernels` launches it). It needs no GPU: it
//! depends on `tilecast-core` for its vocabulary, never on the runtime. Laid out like naga: `ir` (plain
//! data), `builder` (the front end), `verify`, `passes`, `lir` (the lowered form), `back`.

pub mod analysis;
pub mod back;
mod builder;
mod compile;
mod compiled;
mod error;
mod fold;
pub mod ir;
pub mod lir;
pub mod passes;
mod profile;
mod ranges;
mod types;
mod verify;

pub use back::wgsl::validate as validate_wgsl;
pub use builder::{GlobalParam, Kernel, TileRef, block_x, block_y, block_z};
pub use compile::compile;
pub use compiled::{Compiled, ParamBinding, ScalarArg, SymbolSource};
pub use error::{Error, Result, Site};
pub use fold::eval;
pub use ir::{DType, Expr, ReduceOp, ceil_div, select, sym, thread_index};
pub use profile::{MatrixShape, Profile, WorkgroupMatrix};
pub use tilecast_core::Scalar;
pub use verify::{verify, verify_shared_memory};
