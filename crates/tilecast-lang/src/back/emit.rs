//! MSL and SPIR-V from the generated WGSL, through naga: what `tilecast emit` shows for Metal
//! and Vulkan targets without a GPU.

use crate::{Compiled, Error, Result};

/// Metal Shading Language for `c` (MSL 2.4; bindings assigned in declaration order).
pub fn msl(c: &Compiled) -> Result<String> {
    let (module, info) = c.naga()?;
    let options = naga::back::msl::Options {
        lang_version: (2, 4),
        fake_missing_bindings: true,
        zero_initialize_workgroup_memory: true,
        ..Default::default()
    };
    let pipeline = naga::back::msl::PipelineOptions::default();
    naga::back::msl::write_string(module, info, &options, &pipeline).map(|(src, _)| src).map_err(
        |e| Error::Emit { target: "msl", kernel: c.name().to_string(), message: e.to_string() },
    )
}

/// SPIR-V words for `c` (Vulkan 1.1 environment).
pub fn spirv(c: &Compiled) -> Result<Vec<u32>> {
    let (module, info) = c.naga()?;
    let options = naga::back::spv::Options { lang_version: (1, 3), ..Default::default() };
    naga::back::spv::write_vec(module, info, &options, None).map_err(|e| Error::Emit {
        target: "spirv",
        kernel: c.name().to_string(),
        message: e.to_string(),
    })
}
