//! GPU memory: typed buffers over shared allocations, their storage modes and the process
//! default, host access (zero-copy views, the Managed protocol, staged copies), the buffer pool,
//! residency sets, and buffers another wgpu user made.
//!
//! - `buffer`: [`Buffer`] and the [`Allocation`] its clones and views share;
//! - `storage_mode`: the process default storage mode (`TILECAST_STORAGE_MODE`);
//! - `host`: host views and the Managed protocol;
//! - `transfer`: staged copies between host memory and GPU-only memory;
//! - `pool`: [`BufferPool`], size-class reuse under a byte cap;
//! - `residency`: [`ResidencySet`];
//! - `foreign`: `Device::buffer_from_wgpu`.

mod buffer;
mod foreign;
mod host;
mod pool;
mod residency;
mod storage_mode;
mod transfer;

pub use buffer::Buffer;
pub(crate) use buffer::{Allocation, WORD, align_down, align_up};
pub use host::{HostView, HostViewMut};
pub use pool::{BufferPool, MAX_SLACK_BYTES, PoolStats};
pub use residency::{ResidencySet, ResidencyStats};
pub use storage_mode::{
    BUILTIN_STORAGE_MODE, STORAGE_MODE_ENV, default_storage_mode, resolve_storage_mode,
};
pub(crate) use transfer::{map_buffer, read_gpu};
