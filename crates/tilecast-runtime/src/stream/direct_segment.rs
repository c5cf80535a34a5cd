//! The open direct command buffer of a stream ([`Recording::Direct`](super::Recording)) and
//! what it has bound: the state `direct.rs` records against, kept apart from the stream itself.

use ash::vk;

use crate::library::BindingKind;
use crate::{Error, Result};

/// The open direct command buffer and what it has bound.
pub(super) struct DirectSegment {
    pub(super) target: Target,
    pub(super) pipeline: vk::Pipeline,
    pub(super) set: vk::DescriptorSet,
    pub(super) immediates: Vec<u8>,
    /// Memory written (`written`) or only read (`read`) by launches since the last barrier.
    pub(super) written: Vec<u64>,
    pub(super) read: Vec<u64>,
}

/// Where a direct segment records.
pub(super) enum Target {
    /// A stream's wgpu encoder, used only through its raw command buffer.
    Encoder(wgpu::CommandEncoder),
    /// A graph's secondary command buffer, being captured.
    Graph(vk::CommandBuffer),
}

impl DirectSegment {
    /// A segment recording into `target`, nothing bound yet.
    pub(super) fn new(target: Target) -> DirectSegment {
        DirectSegment {
            target,
            pipeline: vk::Pipeline::null(),
            set: vk::DescriptorSet::null(),
            immediates: Vec::new(),
            written: Vec::new(),
            read: Vec::new(),
        }
    }

    /// Runs `f` on the command buffer the segment records into.
    #[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
    pub(super) fn record<R>(&mut self, f: impl FnOnce(vk::CommandBuffer) -> R) -> Result<R> {
        match &mut self.target {
            Target::Encoder(e) => with_raw(e, f),
            Target::Graph(cb) => Ok(f(*cb)),
        }
    }
}

/// Runs `f` on the raw command buffer of `encoder`, a wgpu encoder used only for raw recording.
#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
pub(super) fn with_raw<R>(
    encoder: &mut wgpu::CommandEncoder,
    f: impl FnOnce(vk::CommandBuffer) -> R,
) -> Result<R> {
    // SAFETY: the encoder is used only through this raw API (never with wgpu commands); the
    // closure records into its open command buffer and neither ends nor destroys it.
    unsafe {
        encoder.as_hal_mut::<wgpu::hal::api::Vulkan, _, _>(|e| {
            e.map(|e| {
                // The handle is only recorded into, inside this callback.
                let cb = e.raw_handle();
                f(cb)
            })
        })
    }
    .ok_or_else(|| Error::InvalidCommand {
        what: "direct recording".into(),
        reason: "the command encoder has no open Vulkan command buffer".into(),
    })
}

/// True when a launch using memory ids as `uses` says (binding kind, memory id) must wait for launches since the last
/// barrier: it touches memory they wrote, or writes memory they read.
pub(super) fn needs_barrier(
    seg: &DirectSegment,
    mut uses: impl Iterator<Item = (BindingKind, u64)>,
) -> bool {
    uses.any(|(kind, id)| {
        seg.written.contains(&id)
            || (kind == BindingKind::StorageReadWrite && seg.read.contains(&id))
    })
}
