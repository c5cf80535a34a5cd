//! Streams: command batching with explicit synchronization.
//!
//! Invariants:
//! - At most one command encoder is open, with at most one compute pass; consecutive dispatches
//!   go into that pass; a copy or zero-fill ends the pass and continues in the same encoder.
//! - The open command buffer is submitted when it holds `max_ops` commands or touches
//!   `max_bytes`, or when `synchronize` says so; nothing encoded is ever dropped unsubmitted
//!   (dropping a stream submits its open buffer).
//! - Every allocation an encoded command uses is kept alive by the stream until the command
//!   buffer is submitted, and marked so host access cannot overtake it; after submission wgpu
//!   keeps it alive until the GPU is done, and pools reuse it only after that.
//! - Launches are validated when bound and encoded (argument sizes against the shader's
//!   minimum binding sizes, alignment, usage conflicts, device limits), so a bad launch is
//!   refused with an error naming its kernel before it can spoil the command buffer.
//! - GPU errors that still surface when a command buffer is finished or submitted are captured,
//!   attributed to the one dispatch wgpu rejects when re-validated alone (else to the kernels in
//!   the command buffer), and returned by the next `synchronize`.
//!
//! This file holds the stream itself: its encoder and pass, what it keeps alive, when it
//! commits, and the errors it attributes. Beside it: `config` (thresholds, sync modes,
//! counters), `dispatch` (kernel launches, and the stream's own kernels), `copy` and `fill`.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Instant;

mod captured;
mod config;
mod copy;
#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
mod direct;
#[cfg(any(target_arch = "wasm32", target_vendor = "apple"))]
#[path = "direct_unsupported.rs"]
mod direct;
mod direct_segment;
mod dispatch;
mod fill;
mod graph;

pub use captured::Graph;
pub use config::{
    MAX_MB_ENV, MAX_OPS_ENV, RECORDING_ENV, Recording, StreamConfig, StreamCounters, SyncType,
};
pub use copy::CopyPath;

use crate::memory::{Allocation, ResidencySet};
use crate::{Buffer, Device, Error, KernelFunction, Result};

/// An ordered queue of GPU work with one open command buffer. `Send`; use from one thread at
/// a time (methods take `&mut self`); several streams on one device run concurrently.
pub struct Stream {
    device: Device,
    config: StreamConfig,
    encoder: Option<wgpu::CommandEncoder>,
    pass: Option<wgpu::ComputePass<'static>>,
    ops: usize,
    bytes: u64,
    retained: Vec<Arc<Allocation>>,
    /// Kernel names of the open command buffer, consecutive repeats merged.
    kernels: Vec<Arc<str>>,
    /// Every dispatch of the open command buffer, to find the one wgpu rejects at finish time.
    recorded: Vec<Recorded>,
    /// Immediates of the recorded dispatches, back to back.
    recorded_immediates: Vec<u8>,
    /// Memory ids of the buffers each recorded dispatch binds, back to back.
    recorded_memory: Vec<u64>,
    pending_error: Option<Error>,
    last_submission: Option<(u64, wgpu::SubmissionIndex)>,
    residency: Vec<ResidencySet>,
    counters: StreamCounters,
    /// The stream's own kernels (copy, fill), compiled at their first use.
    builtins: Vec<KernelFunction>,
    pass_state: PassState,
    /// Reused for the immediates of launches given their arguments per call.
    immediates_scratch: Vec<u8>,
    recording: Recording,
    /// The open directly recorded command buffer; at most one of it and `encoder` is open.
    direct: Option<direct_segment::DirectSegment>,
    /// True once something was encoded into `encoder` (a reopened one may hold nothing).
    encoder_used: bool,
    /// Command buffers of the open batch already finished (the batch alternated between
    /// direct and wgpu recording), submitted in order with the rest at the commit.
    finished: Vec<wgpu::CommandBuffer>,
    /// The graph being captured, if any.
    capture: Option<captured::Capture>,
    /// Graphs replayed in the open batch, kept until it is submitted.
    graphs: Vec<Arc<captured::GraphInner>>,
}

/// One encoded dispatch, kept until its command buffer is submitted (handles are shared, so
/// this costs two reference counts and the immediates).
struct Recorded {
    /// Index into `Stream::kernels`.
    kernel: usize,
    pipeline: wgpu::ComputePipeline,
    bind_group: wgpu::BindGroup,
    immediates: std::ops::Range<usize>,
    /// Range of `Stream::recorded_memory`.
    memory: std::ops::Range<usize>,
    groups: [u32; 3],
}

/// What the open compute pass has bound, so repeated launches do not record it again.
#[derive(Default)]
struct PassState {
    pipeline: Option<wgpu::ComputePipeline>,
    bind_group: Option<wgpu::BindGroup>,
    immediates: Vec<u8>,
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("config", &self.config)
            .field("open_ops", &self.ops)
            .field("counters", &self.counters)
            .finish()
    }
}

impl Stream {
    /// A stream with [`StreamConfig::from_env`].
    pub fn new(device: &Device) -> Stream {
        let mut s = Stream::with_config(device, StreamConfig::from_env(device));
        let recording = Recording::from_env();
        if let Err(e) = s.set_recording(recording) {
            crate::warn(&format!("{RECORDING_ENV}: {e}; recording through wgpu"));
        }
        s
    }

    /// A stream with explicit thresholds (each at least 1).
    pub fn with_config(device: &Device, config: StreamConfig) -> Stream {
        Stream {
            device: device.clone(),
            config: StreamConfig {
                max_ops: config.max_ops.max(1),
                max_bytes: config.max_bytes.max(1),
            },
            encoder: None,
            pass: None,
            ops: 0,
            bytes: 0,
            retained: Vec::new(),
            kernels: Vec::new(),
            recorded: Vec::new(),
            recorded_immediates: Vec::new(),
            recorded_memory: Vec::new(),
            pending_error: None,
            last_submission: None,
            residency: Vec::new(),
            counters: StreamCounters::default(),
            builtins: Vec::new(),
            pass_state: PassState::default(),
            immediates_scratch: Vec::new(),
            recording: Recording::Wgpu,
            direct: None,
            encoder_used: false,
            finished: Vec::new(),
            capture: None,
            graphs: Vec::new(),
        }
    }

    /// How this stream records launches. [`Stream::new`] takes `TILECAST_RECORDING`;
    /// [`Stream::with_config`] starts with [`Recording::Wgpu`].
    pub fn recording(&self) -> Recording {
        self.recording
    }

    /// Sets how later launches are recorded. [`Recording::Direct`] needs Vulkan with native
    /// SPIR-V (passthrough shaders); elsewhere it is refused and the stream keeps recording
    /// through wgpu.
    pub fn set_recording(&mut self, recording: Recording) -> Result<()> {
        if recording == Recording::Direct && self.device.direct().is_none() {
            return Err(Error::InvalidCommand {
                what: "direct recording".into(),
                reason: format!(
                    "needs Vulkan with native SPIR-V; device {:?} ({}) has no passthrough shaders",
                    self.device.name(),
                    self.device.capabilities().backend
                ),
            });
        }
        self.recording = recording;
        Ok(())
    }

    /// The device.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The commit thresholds.
    pub fn config(&self) -> StreamConfig {
        self.config
    }

    /// Counters so far.
    pub fn counters(&self) -> StreamCounters {
        self.counters
    }

    /// Commands in the open command buffer.
    pub fn pending_ops(&self) -> usize {
        self.ops
    }

    /// True while a command buffer is open.
    pub fn has_open_buffer(&self) -> bool {
        self.encoder.is_some() || self.direct.is_some() || !self.finished.is_empty()
    }

    /// True when the GPU has finished every command buffer this stream submitted. It polls the
    /// device without waiting for the GPU, though the poll can queue behind another thread that
    /// is blocked waiting on the same device.
    pub fn gpu_idle(&self) -> bool {
        self.last_submission.as_ref().is_none_or(|(seq, _)| self.device.completed_seq() >= *seq)
    }

    /// Commits `set`'s staged changes at every command-buffer commit of this stream.
    pub fn attach_residency_set(&mut self, set: &ResidencySet) {
        self.residency.push(set.clone());
    }

    /// Ends the open compute pass (if any); the next dispatch begins a new one.
    fn end_pass(&mut self) {
        self.pass = None;
        self.pass_state = PassState::default();
    }

    /// The open wgpu command encoder, opened (after closing a direct command buffer) if needed;
    /// the caller encodes into it.
    fn open_encoder(&mut self) -> &mut wgpu::CommandEncoder {
        self.close_direct();
        self.encoder_used = true;
        if self.encoder.is_none() {
            let enc =
                self.device.wgpu_device().create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("tilecast stream"),
                });
            self.encoder = Some(enc);
            self.counters.command_buffers += 1;
        }
        self.encoder.as_mut().expect("opened above")
    }

    /// Marks every buffer as used by the command being encoded and keeps its allocation alive
    /// until submission. All or nothing: if one is mapped by a host view, none stays marked.
    fn retain<'b>(
        &mut self,
        buffers: impl IntoIterator<Item = &'b Buffer>,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        self.retain_allocations(buffers.into_iter().map(|b| &b.alloc), what)
    }

    /// [`retain`](Self::retain) for allocations.
    fn retain_allocations<'b>(
        &mut self,
        allocs: impl IntoIterator<Item = &'b Arc<Allocation>>,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        let start = self.retained.len();
        for alloc in allocs {
            // Already kept by a recent command of this buffer: its mark already keeps host
            // views out, so repeated launches over the same buffers cost no locking.
            let recent = &self.retained[start.saturating_sub(RECENT)..start];
            if recent.iter().any(|a| Arc::ptr_eq(a, alloc)) {
                continue;
            }
            if let Err(e) = alloc.mark_encoded(what) {
                for a in self.retained.drain(start..) {
                    a.encoded_uses.fetch_sub(1, Ordering::AcqRel);
                }
                return Err(e);
            }
            self.retained.push(alloc.clone());
        }
        Ok(())
    }

    fn after_command(&mut self, bytes: u64) {
        self.ops += 1;
        self.bytes += bytes;
        if self.ops >= self.config.max_ops || self.bytes >= self.config.max_bytes {
            self.counters.threshold_commits += 1;
            self.commit(false);
        }
    }

    /// Writes a timestamp into `set` at `slot` after every command encoded so far.
    pub(crate) fn encode_timestamp(&mut self, set: &wgpu::QuerySet, slot: u32) {
        self.end_pass();
        self.open_encoder().write_timestamp(set, slot);
        self.after_command(0);
    }

    /// Submits the open command buffer (if any); records errors for the next `synchronize`.
    /// A command buffer with no commands is never submitted: it is kept open for `reopen`, or
    /// dropped.
    fn commit(&mut self, reopen: bool) {
        if self.ops == 0 {
            if !reopen {
                self.end_pass();
                self.encoder = None;
            }
        } else {
            self.end_pass();
            for set in &self.residency {
                if set.commit() {
                    self.counters.residency_commits += 1;
                }
            }
            let device = self.device.clone();
            let start = Instant::now();
            self.close_direct();
            self.finish_encoder();
            let finish_end = Instant::now();
            let buffers = std::mem::take(&mut self.finished);
            let result = device
                .scoped("submitting a command buffer", None, || device.submit_tracked(buffers));
            self.counters.finish_ns += (finish_end - start).as_nanos() as u64;
            self.counters.submit_ns += finish_end.elapsed().as_nanos() as u64;
            let seq = match result {
                Ok((seq, index)) => {
                    self.last_submission = Some((seq, index));
                    seq
                }
                Err(e) => {
                    self.record_error(e);
                    device.submitted_seq()
                }
            };
            for a in &self.retained {
                a.last_use.fetch_max(seq, Ordering::AcqRel);
            }
            // Submitted: a graph dropped from here on waits for this submission.
            self.graphs.clear();
            self.counters.submits += 1;
            self.ops = 0;
            self.bytes = 0;
            self.kernels.clear();
            self.recorded.clear();
            self.recorded_immediates.clear();
            self.recorded_memory.clear();
        }
        // Marks are released even when nothing was encoded (a command refused half-way).
        for a in self.retained.drain(..) {
            a.encoded_uses.fetch_sub(1, Ordering::AcqRel);
        }
        if reopen {
            self.open_encoder();
            self.encoder_used = false;
        }
    }

    /// Finishes the open wgpu command encoder into `finished`; one with nothing encoded is
    /// dropped. A finishing error is recorded and that command buffer dropped.
    fn finish_encoder(&mut self) {
        self.end_pass();
        let Some(encoder) = self.encoder.take() else { return };
        if !std::mem::take(&mut self.encoder_used) {
            return;
        }
        let device = self.device.clone();
        match device.scoped("finishing a command buffer", None, || encoder.finish()) {
            Ok(cb) => self.finished.push(cb),
            Err(e) => self.record_error(e),
        }
    }

    /// Re-encodes each recorded dispatch alone into a throwaway command buffer, finished but
    /// never submitted, and returns the first that wgpu rejects: (kernel, dispatch number).
    fn find_rejected_dispatch(&self) -> Option<(&str, usize)> {
        let wd = self.device.wgpu_device();
        self.recorded.iter().enumerate().find_map(|(n, r)| {
            let rejected = self
                .device
                .scoped("re-validating one dispatch", None, || {
                    let mut enc = wd.create_command_encoder(&Default::default());
                    {
                        let mut pass = enc.begin_compute_pass(&Default::default());
                        pass.set_pipeline(&r.pipeline);
                        pass.set_bind_group(0, &r.bind_group, &[]);
                        if !r.immediates.is_empty() {
                            pass.set_immediates(0, &self.recorded_immediates[r.immediates.clone()]);
                        }
                        pass.dispatch_workgroups(r.groups[0], r.groups[1], r.groups[2]);
                    }
                    enc.finish()
                })
                .is_err();
            rejected.then(|| (&*self.kernels[r.kernel], n))
        })
    }

    /// The first recorded dispatch that binds a buffer `message` names by its label
    /// (`'tilecast #id ...'`): wgpu names the resource, not the command, of errors it finds at
    /// submission (a buffer destroyed behind the runtime's back).
    fn find_dispatch_using_named_buffer(&self, message: &str) -> Option<(&str, usize)> {
        self.recorded.iter().enumerate().find_map(|(n, r)| {
            let ids = &self.recorded_memory[r.memory.clone()];
            ids.iter()
                .any(|id| message.contains(&format!("'tilecast #{id} ")))
                .then(|| (&*self.kernels[r.kernel], n))
        })
    }

    /// Keeps the first error, naming the kernel whose dispatch wgpu rejects when re-validated
    /// alone, else the first dispatch that binds a buffer the message names, else the kernel the
    /// message mentions, else every kernel in the failed command buffer.
    fn record_error(&mut self, e: Error) {
        let message = match &e {
            Error::Gpu { message, .. } => message.clone(),
            other => other.to_string(),
        };
        let named: Vec<&Arc<str>> =
            self.kernels.iter().filter(|k| message.contains(&format!("'{k}'"))).collect();
        let found = self
            .find_rejected_dispatch()
            .or_else(|| self.find_dispatch_using_named_buffer(&message));
        let op = match (found, named.as_slice(), self.kernels.as_slice()) {
            (Some((k, n)), ..) => {
                format!(
                    "kernel {k:?} (dispatch {} of {} in its command buffer)",
                    n + 1,
                    self.recorded.len()
                )
            }
            (None, [k, ..], _) => format!("kernel {k:?}"),
            (None, _, []) => "copies and fills".to_string(),
            (None, _, [k]) => format!("kernel {k:?}"),
            (None, _, ks) => format!("a command buffer running kernels {ks:?}"),
        };
        log::error!("GPU error in {op}: {message}");
        if self.pending_error.is_none() {
            self.pending_error = Some(Error::Gpu { op, message });
        }
    }

    /// Synchronizes as `sync` says, then returns the first GPU error captured since the last
    /// call, if any (or the reason the device was lost).
    pub fn synchronize(&mut self, sync: SyncType) -> Result<()> {
        match sync {
            SyncType::None => {}
            SyncType::Commit => self.commit(false),
            SyncType::CommitAndContinue => self.commit(true),
            SyncType::CommitAndWait => {
                self.commit(false);
                if let Some((_, index)) = self.last_submission.clone() {
                    self.counters.waits += 1;
                    if let Err(e) = self.device.wait_for(index) {
                        self.record_error(e);
                    }
                }
            }
            SyncType::CommitAdaptive => {
                let idle = self.gpu_idle();
                let half_full =
                    self.ops * 2 >= self.config.max_ops || self.bytes * 2 >= self.config.max_bytes;
                if self.ops > 0 && (idle || half_full) {
                    self.commit(false);
                }
            }
        }
        if let Some(reason) = self.device.lost_reason() {
            return Err(Error::Gpu { op: "the device".into(), message: reason });
        }
        match self.pending_error.take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        self.commit(false);
        if let Some(capture) = self.capture.take() {
            capture.abandon(&self.device);
        }
        if let Some(e) = self.pending_error.take() {
            log::error!("stream dropped with an unreported error: {e}");
        }
    }
}

/// How many of the latest retained allocations `retain` looks through for repeats.
const RECENT: usize = 8;
