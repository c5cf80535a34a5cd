//! tilecast-kernels: the kernel library. Each kernel is a tile-language definition (it uses
//! only `tilecast-lang`) with a CPU reference the tests compare against; the [`registry`]
//! describes every kernel once (builder, arguments, reference, tolerance, shapes, work), and the
//! [`harness`] runs an entry on a device and checks it.

mod args;
pub mod attention;
pub mod basic;
pub mod elementwise;
mod entries;
pub mod error;
mod expected;
pub mod gemm;
pub mod gemv;
mod grid;
pub mod harness;
mod launch;
pub mod listing;
mod options;
pub mod qlinear;
pub mod quant;
pub mod reduce;
pub mod reference;
pub mod reference_ops;
pub mod registry;
pub mod rope;
pub mod rows;
pub mod tuning;

pub use entries::{entries, lookup};
pub use error::{Error, Result};
pub use launch::{BACKEND_CODE_ENV, CHECKED_ENV, CodePath, LoadAs, TileKernel, plan_profile};
pub use registry::{Entry, Problem};

/// The README's Rust quick start, run as a doctest so it never goes stale.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeQuickStart;
