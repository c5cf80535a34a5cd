//! Buffers over `wgpu::Buffer`s made by another wgpu user on the same device (the role of
//! mlx-native's `from_raw`): no copy, no new allocation.
//!
//! Invariants: the tilecast buffer holds a handle to the wgpu buffer and never destroys it (its
//! creator may still use it); the wgpu buffer is at least as large as the dtype and shape need;
//! it has `STORAGE` usage so kernels can bind it. It is Shared when it is mappable for both read
//! and write (and the device maps primary buffers), else Private; never Managed.

use super::buffer::{Allocation, Memory, WORD, align_up};
use crate::{Buffer, DType, Device, Error, Result, StorageMode};

impl Device {
    /// Wraps `buffer`, created on this device's `wgpu::Device` (see [`Device::wgpu_device`]), as
    /// a buffer of `dtype` with `shape`, zero-copy. The caller keeps the right to use `buffer`
    /// too, and is responsible for ordering that use with tilecast's streams; a buffer from
    /// another device fails wgpu validation at its first use (an error, not a crash).
    pub fn buffer_from_wgpu(
        &self,
        buffer: wgpu::Buffer,
        dtype: DType,
        shape: &[usize],
    ) -> Result<Buffer> {
        let label = format!("{dtype}{shape:?}");
        let usage = buffer.usage();
        let fail = |reason: String| Error::ForeignBuffer { label: label.clone(), reason };
        let (bytes, _) = self.check_size(StorageMode::Private, dtype, shape)?;
        if !usage.contains(wgpu::BufferUsages::STORAGE) {
            return Err(fail(format!("usage {usage:?} lacks STORAGE, which kernels bind")));
        }
        if buffer.size() < align_up(bytes, WORD) {
            return Err(fail(format!(
                "the wgpu buffer has {} bytes; {bytes} bytes (rounded up to whole 4-byte words: \
                 {}) are needed",
                buffer.size(),
                align_up(bytes, WORD)
            )));
        }
        let mappable = usage.contains(wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::MAP_WRITE);
        let mode = if mappable && self.capabilities().features.mappable_primary_buffers {
            StorageMode::Shared
        } else {
            StorageMode::Private
        };
        let mut alloc = Allocation::new(self, mode, bytes, Memory::external(buffer), None);
        alloc.external = true;
        Ok(Buffer::whole(alloc, dtype, shape))
    }
}
