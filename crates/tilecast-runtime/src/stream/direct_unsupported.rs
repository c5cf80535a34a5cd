//! A stream's direct recording where wgpu has no Vulkan backend: never used (the device has
//! no direct context, so no launch has a direct pipeline).

use super::Stream;
use super::dispatch::CommandKind;
use crate::Result;
use crate::direct::RawPipeline;
use crate::library::Launch;

impl Stream {
    pub(super) fn encode_direct(
        &mut self,
        _cmd: Launch<'_>,
        _raw: RawPipeline,
        _kind: CommandKind,
    ) -> Result<()> {
        unreachable!("no direct pipelines exist on this target")
    }

    pub(super) fn close_direct(&mut self) {}

    pub(super) fn execute_graph(&mut self, _graph: &crate::direct::GraphVulkan) -> Result<()> {
        unreachable!("no graphs exist on this target")
    }
}
