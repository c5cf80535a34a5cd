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
    /// SPIR-V modules handed to the driver as they are (`ShaderLibrary::load_spirv`, what
    /// tilecast's native SPIR-V back end needs): passthrough shaders on Vulkan.
    pub native_spirv: bool,
    /// Timestamp queries, including inside passes where the backend allows it.
    pub timestamps: bool,
    /// A backend pipeline cache that can be persisted.
    pub pipeline_cache: bool,
    /// GPU buffers the host can map directly (what `StorageMode::Shared` needs).
    pub mappable_primary_buffers: bool,
}

/// A cooperative-matrix configuration as the Vulkan driver reports it
/// (`vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR`), every one it offers: the portable
/// path reaches only those in [`Capabilities::matrix_configs`], a native SPIR-V path could
/// reach them all.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct DriverMatrixConfig {
    /// Rows of A and C.
    pub m: u32,
    /// Columns of B and C.
    pub n: u32,
    /// Columns of A, rows of B.
    pub k: u32,
    /// Element type of A (`f16`, `bf16`, `i8`, `e4m3`, ...).
    pub a: String,
    /// Element type of B.
    pub b: String,
    /// Element type of C, the accumulator.
    pub c: String,
    /// Element type of the result.
    pub result: String,
    /// Which threads share one matrix: `subgroup` or `workgroup`.
    pub scope: String,
    /// Whether integer accumulation saturates.
    pub saturating: bool,
    /// For `VK_NV_cooperative_matrix2`'s flexible dimensions: `m`, `n` and `k` are
    /// granularities (any multiple works), and this is the threadgroup's thread count a
    /// workgroup-scope matrix needs (0 at subgroup scope).
    pub flexible_threads: Option<u32>,
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
    /// Every cooperative-matrix configuration the Vulkan driver offers (empty elsewhere).
    pub driver_matrix_configs: Vec<DriverMatrixConfig>,
    /// The matrix-related Vulkan device extensions the driver offers
    /// (`VK_KHR_cooperative_matrix`, `VK_NV_cooperative_matrix2`, `VK_KHR_shader_bfloat16`, ...).
    pub matrix_extensions: Vec<String>,
    /// Those of them the device was opened with beyond wgpu's own (for SPIR-V kernels on the
    /// passthrough path): workgroup-scope matrices, bf16, explicit workgroup layouts.
    pub enabled_matrix_extensions: Vec<String>,
    /// Limits of this device.
    pub limits: DeviceLimits,
    /// Storage modes buffers on this device can use.
    pub storage_modes: Vec<StorageMode>,
    /// The process default storage mode (`TILECAST_STORAGE_MODE`).
    pub default_storage_mode: StorageMode,
}
