//! Direct recording where wgpu has no Vulkan backend (Apple, the web): never available, so
//! every launch goes through wgpu. The types keep the stream's code the same everywhere.

use crate::Result;
use crate::library::BindingInfo;

/// Never made here.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawPipeline;

/// Never made here: [`DirectVulkan::open`] returns `None`.
#[derive(Debug)]
pub(crate) struct DirectVulkan;

impl DirectVulkan {
    pub(crate) fn open(_device: &wgpu::Device, _native_spirv: bool) -> Option<DirectVulkan> {
        None
    }

    pub(crate) fn create_pipeline(
        &self,
        _spirv: &[u32],
        _entry: &str,
        _bindings: &[BindingInfo],
        _immediate_size: u32,
    ) -> Result<RawPipeline> {
        unreachable!("no DirectVulkan exists on this target")
    }
}

/// Never made here.
pub(crate) struct GraphVulkan {
    pub(crate) commands: ash::vk::CommandBuffer,
}

impl DirectVulkan {
    pub(crate) fn begin_graph(&self) -> Result<GraphVulkan> {
        unreachable!("no DirectVulkan exists on this target")
    }

    pub(crate) fn end_graph(&self, _graph: &GraphVulkan) -> Result<()> {
        unreachable!("no DirectVulkan exists on this target")
    }

    pub(crate) fn retire_graph(&self, _graph: GraphVulkan, _last_use: u64, _done: u64) {
        unreachable!("no DirectVulkan exists on this target")
    }
}
