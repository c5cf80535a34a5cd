//! tilecast-kernels: the kernel library. Each kernel is a tile-language definition (it uses
//! only `tilecast-lang`) with a CPU reference the tests compare against; the [`registry`]
//! describes every kernel once (builder, arguments, reference, tolerance, shapes, work), and the
//! [`harness`] runs an entry on a device and checks it.
//!
//! The source is laid out by role, one folder each:
//! - `families/`: the kernels, one module per family, each re-exported here: [`gemm`],
//!   [`attention`] and [`qlinear`] (with the weight formats of [`quant`]) span folders;
//!   [`gemv`], [`rows`] (softmax and the norms), [`reduce`], [`rope`] and [`elementwise`] are
//!   a file each, [`tokens`] (embedding lookup, head transposes, paged KV writes) a folder;
//!   [`basic`] holds small kernels that exercise each op of the language.
//! - `registry/`: the [`registry`]'s types (an [`Entry`] and the [`Problem`]s it runs) and its
//!   table ([`entries`], [`lookup`]).
//! - `run/`: running and printing a problem's launches: [`TileKernel`] launches one compiled
//!   kernel on the runtime, the [`harness`] runs an entry's plan and checks it, a [`listing`]
//!   is its code as `tilecast emit` and the golden files show it.
//! - `reference/`: the CPU [references](mod@reference), plain loops written from the definitions.
//!
//! [`error`] is the crate's one error type.

pub mod error;
mod families;
pub mod reference;
pub mod registry;
mod run;

pub use error::{Error, Result};
pub use families::{
    attention, basic, elementwise, gemm, gemv, qlinear, quant, reduce, rope, rows, tokens,
};
pub use registry::entries::{entries, lookup};
pub use registry::{Entry, Problem};
pub use run::launch::{BACKEND_CODE_ENV, CHECKED_ENV, CodePath, LoadAs, TileKernel, plan_profile};
pub use run::{harness, listing};

/// The README's Rust quick start, run as a doctest so it never goes stale.
#[doc = include_str!("../../../README.md")]
#[cfg(doctest)]
pub struct ReadmeQuickStart;
