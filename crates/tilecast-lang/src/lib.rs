//! tilecast-lang: the tile language (IR, Rust builder, verifier, passes, WGSL back end).
//!
//! Empty until the tile-language issue lands; the crate exists so the workspace shows the
//! layering: kernels use this crate, this crate emits source that the runtime executes.
