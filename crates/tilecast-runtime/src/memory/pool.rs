//! A buffer pool: size-class reuse with a byte cap, for the temporaries of inference steps.
//!
//! Invariants:
//! - A pooled buffer's memory returns to the free list when its last handle drops, stamped with
//!   the last submission that used it; it is handed out again only once the device has finished
//!   that submission, so reuse never aliases memory the GPU may still read or write.
//! - Cached (free) bytes never exceed the cap: returning memory evicts the least recently
//!   returned entries first.
//! - An allocation that fails for lack of memory empties the free list and tries once more, so
//!   cached memory never causes a resource-limit failure.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use super::buffer::{Allocation, Memory, Reclaim};
use crate::{Buffer, DType, Device, Error, Result, StorageMode};

/// Largest slack a reused buffer may have over the request: min(request, 32 KiB).
pub const MAX_SLACK_BYTES: u64 = 32 * 1024;

/// Pool counters. `step_*` restart at every [`BufferPool::reset`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Requests served from the free list.
    pub hits: u64,
    /// Requests that created new memory.
    pub misses: u64,
    /// Free entries skipped because submitted work still used them.
    pub busy_skips: u64,
    /// Entries released to keep the free list under the cap (or by `reset`/`clear`).
    pub evictions: u64,
    /// Bytes in the free list now.
    pub cached_bytes: u64,
    /// Entries in the free list now.
    pub cached_buffers: usize,
    /// Bytes handed out and not yet returned.
    pub in_use_bytes: u64,
    /// Largest `in_use_bytes` seen.
    pub peak_in_use_bytes: u64,
    /// Hits since the last reset.
    pub step_hits: u64,
    /// Misses since the last reset.
    pub step_misses: u64,
}

struct FreeEntry {
    memory: Memory,
    last_use: u64,
    /// `tick` when it was returned: the LRU order.
    returned_at: u64,
    /// `step` when it was returned.
    returned_in_step: u64,
}

/// Free entries keyed by (padded size, unique sequence).
#[derive(Default)]
struct PoolState {
    free: BTreeMap<(u64, u64), FreeEntry>,
    stats: PoolStats,
    tick: u64,
    step: u64,
}

struct PoolShared {
    /// Destroys evicted memory once its last submission has finished.
    device: Device,
    state: Mutex<PoolState>,
    cap_bytes: u64,
}

impl PoolShared {
    fn lock(&self) -> std::sync::MutexGuard<'_, PoolState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Reclaim for PoolShared {
    fn discard(&self, memory: &Memory) {
        self.lock().stats.in_use_bytes -= memory.gpu.size();
    }

    fn give_back(&self, memory: Memory, last_use: u64) {
        let mut st = self.lock();
        let size = memory.gpu.size();
        st.tick += 1;
        let (tick, step) = (st.tick, st.step);
        st.stats.in_use_bytes -= size;
        st.stats.cached_bytes += size;
        st.stats.cached_buffers += 1;
        st.free.insert(
            (size, tick),
            FreeEntry { memory, last_use, returned_at: tick, returned_in_step: step },
        );
        while st.stats.cached_bytes > self.cap_bytes {
            let oldest = st.free.iter().min_by_key(|(_, e)| e.returned_at).map(|(k, _)| *k);
            let Some(key) = oldest else { break };
            evict(&self.device, &mut st, key);
        }
    }
}

fn evict(device: &Device, st: &mut PoolState, key: (u64, u64)) {
    if let Some(e) = st.free.remove(&key) {
        st.stats.cached_bytes -= key.0;
        st.stats.cached_buffers -= 1;
        st.stats.evictions += 1;
        device.release_memory(e.memory.gpu, e.last_use);
    }
}

/// Reuses GPU memory across allocations of similar size, in one storage mode.
/// Clones share the pool; it is `Send + Sync`.
#[derive(Clone)]
pub struct BufferPool {
    device: Device,
    mode: StorageMode,
    shared: Arc<PoolShared>,
}

impl std::fmt::Debug for BufferPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferPool")
            .field("mode", &self.mode)
            .field("stats", &self.stats())
            .finish()
    }
}

impl BufferPool {
    /// A pool for `mode` buffers that keeps at most `cap_bytes` of free memory cached.
    pub fn new(device: &Device, mode: StorageMode, cap_bytes: u64) -> BufferPool {
        BufferPool {
            device: device.clone(),
            mode,
            shared: Arc::new(PoolShared {
                device: device.clone(),
                state: Mutex::new(PoolState::default()),
                cap_bytes,
            }),
        }
    }

    /// The storage mode of every buffer this pool hands out.
    pub fn storage_mode(&self) -> StorageMode {
        self.mode
    }

    /// The cap on cached bytes.
    pub fn cap_bytes(&self) -> u64 {
        self.shared.cap_bytes
    }

    /// A buffer of `shape`, reusing free memory of the smallest size in
    /// `[request, request + min(request, 32 KiB)]` that no unfinished submission uses, else new
    /// memory. Reused memory keeps its old contents: write before reading.
    pub fn alloc(&self, dtype: DType, shape: &[usize]) -> Result<Buffer> {
        let (bytes, padded) = self.device.check_size(self.mode, dtype, shape)?;
        let limit = padded + padded.min(MAX_SLACK_BYTES);
        let completed = self.device.completed_seq();
        let reused = {
            let mut st = self.shared.lock();
            let mut found = None;
            let mut busy = 0;
            for (key, e) in st.free.range((padded, 0)..(limit + 1, 0)) {
                if e.last_use <= completed {
                    found = Some(*key);
                    break;
                }
                busy += 1;
            }
            st.stats.busy_skips += busy;
            found.and_then(|key| st.free.remove(&key)).map(|e| {
                st.stats.cached_bytes -= e.memory.gpu.size();
                st.stats.cached_buffers -= 1;
                st.stats.hits += 1;
                st.stats.step_hits += 1;
                e.memory
            })
        };
        let memory = match reused {
            Some(m) => m,
            None => {
                let what = format!("pooled {} {dtype}{shape:?}", self.mode);
                let m = match self.device.create_memory(self.mode, padded, &what) {
                    Err(Error::OutOfMemory { .. }) => {
                        self.clear();
                        self.device.create_memory(self.mode, padded, &what)?
                    }
                    other => other?,
                };
                let mut st = self.shared.lock();
                st.stats.misses += 1;
                st.stats.step_misses += 1;
                m
            }
        };
        {
            let mut st = self.shared.lock();
            st.stats.in_use_bytes += memory.gpu.size();
            st.stats.peak_in_use_bytes = st.stats.peak_in_use_bytes.max(st.stats.in_use_bytes);
        }
        let weak = Arc::downgrade(&self.shared);
        Ok(Buffer::whole(
            Allocation::new(&self.device, self.mode, bytes, memory, Some(weak)),
            dtype,
            shape,
        ))
    }

    /// Ends a step of a per-step arena: cached memory that the step did not reuse is released,
    /// so the pool converges on one step's working set; the `step_*` counters restart.
    pub fn reset(&self) {
        let mut st = self.shared.lock();
        let step = st.step;
        let stale: Vec<_> =
            st.free.iter().filter(|(_, e)| e.returned_in_step < step).map(|(k, _)| *k).collect();
        for key in stale {
            evict(&self.device, &mut st, key);
        }
        st.step += 1;
        st.stats.step_hits = 0;
        st.stats.step_misses = 0;
    }

    /// Releases every cached buffer.
    pub fn clear(&self) {
        let mut st = self.shared.lock();
        let keys: Vec<_> = st.free.keys().copied().collect();
        for key in keys {
            evict(&self.device, &mut st, key);
        }
    }

    /// Current counters.
    pub fn stats(&self) -> PoolStats {
        self.shared.lock().stats
    }
}
