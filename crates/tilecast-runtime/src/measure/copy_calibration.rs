//! Choosing the device-to-device copy engine by measurement: both paths copy the same buffer,
//! and the faster one becomes the device's choice for [`CopyPath::Auto`](crate::CopyPath).

use super::timing::{TimingPolicy, median, time_batches};
use crate::{CopyPath, DType, Device, Result, StorageMode, Stream};
use std::sync::atomic::Ordering;

/// What [`Device::calibrate_copies`] measured.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct CopyCalibration {
    /// Bytes per copy measured.
    pub bytes: u64,
    /// `copy_buffer_to_buffer`, GB/s counting bytes read plus bytes written.
    pub builtin_gbps: f64,
    /// The copy kernel, GB/s counting bytes read plus bytes written.
    pub kernel_gbps: f64,
    /// The threshold set: copies of at least this many bytes take the kernel (`None`: never).
    pub kernel_min_bytes: Option<u64>,
}

/// The kernel must win by this factor to be chosen: a tie keeps the API's own copy.
const MARGIN: f64 = 1.1;
/// Below this size launch overhead dominates; the built-in copy keeps small copies.
const SMALL: u64 = 1 << 20;

impl Device {
    /// Copies of at least this many bytes take the copy kernel under `CopyPath::Auto`
    /// (`u64::MAX` until [`calibrate_copies`](Self::calibrate_copies) or
    /// [`set_copy_kernel_min_bytes`](Self::set_copy_kernel_min_bytes)).
    pub fn copy_kernel_min_bytes(&self) -> u64 {
        self.inner.copy_kernel_min_bytes.load(Ordering::Relaxed)
    }

    /// Sets the `CopyPath::Auto` threshold (`None`: always the built-in copy).
    pub fn set_copy_kernel_min_bytes(&self, bytes: Option<u64>) {
        self.inner.copy_kernel_min_bytes.store(bytes.unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// Times both copy engines on a `bytes`-byte Private buffer (median of 5 batches of 4
    /// copies each) and sets [`copy_kernel_min_bytes`](Self::copy_kernel_min_bytes): 1 MiB when
    /// the kernel is at least 10% faster, else never.
    pub fn calibrate_copies(&self, bytes: u64) -> Result<CopyCalibration> {
        let bytes = (bytes / 16).max(1) * 16;
        let n = (bytes / 4) as usize;
        // Pseudo-random contents, like real data: a constant fill may compress on some GPUs
        // and move faster, which would flatter both engines.
        let mut x: u32 = 0x9E37_79B9;
        let data: Vec<u32> = (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x
            })
            .collect();
        let src = self.buffer_from_slice_in(StorageMode::Private, &data, &[n])?;
        drop(data);
        let dst = self.alloc_in(StorageMode::Private, DType::U32, &[n])?;
        let mut stream = Stream::new(self);
        let mut gbps = |path: CopyPath| -> Result<f64> {
            let policy = TimingPolicy::for_device(self, 4, 5);
            let times = time_batches(&mut stream, policy, |s| {
                s.copy_with(path, &src, 0, &dst, 0, bytes).map(|_| ())
            })?;
            Ok(2.0 * bytes as f64 / median(&times.seconds) / 1e9)
        };
        let builtin_gbps = gbps(CopyPath::Builtin)?;
        let kernel_gbps = gbps(CopyPath::Kernel)?;
        let kernel_min_bytes = (kernel_gbps >= MARGIN * builtin_gbps).then_some(SMALL);
        self.set_copy_kernel_min_bytes(kernel_min_bytes);
        Ok(CopyCalibration { bytes, builtin_gbps, kernel_gbps, kernel_min_bytes })
    }
}
