//! GPU timestamps written between the commands of a [`Stream`]: the GPU's own clock, so a
//! measurement excludes the host's submission and wake-up latency that wall-clock timing of a
//! batch includes.
//!
//! A timestamp is written at a point in the stream's command order (the open compute pass is
//! ended first); [`GpuTimer::read`] resolves every timestamp written since the last read. It
//! needs `TIMESTAMP_QUERY_INSIDE_ENCODERS`; [`GpuTimer::new`] returns `None` on devices without
//! it, and callers fall back to wall-clock timing.

use crate::memory::map_buffer;
use crate::{Device, Error, Result, Stream};

/// A set of timestamp slots, written by [`Stream::write_timestamp`] and read back together.
pub struct GpuTimer {
    device: Device,
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    readback: wgpu::Buffer,
    capacity: u32,
    next: u32,
    period_ns: f64,
}

impl std::fmt::Debug for GpuTimer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GpuTimer")
            .field("capacity", &self.capacity)
            .field("used", &self.next)
            .finish()
    }
}

impl GpuTimer {
    /// Most slots one timer holds (wgpu's query-set limit).
    pub const MAX_SLOTS: u32 = 4096;

    /// A timer with `slots` timestamp slots (at most [`MAX_SLOTS`](Self::MAX_SLOTS)), or
    /// `None` when the device cannot write timestamps between commands.
    pub fn new(device: &Device, slots: u32) -> Result<Option<GpuTimer>> {
        if !device
            .wgpu_device()
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY_INSIDE_ENCODERS)
        {
            return Ok(None);
        }
        if slots == 0 || slots > Self::MAX_SLOTS {
            return Err(Error::InvalidCommand {
                what: "GpuTimer::new".into(),
                reason: format!(
                    "{slots} timestamp slots asked for; a timer holds 1 to {}",
                    Self::MAX_SLOTS
                ),
            });
        }
        let wd = device.wgpu_device();
        let bytes = slots as u64 * 8;
        let (set, resolve, readback) =
            device.scoped("creating a GPU timer", Some((bytes, "timestamp buffers")), || {
                let set = wd.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("tilecast timestamps"),
                    ty: wgpu::QueryType::Timestamp,
                    count: slots,
                });
                let buffer = |label, usage| {
                    wd.create_buffer(&wgpu::BufferDescriptor {
                        label: Some(label),
                        size: bytes,
                        usage,
                        mapped_at_creation: false,
                    })
                };
                let resolve = buffer(
                    "tilecast timestamp resolve",
                    wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                );
                let readback = buffer(
                    "tilecast timestamp readback",
                    wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                );
                (set, resolve, readback)
            })?;
        let period_ns = device.wgpu_queue().get_timestamp_period() as f64;
        Ok(Some(GpuTimer {
            device: device.clone(),
            set,
            resolve,
            readback,
            capacity: slots,
            next: 0,
            period_ns,
        }))
    }

    /// Slots written since the last read.
    pub fn used(&self) -> u32 {
        self.next
    }

    /// The timestamps written since the last read, in seconds after the first of them, in the
    /// order written; frees every slot. The streams that wrote them must have been synchronized
    /// (`SyncType::CommitAndWait`), else the values are not yet there.
    pub fn read(&mut self) -> Result<Vec<f64>> {
        let n = std::mem::take(&mut self.next);
        if n == 0 {
            return Ok(Vec::new());
        }
        let d = &self.device;
        d.scoped("resolving timestamps", None, || {
            let mut enc = d.wgpu_device().create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("tilecast timestamp resolve"),
            });
            enc.resolve_query_set(&self.set, 0..n, &self.resolve, 0);
            enc.copy_buffer_to_buffer(&self.resolve, 0, &self.readback, 0, n as u64 * 8);
            d.wgpu_queue().submit([enc.finish()]);
        })?;
        map_buffer(d, &self.readback, wgpu::MapMode::Read)?;
        let ticks: Vec<u64> = {
            let view = self
                .readback
                .get_mapped_range(..n as u64 * 8)
                .map_err(|e| Error::Map { bytes: n as u64 * 8, reason: e.to_string() })?;
            bytemuck::cast_slice::<u8, u64>(&view).to_vec()
        };
        self.readback.unmap();
        let t0 = ticks[0];
        Ok(ticks.iter().map(|&t| t.wrapping_sub(t0) as f64 * self.period_ns * 1e-9).collect())
    }
}

impl Stream {
    /// Writes the GPU's clock into the next slot of `timer` once every command encoded before
    /// it has run (the open compute pass ends). Returns the slot; refused when the timer is full.
    pub fn write_timestamp(&mut self, timer: &mut GpuTimer) -> Result<u32> {
        if timer.next >= timer.capacity {
            return Err(Error::InvalidCommand {
                what: "write_timestamp".into(),
                reason: format!(
                    "the timer's {} slots are all written; read it first",
                    timer.capacity
                ),
            });
        }
        let slot = timer.next;
        self.encode_timestamp(&timer.set, slot);
        timer.next += 1;
        Ok(slot)
    }
}
