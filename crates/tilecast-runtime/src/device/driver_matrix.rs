//! What the Vulkan driver offers for matrix units beyond what wgpu exposes: every
//! cooperative-matrix configuration (`VK_KHR_cooperative_matrix`, with its types and scope)
//! and which matrix-related device extensions it has. wgpu reports only the f16/f32
//! configurations its WGSL path can use; a native SPIR-V path could use all of these, so the
//! capability report lists them (`tilecast info`). Read through wgpu-hal's own Vulkan
//! instance, so no second instance is made. [`open`] opens the device with those of the
//! extensions wgpu does not enable itself (workgroup-scope matrices, bf16, explicit workgroup
//! layouts), each only where the driver offers it, so SPIR-V kernels loaded through the
//! passthrough path may use them.

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
            flexible_threads: None,
        })
        .collect::<Vec<_>>();
    let mut configs = configs;
    if has("VK_NV_cooperative_matrix2") {
        configs.extend(flexible_configs(shared.entry(), instance, physical));
    }
    (configs, extensions)
}

/// `VkCooperativeMatrixFlexibleDimensionsPropertiesNV`, written here because the bindings
/// predate `VK_NV_cooperative_matrix2`.
#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
#[repr(C)]
#[derive(Clone, Copy)]
struct FlexibleDimensions {
    s_type: ash::vk::StructureType,
    p_next: *mut std::ffi::c_void,
    m_granularity: u32,
    n_granularity: u32,
    k_granularity: u32,
    a_type: i32,
    b_type: i32,
    c_type: i32,
    result_type: i32,
    saturating_accumulation: ash::vk::Bool32,
    scope: i32,
    workgroup_invocations: u32,
}

/// The workgroup-scope configurations of `VK_NV_cooperative_matrix2` (flexible dimensions):
/// which types a threadgroup-wide matrix may have, over how many threads.
#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
fn flexible_configs(
    entry: &ash::Entry,
    instance: &ash::Instance,
    physical: ash::vk::PhysicalDevice,
) -> Vec<DriverMatrixConfig> {
    use ash::vk;
    type Query = unsafe extern "system" fn(
        vk::PhysicalDevice,
        *mut u32,
        *mut FlexibleDimensions,
    ) -> vk::Result;
    let name = c"vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV";
    // SAFETY: a lookup of an instance-level command by name on a live instance.
    let Some(f) =
        (unsafe { (entry.static_fn().get_instance_proc_addr)(instance.handle(), name.as_ptr()) })
    else {
        return Vec::new();
    };
    // SAFETY: the driver returned this pointer for this exact command, whose signature
    // `Query` spells out.
    let query: Query = unsafe { std::mem::transmute::<unsafe extern "system" fn(), Query>(f) };
    let mut count = 0u32;
    // SAFETY: the first call only writes the count.
    if unsafe { query(physical, &mut count, std::ptr::null_mut()) } != vk::Result::SUCCESS {
        return Vec::new();
    }
    let blank = FlexibleDimensions {
        s_type: vk::StructureType::from_raw(1_000_593_001),
        p_next: std::ptr::null_mut(),
        m_granularity: 0,
        n_granularity: 0,
        k_granularity: 0,
        a_type: 0,
        b_type: 0,
        c_type: 0,
        result_type: 0,
        saturating_accumulation: vk::FALSE,
        scope: 0,
        workgroup_invocations: 0,
    };
    let mut props = vec![blank; count as usize];
    // SAFETY: `props` holds `count` structures with their `sType` set, as the command asks.
    if unsafe { query(physical, &mut count, props.as_mut_ptr()) } != vk::Result::SUCCESS {
        return Vec::new();
    }
    props.truncate(count as usize);
    props
        .iter()
        .map(|p| DriverMatrixConfig {
            m: p.m_granularity,
            n: p.n_granularity,
            k: p.k_granularity,
            a: component_name(p.a_type),
            b: component_name(p.b_type),
            c: component_name(p.c_type),
            result: component_name(p.result_type),
            scope: scope_name(p.scope),
            saturating: p.saturating_accumulation == vk::TRUE,
            flexible_threads: Some(p.workgroup_invocations),
        })
        .collect()
}

/// Extensions [`open`] enables beyond wgpu's own, with the `sType` of each one's feature
/// structure (the bindings predate two of them, so the structures are written here).
const ENABLED: [(&std::ffi::CStr, i32); 3] = [
    (c"VK_NV_cooperative_matrix2", 1_000_593_000),
    (c"VK_KHR_shader_bfloat16", 1_000_141_000),
    (c"VK_KHR_workgroup_memory_explicit_layout", 1_000_336_000),
];

/// A Vulkan feature structure of up to 8 `VkBool32` members: the header every such structure
/// starts with, then its flags (the driver reads as many as the structure has).
#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
#[repr(C)]
struct FeatureBlock {
    s_type: ash::vk::StructureType,
    p_next: *mut std::ffi::c_void,
    flags: [ash::vk::Bool32; 8],
}

/// The matrix extensions the runtime enables that a physical device offers, each with a
/// feature structure the driver filled with what it supports: what a device is opened with so
/// that native SPIR-V kernels may use workgroup-scope matrices, bf16 and explicit workgroup
/// layouts. The runtime opens its Vulkan devices with it, and so does the `vk_stats` tool,
/// which opens its own.
#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
pub struct MatrixExtensions {
    names: Vec<&'static std::ffi::CStr>,
    blocks: Vec<FeatureBlock>,
}

#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
impl MatrixExtensions {
    /// Reads which of the extensions `physical` offers, and their features.
    ///
    /// # Safety
    /// `instance` must be live and `physical` one of its physical devices.
    pub unsafe fn query(
        instance: &ash::Instance,
        physical: ash::vk::PhysicalDevice,
    ) -> MatrixExtensions {
        use ash::vk;
        // SAFETY: a query on a live physical device (the caller's promise).
        let available =
            unsafe { instance.enumerate_device_extension_properties(physical) }.unwrap_or_default();
        let offered = |name: &std::ffi::CStr| {
            available.iter().any(|e| e.extension_name_as_c_str().is_ok_and(|n| n == name))
        };
        let wanted: Vec<(&'static std::ffi::CStr, i32)> =
            ENABLED.iter().copied().filter(|(name, _)| offered(name)).collect();
        let mut blocks: Vec<FeatureBlock> = wanted
            .iter()
            .map(|&(_, s_type)| FeatureBlock {
                s_type: vk::StructureType::from_raw(s_type),
                p_next: std::ptr::null_mut(),
                flags: [vk::FALSE; 8],
            })
            .collect();
        if !blocks.is_empty() {
            // Linked through one pointer into the whole vector, which does not move before the
            // query.
            let base = blocks.as_mut_ptr();
            for i in 1..blocks.len() {
                // SAFETY: `i - 1` and `i` are in bounds.
                unsafe { (*base.add(i - 1)).p_next = base.add(i).cast() };
            }
            let mut features2 =
                vk::PhysicalDeviceFeatures2 { p_next: base.cast(), ..Default::default() };
            // SAFETY: the chain holds structures of the extensions the device offers, each
            // with the header Vulkan reads and room for every flag it writes.
            unsafe { instance.get_physical_device_features2(physical, &mut features2) };
            for b in &mut blocks {
                b.p_next = std::ptr::null_mut();
            }
        }
        MatrixExtensions { names: wanted.iter().map(|(n, _)| *n).collect(), blocks }
    }

    /// The extensions' names, to enable.
    pub fn names(&self) -> &[&'static std::ffi::CStr] {
        &self.names
    }

    /// Chains the feature structures in front of `next` and returns the new head. The
    /// structures are leaked: they must outlive device creation, and are a few bytes each.
    pub fn chain(self, next: *const std::ffi::c_void) -> *const std::ffi::c_void {
        let mut head = next;
        for b in Box::leak(self.blocks.into_boxed_slice()).iter_mut() {
            b.p_next = head as *mut std::ffi::c_void;
            head = (b as *const FeatureBlock).cast();
        }
        head
    }
}

/// `adapter` opened with `desc` and, on Vulkan, every extension of [`ENABLED`] the driver
/// offers, with every feature of it the driver supports; returns the device, its queue and
/// the extensions enabled. `None` where there is nothing to add or the driver refused (the
/// caller then opens the device as wgpu does; the refusal is logged).
#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
pub(crate) fn open(
    adapter: &wgpu::Adapter,
    desc: &wgpu::DeviceDescriptor<'_>,
) -> Option<(wgpu::Device, wgpu::Queue, Vec<String>)> {
    // SAFETY: the hal adapter is borrowed for queries and to open one device, which wgpu then
    // owns (`create_device_from_hal`); nothing is destroyed or reconfigured here.
    let hal = unsafe { adapter.as_hal::<wgpu::hal::api::Vulkan>() }?;
    let physical = hal.raw_physical_device();
    let instance = hal.shared_instance().raw_instance();
    // SAFETY: wgpu-hal's live instance and its adapter's physical device.
    let extensions = unsafe { MatrixExtensions::query(instance, physical) };
    if extensions.names().is_empty() {
        return None;
    }
    let names = extensions.names().to_vec();
    let enabled: Vec<String> = names.iter().map(|n| n.to_string_lossy().into_owned()).collect();
    let callback = Box::new(move |args: wgpu::hal::vulkan::CreateDeviceCallbackArgs| {
        for name in names {
            if !args.extensions.contains(&name) {
                args.extensions.push(name);
            }
        }
        // In front of wgpu's own structures.
        args.create_info.p_next = extensions.chain(args.create_info.p_next);
    });
    // SAFETY: wgpu's own features and limits, plus extensions the driver offers with features
    // it reported supported; the opened device is handed to wgpu, which owns it from then on.
    let opened = unsafe {
        hal.open_with_callback(
            desc.required_features,
            &desc.required_limits,
            &desc.memory_hints,
            Some(callback),
        )
    };
    let opened = match opened {
        Ok(o) => o,
        Err(e) => {
            log::warn!("opening the device with {enabled:?} failed ({e}); opening it without");
            return None;
        }
    };
    drop(hal);
    // SAFETY: `opened` comes from this adapter's hal adapter, with `desc`'s features.
    match unsafe { adapter.create_device_from_hal(opened, desc) } {
        Ok((device, queue)) => Some((device, queue, enabled)),
        Err(e) => {
            log::warn!("wgpu refused the device opened with {enabled:?} ({e}); opening it without");
            None
        }
    }
}

/// Off Vulkan, wgpu opens the device.
#[cfg(any(target_arch = "wasm32", target_vendor = "apple"))]
pub(crate) fn open(
    _adapter: &wgpu::Adapter,
    _desc: &wgpu::DeviceDescriptor<'_>,
) -> Option<(wgpu::Device, wgpu::Queue, Vec<String>)> {
    None
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
