//! Back ends: WGSL (what the runtime runs), and MSL / SPIR-V through naga for inspection.

pub mod emit;
pub mod wgsl;
