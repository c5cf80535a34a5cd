//! Back ends: WGSL (the portable path the runtime runs everywhere), native SPIR-V (Vulkan,
//! printed with rspirv), and MSL / SPIR-V through naga for inspection.

pub mod emit;
pub mod spirv;
pub mod wgsl;
