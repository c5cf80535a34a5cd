//! Wall-clock timing of GPU work that a benchmark can trust.
//!
//! A GPU that has idled for a second or two (say, while the host computed a reference result)
//! runs at low clocks, and on the lent H200 it took a few hundred milliseconds of sustained work
//! to come back: `add` on 256 MiB tensors measured 0.77 ms per launch right after a 2.4 s CPU
//! check and 0.24 ms once settled. So [`time_batches`] first keeps the device busy until
//! per-launch times stop falling, then times.

use std::time::Instant;

use crate::{Device, Error, Stream, SyncType};

/// How long to keep a device busy before timing, and how many batches to time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimingPolicy {
    /// Least time spent settling, in seconds.
    pub min_settle_s: f64,
    /// Most time spent settling: timing starts then even if times still fall.
    pub max_settle_s: f64,
    /// Launches per batch (each batch is timed as a whole; the launch time is its mean).
    pub iters: u32,
    /// Timed batches.
    pub batches: u32,
}

impl TimingPolicy {
    /// The policy for `device`: half a second of settling on a GPU, almost none on a CPU device
    /// (whose "clocks" are the host's own and need no warming).
    pub fn for_device(device: &Device, iters: u32, batches: u32) -> TimingPolicy {
        let cpu = device.capabilities().device_type == "cpu";
        TimingPolicy {
            min_settle_s: if cpu { 0.02 } else { 0.5 },
            max_settle_s: if cpu { 0.2 } else { 3.0 },
            iters: iters.max(1),
            batches: batches.max(1),
        }
    }
}

/// Seconds per launch of each timed batch, sorted ascending, after settling the clocks.
///
/// `launch` encodes one launch into the stream; each batch is `policy.iters` launches then one
/// [`SyncType::CommitAndWait`]. Settling runs the same batches until at least
/// `min_settle_s` has passed and the last three batches agree within 3% (times have stopped
/// falling), or until `max_settle_s`.
pub fn time_batches<E: From<Error>>(
    stream: &mut Stream,
    policy: TimingPolicy,
    mut launch: impl FnMut(&mut Stream) -> Result<(), E>,
) -> Result<Vec<f64>, E> {
    let mut batch = |stream: &mut Stream| -> Result<f64, E> {
        let t = Instant::now();
        for _ in 0..policy.iters {
            launch(stream)?;
        }
        stream.synchronize(SyncType::CommitAndWait)?;
        Ok(t.elapsed().as_secs_f64() / policy.iters as f64)
    };
    let start = Instant::now();
    let mut recent: Vec<f64> = Vec::new();
    loop {
        recent.push(batch(stream)?);
        let last = &recent[recent.len().saturating_sub(3)..];
        let (lo, hi) = last.iter().fold((f64::INFINITY, 0f64), |(l, h), t| (l.min(*t), h.max(*t)));
        let stable = last.len() == 3 && hi <= lo * 1.03;
        let elapsed = start.elapsed().as_secs_f64();
        if elapsed >= policy.max_settle_s || (elapsed >= policy.min_settle_s && stable) {
            break;
        }
    }
    let mut times = (0..policy.batches).map(|_| batch(stream)).collect::<Result<Vec<_>, E>>()?;
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(times)
}

/// The median of sorted `times` (0 when empty).
pub fn median(times: &[f64]) -> f64 {
    match times.len() {
        0 => 0.0,
        n if n % 2 == 1 => times[n / 2],
        n => (times[n / 2 - 1] + times[n / 2]) / 2.0,
    }
}
