//! DLPack 1.1: exchange buffers with other frameworks (numpy, PyTorch, MLX, JAX, ...).
//!
//! - [`ffi`]: the C ABI (`DLManagedTensorVersioned` and friends), with layout tests.
//! - Export ([`Buffer::export_dlpack`](crate::Buffer::export_dlpack),
//!   [`StridedView::export_dlpack`]): host memory (`kDLCPU`) with shape, strides (always
//!   present) and `byte_offset` (0: `data` points at the first element). Shared and Managed
//!   buffers export zero-copy through a [`HostMapping`]; while exported, the GPU must not use the
//!   buffer — every dispatch, copy or fill touching it is [`Error::Exported`](crate::Error) —
//!   until the consumer calls the deleter. Private buffers export only through a copy, flagged
//!   `IS_COPIED`; [`CopyPolicy::Never`] turns that copy into an error.
//! - Import ([`Device::import_dlpack`](crate::Device::import_dlpack)): host memory into a new
//!   buffer, always a copy; [`Device::buffer_from_wgpu`](crate::Device::buffer_from_wgpu) wraps
//!   another wgpu user's buffer without one.
//!
//! **DLPack never synchronizes implicitly.** As MLX documents for its own exports, the
//! producer synchronizes first: commit the stream (`synchronize(SyncType::Commit)` or
//! `CommitAndWait`) before exporting a buffer it wrote — an export of a buffer with encoded,
//! uncommitted work is an error, never a hidden commit — and call
//! [`Buffer::synchronize`](crate::Buffer::synchronize) on a Managed buffer to bring GPU results
//! into the host copy it exports. After consumers wrote a Managed export and released it, call
//! [`Buffer::did_modify_range`](crate::Buffer::did_modify_range). A Shared export maps GPU
//! memory, and wgpu completes a mapping only after submitted work that uses the buffer: that
//! wait is wgpu's memory-safety rule, not a synchronization of anyone's stream.
//!
//! The deleter runs exactly once, on any thread: the consumer calls it, or an unconsumed
//! [`ExportedTensor`] / [`DlpackTensor`] calls it when dropped.
//!
//! ## Metal (designed, not built)
//! On Apple GPUs, DLPack's `kDLMetal` (device type 8) carries an `MTLBuffer` (an
//! `id<MTLBuffer>`, not a host address) in `data`, with `byte_offset` locating the first element
//! inside it — the convention MLX and the DLPack spec settled on. tilecast will export that way
//! once a native Metal path (objc2-metal, behind `cfg(target_os = "macos")`) can reach the
//! `MTLBuffer` under a wgpu buffer through wgpu's HAL interop; the export then keeps the
//! allocation alive like a `HostMapping` does (without mapping) and its stream rule is the one
//! above: commit before exporting. Shared buffers on Apple Silicon are unified memory, so the
//! `kDLCPU` export described here stays available there as well. Nothing of this is compiled
//! yet: it cannot be built or tested on the Linux machines that build tilecast.

pub mod ffi;

mod dtype;
mod export;
mod import;
mod mapping;
mod view;

pub use dtype::{from_dl, to_dl};
pub use export::{CopyPolicy, ExportOptions, ExportedTensor, live_exports};
pub use import::DlpackTensor;
pub use mapping::HostMapping;
pub use view::{MAX_DIMS, StridedView, row_major_strides};
