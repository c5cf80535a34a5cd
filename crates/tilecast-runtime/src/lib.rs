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

mod buffer;
mod capabilities;
mod copy_calibration;
mod device;
pub mod dlpack;
mod driver_matrix;
mod error;
mod foreign;
mod gpu_timer;
mod host;
mod kernel;
mod pipeline_cache;
mod pool;
mod reflection;
mod residency;
mod roofline;
mod shader_library;
mod spirv;
mod storage_mode;
mod stream;
mod timing;
mod transfer;

pub use buffer::Buffer;
pub use copy_calibration::CopyCalibration;
pub use device::{
    ADAPTER_ENV, AdapterSummary, AllocationStats, BACKEND_ENV, Backend, Device, DeviceOptions,
    list_adapters,
};
pub use dlpack::{
    CopyPolicy, DlpackTensor, ExportOptions, ExportedTensor, HostMapping, StridedView,
};
/// What a Vulkan device is opened with for native SPIR-V's matrix extensions (tools that open
/// their own device use it too).
#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
pub use driver_matrix::MatrixExtensions;
pub use error::{Error, Result};
pub use gpu_timer::GpuTimer;
pub use host::{HostView, HostViewMut};
pub use kernel::KernelFunction;
pub use spirv::passthrough_spirv;
pub use pipeline_cache::{CACHE_DIR_ENV, DiskCacheStatus, default_cache_dir};
pub use pool::{BufferPool, MAX_SLACK_BYTES, PoolStats};
pub use reflection::{BindingInfo, BindingKind, ScalarInfo, ScalarType};
pub use residency::{ResidencySet, ResidencyStats};
pub use roofline::Roofline;
pub use shader_library::{LibraryStats, ShaderLibrary, ShaderModule};
pub use storage_mode::{
    BUILTIN_STORAGE_MODE, STORAGE_MODE_ENV, default_storage_mode, resolve_storage_mode,
};
pub use stream::{
    CopyPath, MAX_MB_ENV, MAX_OPS_ENV, Stream, StreamConfig, StreamCounters, SyncType,
};
/// The shared vocabulary, from `tilecast-core` (re-exported so runtime users need one crate).
pub use tilecast_core::{
    Capabilities, DType, DeviceLimits, DriverMatrixConfig, Element, F8E4M3, F8E5M2, FeatureSet,
    MatrixConfig, Scalar, StorageMode,
};
pub use timing::{BatchTimes, Clock, TimingPolicy, median, time_batches};

/// Warns through the application's logger when it has one, else on stderr, so a warning is
/// never lost and never printed twice.
pub(crate) fn warn(message: &str) {
    if log::log_enabled!(log::Level::Warn) {
        log::warn!("{message}");
    } else {
        eprintln!("tilecast: warning: {message}");
    }
}
