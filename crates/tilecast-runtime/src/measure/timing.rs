//! Wall-clock timing of GPU work that a benchmark can trust.
//!
//! A GPU that has idled for a second or two (say, while the host computed a reference result)
//! runs at low clocks, and on the lent H200 it took a few hundred milliseconds of sustained work
//! to come back: `add` on 256 MiB tensors measured 0.77 ms per launch right after a 2.4 s CPU
//! check and 0.24 ms once settled. So [`time_batches`] first keeps the device busy until
//! per-launch times stop falling, then times. Timed batches are measured by GPU timestamps
//! where the device writes them between commands ([`GpuTimer`]), else by the host's clock from
//! encoding to completion.

use std::time::Instant;

use crate::{Device, Error, GpuTimer, Stream, SyncType};

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
    /// Time batches by GPU timestamps where the device has them.
    pub gpu_timestamps: bool,
}

/// Which clock measured a [`BatchTimes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    /// GPU timestamps written before and after each batch.
    GpuTimestamps,
    /// The host's clock, from encoding a batch to its completion.
    Wall,
}

impl Clock {
    /// A short name (`gpu` or `wall`).
    pub fn name(self) -> &'static str {
        match self {
            Clock::GpuTimestamps => "gpu",
            Clock::Wall => "wall",
        }
    }
}

/// Seconds per launch of each timed batch, sorted ascending, and the clock that measured them.
#[derive(Clone, Debug, PartialEq)]
pub struct BatchTimes {
    /// Seconds per launch, one per batch, ascending.
    pub seconds: Vec<f64>,
    /// The clock.
    pub clock: Clock,
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
            gpu_timestamps: true,
        }
    }
}

/// Seconds per launch of each timed batch, sorted ascending, after settling the clocks.
///
/// `launch` encodes one launch into the stream; each batch is `policy.iters` launches then one
/// [`SyncType::CommitAndWait`]. Settling runs the same batches until at least
/// `min_settle_s` has passed and the last three batches agree within 3% (times have stopped
/// falling), or until `max_settle_s`. Timed batches are bracketed by GPU timestamps when the
/// policy asks for them and the device has them.
pub fn time_batches<E: From<Error>>(
    stream: &mut Stream,
    policy: TimingPolicy,
    mut launch: impl FnMut(&mut Stream) -> Result<(), E>,
) -> Result<BatchTimes, E> {
    let mut timer = match policy.gpu_timestamps {
        true => GpuTimer::new(stream.device(), 2 * policy.batches.min(GpuTimer::MAX_SLOTS / 2))?,
        false => None,
    };
    let batches = match &timer {
        Some(_) => policy.batches.min(GpuTimer::MAX_SLOTS / 2),
        None => policy.batches,
    };
    let mut batch = |stream: &mut Stream, mut timer: Option<&mut GpuTimer>| -> Result<f64, E> {
        let t = Instant::now();
        if let Some(tm) = timer.as_deref_mut() {
            stream.write_timestamp(tm)?;
        }
        for _ in 0..policy.iters {
            launch(stream)?;
        }
        if let Some(tm) = timer {
            stream.write_timestamp(tm)?;
        }
        stream.synchronize(SyncType::CommitAndWait)?;
        Ok(t.elapsed().as_secs_f64() / policy.iters as f64)
    };
    let start = Instant::now();
    let mut recent: Vec<f64> = Vec::new();
    loop {
        recent.push(batch(stream, None)?);
        let last = &recent[recent.len().saturating_sub(3)..];
        let (lo, hi) = last.iter().fold((f64::INFINITY, 0f64), |(l, h), t| (l.min(*t), h.max(*t)));
        let stable = last.len() == 3 && hi <= lo * 1.03;
        let elapsed = start.elapsed().as_secs_f64();
        if elapsed >= policy.max_settle_s || (elapsed >= policy.min_settle_s && stable) {
            break;
        }
    }
    let mut wall = Vec::with_capacity(batches as usize);
    for _ in 0..batches {
        wall.push(batch(stream, timer.as_mut())?);
    }
    let gpu = match timer.as_mut() {
        Some(tm) => {
            let stamps = tm.read()?;
            let per: Vec<f64> =
                stamps.chunks_exact(2).map(|p| (p[1] - p[0]) / policy.iters as f64).collect();
            // A backend that reports zero or garbage ticks falls back to the host's clock.
            (per.len() == wall.len() && per.iter().all(|t| t.is_finite() && *t > 0.0))
                .then_some(per)
        }
        None => None,
    };
    let (mut seconds, clock) = match gpu {
        Some(per) => (per, Clock::GpuTimestamps),
        None => (wall, Clock::Wall),
    };
    seconds.sort_by(|a, b| a.total_cmp(b));
    Ok(BatchTimes { seconds, clock })
}

/// The median of sorted `times` (0 when empty).
pub fn median(times: &[f64]) -> f64 {
    match times.len() {
        0 => 0.0,
        n if n % 2 == 1 => times[n / 2],
        n => (times[n / 2 - 1] + times[n / 2]) / 2.0,
    }
}
