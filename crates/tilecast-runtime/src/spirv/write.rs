//! naga's SPIR-V of a WGSL module, for the passthrough path (`load_subgroup_roles`, and tools
//! that hand SPIR-V to Vulkan themselves): written without bounds checks or workgroup zeroing,
//! with the binding numbers the layout will have, and valid for Vulkan (no explicit layouts on
//! workgroup types).

use super::workgroup_layout::drop_workgroup_layouts;
use crate::Result;
use crate::library::{BindingInfo, reflect};

/// SPIR-V for the passthrough path: what wgpu's Vulkan backend would write for a trusted module
/// (no bounds checks, no workgroup zeroing: tilecast kernels write shared memory before reading
/// it), at SPIR-V 1.3: Vulkan 1.1, which subgroups (required for this path) already imply;
/// cooperative matrices and the Vulkan memory model come as extensions. Workgroup types lose
/// the explicit layouts naga gives them, which Vulkan does not allow there. Bindings keep the
/// numbers the WGSL gives them, for a pipeline layout made with those numbers (the `vk_stats`
/// tool's); wgpu numbers them densely, which `load_subgroup_roles` writes instead.
pub fn passthrough_spirv(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
) -> std::result::Result<Vec<u32>, String> {
    write_spirv(module, info, naga::back::spv::BindingMap::default())
}

/// The bindings any compute entry point of `module` uses, sorted, one each.
pub(crate) fn used_bindings(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
) -> Result<Vec<BindingInfo>> {
    let mut bound: Vec<BindingInfo> = Vec::new();
    for ep in module.entry_points.iter().filter(|e| e.stage == naga::ShaderStage::Compute) {
        for b in reflect(module, info, &ep.name)?.bindings {
            if !bound.iter().any(|x| x.binding == b.binding) {
                bound.push(b);
            }
        }
    }
    bound.sort_by_key(|b| b.binding);
    Ok(bound)
}

/// [`passthrough_spirv`] with `binding_map` renumbering the bindings.
pub(crate) fn write_spirv(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
    binding_map: naga::back::spv::BindingMap,
) -> std::result::Result<Vec<u32>, String> {
    use naga::back::spv;
    use naga::proc::BoundsCheckPolicy::Unchecked;
    let options = spv::Options {
        lang_version: (1, 3),
        flags: spv::WriterFlags::empty(),
        bounds_check_policies: naga::proc::BoundsCheckPolicies {
            index: Unchecked,
            buffer: Unchecked,
            image_load: Unchecked,
            binding_array: Unchecked,
        },
        zero_initialize_workgroup_memory: spv::ZeroInitializeWorkgroupMemoryMode::None,
        force_loop_bounding: false,
        binding_map,
        ..spv::Options::default()
    };
    let words = spv::write_vec(module, info, &options, None)
        .map_err(|e| format!("naga's SPIR-V writer: {e}"))?;
    drop_workgroup_layouts(&words)
}
