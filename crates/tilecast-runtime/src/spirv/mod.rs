//! SPIR-V that reaches the Vulkan driver as it is (wgpu's passthrough shaders): the modules
//! `ShaderLibrary::load_subgroup_roles` writes from WGSL, and the native modules
//! `ShaderLibrary::load_spirv` takes. wgpu does none of its own SPIR-V work on them, so the
//! library does it here:
//!
//! - `write`: naga's SPIR-V of a validated WGSL module, with no bounds checks and no workgroup
//!   zeroing, and the bindings any entry point uses;
//! - `bindings`: binding numbers as wgpu's Vulkan backend lays them out (densely);
//! - `workgroup_layout`: no explicit layouts on workgroup types, which Vulkan forbids;
//! - `reflection`: a native module's calling convention, read from its own declarations;
//! - `words`: the walk over a module's instructions that the two rewrites share.
//!
//! Nothing here knows of devices or buffers: words in, words (or a reflection) out.

mod bindings;
mod reflection;
mod words;
mod workgroup_layout;
mod write;

pub(crate) use bindings::{dense_binding_map, renumber_bindings};
pub(crate) use reflection::{SpirvInterface, reflect_spirv};
pub use write::passthrough_spirv;
pub(crate) use write::{used_bindings, write_spirv};
