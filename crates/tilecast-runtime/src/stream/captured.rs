//! What a graph holds (see `graph.rs` for capture and replay): its Vulkan objects, the
//! allocations it binds and its counts, and the state of a capture in progress. Kept apart
//! from the stream, which holds both.

use std::sync::Arc;

use rustc_hash::FxHashSet;

use super::direct_segment::DirectSegment;
use crate::direct::GraphVulkan;
use crate::memory::Allocation;
use crate::{Buffer, Device};

/// Kernel launches captured once from a stream ([`Stream::begin_capture`] to
/// [`Stream::end_capture`]) into one Vulkan command buffer, and run by [`Stream::replay`] as one
/// command: the host pays for a few hundred launches once. A graph fixes its launches' scalars,
/// grids and bound ranges, so what varies between replays must live in memory (filled before
/// the replay). It keeps the allocations it binds alive. Cheap to clone.
///
/// [`Stream::begin_capture`]: crate::Stream::begin_capture
/// [`Stream::end_capture`]: crate::Stream::end_capture
/// [`Stream::replay`]: crate::Stream::replay
#[derive(Clone)]
pub struct Graph {
    pub(super) inner: Arc<GraphInner>,
}

/// A graph's objects, shared by its clones and kept by a stream until it submits a replay.
pub(crate) struct GraphInner {
    pub(super) device: Device,
    pub(super) vk: Option<GraphVulkan>,
    pub(super) allocs: Vec<Arc<Allocation>>,
    pub(super) dispatches: u64,
    pub(super) barriers: u64,
    pub(super) bytes: u64,
}

/// A graph being captured.
pub(crate) struct Capture {
    pub(super) seg: DirectSegment,
    pub(super) vk: GraphVulkan,
    pub(super) allocs: Vec<Arc<Allocation>>,
    pub(super) ids: FxHashSet<u64>,
    pub(super) dispatches: u64,
    pub(super) barriers: u64,
    pub(super) bytes: u64,
}

impl Capture {
    /// Keeps the allocations `buffers` view, once each.
    pub(super) fn keep(&mut self, buffers: &[&Buffer]) {
        for b in buffers {
            self.bytes += b.byte_len();
            if self.ids.insert(b.alloc.id) {
                self.allocs.push(b.alloc.clone());
            }
        }
    }
}

impl Capture {
    /// Frees what an unfinished capture made (nothing submitted uses it).
    pub(super) fn abandon(self, device: &Device) {
        if let Some(direct) = device.direct() {
            direct.retire_graph(self.vk, 0, 0);
        }
    }
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("dispatches", &self.inner.dispatches)
            .field("barriers", &self.inner.barriers)
            .field("allocations", &self.inner.allocs.len())
            .finish()
    }
}

impl Graph {
    /// Kernel dispatches a replay runs.
    pub fn dispatches(&self) -> u64 {
        self.inner.dispatches
    }

    /// Memory barriers between its launches.
    pub fn barriers(&self) -> u64 {
        self.inner.barriers
    }
}

impl Drop for GraphInner {
    fn drop(&mut self) {
        if let (Some(vk), Some(direct)) = (self.vk.take(), self.device.direct()) {
            // Every replay was submitted before this drop (the stream holds the graph until
            // then): the latest submission bounds them all.
            direct.retire_graph(vk, self.device.submitted_seq(), self.device.completed_seq());
        }
    }
}
