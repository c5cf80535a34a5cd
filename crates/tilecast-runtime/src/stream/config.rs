//! What a stream is told: its commit thresholds (from the device and the environment), the
//! sync modes of `synchronize`, and the counters it keeps.

use crate::Device;

/// The variable that overrides [`StreamConfig::max_ops`].
pub const MAX_OPS_ENV: &str = "TILECAST_MAX_OPS_PER_BUFFER";
/// The variable that overrides [`StreamConfig::max_bytes`], in MiB.
pub const MAX_MB_ENV: &str = "TILECAST_MAX_MB_PER_BUFFER";

/// The variable that sets a new stream's [`Recording`]: `direct` or `wgpu` (the default).
pub const RECORDING_ENV: &str = "TILECAST_RECORDING";

/// How a stream records kernel launches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Recording {
    /// Through wgpu's compute passes, which track every bound buffer and place barriers.
    #[default]
    Wgpu,
    /// Straight into the Vulkan driver's command buffer, for kernels of native SPIR-V or
    /// trusted WGSL modules without override constants (others still go through wgpu): a bound
    /// descriptor set, push constants and a dispatch, with a memory barrier only before a
    /// launch that touches memory an earlier launch wrote (or writes memory one read). It skips
    /// wgpu's recording and tracking, not the driver's; launches are checked just the same.
    Direct,
}

impl Recording {
    /// `TILECAST_RECORDING`: `direct` or `wgpu`; unset or empty means wgpu, anything else warns.
    pub fn from_env() -> Recording {
        match std::env::var(RECORDING_ENV).ok().as_deref().map(str::trim) {
            None | Some("") | Some("wgpu") => Recording::Wgpu,
            Some("direct") => Recording::Direct,
            Some(other) => {
                crate::warn(&format!(
                    "{RECORDING_ENV}={other:?} is neither \"direct\" nor \"wgpu\"; recording through wgpu"
                ));
                Recording::Wgpu
            }
        }
    }
}

/// What `synchronize` does with the open command buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncType {
    /// Keep encoding; only report errors captured so far.
    None,
    /// Submit the open buffer; do not wait.
    Commit,
    /// Submit the open buffer and wait until all of this stream's work has finished.
    CommitAndWait,
    /// Submit the open buffer and open a fresh one at once.
    CommitAndContinue,
    /// Submit only when it pays: the GPU has finished everything this stream submitted (it
    /// would otherwise sit idle), or the open buffer holds at least half of `max_ops` commands
    /// or half of `max_bytes`.
    CommitAdaptive,
}

/// When a stream commits on its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamConfig {
    /// Commands (dispatches, copies, fills) per command buffer.
    pub max_ops: usize,
    /// Bytes bound or moved by the commands of one command buffer.
    pub max_bytes: u64,
}

/// A positive integer from the environment; unset or empty means the default (as for every
/// `TILECAST_*` variable), anything else that is not a positive integer warns.
fn env_number(name: &str) -> Option<u64> {
    let raw = std::env::var(name).ok().filter(|v| !v.trim().is_empty())?;
    match raw.trim().parse::<u64>() {
        Ok(v) if v > 0 => Some(v),
        _ => {
            crate::warn(&format!(
                "{name}={raw:?} is not a positive integer; keeping the device default"
            ));
            None
        }
    }
}

impl StreamConfig {
    /// Defaults by device class. A GPU gets buffers small enough to start working early; a CPU
    /// device (lavapipe) runs work in order anyway, so larger buffers only save submits. A
    /// discrete GPU idles at every submit, and one launch may bind more than 100 MiB (a KV cache,
    /// a weight matrix), so its byte limit is high: on an H200, decode attention over 32768
    /// keys (134 MB bound a launch) took 75.8 us with buffers of 64 commands and 256 MiB, 52.1
    /// with 256 and 4096, and 50.9 with one buffer for the whole batch.
    pub fn device_default(device: &Device) -> StreamConfig {
        let (max_ops, mb) = match device.capabilities().device_type {
            "discrete" => (256, 4096),
            "cpu" => (128, 256),
            _ => (40, 64),
        };
        StreamConfig { max_ops, max_bytes: mb << 20 }
    }

    /// The device default with `TILECAST_MAX_OPS_PER_BUFFER` and `TILECAST_MAX_MB_PER_BUFFER`
    /// applied (a value that is not a positive integer warns and is ignored).
    pub fn from_env(device: &Device) -> StreamConfig {
        let mut c = StreamConfig::device_default(device);
        if let Some(v) = env_number(MAX_OPS_ENV) {
            c.max_ops = v as usize;
        }
        if let Some(v) = env_number(MAX_MB_ENV) {
            c.max_bytes = v << 20;
        }
        c
    }
}

/// Stream counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StreamCounters {
    /// Kernel dispatches encoded.
    pub dispatches: u64,
    /// Copies encoded through `copy_buffer_to_buffer`.
    pub copies: u64,
    /// Dispatches of the copy kernel (see [`CopyPath`](crate::CopyPath)).
    pub kernel_copies: u64,
    /// Fills encoded.
    pub fills: u64,
    /// Compute passes begun.
    pub passes: u64,
    /// Command buffers opened.
    pub command_buffers: u64,
    /// Command buffers submitted.
    pub submits: u64,
    /// Submits triggered by `max_ops` / `max_bytes`.
    pub threshold_commits: u64,
    /// Waits for the GPU.
    pub waits: u64,
    /// Residency-set commits made at command-buffer commits.
    pub residency_commits: u64,
    /// Host time spent finishing command buffers, nanoseconds: wgpu checks and tracks the
    /// recorded passes and records them into the driver's command buffer here.
    pub finish_ns: u64,
    /// Host time spent handing finished command buffers to the queue, nanoseconds.
    pub submit_ns: u64,
    /// Kernel dispatches recorded directly (see [`Recording::Direct`]); also in `dispatches`.
    pub direct_dispatches: u64,
    /// Memory barriers placed between directly recorded launches.
    pub direct_barriers: u64,
    /// Graphs replayed (see [`Graph`](crate::Graph)); their dispatches and barriers count in
    /// `dispatches`, `direct_dispatches` and `direct_barriers`.
    pub replays: u64,
}
