//! What the Vulkan driver offers for matrix units beyond what wgpu exposes: every
//! cooperative-matrix configuration (`VK_KHR_cooperative_matrix`, with its types and scope)
//! and which matrix-related device extensions it has. wgpu reports only the f16/f32
//! configurations its WGSL path can use; a native SPIR-V path could use all of these, so the
//! capability report lists them (`tilecast info`). Read through wgpu-hal's own Vulkan
//! instance, so no second instance is made.

use tilecast_core::DriverMatrixConfig;

/// Matrix-related device extensions, reported when the driver has them.
const EXTENSIONS: [&str; 8] = [
    "VK_KHR_cooperative_matrix",
    "VK_NV_cooperative_matrix2",
    "VK_NV_cooperative_vector",
    "VK_KHR_shader_bfloat16",
    "VK_EXT_shader_float8",
    "VK_KHR_workgroup_memory_explicit_layout",
    "VK_KHR_shader_float_controls2",
    "VK_KHR_shader_integer_dot_product",
];

/// The name of a `VkComponentTypeKHR` value (raw, so values newer than the bindings print
/// too: bf16 and the fp8 types come from later extensions).
pub(crate) fn component_name(raw: i32) -> String {
    match raw {
        0 => "f16".into(),
        1 => "f32".into(),
        2 => "f64".into(),
        3 => "i8".into(),
        4 => "i16".into(),
        5 => "i32".into(),
        6 => "i64".into(),
        7 => "u8".into(),
        8 => "u16".into(),
        9 => "u32".into(),
        10 => "u64".into(),
        1_000_141_000 => "bf16".into(),
        1_000_491_000 => "i8-packed".into(),
        1_000_491_001 => "u8-packed".into(),
        1_000_491_002 | 1_000_567_000 => "e4m3".into(),
        1_000_491_003 | 1_000_567_001 => "e5m2".into(),
        other => format!("component#{other}"),
    }
}

/// The name of a `VkScopeKHR` value.
pub(crate) fn scope_name(raw: i32) -> String {
    match raw {
        1 => "device".into(),
        2 => "workgroup".into(),
        3 => "subgroup".into(),
        5 => "queue family".into(),
        other => format!("scope#{other}"),
    }
}

/// The configurations and extensions of `adapter`'s driver; empty off Vulkan.
#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
pub(crate) fn probe(adapter: &wgpu::Adapter) -> (Vec<DriverMatrixConfig>, Vec<String>) {
    use ash::vk;
    // SAFETY: the hal adapter is only borrowed for these queries, while `adapter` lives; wgpu
    // requires the caller not to destroy or reconfigure it, and nothing here does.
    let Some(hal) = (unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }) else {
        return (Vec::new(), Vec::new());
    };
    let physical = hal.raw_physical_device();
    let shared = hal.shared_instance();
    let instance = shared.raw_instance();
    // SAFETY: a query on a live physical device of this live instance.
    let available = match unsafe { instance.enumerate_device_extension_properties(physical) } {
        Ok(v) => v,
        Err(e) => {
            log::warn!("cannot list the Vulkan device's extensions: {e}");
            return (Vec::new(), Vec::new());
        }
    };
    let has = |name: &str| {
        available
            .iter()
            .any(|e| e.extension_name_as_c_str().is_ok_and(|n| n.to_bytes() == name.as_bytes()))
    };
    let extensions: Vec<String> =
        EXTENSIONS.iter().filter(|n| has(n)).map(|n| n.to_string()).collect();
    if !has("VK_KHR_cooperative_matrix") {
        return (Vec::new(), extensions);
    }
    let coop = ash::khr::cooperative_matrix::Instance::new(shared.entry(), instance);
    // SAFETY: the extension is present (checked above); a query on a live physical device.
    let props = match unsafe { coop.get_physical_device_cooperative_matrix_properties(physical) } {
        Ok(p) => p,
        Err(e) => {
            log::warn!("cannot read the driver's cooperative-matrix configurations: {e}");
            return (Vec::new(), extensions);
        }
    };
    let configs = props
        .iter()
        .map(|p: &vk::CooperativeMatrixPropertiesKHR<'_>| DriverMatrixConfig {
            m: p.m_size,
            n: p.n_size,
            k: p.k_size,
            a: component_name(p.a_type.as_raw()),
            b: component_name(p.b_type.as_raw()),
            c: component_name(p.c_type.as_raw()),
            result: component_name(p.result_type.as_raw()),
            scope: scope_name(p.scope.as_raw()),
            saturating: p.saturating_accumulation == vk::TRUE,
        })
        .collect();
    (configs, extensions)
}

/// Off Vulkan there is nothing beyond wgpu's own report.
#[cfg(any(target_arch = "wasm32", target_vendor = "apple"))]
pub(crate) fn probe(_adapter: &wgpu::Adapter) -> (Vec<DriverMatrixConfig>, Vec<String>) {
    (Vec::new(), Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn component_and_scope_names() {
        assert_eq!(component_name(0), "f16");
        assert_eq!(component_name(3), "i8");
        assert_eq!(component_name(1_000_141_000), "bf16");
        assert_eq!(component_name(42), "component#42");
        assert_eq!(scope_name(3), "subgroup");
        assert_eq!(scope_name(2), "workgroup");
    }
}
