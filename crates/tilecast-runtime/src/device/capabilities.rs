//! The capability report of a wgpu adapter: the data types live in `tilecast-core` (the
//! compiler reads them too); this file fills them in from wgpu.

use crate::{Capabilities, DeviceLimits, FeatureSet, MatrixConfig, StorageMode};

pub(crate) fn backend_name(b: wgpu::Backend) -> &'static str {
    match b {
        wgpu::Backend::Vulkan => "vulkan",
        wgpu::Backend::Metal => "metal",
        wgpu::Backend::Dx12 => "dx12",
        wgpu::Backend::Gl => "gl",
        wgpu::Backend::BrowserWebGpu => "webgpu",
        wgpu::Backend::Noop => "noop",
    }
}

pub(crate) fn device_type_name(t: wgpu::DeviceType) -> &'static str {
    match t {
        wgpu::DeviceType::DiscreteGpu => "discrete",
        wgpu::DeviceType::IntegratedGpu => "integrated",
        wgpu::DeviceType::VirtualGpu => "virtual",
        wgpu::DeviceType::Cpu => "cpu",
        wgpu::DeviceType::Other => "other",
    }
}

fn scalar_name(t: wgpu::CooperativeScalarType) -> &'static str {
    match t {
        wgpu::CooperativeScalarType::F32 => "f32",
        wgpu::CooperativeScalarType::F16 => "f16",
        wgpu::CooperativeScalarType::I32 => "i32",
        wgpu::CooperativeScalarType::U32 => "u32",
    }
}

/// The report of `adapter` with `features` and `limits` enabled.
pub(crate) fn from_adapter(
    adapter: &wgpu::Adapter,
    features: wgpu::Features,
    limits: &wgpu::Limits,
    default_storage_mode: StorageMode,
    enabled_matrix_extensions: Vec<String>,
) -> Capabilities {
    let info = adapter.get_info();
    use wgpu::Features as F;
    let feature_set = FeatureSet {
        shader_f16: features.contains(F::SHADER_F16),
        subgroups: features.contains(F::SUBGROUP),
        cooperative_matrix: features.contains(F::EXPERIMENTAL_COOPERATIVE_MATRIX),
        // Subgroups mean Vulkan 1.1, which the SPIR-V 1.3 of this path needs.
        subgroup_roles: features.contains(F::PASSTHROUGH_SHADERS)
            && features.contains(F::SUBGROUP)
            && info.backend == wgpu::Backend::Vulkan,
        native_spirv: features.contains(F::PASSTHROUGH_SHADERS)
            && info.backend == wgpu::Backend::Vulkan,
        timestamps: features.contains(F::TIMESTAMP_QUERY),
        pipeline_cache: features.contains(F::PIPELINE_CACHE),
        mappable_primary_buffers: features.contains(F::MAPPABLE_PRIMARY_BUFFERS),
    };
    let matrix_configs = if feature_set.cooperative_matrix {
        let mut v: Vec<MatrixConfig> = adapter
            .cooperative_matrix_properties()
            .into_iter()
            .map(|p| MatrixConfig {
                m: p.m_size,
                n: p.n_size,
                k: p.k_size,
                input: scalar_name(p.ab_type),
                accumulator: scalar_name(p.cr_type),
                saturating: p.saturating_accumulation,
            })
            .collect();
        v.dedup();
        v
    } else {
        Vec::new()
    };
    // wgpu does not report memory topology; integrated, CPU and Apple GPUs share host memory.
    let unified_memory =
        matches!(info.device_type, wgpu::DeviceType::IntegratedGpu | wgpu::DeviceType::Cpu)
            || info.backend == wgpu::Backend::Metal;
    let mut storage_modes = vec![StorageMode::Private];
    if feature_set.mappable_primary_buffers {
        storage_modes.push(StorageMode::Shared);
    }
    storage_modes.push(StorageMode::Managed);
    let driver = match (info.driver.is_empty(), info.driver_info.is_empty()) {
        (false, false) => format!("{} {}", info.driver, info.driver_info),
        (false, true) => info.driver.clone(),
        _ => info.driver_info.clone(),
    };
    let (driver_matrix_configs, matrix_extensions) = super::driver_matrix::probe(adapter);
    Capabilities {
        backend: backend_name(info.backend),
        name: info.name.clone(),
        device_type: device_type_name(info.device_type),
        driver,
        vendor_id: info.vendor,
        device_id: info.device,
        unified_memory,
        subgroup_min_size: info.subgroup_min_size,
        subgroup_max_size: info.subgroup_max_size,
        features: feature_set,
        matrix_configs,
        driver_matrix_configs,
        matrix_extensions,
        enabled_matrix_extensions,
        limits: DeviceLimits {
            max_threads_per_threadgroup: limits.max_compute_invocations_per_workgroup,
            max_threadgroup_size: [
                limits.max_compute_workgroup_size_x,
                limits.max_compute_workgroup_size_y,
                limits.max_compute_workgroup_size_z,
            ],
            max_threadgroups_per_dimension: limits.max_compute_workgroups_per_dimension,
            max_shared_memory_bytes: limits.max_compute_workgroup_storage_size,
            max_buffer_size: limits.max_buffer_size,
            max_storage_binding_size: limits.max_storage_buffer_binding_size,
            max_storage_buffers_per_kernel: limits.max_storage_buffers_per_shader_stage,
            min_storage_offset_alignment: limits.min_storage_buffer_offset_alignment,
        },
        storage_modes,
        default_storage_mode,
    }
}
