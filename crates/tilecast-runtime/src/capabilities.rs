//! What a device can do, as a plain report: the language's target profiles and `tilecast info`
//! read it, so it holds data only.

use crate::StorageMode;

/// One cooperative-matrix (tensor core / simdgroup matrix) shape the device runs natively:
/// `C[M,N] += A[M,K] * B[K,N]`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct MatrixConfig {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of B and C.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// Element type of A and B (`f16`, `f32`, `i32`, `u32`).
    pub input: &'static str,
    /// Element type of C.
    pub accumulator: &'static str,
    /// Whether integer accumulation can saturate.
    pub saturating: bool,
}

/// Optional features, each `true` only when the adapter has it and the device enabled it.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FeatureSet {
    /// `f16` in shaders.
    pub shader_f16: bool,
    /// Subgroup (SIMD-group) operations.
    pub subgroups: bool,
    /// Cooperative matrices (experimental in wgpu).
    pub cooperative_matrix: bool,
    /// Kernels whose subgroups take different roles around cooperative-matrix operations
    /// (`ShaderLibrary::load_subgroup_roles`): SPIR-V passthrough on Vulkan with subgroups.
    pub subgroup_roles: bool,
    /// Timestamp queries, including inside passes where the backend allows it.
    pub timestamps: bool,
    /// A backend pipeline cache that can be persisted.
    pub pipeline_cache: bool,
    /// GPU buffers the host can map directly (what `StorageMode::Shared` needs).
    pub mappable_primary_buffers: bool,
}

/// Limits that bound kernels and buffers.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DeviceLimits {
    /// Threads in one threadgroup, all dimensions multiplied.
    pub max_threads_per_threadgroup: u32,
    /// Threads per threadgroup along x, y, z.
    pub max_threadgroup_size: [u32; 3],
    /// Threadgroups per grid dimension.
    pub max_threadgroups_per_dimension: u32,
    /// Threadgroup (shared) memory per threadgroup, in bytes.
    pub max_shared_memory_bytes: u32,
    /// Largest single buffer, in bytes.
    pub max_buffer_size: u64,
    /// Largest storage-buffer binding, in bytes.
    pub max_storage_binding_size: u64,
    /// Storage buffers one kernel may bind.
    pub max_storage_buffers_per_kernel: u32,
    /// Alignment of a storage binding's offset, in bytes.
    pub min_storage_offset_alignment: u32,
}

/// The capability report of one device.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Capabilities {
    /// `vulkan`, `metal`, `dx12` or `gl`.
    pub backend: &'static str,
    /// The adapter's name.
    pub name: String,
    /// `discrete`, `integrated`, `virtual`, `cpu` or `other`.
    pub device_type: &'static str,
    /// Driver name and version, as the backend reports them.
    pub driver: String,
    /// PCI vendor id (or the backend's equivalent).
    pub vendor_id: u32,
    /// PCI device id (or the backend's equivalent).
    pub device_id: u32,
    /// Host and GPU share physical memory (integrated and CPU devices, Apple GPUs).
    pub unified_memory: bool,
    /// Smallest subgroup size the device may use.
    pub subgroup_min_size: u32,
    /// Largest subgroup size the device may use.
    pub subgroup_max_size: u32,
    /// Optional features enabled on this device.
    pub features: FeatureSet,
    /// Native matrix-unit shapes, read from the adapter at run time; empty without the feature.
    pub matrix_configs: Vec<MatrixConfig>,
    /// Limits of this device.
    pub limits: DeviceLimits,
    /// Storage modes buffers on this device can use.
    pub storage_modes: Vec<StorageMode>,
    /// The process default storage mode (`TILECAST_STORAGE_MODE`).
    pub default_storage_mode: StorageMode,
}

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

impl Capabilities {
    pub(crate) fn from_adapter(
        adapter: &wgpu::Adapter,
        features: wgpu::Features,
        limits: &wgpu::Limits,
        default_storage_mode: StorageMode,
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
}
