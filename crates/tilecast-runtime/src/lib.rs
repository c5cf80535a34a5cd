//! tilecast-runtime: the GPU runtime under tilecast, over wgpu.
//!
//! It knows nothing of tiles: it opens a [`Device`], reports its [`Capabilities`], holds typed
//! [`Buffer`]s in a chosen [`StorageMode`] (optionally from a [`BufferPool`], tracked by a
//! [`ResidencySet`]), compiles WGSL in a [`ShaderLibrary`] into [`KernelFunction`]s, and batches
//! their dispatches, copies and fills in a [`Stream`], and exchanges buffers with other frameworks
//! through [`dlpack`] (DLPack 1.1). The tile language compiles kernels into source
//! plus a launch description that this crate executes.
//!
//! ```no_run
//! use tilecast_runtime::{DType, Device, StorageMode};
//! let device = Device::new()?; // honours TILECAST_BACKEND / TILECAST_ADAPTER
//! let x = device.buffer_from_slice_in(StorageMode::Shared, &[1.0f32, 2.0, 3.0], &[3])?;
//! assert_eq!(&*x.host_view::<f32>()?, &[1.0, 2.0, 3.0]);
//! let tail = x.slice_view(4, 2)?; // shares the allocation
//! assert_eq!(tail.download::<f32>()?, vec![2.0, 3.0]);
//! # Ok::<(), tilecast_runtime::Error>(())
//! ```

mod device;
#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
mod direct;
#[cfg(any(target_arch = "wasm32", target_vendor = "apple"))]
#[path = "direct/unsupported.rs"]
mod direct;
pub mod dlpack;
mod error;
mod library;
mod measure;
mod memory;
mod spirv;
mod stream;

/// What a Vulkan device is opened with for native SPIR-V's matrix extensions (tools that open
/// their own device use it too).
#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
pub use device::MatrixExtensions;
pub use device::{
    ADAPTER_ENV, AdapterSummary, AllocationStats, BACKEND_ENV, Backend, Device, DeviceOptions,
    list_adapters,
};
pub use dlpack::{
    CopyPolicy, DlpackTensor, ExportOptions, ExportedTensor, HostMapping, StridedView,
};
pub use error::{Error, Result};
pub use library::{
    BindingInfo, BindingKind, CACHE_DIR_ENV, DiskCacheStatus, KernelFunction, LibraryStats,
    ScalarInfo, ScalarType, ShaderLibrary, ShaderModule, default_cache_dir,
};
pub use measure::{
    BatchTimes, Clock, CopyCalibration, GpuTimer, Roofline, TimingPolicy, median, time_batches,
};
pub use memory::{
    BUILTIN_STORAGE_MODE, Buffer, BufferPool, HostView, HostViewMut, MAX_SLACK_BYTES, PoolStats,
    ResidencySet, ResidencyStats, STORAGE_MODE_ENV, default_storage_mode, resolve_storage_mode,
};
pub use spirv::passthrough_spirv;
pub use stream::{
    CopyPath, Graph, MAX_MB_ENV, MAX_OPS_ENV, RECORDING_ENV, Recording, Stream, StreamConfig,
    StreamCounters, SyncType,
};
/// The shared vocabulary, from `tilecast-core` (re-exported so runtime users need one crate).
pub use tilecast_core::{
    Capabilities, DType, DeviceLimits, DriverMatrixConfig, Element, F8E4M3, F8E5M2, FeatureSet,
    MatrixConfig, Scalar, StorageMode,
};

/// Warns through the application's logger when it has one, else on stderr, so a warning is
/// never lost and never printed twice.
pub(crate) fn warn(message: &str) {
    if log::log_enabled!(log::Level::Warn) {
        log::warn!("{message}");
    } else {
        eprintln!("tilecast: warning: {message}");
    }
}
