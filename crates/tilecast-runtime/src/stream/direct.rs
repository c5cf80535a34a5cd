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
use super::direct_segment::{DirectSegment, needs_barrier, with_raw};
use super::dispatch::CommandKind;
use crate::Result;
use crate::direct::{Barrier, Bound, DirectVulkan, RawPipeline, memory_barrier};
use crate::library::{BindingKind, Launch};
use crate::memory::{WORD, align_up};

impl Stream {
    /// Encodes `cmd` into the open direct command buffer (opened if needed) with `raw`, its
    /// pipeline's direct twin.
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
            size: align_up(b.byte_len(), WORD),
            gpu: &b.alloc.gpu,
        });
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
        let uses = bindings.iter().zip(cmd.buffers).map(|(i, b)| (i.kind, b.alloc.memory_id));
        let depends = needs_barrier(seg, uses);
        if depends {
            seg.written.clear();
            seg.read.clear();
            self.counters.direct_barriers += 1;
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
        let push =
            !cmd.immediates.is_empty() && (bind_pipeline || seg.immediates != cmd.immediates);
        let [x, y, z] = cmd.groups;
        with_raw(&mut seg.encoder, |cb| {
            // SAFETY: recording into the open direct command buffer with objects of this device
            // that live until it drops (pipeline, layout, set), and buffers the stream keeps.
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
        self.record_launch(&cmd, kind);
        self.counters.direct_dispatches += 1;
        let bytes = cmd.buffers.iter().map(|b| b.byte_len()).sum();
        self.after_command(bytes);
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
        self.direct = Some(DirectSegment {
            encoder,
            pipeline: vk::Pipeline::null(),
            set: vk::DescriptorSet::null(),
            immediates: Vec::new(),
            written: Vec::new(),
            read: Vec::new(),
        });
        Ok(())
    }

    /// Ends the open direct command buffer (if any) with a barrier before everything after it,
    /// host reads included, and finishes it into the batch's finished command buffers.
    pub(super) fn close_direct(&mut self) {
        let Some(mut seg) = self.direct.take() else { return };
        let device = self.device.clone();
        let direct = device.direct().expect("a direct segment implies the context");
        // SAFETY: a barrier into the open direct command buffer, its last command.
        let closed = with_raw(&mut seg.encoder, |cb| unsafe {
            memory_barrier(direct.raw(), cb, Barrier::End)
        });
        let finished = closed.and_then(|()| {
            device.scoped("finishing a direct command buffer", None, || seg.encoder.finish())
        });
        match finished {
            Ok(cb) => self.finished.push(cb),
            Err(e) => self.record_error(e),
        }
    }
}
