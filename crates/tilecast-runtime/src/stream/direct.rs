//! A stream's directly recorded command buffers ([`Recording::Direct`](super::Recording)).
//!
//! Invariants:
//! - A direct command buffer is a wgpu command encoder used only through its raw Vulkan
//!   command buffer (wgpu forbids mixing the two on one encoder); a launch that must go
//!   through wgpu closes it and continues in a wgpu encoder, both submitted in order.
//! - It begins and ends with a memory barrier over all commands, so its launches are ordered after
//!   everything submitted to the queue before them (wgpu's commands, uploads) and before
//!   everything after them (copies, host reads after a wait).
//! - Between its launches, a barrier is recorded only before a launch that reads or writes
//!   memory a launch since the last barrier wrote, or writes memory one read: wgpu's rule.
//! - Its allocations are marked and kept as wgpu-recorded ones are; their memory is destroyed
//!   only after the submission finishes (`Device::release_memory`).

use ash::vk;

use super::Stream;
use super::direct_segment::{DirectSegment, Target, needs_barrier, with_raw};
use super::dispatch::CommandKind;
use crate::Result;
use crate::direct::{Barrier, Bound, DirectVulkan, GraphVulkan, RawPipeline, memory_barrier};
use crate::library::{BindingKind, Launch};

impl Stream {
    /// Encodes `cmd` with `raw`, its pipeline's direct twin: into the graph being captured, if
    /// any, else into the open direct command buffer (opened if needed).
    pub(super) fn encode_direct(
        &mut self,
        cmd: Launch<'_>,
        raw: RawPipeline,
        kind: CommandKind,
    ) -> Result<()> {
        let device = self.device.clone();
        let direct = device.direct().expect("a direct pipeline implies the context");
        let bindings = &cmd.entry.reflection.bindings;
        let bound = cmd.buffers.iter().map(|b| Bound {
            id: b.alloc.id,
            offset: b.byte_offset(),
            size: b.bound_len(),
            gpu: &b.alloc.gpu,
        });
        if let Some(capture) = self.capture.as_mut() {
            let set = direct.graph_set(&mut capture.vk, &raw, bindings, bound)?;
            capture.keep(cmd.buffers);
            let barrier = record(&mut capture.seg, direct, &cmd, raw, set)?;
            capture.dispatches += 1;
            capture.barriers += u64::from(barrier);
            return Ok(());
        }
        let set = direct.descriptor_set(&raw, bindings, bound, || {
            (device.submitted_seq(), device.completed_seq())
        })?;
        self.retain(cmd.buffers.iter().copied(), &|| {
            format!("dispatch of kernel {:?}", cmd.kernel)
        })?;
        if self.direct.is_none() {
            self.open_direct(direct)?;
        }
        let seg = self.direct.as_mut().expect("opened above");
        let barrier = record(seg, direct, &cmd, raw, set)?;
        self.counters.direct_barriers += u64::from(barrier);
        self.record_launch(&cmd, kind);
        self.counters.direct_dispatches += 1;
        let bytes = cmd.buffers.iter().map(|b| b.byte_len()).sum();
        self.after_command(bytes);
        Ok(())
    }

    /// Records an execution of `graph`'s command buffer into a command buffer of its own.
    pub(super) fn execute_graph(&mut self, graph: &GraphVulkan) -> Result<()> {
        self.close_direct();
        self.finish_encoder();
        let device = self.device.clone();
        let direct = device.direct().expect("a graph implies the context");
        let mut encoder =
            self.device.wgpu_device().create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("tilecast graph replay"),
            });
        // SAFETY: the graph's command buffer was ended and lives until every submission of
        // this one has finished (the stream keeps the graph until it submits; the graph's
        // drop retires its pools until then).
        with_raw(&mut encoder, |cb| unsafe {
            direct.raw().cmd_execute_commands(cb, &[graph.commands])
        })?;
        self.counters.command_buffers += 1;
        let finished = self.device.scoped("finishing a graph replay", None, || encoder.finish());
        match finished {
            Ok(cb) => self.finished.push(cb),
            Err(e) => self.record_error(e),
        }
        Ok(())
    }

    /// Closes the wgpu command buffer (if open) and opens a direct one, its first command a
    /// barrier after everything before it on the queue.
    fn open_direct(&mut self, direct: &DirectVulkan) -> Result<()> {
        self.finish_encoder();
        let mut encoder =
            self.device.wgpu_device().create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("tilecast stream (direct)"),
            });
        // SAFETY: a barrier into the encoder's fresh command buffer.
        with_raw(&mut encoder, |cb| unsafe { memory_barrier(direct.raw(), cb, Barrier::Begin) })?;
        self.counters.command_buffers += 1;
        self.direct = Some(DirectSegment::new(Target::Encoder(encoder)));
        Ok(())
    }

    /// Ends the open direct command buffer (if any) with a barrier before everything after it,
    /// host reads included, and finishes it into the batch's finished command buffers.
    pub(super) fn close_direct(&mut self) {
        let Some(seg) = self.direct.take() else { return };
        let device = self.device.clone();
        let direct = device.direct().expect("a direct segment implies the context");
        let Target::Encoder(mut encoder) = seg.target else {
            unreachable!("a stream's direct segment records into an encoder")
        };
        // SAFETY: a barrier into the open direct command buffer, its last command.
        let closed =
            with_raw(&mut encoder, |cb| unsafe { memory_barrier(direct.raw(), cb, Barrier::End) });
        let finished = closed.and_then(|()| {
            device.scoped("finishing a direct command buffer", None, || encoder.finish())
        });
        match finished {
            Ok(cb) => self.finished.push(cb),
            Err(e) => self.record_error(e),
        }
    }
}

/// Records `cmd` into `seg` with `raw` and descriptor set `set`, binding only what `seg` does
/// not already hold, after a barrier where the launch depends on one since the last (returned:
/// whether it took one).
fn record(
    seg: &mut DirectSegment,
    direct: &DirectVulkan,
    cmd: &Launch<'_>,
    raw: RawPipeline,
    set: vk::DescriptorSet,
) -> Result<bool> {
    let bindings = &cmd.entry.reflection.bindings;
    let uses = bindings.iter().zip(cmd.buffers).map(|(i, b)| (i.kind, b.alloc.memory_id));
    let depends = needs_barrier(seg, uses);
    if depends {
        seg.written.clear();
        seg.read.clear();
    }
    for (info, b) in bindings.iter().zip(cmd.buffers) {
        let id = b.alloc.memory_id;
        let list = if info.kind == BindingKind::StorageReadWrite {
            &mut seg.written
        } else {
            &mut seg.read
        };
        if !list.contains(&id) {
            list.push(id);
        }
    }
    let d = direct.raw();
    let bind_pipeline = seg.pipeline != raw.pipeline;
    let bind_set = bind_pipeline || seg.set != set;
    let push = !cmd.immediates.is_empty() && (bind_pipeline || seg.immediates != cmd.immediates);
    let [x, y, z] = cmd.groups;
    seg.record(|cb| {
        // SAFETY: recording into the segment's open command buffer with objects of this device
        // that live until it drops (pipeline, layout, set), and buffers the stream or graph
        // keeps.
        unsafe {
            if depends {
                memory_barrier(d, cb, Barrier::Between);
            }
            let compute = vk::PipelineBindPoint::COMPUTE;
            if bind_pipeline {
                d.cmd_bind_pipeline(cb, compute, raw.pipeline);
            }
            if bind_set {
                d.cmd_bind_descriptor_sets(cb, compute, raw.layout, 0, &[set], &[]);
            }
            if push {
                let size = (raw.immediate_size as usize).min(cmd.immediates.len());
                d.cmd_push_constants(
                    cb,
                    raw.layout,
                    vk::ShaderStageFlags::COMPUTE,
                    0,
                    &cmd.immediates[..size],
                );
            }
            d.cmd_dispatch(cb, x, y, z);
        }
    })?;
    seg.pipeline = raw.pipeline;
    seg.set = set;
    if push {
        seg.immediates.clear();
        seg.immediates.extend_from_slice(cmd.immediates);
    }
    Ok(depends)
}
