//! Shared test helpers: one device per test binary, and a raw GPU copy to create in-flight work.
#![allow(dead_code)]

use std::sync::OnceLock;

use tilecast_runtime::{Buffer, Device};

/// The device every test in a binary shares (opening one per test is slow on lavapipe).
pub fn device() -> &'static Device {
    static D: OnceLock<Device> = OnceLock::new();
    D.get_or_init(|| Device::new().expect("a GPU or lavapipe adapter (mesa-vulkan-drivers)"))
}

/// Submits a GPU copy of `bytes` bytes from `src` to `dst` (at their view offsets) and returns
/// without waiting.
pub fn gpu_copy(src: &Buffer, dst: &Buffer, bytes: u64) {
    let d = src.device();
    let mut enc = d.wgpu_device().create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(
        src.wgpu_buffer(),
        src.byte_offset(),
        dst.wgpu_buffer(),
        dst.byte_offset(),
        bytes,
    );
    d.wgpu_queue().submit([enc.finish()]);
}

/// A deterministic pattern that differs at every index.
pub fn pattern(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32)
        .map(|i| i.wrapping_mul(2654435761).wrapping_add(seed))
        .collect()
}
