//! A graph's Vulkan objects: one secondary command buffer, recorded once and executed by every
//! replay, and the descriptor sets it binds, from pools of its own (the device's set cache
//! starts over past its cap, which must not free a set a graph still names).
//!
//! Invariants:
//! - The command buffer is recorded with `SIMULTANEOUS_USE`: replays may be pending in several
//!   submissions at once. It begins with a barrier after everything earlier on the queue and
//!   ends with one before everything later, as a stream's direct command buffer does, so a
//!   replay is ordered like any other command of its stream.
//! - Its pools are retired, not destroyed, when the graph drops: freed once every submission
//!   that executed it has finished.

use ash::vk;

use super::{Barrier, Bound, DirectVulkan, RawPipeline, Retired, SetCache, memory_barrier};
use crate::library::BindingInfo;
use crate::{Error, Result};

/// A graph's command pool, its secondary command buffer, and its descriptor sets.
pub(crate) struct GraphVulkan {
    pool: vk::CommandPool,
    pub(crate) commands: vk::CommandBuffer,
    sets: SetCache,
}

fn graph_error(what: &str, e: vk::Result) -> Error {
    Error::InvalidCommand { what: "capturing a graph".into(), reason: format!("{what}: {e}") }
}

impl DirectVulkan {
    /// A fresh graph: its command buffer open for recording, its first command the barrier
    /// after earlier work.
    pub(crate) fn begin_graph(&self) -> Result<GraphVulkan> {
        let d = &self.raw;
        let info = vk::CommandPoolCreateInfo::default().queue_family_index(self.queue_family);
        // SAFETY: a valid create info on the live device.
        let pool = unsafe { d.create_command_pool(&info, None) }
            .map_err(|e| graph_error("creating its command pool", e))?;
        let mut graph =
            GraphVulkan { pool, commands: vk::CommandBuffer::null(), sets: SetCache::default() };
        let alloc = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::SECONDARY)
            .command_buffer_count(1);
        // SAFETY: a live pool of this device, used by this thread only.
        let begun = unsafe { d.allocate_command_buffers(&alloc) }.and_then(|cbs| {
            graph.commands = cbs[0];
            let inheritance = vk::CommandBufferInheritanceInfo::default();
            let begin = vk::CommandBufferBeginInfo::default()
                .flags(vk::CommandBufferUsageFlags::SIMULTANEOUS_USE)
                .inheritance_info(&inheritance);
            // SAFETY: a fresh secondary command buffer, begun once, outside any render pass.
            unsafe { d.begin_command_buffer(graph.commands, &begin) }
        });
        if let Err(e) = begun {
            self.retire_graph(graph, 0, 0);
            return Err(graph_error("beginning its command buffer", e));
        }
        // SAFETY: the command buffer is in the recording state.
        unsafe { memory_barrier(d, graph.commands, Barrier::Begin) };
        Ok(graph)
    }

    /// The descriptor set binding `buffers` for `pipeline` in `graph`, made at its first use.
    pub(crate) fn graph_set<'a>(
        &self,
        graph: &mut GraphVulkan,
        pipeline: &RawPipeline,
        bindings: &[BindingInfo],
        buffers: impl Iterator<Item = Bound<'a>> + Clone,
    ) -> Result<vk::DescriptorSet> {
        if let Some(set) = graph.sets.lookup(pipeline, buffers.clone()) {
            return Ok(set);
        }
        self.make_set(&mut graph.sets, pipeline, bindings, buffers)
    }

    /// Ends `graph`'s command buffer with the barrier before later work.
    pub(crate) fn end_graph(&self, graph: &GraphVulkan) -> Result<()> {
        let d = &self.raw;
        // SAFETY: the command buffer is in the recording state; this ends it.
        unsafe {
            memory_barrier(d, graph.commands, Barrier::End);
            d.end_command_buffer(graph.commands)
        }
        .map_err(|e| graph_error("ending its command buffer", e))
    }

    /// Hands `graph`'s pools to the retired list: destroyed once submission `last_use` (the
    /// latest that may execute it) has finished; `done` is the latest finished now.
    pub(crate) fn retire_graph(&self, graph: GraphVulkan, last_use: u64, done: u64) {
        let mut guard = self.lock();
        let state = &mut *guard;
        state.retired.push((last_use, Retired::Commands(graph.pool)));
        state.retired.extend(graph.sets.pools.into_iter().map(|p| (last_use, Retired::Sets(p))));
        self.free_retired(state, done);
    }
}
