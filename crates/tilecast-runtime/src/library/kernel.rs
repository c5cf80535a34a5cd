//! Kernel functions: arguments bound by index, launches validated against device limits, bind
//! groups cached per set of bound buffers. A stream encodes the launch (`stream/dispatch.rs`,
//! where `dispatch_threadgroups` lives); this file knows nothing of streams.
//!
//! Invariant: a bind group is keyed by (allocation id, offset, size) of every bound buffer, and
//! allocation ids are never reused, so a cached bind group can never name memory other than the
//! memory it was made for. A repeated launch with the same buffers creates no bind group.

use std::sync::{Arc, Mutex, OnceLock};

use rustc_hash::FxHashMap;

use super::reflection::{BindingInfo, BindingKind, EntryReflection, ScalarInfo, ScalarType};
use crate::direct::RawPipeline;
use crate::{Buffer, Device, Error, Result, Scalar};

/// Bind groups kept per pipeline before the cache is emptied and refilled.
const BIND_GROUP_CACHE_CAP: usize = 1024;

/// The reflected type a scalar value has.
fn scalar_type(value: Scalar) -> ScalarType {
    match value {
        Scalar::U32(_) => ScalarType::U32,
        Scalar::I32(_) => ScalarType::I32,
        Scalar::F32(_) => ScalarType::F32,
        Scalar::F16(_) => ScalarType::F16,
    }
}

/// A bind group's key: (allocation id, byte offset, binding size) of each bound buffer.
type BindKey = [(u64, u64, u64)];

#[derive(Default)]
struct BindGroupCache {
    map: FxHashMap<Box<BindKey>, wgpu::BindGroup>,
    /// Where a lookup's key is built, so that a hit allocates nothing.
    key: Vec<(u64, u64, u64)>,
    created: u64,
}

/// Makes the SPIR-V of an entry point's direct twin from its layout's bindings.
pub(crate) type DirectWords = Arc<dyn Fn(&[BindingInfo]) -> Result<Vec<u32>> + Send + Sync>;

/// What a pipeline is created from: its module, whether the module's loader vouched for its
/// accesses (workgroup memory then is not zeroed), and where its direct twin's words come from.
pub(crate) struct PipelineSource<'a> {
    pub(crate) module: &'a wgpu::ShaderModule,
    pub(crate) trusted: bool,
    pub(crate) direct_words: Option<DirectWords>,
}

/// One compiled pipeline with its calling convention; shared by every `KernelFunction` of it.
pub(crate) struct PipelineEntry {
    /// Shared with every stream that records a launch of it.
    pub(crate) name: Arc<str>,
    device: Device,
    pub(crate) pipeline: wgpu::ComputePipeline,
    layout: wgpu::BindGroupLayout,
    pub(crate) reflection: EntryReflection,
    bind_groups: Mutex<BindGroupCache>,
    /// Where direct recording may make a twin of this pipeline from.
    direct_source: Option<DirectWords>,
    /// The twin, made at its first direct launch (`None` when that failed: such launches go
    /// through wgpu).
    direct: OnceLock<Option<RawPipeline>>,
}

impl PipelineEntry {
    /// Creates the pipeline of `entry` in `module` on `device`, after checking what the entry
    /// point asks for against the device's limits. A trusted module's workgroup memory is not
    /// zeroed; `cache` is the backend pipeline cache to compile through.
    pub(crate) fn create(
        device: &Device,
        source: PipelineSource<'_>,
        cache: Option<&wgpu::PipelineCache>,
        entry: &str,
        constants: &[(&str, f64)],
        reflection: EntryReflection,
    ) -> Result<PipelineEntry> {
        let PipelineSource { module, trusted, direct_words } = source;
        // Override constants are wgpu's to apply: such pipelines have no direct twin.
        let direct_source = direct_words.filter(|_| constants.is_empty());
        let limits = &device.capabilities().limits;
        let kernel_err = |reason: String| Error::Kernel { kernel: entry.to_string(), reason };
        let shared: u64 = reflection.workgroup_vars.iter().map(|(_, b)| b).sum();
        if shared > limits.max_shared_memory_bytes as u64 {
            let vars: Vec<_> =
                reflection.workgroup_vars.iter().map(|(n, b)| format!("{n}: {b} bytes")).collect();
            return Err(kernel_err(format!(
                "needs {shared} bytes of threadgroup memory ({}); device {:?} allows {}",
                vars.join(", "),
                device.name(),
                limits.max_shared_memory_bytes
            )));
        }
        let [x, y, z] = reflection.workgroup_size;
        let threads = x as u64 * y as u64 * z as u64;
        if !reflection.size_from_overrides
            && (threads > limits.max_threads_per_threadgroup as u64
                || x > limits.max_threadgroup_size[0]
                || y > limits.max_threadgroup_size[1]
                || z > limits.max_threadgroup_size[2])
        {
            return Err(kernel_err(format!(
                "threadgroup of {x}x{y}x{z} = {threads} threads; device {:?} allows {} threads, at most {:?} per axis",
                device.name(),
                limits.max_threads_per_threadgroup,
                limits.max_threadgroup_size
            )));
        }
        let immediates_ok = device.wgpu_device().features().contains(wgpu::Features::IMMEDIATES);
        if reflection.immediate_size > 0 && !immediates_ok {
            return Err(kernel_err(format!(
                "takes scalar arguments (immediates), which device {:?} does not support",
                device.name()
            )));
        }
        let entries: Vec<wgpu::BindGroupLayoutEntry> = reflection
            .bindings
            .iter()
            .map(|b| wgpu::BindGroupLayoutEntry {
                binding: b.binding,
                visibility: wgpu::ShaderStages::COMPUTE,
                ty: wgpu::BindingType::Buffer {
                    ty: match b.kind {
                        BindingKind::StorageRead => {
                            wgpu::BufferBindingType::Storage { read_only: true }
                        }
                        BindingKind::StorageReadWrite => {
                            wgpu::BufferBindingType::Storage { read_only: false }
                        }
                        BindingKind::Uniform => wgpu::BufferBindingType::Uniform,
                    },
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            })
            .collect();
        let wd = device.wgpu_device();
        let (layout, pipeline) =
            device.scoped(&format!("creating pipeline for kernel {entry:?}"), None, || {
                let layout = wd.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                    label: Some(entry),
                    entries: &entries,
                });
                let pipeline_layout = wd.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(entry),
                    bind_group_layouts: &[Some(&layout)],
                    immediate_size: reflection.immediate_size,
                });
                let pipeline = wd.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout: Some(&pipeline_layout),
                    module,
                    entry_point: Some(entry),
                    compilation_options: wgpu::PipelineCompilationOptions {
                        constants,
                        zero_initialize_workgroup_memory: !trusted,
                    },
                    cache,
                });
                (layout, pipeline)
            })?;
        Ok(PipelineEntry {
            name: entry.into(),
            device: device.clone(),
            pipeline,
            layout,
            reflection,
            bind_groups: Mutex::new(BindGroupCache::default()),
            direct_source,
            direct: OnceLock::new(),
        })
    }

    /// The pipeline's twin for direct recording, made at the first call; `None` for a kernel
    /// that has none (not native SPIR-V, override constants) or whose twin failed to build,
    /// which is logged once.
    pub(crate) fn direct_pipeline(&self) -> Option<&RawPipeline> {
        let source = self.direct_source.as_ref()?;
        let direct = self.device.direct()?;
        self.direct
            .get_or_init(|| {
                let r = &self.reflection;
                source(&r.bindings)
                    .and_then(|words| {
                        direct.create_pipeline(&words, &self.name, &r.bindings, r.immediate_size)
                    })
                    .inspect_err(|e| {
                        crate::warn(&format!("{e}; its launches go through wgpu"));
                    })
                    .ok()
            })
            .as_ref()
    }

    /// The bind group for `bound` (one buffer per binding, in binding order). A set of buffers
    /// seen before costs a hash and no allocation; a new one is checked for usage conflicts
    /// ([`check_usage`]) before its bind group is made.
    fn bind_group(&self, bound: &[&Buffer]) -> Result<wgpu::BindGroup> {
        let mut guard = self.bind_groups.lock().unwrap_or_else(|p| p.into_inner());
        let cache = &mut *guard;
        cache.key.clear();
        cache.key.extend(bound.iter().map(|b| (b.alloc.id, b.byte_offset(), b.bound_len())));
        if let Some(bg) = cache.map.get(cache.key.as_slice()) {
            return Ok(bg.clone());
        }
        check_usage(&self.name, &self.reflection.bindings, bound)?;
        let entries: Vec<wgpu::BindGroupEntry> = self
            .reflection
            .bindings
            .iter()
            .zip(bound)
            .map(|(info, b)| wgpu::BindGroupEntry {
                binding: info.binding,
                resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                    buffer: b.wgpu_buffer(),
                    offset: b.byte_offset(),
                    size: wgpu::BufferSize::new(b.bound_len()),
                }),
            })
            .collect();
        let bg = self.device.scoped(
            &format!("binding arguments of kernel {:?}", self.name),
            None,
            || {
                self.device.wgpu_device().create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(&self.name),
                    layout: &self.layout,
                    entries: &entries,
                })
            },
        )?;
        if cache.map.len() >= BIND_GROUP_CACHE_CAP {
            cache.map.clear();
        }
        cache.map.insert(cache.key.as_slice().into(), bg.clone());
        cache.created += 1;
        Ok(bg)
    }
}

/// wgpu tracks usage per allocation, not per view: one allocation bound to a read_write binding
/// may not also be bound read-only in the same launch. Several read_write bindings of one
/// allocation are one usage (a kernel's vector view of its output, say); what they write is the
/// kernel's to order.
fn check_usage(kernel: &str, bindings: &[BindingInfo], bound: &[&Buffer]) -> Result<()> {
    for (n, (a, ab)) in bindings.iter().zip(bound).enumerate() {
        for (b, bb) in bindings.iter().zip(bound).skip(n + 1) {
            let writes = [a.kind, b.kind].contains(&BindingKind::StorageReadWrite);
            if writes && a.kind != b.kind && ab.shares_allocation_with(bb) {
                return Err(Error::Kernel {
                    kernel: kernel.to_string(),
                    reason: format!(
                        "bindings {} ({}) and {} ({}) view one allocation, one read_write and one \
                         not; the GPU tracks usage per allocation, so bind views of different \
                         allocations",
                        a.binding, a.name, b.binding, b.name
                    ),
                });
            }
        }
    }
    Ok(())
}

/// A launch checked and ready to encode: what a stream records of it.
pub(crate) struct Launch<'a> {
    /// The pipeline's entry: its reflection and direct twin.
    pub(crate) entry: &'a PipelineEntry,
    pub(crate) kernel: &'a Arc<str>,
    pub(crate) pipeline: &'a wgpu::ComputePipeline,
    pub(crate) bind_group: wgpu::BindGroup,
    pub(crate) immediates: &'a [u8],
    pub(crate) groups: [u32; 3],
    /// The buffers bound, in binding order.
    pub(crate) buffers: &'a [&'a Buffer],
}

/// A kernel ready to launch: a pipeline plus the arguments bound so far. Cheap to create from a
/// [`ShaderModule`](crate::ShaderModule); pipelines and bind groups are shared and cached.
#[derive(Clone)]
pub struct KernelFunction {
    pipeline: Arc<PipelineEntry>,
    buffers: Vec<Option<Buffer>>,
    /// The bind group for `buffers`, made at the first dispatch after one of them changed.
    bind_group: OnceLock<wgpu::BindGroup>,
    immediates: Vec<u8>,
    scalars_set: Vec<bool>,
}

impl std::fmt::Debug for KernelFunction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelFunction").field("name", &self.pipeline.name).finish()
    }
}

impl KernelFunction {
    pub(crate) fn new(pipeline: Arc<PipelineEntry>) -> KernelFunction {
        let r = &pipeline.reflection;
        KernelFunction {
            buffers: vec![None; r.bindings.len()],
            bind_group: OnceLock::new(),
            immediates: vec![0; r.immediate_size as usize],
            scalars_set: vec![false; r.scalars.len()],
            pipeline,
        }
    }

    /// The entry point's name.
    pub fn name(&self) -> &str {
        &self.pipeline.name
    }

    /// The buffer arguments, in binding order.
    pub fn bindings(&self) -> &[BindingInfo] {
        &self.pipeline.reflection.bindings
    }

    /// The scalar arguments, in index order.
    pub fn scalars(&self) -> &[ScalarInfo] {
        &self.pipeline.reflection.scalars
    }

    /// Threads per threadgroup, as the source declares.
    pub fn threadgroup_size(&self) -> [u32; 3] {
        self.pipeline.reflection.workgroup_size
    }

    /// Bind groups this kernel's pipeline has created (shared by all its `KernelFunction`s).
    pub fn bind_groups_created(&self) -> u64 {
        self.pipeline.bind_groups.lock().unwrap_or_else(|p| p.into_inner()).created
    }

    fn err(&self, reason: String) -> Error {
        Error::Kernel { kernel: self.pipeline.name.to_string(), reason }
    }

    /// Unbinds every buffer, so this kernel no longer keeps their memory alive (a kernel holds
    /// the buffers bound to it until they are rebound, cleared, or the kernel is dropped).
    pub fn clear_buffers(&mut self) {
        self.buffers.iter_mut().for_each(|b| *b = None);
        self.bind_group = OnceLock::new();
    }

    /// Binds `buffer` (at its view offset) to `@binding(binding)`.
    pub fn set_buffer(&mut self, binding: u32, buffer: &Buffer) -> Result<&mut Self> {
        let r = &self.pipeline.reflection;
        let Some(slot) = r.bindings.iter().position(|b| b.binding == binding) else {
            let have: Vec<_> =
                r.bindings.iter().map(|b| format!("{} ({})", b.binding, b.name)).collect();
            return Err(self.err(format!("has no buffer at binding {binding}; it binds {have:?}")));
        };
        self.check_buffer(slot, buffer)?;
        self.buffers[slot] = Some(buffer.clone());
        self.bind_group = OnceLock::new();
        Ok(self)
    }

    /// Checks `buffer` for the binding at `slot` (of [`bindings`](Self::bindings)): the same
    /// device, a storage binding, the offset alignment, the shader's minimum and the device's
    /// largest binding size.
    fn check_buffer(&self, slot: usize, buffer: &Buffer) -> Result<()> {
        let info = &self.pipeline.reflection.bindings[slot];
        let (binding, name) = (info.binding, &info.name);
        if !buffer.device().inner_eq(&self.pipeline.device) {
            return Err(
                self.err(format!("binding {binding}: the buffer belongs to another device"))
            );
        }
        let limits = &self.pipeline.device.capabilities().limits;
        let align = limits.min_storage_offset_alignment as u64;
        if !buffer.byte_offset().is_multiple_of(align) {
            return Err(self.err(format!(
                "binding {binding} ({name}): view starts at byte {}; the device binds storage at multiples of {align} bytes",
                buffer.byte_offset()
            )));
        }
        if info.kind == BindingKind::Uniform {
            return Err(self.err(format!(
                "binding {binding} ({name}) is var<uniform>; tilecast buffers are storage buffers: \
                 declare it var<storage, read>"
            )));
        }
        if buffer.bound_len() < info.min_size {
            return Err(self.err(format!(
                "binding {binding} ({name}): the view covers {} bytes; the shader's type needs at \
                 least {} bytes",
                buffer.bound_len(),
                info.min_size
            )));
        }
        if buffer.bound_len() > limits.max_storage_binding_size {
            return Err(self.err(format!(
                "binding {binding} ({name}): {} bytes; the device binds at most {} bytes",
                buffer.byte_len(),
                limits.max_storage_binding_size
            )));
        }
        Ok(())
    }

    /// Sets scalar argument `index` (the member of the kernel's `var<immediate>` struct).
    pub fn set_scalar(&mut self, index: usize, value: impl Into<Scalar>) -> Result<&mut Self> {
        let mut immediates = std::mem::take(&mut self.immediates);
        let written = self.write_scalar(&mut immediates, index, value.into());
        self.immediates = immediates;
        written?;
        self.scalars_set[index] = true;
        Ok(self)
    }

    /// Writes scalar argument `index` into `immediates` (the kernel's immediate bytes), after
    /// checking its index and type.
    fn write_scalar(&self, immediates: &mut [u8], index: usize, value: Scalar) -> Result<()> {
        let scalars = &self.pipeline.reflection.scalars;
        let Some(info) = scalars.get(index) else {
            return Err(self.err(format!(
                "has {} scalar argument(s); index {index} is out of range",
                scalars.len()
            )));
        };
        if info.ty != scalar_type(value) {
            return Err(
                self.err(format!("scalar {index} ({}) is {:?}; got {value:?}", info.name, info.ty))
            );
        }
        let at = info.offset as usize;
        match value {
            Scalar::U32(v) => immediates[at..at + 4].copy_from_slice(&v.to_le_bytes()),
            Scalar::I32(v) => immediates[at..at + 4].copy_from_slice(&v.to_le_bytes()),
            Scalar::F32(v) => immediates[at..at + 4].copy_from_slice(&v.to_le_bytes()),
            Scalar::F16(v) => immediates[at..at + 2].copy_from_slice(&v.to_le_bytes()),
        }
        Ok(())
    }

    /// Checks a launch of `groups` threadgroups on `device` (the stream's): each count within
    /// the device's threadgroups-per-dimension limit, the kernel of the same device. `None` for
    /// a grid with a zero count, which launches nothing.
    fn check_grid(&self, device: &Device, groups: [u32; 3]) -> Result<Option<()>> {
        let max = self.pipeline.device.capabilities().limits.max_threadgroups_per_dimension;
        if groups.iter().any(|&g| g > max) {
            return Err(self.err(format!(
                "dispatch of {groups:?} threadgroups; the device allows at most {max} per dimension"
            )));
        }
        if groups.contains(&0) {
            return Ok(None);
        }
        if !device.inner_eq(&self.pipeline.device) {
            return Err(self.err("the stream belongs to another device".into()));
        }
        Ok(Some(()))
    }

    /// A launch of the bound arguments: every one bound, the grid checked
    /// ([`check_grid`](Self::check_grid)). The bind group is made (and cached) at the first
    /// launch after a buffer changed. `bound` receives the bound buffers, in binding order.
    pub(crate) fn launch<'a>(
        &'a self,
        device: &Device,
        groups: [u32; 3],
        bound: &'a mut Vec<&'a Buffer>,
    ) -> Result<Option<Launch<'a>>> {
        let r = &self.pipeline.reflection;
        if let Some(i) = self.buffers.iter().position(Option::is_none) {
            let b = &r.bindings[i];
            return Err(self.err(format!("binding {} ({}) is not set", b.binding, b.name)));
        }
        if let Some(i) = self.scalars_set.iter().position(|s| !s) {
            return Err(self.err(format!("scalar {i} ({}) is not set", r.scalars[i].name)));
        }
        if self.check_grid(device, groups)?.is_none() {
            return Ok(None);
        }
        bound.extend(self.buffers.iter().flatten());
        let bind_group = match self.bind_group.get() {
            Some(bg) => bg.clone(),
            None => {
                let bg = self.pipeline.bind_group(bound)?;
                let _ = self.bind_group.set(bg.clone());
                bg
            }
        };
        Ok(Some(Launch {
            entry: &self.pipeline,
            kernel: &self.pipeline.name,
            pipeline: &self.pipeline.pipeline,
            bind_group,
            immediates: &self.immediates,
            groups,
            buffers: bound,
        }))
    }

    /// A launch of arguments given for this launch alone, ignoring what is bound: `buffers`
    /// one per binding in [`bindings`](Self::bindings) order, `scalars` one per scalar in
    /// [`scalars`](Self::scalars) order, each checked as `set_buffer` and `set_scalar` check
    /// them. `immediates` receives the scalars' bytes.
    pub(crate) fn launch_with<'a>(
        &'a self,
        device: &Device,
        groups: [u32; 3],
        buffers: &'a [&'a Buffer],
        scalars: &[Scalar],
        immediates: &'a mut Vec<u8>,
    ) -> Result<Option<Launch<'a>>> {
        let r = &self.pipeline.reflection;
        if buffers.len() != r.bindings.len() || scalars.len() != r.scalars.len() {
            return Err(self.err(format!(
                "takes {} buffers and {} scalars; got {} and {}",
                r.bindings.len(),
                r.scalars.len(),
                buffers.len(),
                scalars.len()
            )));
        }
        for (slot, b) in buffers.iter().enumerate() {
            self.check_buffer(slot, b)?;
        }
        immediates.clear();
        immediates.resize(r.immediate_size as usize, 0);
        for (i, &v) in scalars.iter().enumerate() {
            self.write_scalar(immediates, i, v)?;
        }
        if self.check_grid(device, groups)?.is_none() {
            return Ok(None);
        }
        Ok(Some(Launch {
            entry: &self.pipeline,
            kernel: &self.pipeline.name,
            pipeline: &self.pipeline.pipeline,
            bind_group: self.pipeline.bind_group(buffers)?,
            immediates,
            groups,
            buffers,
        }))
    }

    /// The threadgroups that cover `threads` threads: ceil(threads / threadgroup size) per
    /// axis. Refused for kernels whose threadgroup size comes from override constants.
    pub(crate) fn groups_for_threads(&self, threads: [u32; 3]) -> Result<[u32; 3]> {
        let r = &self.pipeline.reflection;
        if r.size_from_overrides {
            return Err(self.err(
                "its threadgroup size depends on override constants; use dispatch_threadgroups"
                    .into(),
            ));
        }
        Ok([0, 1, 2].map(|i| threads[i].div_ceil(r.workgroup_size[i])))
    }
}

impl Device {
    /// True when both handles are the same device.
    pub(crate) fn inner_eq(&self, other: &Device) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}
