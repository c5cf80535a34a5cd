//! Staged copies between host memory and GPU-only memory (Private buffers and the GPU side of
//! Managed buffers). Each call submits its own work and waits for it, after every earlier
//! submission on the queue: results never race with GPU work already submitted.

use std::ops::Range;

use super::buffer::{Allocation, WORD, align_down, align_up};
use crate::{Error, Result};

/// Maps `buffer` for `mode` and waits; wgpu completes the map only after all submitted work that
/// uses the buffer has finished.
pub(crate) fn map_and_wait(
    alloc: &Allocation,
    buffer: &wgpu::Buffer,
    mode: wgpu::MapMode,
) -> Result<()> {
    map_buffer(&alloc.device, buffer, mode)
}

/// [`map_and_wait`] for a buffer of `device` that no allocation owns.
pub(crate) fn map_buffer(
    device: &crate::Device,
    buffer: &wgpu::Buffer,
    mode: wgpu::MapMode,
) -> Result<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    device.scoped("mapping a buffer for the host", None, || {
        buffer.map_async(mode, .., move |r| {
            let _ = tx.send(r);
        })
    })?;
    device.wait_idle()?;
    match rx.recv() {
        Ok(Ok(())) => Ok(()),
        Ok(Err(e)) => Err(Error::Map { bytes: buffer.size(), reason: e.to_string() }),
        Err(_) => Err(Error::Map {
            bytes: buffer.size(),
            reason: "the map request was dropped before it completed (device lost?)".into(),
        }),
    }
}

/// Reads bytes `range` of the allocation's GPU buffer through a staging buffer.
pub(crate) fn read_gpu(alloc: &Allocation, range: Range<u64>) -> Result<Vec<u8>> {
    if range.is_empty() {
        return Ok(Vec::new());
    }
    let start = align_down(range.start, WORD);
    let end = align_up(range.end, WORD);
    let size = end - start;
    let d = &alloc.device;
    let wd = d.wgpu_device();
    let staging =
        d.scoped("staging buffer for a download", Some((size, "a staging buffer")), || {
            let staging = wd.create_buffer(&wgpu::BufferDescriptor {
                label: Some("tilecast download staging"),
                size,
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            let mut enc = wd.create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("tilecast download"),
            });
            enc.copy_buffer_to_buffer(&alloc.gpu, start, &staging, 0, size);
            d.wgpu_queue().submit([enc.finish()]);
            staging
        })?;
    map_and_wait(alloc, &staging, wgpu::MapMode::Read)?;
    let view = staging
        .get_mapped_range(..)
        .map_err(|e| Error::Map { bytes: size, reason: e.to_string() })?;
    let lo = (range.start - start) as usize;
    let out = view[lo..lo + (range.end - range.start) as usize].to_vec();
    drop(view);
    staging.unmap();
    Ok(out)
}

/// Writes `data` at byte `start` of the allocation's GPU buffer. wgpu writes whole words, so a
/// range with ragged ends first reads back the two edge words and keeps their other bytes.
///
/// Invariant: no byte outside `start..start + data.len()` changes. Another view of the same
/// allocation may own the rest of an edge word, so the read-back and the rewrite of edge words
/// happen under the allocation's transfer lock: concurrent sub-word uploads are serialized.
pub(crate) fn write_gpu(alloc: &Allocation, start: u64, data: &[u8]) -> Result<()> {
    if data.is_empty() {
        return Ok(());
    }
    let end = start + data.len() as u64;
    let (s0, e0) = (align_down(start, WORD), align_up(end, WORD));
    let ragged = start != s0 || end != e0;
    let _edges = ragged.then(|| alloc.transfer.lock().unwrap_or_else(|p| p.into_inner()));
    let mut words = vec![0u8; (e0 - s0) as usize];
    if start != s0 {
        words[..WORD as usize].copy_from_slice(&read_gpu(alloc, s0..s0 + WORD)?);
    }
    if end != e0 {
        let n = words.len();
        words[n - WORD as usize..].copy_from_slice(&read_gpu(alloc, e0 - WORD..e0)?);
    }
    let lo = (start - s0) as usize;
    words[lo..lo + data.len()].copy_from_slice(data);
    let d = &alloc.device;
    d.scoped("upload", Some((words.len() as u64, "upload staging")), || {
        d.wgpu_queue().write_buffer(&alloc.gpu, s0, &words);
        d.wgpu_queue().submit(std::iter::empty());
    })
}
