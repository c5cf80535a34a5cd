//! Direct recording on Vulkan: launches written straight into the driver's command buffer,
//! below wgpu's command recording and resource tracking.
//!
//! wgpu records each dispatch into its own command list, then at `finish` replays it, tracking
//! every bound buffer's state to place barriers; for a decoder step of ~360 small launches
//! that host work (1.9-4.6 us a dispatch on an H200's host) is a third of the step. The
//! driver's own recording remains (1.5-2.1 us a dispatch of one small kernel on that host). A stream
//! in [`Recording::Direct`](crate::Recording) instead records `vkCmdBindPipeline`,
//! `vkCmdBindDescriptorSets`, `vkCmdPushConstants`, `vkCmdDispatch` and, where a launch
//! depends on an earlier one, one global memory barrier.
//!
//! Invariants:
//! - Only kernels without override constants, of native SPIR-V modules or of trusted WGSL
//!   (translated by naga as wgpu translates it), have a direct twin: a pipeline made here from
//!   the same words, layout and push-constant range as wgpu's. Other launches (checked WGSL,
//!   copies, fills) go through wgpu, in a command buffer of their own.
//! - Every object made here (pipelines, layouts, descriptor sets and pools) lives until the
//!   device drops, which first waits for the GPU to go idle, so no submitted command buffer
//!   outlives what it names. Descriptor sets are cached per (pipeline layout, buffers); past
//!   [`SET_CACHE_CAP`] the cache starts over in fresh pools and retires the old ones, freed once
//!   the submissions that could use them have finished.
//! - wgpu does not know which buffers a direct command buffer uses: its allocations are kept
//!   alive by the stream until submission and their memory is destroyed only once the device
//!   has finished the last submission that used it (`Device::release_memory`).

use std::ffi::CString;
use std::sync::Mutex;

use ash::vk;
use rustc_hash::FxHashMap;

use crate::library::{BindingInfo, BindingKind};
use crate::{Error, Result};

mod graph;
pub(crate) use graph::GraphVulkan;

/// Descriptor sets cached before the cache starts over.
pub(crate) const SET_CACHE_CAP: usize = 4096;
/// Sets a descriptor pool holds, and storage descriptors per set it budgets for.
const SETS_PER_POOL: u32 = 512;
const DESCRIPTORS_PER_SET: u32 = 12;

/// A pipeline made for direct recording; handles owned by [`DirectVulkan`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct RawPipeline {
    pub(crate) pipeline: vk::Pipeline,
    pub(crate) layout: vk::PipelineLayout,
    set_layout: vk::DescriptorSetLayout,
    /// Bytes of push constants (the kernel's scalars).
    pub(crate) immediate_size: u32,
}

/// The device's direct-recording context: wgpu's ash device and what was made with it.
pub(crate) struct DirectVulkan {
    raw: ash::Device,
    varying_subgroups: bool,
    /// The queue's family, whose command pools graphs record into.
    queue_family: u32,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    modules: Vec<vk::ShaderModule>,
    set_layouts: Vec<vk::DescriptorSetLayout>,
    layouts: Vec<vk::PipelineLayout>,
    pipelines: Vec<vk::Pipeline>,
    /// The descriptor sets of launches recorded into streams.
    sets: SetCache,
    /// Pools no command buffer may use after the device's submission sequence number given:
    /// freed once that has finished.
    retired: Vec<(u64, Retired)>,
}

/// Descriptor sets cached per (pipeline layout, buffers), and the pools they come from.
#[derive(Default)]
pub(crate) struct SetCache {
    pools: Vec<vk::DescriptorPool>,
    sets: FxHashMap<SetKey, vk::DescriptorSet>,
    /// Where a lookup's key is built, so that a hit allocates nothing.
    key: SetKey,
}

/// A pool waiting for the submissions that may use what it holds.
enum Retired {
    Sets(vk::DescriptorPool),
    Commands(vk::CommandPool),
}

/// A buffer range a launch binds: its allocation's id, the range, and the wgpu buffer.
#[derive(Clone, Copy)]
pub(crate) struct Bound<'a> {
    pub(crate) id: u64,
    pub(crate) offset: u64,
    pub(crate) size: u64,
    pub(crate) gpu: &'a wgpu::Buffer,
}

/// (pipeline layout, then (allocation id, offset, size) of each binding).
#[derive(Clone, Default, PartialEq, Eq, Hash)]
struct SetKey(vk::PipelineLayout, Vec<(u64, u64, u64)>);

impl std::fmt::Debug for DirectVulkan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirectVulkan").finish_non_exhaustive()
    }
}

impl DirectVulkan {
    /// The context of `device`, or `None` off Vulkan or without native SPIR-V.
    pub(crate) fn open(device: &wgpu::Device, native_spirv: bool) -> Option<DirectVulkan> {
        if !native_spirv {
            return None;
        }
        // SAFETY: the hal device is only borrowed to clone its ash handle table; wgpu keeps the
        // VkDevice alive while `device` lives, and the DirectVulkan is dropped before the
        // device (field order of `DeviceInner`).
        let hal = unsafe { device.as_hal::<wgpu::hal::api::Vulkan>() }?;
        Some(DirectVulkan {
            raw: hal.raw_device().clone(),
            varying_subgroups: device.features().contains(wgpu::Features::SUBGROUP),
            queue_family: hal.queue_family_index(),
            state: Mutex::new(State::default()),
        })
    }

    pub(crate) fn raw(&self) -> &ash::Device {
        &self.raw
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Makes the direct twin of entry point `entry` of `spirv` (words as wgpu got them) with
    /// `bindings` in descriptor set 0 (numbered by their rank) and `immediate_size` bytes of push constants.
    pub(crate) fn create_pipeline(
        &self,
        spirv: &[u32],
        entry: &str,
        bindings: &[BindingInfo],
        immediate_size: u32,
    ) -> Result<RawPipeline> {
        let fail = |what: &str, e: vk::Result| Error::Kernel {
            kernel: entry.to_string(),
            reason: format!("creating its direct-recording {what}: {e}"),
        };
        let name = CString::new(entry).map_err(|_| Error::Kernel {
            kernel: entry.to_string(),
            reason: "entry point name holds a NUL byte".into(),
        })?;
        // Vulkan binding numbers are ranks in the layout, as wgpu-hal makes them and the words
        // were renumbered to (`spirv::renumber_bindings`).
        let set_bindings: Vec<vk::DescriptorSetLayoutBinding<'_>> = bindings
            .iter()
            .enumerate()
            .map(|(rank, b)| {
                vk::DescriptorSetLayoutBinding::default()
                    .binding(rank as u32)
                    .descriptor_type(descriptor_type(b.kind))
                    .descriptor_count(1)
                    .stage_flags(vk::ShaderStageFlags::COMPUTE)
            })
            .collect();
        let d = &self.raw;
        let mut state = self.lock();
        // Each object is recorded in `state` as soon as it exists, so a later failure leaks
        // nothing: all of it is destroyed with the context.
        // SAFETY: valid create infos on the live device; the words are the module wgpu accepted.
        let module = unsafe {
            d.create_shader_module(&vk::ShaderModuleCreateInfo::default().code(spirv), None)
        }
        .map_err(|e| fail("shader module", e))?;
        state.modules.push(module);
        // SAFETY: as above.
        let set_layout = unsafe {
            d.create_descriptor_set_layout(
                &vk::DescriptorSetLayoutCreateInfo::default().bindings(&set_bindings),
                None,
            )
        }
        .map_err(|e| fail("descriptor set layout", e))?;
        state.set_layouts.push(set_layout);
        let ranges = [vk::PushConstantRange::default()
            .stage_flags(vk::ShaderStageFlags::COMPUTE)
            .size(immediate_size)];
        let set_layouts = [set_layout];
        let mut info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts);
        if immediate_size > 0 {
            info = info.push_constant_ranges(&ranges);
        }
        // SAFETY: as above.
        let layout =
            unsafe { d.create_pipeline_layout(&info, None) }.map_err(|e| fail("layout", e))?;
        state.layouts.push(layout);
        let flags = if self.varying_subgroups {
            vk::PipelineShaderStageCreateFlags::ALLOW_VARYING_SUBGROUP_SIZE
        } else {
            vk::PipelineShaderStageCreateFlags::empty()
        };
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .flags(flags)
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(&name);
        let create = [vk::ComputePipelineCreateInfo::default().stage(stage).layout(layout)];
        // SAFETY: as above; the module and layout were made just now on this device.
        let pipeline =
            unsafe { d.create_compute_pipelines(vk::PipelineCache::null(), &create, None) }
                .map_err(|(_, e)| fail("pipeline", e))?[0];
        state.pipelines.push(pipeline);
        Ok(RawPipeline { pipeline, layout, set_layout, immediate_size })
    }

    /// The descriptor set binding `buffers` (in `bindings` order) for `pipeline`, made and
    /// written at the first use of that set. `completed` gives the device's latest submission,
    /// which retired pools wait for, and the latest finished.
    pub(crate) fn descriptor_set<'a>(
        &self,
        pipeline: &RawPipeline,
        bindings: &[BindingInfo],
        buffers: impl Iterator<Item = Bound<'a>> + Clone,
        completed: impl FnOnce() -> (u64, u64),
    ) -> Result<vk::DescriptorSet> {
        let mut guard = self.lock();
        let state = &mut *guard;
        if let Some(set) = state.sets.lookup(pipeline, buffers.clone()) {
            return Ok(set);
        }
        let (submitted, done) = completed();
        if state.sets.sets.len() >= SET_CACHE_CAP {
            state.sets.sets.clear();
            state.retired.extend(state.sets.pools.drain(..).map(|p| (submitted, Retired::Sets(p))));
        }
        self.free_retired(state, done);
        self.make_set(&mut state.sets, pipeline, bindings, buffers)
    }

    /// Destroys the retired pools whose submissions have all finished (`done`).
    fn free_retired(&self, state: &mut State, done: u64) {
        let d = &self.raw;
        state.retired.retain(|&(seq, ref pool)| {
            if seq > done {
                return true;
            }
            // SAFETY: every submission that could use what the pool holds has finished.
            unsafe {
                match *pool {
                    Retired::Sets(p) => d.destroy_descriptor_pool(p, None),
                    Retired::Commands(p) => d.destroy_command_pool(p, None),
                }
            }
            false
        });
    }

    /// Makes, writes and caches in `cache` the set binding `buffers` for `pipeline`.
    fn make_set<'a>(
        &self,
        cache: &mut SetCache,
        pipeline: &RawPipeline,
        bindings: &[BindingInfo],
        buffers: impl Iterator<Item = Bound<'a>>,
    ) -> Result<vk::DescriptorSet> {
        let d = &self.raw;
        let set = self.allocate_set(&mut cache.pools, pipeline.set_layout)?;
        let infos: Vec<vk::DescriptorBufferInfo> = buffers
            .map(|b| {
                // SAFETY: the handle is only read to name the buffer in a descriptor; the stream
                // (or graph) keeps the allocation alive while any command using the set may run.
                let raw = unsafe { b.gpu.as_hal::<wgpu::hal::api::Vulkan>() }
                    .map(|h| unsafe { h.raw_handle() })
                    .unwrap_or(vk::Buffer::null());
                vk::DescriptorBufferInfo::default().buffer(raw).offset(b.offset).range(b.size)
            })
            .collect();
        if infos.iter().any(|i| i.buffer == vk::Buffer::null()) {
            return Err(Error::Kernel {
                kernel: "direct recording".into(),
                reason: "a bound buffer has no Vulkan handle (destroyed?)".into(),
            });
        }
        let writes: Vec<vk::WriteDescriptorSet<'_>> = bindings
            .iter()
            .zip(&infos)
            .enumerate()
            .map(|(rank, (b, info))| {
                vk::WriteDescriptorSet::default()
                    .dst_set(set)
                    .dst_binding(rank as u32)
                    .descriptor_type(descriptor_type(b.kind))
                    .buffer_info(std::slice::from_ref(info))
            })
            .collect();
        // SAFETY: the set was just allocated and no command buffer uses it yet.
        unsafe { d.update_descriptor_sets(&writes, &[]) };
        cache.sets.insert(cache.key.clone(), set);
        Ok(set)
    }

    fn allocate_set(
        &self,
        pools: &mut Vec<vk::DescriptorPool>,
        layout: vk::DescriptorSetLayout,
    ) -> Result<vk::DescriptorSet> {
        let d = &self.raw;
        let layouts = [layout];
        if let Some(&pool) = pools.last() {
            let info = vk::DescriptorSetAllocateInfo::default()
                .descriptor_pool(pool)
                .set_layouts(&layouts);
            // SAFETY: a live pool and layout of this device.
            match unsafe { d.allocate_descriptor_sets(&info) } {
                Ok(sets) => return Ok(sets[0]),
                Err(vk::Result::ERROR_OUT_OF_POOL_MEMORY | vk::Result::ERROR_FRAGMENTED_POOL) => {}
                Err(e) => return Err(set_error(e)),
            }
        }
        let sizes = [
            vk::DescriptorPoolSize::default()
                .ty(vk::DescriptorType::STORAGE_BUFFER)
                .descriptor_count(SETS_PER_POOL * DESCRIPTORS_PER_SET),
            vk::DescriptorPoolSize::default()
                .ty(vk::DescriptorType::UNIFORM_BUFFER)
                .descriptor_count(SETS_PER_POOL),
        ];
        // SAFETY: a valid create info on the live device.
        let pool = unsafe {
            d.create_descriptor_pool(
                &vk::DescriptorPoolCreateInfo::default().max_sets(SETS_PER_POOL).pool_sizes(&sizes),
                None,
            )
        }
        .map_err(set_error)?;
        pools.push(pool);
        let info =
            vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&layouts);
        // SAFETY: a fresh pool and a live layout of this device.
        unsafe { d.allocate_descriptor_sets(&info) }.map(|s| s[0]).map_err(set_error)
    }
}

impl Drop for DirectVulkan {
    fn drop(&mut self) {
        let d = &self.raw;
        let state = self.state.get_mut().unwrap_or_else(|p| p.into_inner());
        // SAFETY: waiting for the device to go idle, then destroying objects made here that no
        // pending command buffer can use any more.
        unsafe {
            let _ = d.device_wait_idle();
            for p in state.sets.pools.drain(..) {
                d.destroy_descriptor_pool(p, None);
            }
            for (_, p) in state.retired.drain(..) {
                match p {
                    Retired::Sets(p) => d.destroy_descriptor_pool(p, None),
                    Retired::Commands(p) => d.destroy_command_pool(p, None),
                }
            }
            for p in state.pipelines.drain(..) {
                d.destroy_pipeline(p, None);
            }
            for l in state.layouts.drain(..) {
                d.destroy_pipeline_layout(l, None);
            }
            for l in state.set_layouts.drain(..) {
                d.destroy_descriptor_set_layout(l, None);
            }
            for m in state.modules.drain(..) {
                d.destroy_shader_module(m, None);
            }
        }
    }
}

impl SetCache {
    /// The cached set binding `buffers` for `pipeline`, leaving the key built for a miss.
    fn lookup<'a>(
        &mut self,
        pipeline: &RawPipeline,
        buffers: impl Iterator<Item = Bound<'a>>,
    ) -> Option<vk::DescriptorSet> {
        self.key.0 = pipeline.layout;
        self.key.1.clear();
        self.key.1.extend(buffers.map(|b| (b.id, b.offset, b.size)));
        self.sets.get(&self.key).copied()
    }
}

fn descriptor_type(kind: BindingKind) -> vk::DescriptorType {
    match kind {
        BindingKind::Uniform => vk::DescriptorType::UNIFORM_BUFFER,
        BindingKind::StorageRead | BindingKind::StorageReadWrite => {
            vk::DescriptorType::STORAGE_BUFFER
        }
    }
}

fn set_error(e: vk::Result) -> Error {
    Error::Kernel {
        kernel: "direct recording".into(),
        reason: format!("allocating a descriptor set: {e}"),
    }
}

/// Where a direct command buffer's memory barrier stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Barrier {
    /// First: after everything earlier on the queue, before its compute work.
    Begin,
    /// Between two of its launches: compute writes before compute reads and writes.
    Between,
    /// Last: after its compute work, before everything later on the queue and host reads.
    End,
}

/// Records a memory barrier into `cb`, scoped as `at` says. Launches are ordered by
/// compute-to-compute barriers only (as wgpu's are): one over all commands cost an H200 about
/// 2.8 us of GPU time a launch more.
///
/// # Safety
/// `cb` must be a command buffer of `raw`'s device in the recording state.
pub(crate) unsafe fn memory_barrier(raw: &ash::Device, cb: vk::CommandBuffer, at: Barrier) {
    use vk::{AccessFlags as A, PipelineStageFlags as S};
    let compute = S::COMPUTE_SHADER;
    let shader = A::SHADER_READ | A::SHADER_WRITE | A::UNIFORM_READ;
    let (src, src_access, dst, dst_access) = match at {
        Barrier::Begin => (S::ALL_COMMANDS, A::MEMORY_WRITE, compute, shader),
        Barrier::Between => (compute, A::SHADER_WRITE, compute, shader),
        Barrier::End => (
            compute,
            A::SHADER_WRITE,
            S::ALL_COMMANDS | S::HOST,
            A::MEMORY_READ | A::MEMORY_WRITE | A::HOST_READ | A::HOST_WRITE,
        ),
    };
    let barrier =
        [vk::MemoryBarrier::default().src_access_mask(src_access).dst_access_mask(dst_access)];
    // SAFETY: the caller's promise.
    unsafe {
        raw.cmd_pipeline_barrier(cb, src, dst, vk::DependencyFlags::empty(), &barrier, &[], &[])
    };
}
