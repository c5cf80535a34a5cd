//! Device: adapter choice, feature requests, capability report, error capture.
//!
//! Invariant: a `Device` is a cheap handle (`Arc`), `Send + Sync`; every wgpu call that can fail
//! validation runs inside an error scope so failures come back as [`Error`], never as wgpu's
//! default panic. Errors nobody scoped are kept and can be taken with
//! [`Device::take_uncaptured_errors`].
//!
//! Beside this file: `capabilities` (the capability report filled in from wgpu) and
//! `driver_matrix` (what the Vulkan driver itself offers for matrix units, through wgpu-hal).

mod capabilities;
mod driver_matrix;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use capabilities::{backend_name, device_type_name};
#[cfg(not(any(target_arch = "wasm32", target_vendor = "apple")))]
pub use driver_matrix::MatrixExtensions;

use crate::Capabilities;
use crate::direct::DirectVulkan;
use crate::memory::default_storage_mode;
use crate::{Error, Result};

/// The environment variable that picks a backend.
pub const BACKEND_ENV: &str = "TILECAST_BACKEND";
/// The environment variable that picks an adapter by name substring.
pub const ADAPTER_ENV: &str = "TILECAST_ADAPTER";

/// A GPU API wgpu can drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Vulkan (Linux, Windows, Android; NVIDIA, AMD, Intel, lavapipe).
    Vulkan,
    /// Metal (macOS, iOS).
    Metal,
    /// Direct3D 12 (Windows).
    Dx12,
    /// OpenGL / GLES through EGL (a last resort: no subgroups, no f16 on most drivers).
    Gl,
}

impl Backend {
    /// Parses `vulkan`, `metal`, `dx12` or `gl`, ignoring case.
    pub fn parse(value: &str) -> Result<Backend> {
        match value.trim().to_ascii_lowercase().as_str() {
            "vulkan" | "vk" => Ok(Backend::Vulkan),
            "metal" | "mtl" => Ok(Backend::Metal),
            "dx12" | "d3d12" => Ok(Backend::Dx12),
            "gl" | "gles" | "opengl" => Ok(Backend::Gl),
            _ => Err(Error::UnknownBackend { value: value.to_string() }),
        }
    }

    fn to_wgpu(self) -> wgpu::Backends {
        match self {
            Backend::Vulkan => wgpu::Backends::VULKAN,
            Backend::Metal => wgpu::Backends::METAL,
            Backend::Dx12 => wgpu::Backends::DX12,
            Backend::Gl => wgpu::Backends::GL,
        }
    }
}

/// How to choose the adapter. [`DeviceOptions::from_env`] fills it from `TILECAST_BACKEND` and
/// `TILECAST_ADAPTER`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeviceOptions {
    /// Only this backend; `None` searches Vulkan, Metal and DX12 (GL only when asked for).
    pub backend: Option<Backend>,
    /// Only adapters whose name contains this, ignoring case.
    pub adapter: Option<String>,
}

impl DeviceOptions {
    /// Reads `TILECAST_BACKEND` and `TILECAST_ADAPTER`; an unknown backend is an error.
    pub fn from_env() -> Result<DeviceOptions> {
        let backend = match std::env::var(BACKEND_ENV) {
            Ok(v) if !v.trim().is_empty() => Some(Backend::parse(&v)?),
            _ => None,
        };
        let adapter = std::env::var(ADAPTER_ENV).ok().filter(|s| !s.trim().is_empty());
        Ok(DeviceOptions { backend, adapter })
    }

    fn backends(&self) -> wgpu::Backends {
        self.backend.map_or(wgpu::Backends::PRIMARY, Backend::to_wgpu)
    }
}

/// One adapter as enumeration sees it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct AdapterSummary {
    /// The adapter's name.
    pub name: String,
    /// Its backend.
    pub backend: &'static str,
    /// Its device type.
    pub device_type: &'static str,
}

impl std::fmt::Display for AdapterSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({}, {})", self.name, self.backend, self.device_type)
    }
}

/// Counters of live allocations, for leak checks and pool statistics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AllocationStats {
    /// Allocations alive now (a clone or view is not a new allocation).
    pub live_allocations: usize,
    /// Bytes of GPU memory held by live allocations.
    pub live_bytes: u64,
    /// Allocations made since the device was created.
    pub total_allocations: usize,
}

/// A GPU device and its queue. Clones share one device.
#[derive(Clone)]
pub struct Device {
    pub(crate) inner: Arc<DeviceInner>,
}

pub(crate) struct DeviceInner {
    /// Direct recording's context (Vulkan with native SPIR-V). Declared first so that it drops
    /// first: it waits for the GPU and destroys its objects while wgpu's device still lives.
    pub(crate) direct: Option<DirectVulkan>,
    /// Memory released while a submission that may use it (unknown to wgpu: recorded
    /// directly) had not finished: (last submission that used it, buffer), destroyed later.
    deferred_destroy: Mutex<Vec<(u64, wgpu::Buffer)>>,
    _instance: wgpu::Instance,
    adapter: wgpu::Adapter,
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    caps: Capabilities,
    uncaptured: Arc<Mutex<Vec<String>>>,
    pub(crate) live_allocations: AtomicUsize,
    pub(crate) live_bytes: AtomicU64,
    pub(crate) total_allocations: AtomicUsize,
    /// Sequence number of the last command buffer submitted through tilecast.
    submitted: AtomicU64,
    /// Highest sequence number known to have finished on the GPU (queues finish in order).
    completed: Arc<AtomicU64>,
    /// Set when the device is lost; every later synchronize reports it.
    lost: Arc<Mutex<Option<String>>>,
    /// Copies of at least this many bytes take the copy kernel under `CopyPath::Auto`
    /// (`u64::MAX`: never, until measured or set).
    pub(crate) copy_kernel_min_bytes: AtomicU64,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Device")
            .field("name", &self.inner.caps.name)
            .field("backend", &self.inner.caps.backend)
            .finish()
    }
}

/// Features requested whenever the adapter has them.
fn wanted_features() -> wgpu::Features {
    use wgpu::Features as F;
    F::SHADER_F16
        | F::SUBGROUP
        | F::SUBGROUP_BARRIER
        | F::EXPERIMENTAL_COOPERATIVE_MATRIX
        | F::TIMESTAMP_QUERY
        | F::TIMESTAMP_QUERY_INSIDE_ENCODERS
        | F::TIMESTAMP_QUERY_INSIDE_PASSES
        | F::PIPELINE_CACHE
        | F::MAPPABLE_PRIMARY_BUFFERS
        | F::SHADER_INT64
        | F::IMMEDIATES
        | F::PASSTHROUGH_SHADERS
}

fn new_instance(backends: wgpu::Backends) -> wgpu::Instance {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = backends;
    desc.flags = wgpu::InstanceFlags::from_build_config().with_env();
    wgpu::Instance::new(desc)
}

fn summary(a: &wgpu::Adapter) -> AdapterSummary {
    let info = a.get_info();
    AdapterSummary {
        name: info.name,
        backend: backend_name(info.backend),
        device_type: device_type_name(info.device_type),
    }
}

fn rank(t: wgpu::DeviceType) -> u8 {
    match t {
        wgpu::DeviceType::DiscreteGpu => 0,
        wgpu::DeviceType::IntegratedGpu => 1,
        wgpu::DeviceType::VirtualGpu => 2,
        wgpu::DeviceType::Other => 3,
        wgpu::DeviceType::Cpu => 4,
    }
}

/// Lists the adapters the options would choose from, best first.
pub fn list_adapters(options: &DeviceOptions) -> Vec<AdapterSummary> {
    let instance = new_instance(options.backends());
    sorted_adapters(&instance, options.backends()).iter().map(summary).collect()
}

fn sorted_adapters(instance: &wgpu::Instance, backends: wgpu::Backends) -> Vec<wgpu::Adapter> {
    let mut adapters = pollster::block_on(instance.enumerate_adapters(backends));
    adapters.sort_by_key(|a| rank(a.get_info().device_type));
    adapters
}

impl Device {
    /// Opens the best adapter, honouring `TILECAST_BACKEND` and `TILECAST_ADAPTER`.
    pub fn new() -> Result<Device> {
        Device::with_options(&DeviceOptions::from_env()?)
    }

    /// Opens the best adapter that matches `options` (discrete, then integrated, then software).
    pub fn with_options(options: &DeviceOptions) -> Result<Device> {
        let backends = options.backends();
        let instance = new_instance(backends);
        let adapters = sorted_adapters(&instance, backends);
        if adapters.is_empty() {
            return Err(Error::NoAdapter { backends: format!("{backends:?}") });
        }
        let adapter = match &options.adapter {
            None => adapters.into_iter().next(),
            Some(wanted) => {
                let needle = wanted.to_lowercase();
                let available =
                    adapters.iter().map(|a| summary(a).to_string()).collect::<Vec<_>>().join("; ");
                let found = adapters
                    .into_iter()
                    .find(|a| a.get_info().name.to_lowercase().contains(&needle));
                if found.is_none() {
                    return Err(Error::AdapterNotFound { wanted: wanted.clone(), available });
                }
                found
            }
        }
        .expect("checked non-empty above");
        Device::open(instance, adapter)
    }

    fn open(instance: wgpu::Instance, adapter: wgpu::Adapter) -> Result<Device> {
        let info = adapter.get_info();
        let features = adapter.features() & wanted_features();
        let limits = adapter.limits();
        let experimental = if features.intersects(wgpu::Features::all_experimental_mask()) {
            // SAFETY: wgpu marks cooperative matrices experimental: its lowering may have bugs.
            // tilecast opts in only when the adapter reports the feature, and its compiler emits
            // matrix ops only for the shapes the adapter lists (Capabilities::matrix_configs).
            unsafe { wgpu::ExperimentalFeatures::enabled() }
        } else {
            wgpu::ExperimentalFeatures::disabled()
        };
        let desc = wgpu::DeviceDescriptor {
            label: Some("tilecast"),
            required_features: features,
            required_limits: limits.clone(),
            experimental_features: experimental,
            memory_hints: wgpu::MemoryHints::Performance,
            trace: wgpu::Trace::Off,
        };
        // On Vulkan, with the matrix extensions wgpu leaves off where the driver has them.
        let (device, queue, native_extensions) = match driver_matrix::open(&adapter, &desc) {
            Some(opened) => opened,
            None => {
                let (device, queue) =
                    pollster::block_on(adapter.request_device(&desc)).map_err(|source| {
                        Error::RequestDevice { adapter: info.name.clone(), source }
                    })?;
                (device, queue, Vec::new())
            }
        };
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: wgpu::Error| {
            log::error!("uncaptured GPU error: {e}");
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(e.to_string());
        }));
        let lost = Arc::new(Mutex::new(None));
        let lost_sink = lost.clone();
        device.set_device_lost_callback(move |reason, message| {
            if reason == wgpu::DeviceLostReason::Destroyed {
                return; // our own drop, not a failure
            }
            log::error!("GPU device lost ({reason:?}): {message}");
            *lost_sink.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(format!("device lost ({reason:?}): {message}"));
        });
        let caps = capabilities::from_adapter(
            &adapter,
            device.features(),
            &limits,
            default_storage_mode(),
            native_extensions,
        );
        let direct = DirectVulkan::open(&device, caps.features.native_spirv);
        Ok(Device {
            inner: Arc::new(DeviceInner {
                direct,
                deferred_destroy: Mutex::new(Vec::new()),
                _instance: instance,
                adapter,
                device,
                queue,
                caps,
                uncaptured,
                live_allocations: AtomicUsize::new(0),
                live_bytes: AtomicU64::new(0),
                total_allocations: AtomicUsize::new(0),
                submitted: AtomicU64::new(0),
                completed: Arc::new(AtomicU64::new(0)),
                lost,
                copy_kernel_min_bytes: AtomicU64::new(u64::MAX),
            }),
        })
    }

    /// The capability report.
    pub fn capabilities(&self) -> &Capabilities {
        &self.inner.caps
    }

    /// The adapter's name.
    pub fn name(&self) -> &str {
        &self.inner.caps.name
    }

    /// The process default storage mode, as resolved from `TILECAST_STORAGE_MODE`.
    pub fn default_storage_mode(&self) -> crate::StorageMode {
        self.inner.caps.default_storage_mode
    }

    /// The wgpu device, for interop and for the layers above.
    pub fn wgpu_device(&self) -> &wgpu::Device {
        &self.inner.device
    }

    /// The wgpu queue, for interop and for the layers above.
    pub fn wgpu_queue(&self) -> &wgpu::Queue {
        &self.inner.queue
    }

    /// The wgpu adapter.
    pub fn wgpu_adapter(&self) -> &wgpu::Adapter {
        &self.inner.adapter
    }

    /// Live-allocation counters.
    pub fn allocation_stats(&self) -> AllocationStats {
        AllocationStats {
            live_allocations: self.inner.live_allocations.load(Ordering::Acquire),
            live_bytes: self.inner.live_bytes.load(Ordering::Acquire),
            total_allocations: self.inner.total_allocations.load(Ordering::Acquire),
        }
    }

    /// Blocks until all submitted GPU work has finished.
    pub fn wait_idle(&self) -> Result<()> {
        let waited =
            self.inner.device.poll(wgpu::PollType::wait_indefinitely()).map(|_| ()).map_err(|e| {
                Error::Wait { device: self.name().to_string(), reason: e.to_string() }
            });
        self.destroy_finished();
        waited
    }

    /// Submits command buffers and returns their sequence number; [`Device::completed_seq`]
    /// reaches it once the GPU has finished them.
    pub(crate) fn submit_tracked(
        &self,
        buffers: impl IntoIterator<Item = wgpu::CommandBuffer>,
    ) -> (u64, wgpu::SubmissionIndex) {
        let d = &self.inner;
        let index = d.queue.submit(buffers);
        let seq = d.submitted.fetch_add(1, Ordering::AcqRel) + 1;
        let completed = d.completed.clone();
        d.queue.on_submitted_work_done(move || {
            completed.fetch_max(seq, Ordering::AcqRel);
        });
        self.destroy_finished();
        (seq, index)
    }

    /// Destroys `gpu` (memory no handle names any more) once the device has finished
    /// submission `last_use`, the last that used it: at once if it has, else at a later submit
    /// or wait. wgpu defers the destruction of memory its own commands use, but not of memory
    /// that direct recording used.
    pub(crate) fn release_memory(&self, gpu: wgpu::Buffer, last_use: u64) {
        if last_use <= self.inner.completed.load(Ordering::Acquire) {
            gpu.destroy();
        } else {
            self.inner
                .deferred_destroy
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((last_use, gpu));
        }
    }

    /// Destroys deferred memory whose last submission has finished.
    fn destroy_finished(&self) {
        let mut deferred = self.inner.deferred_destroy.lock().unwrap_or_else(|p| p.into_inner());
        if deferred.is_empty() {
            return;
        }
        let done = self.completed_seq();
        deferred.retain(|(seq, gpu)| {
            let keep = *seq > done;
            if !keep {
                gpu.destroy();
            }
            keep
        });
    }

    /// The direct-recording context, on Vulkan with native SPIR-V.
    pub(crate) fn direct(&self) -> Option<&DirectVulkan> {
        self.inner.direct.as_ref()
    }

    /// Sequence number of the newest tracked submission known to be finished. Polls the device
    /// without blocking first.
    pub(crate) fn completed_seq(&self) -> u64 {
        let _ = self.inner.device.poll(wgpu::PollType::Poll);
        self.inner.completed.load(Ordering::Acquire)
    }

    /// Sequence number of the newest tracked submission.
    pub(crate) fn submitted_seq(&self) -> u64 {
        self.inner.submitted.load(Ordering::Acquire)
    }

    /// Blocks until submission `index` has finished.
    pub(crate) fn wait_for(&self, index: wgpu::SubmissionIndex) -> Result<()> {
        let waited = self
            .inner
            .device
            .poll(wgpu::PollType::Wait { submission_index: Some(index), timeout: None })
            .map(|_| ())
            .map_err(|e| Error::Wait { device: self.name().to_string(), reason: e.to_string() });
        self.destroy_finished();
        waited
    }

    /// Why the device was lost, if it was.
    pub fn lost_reason(&self) -> Option<String> {
        self.inner.lost.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Takes the GPU errors that happened outside any tilecast operation (oldest first).
    pub fn take_uncaptured_errors(&self) -> Vec<String> {
        std::mem::take(&mut *self.inner.uncaptured.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Runs `f` with validation and out-of-memory errors captured; any error comes back as
    /// [`Error::Gpu`] (or [`Error::OutOfMemory`] for `oom_bytes`) naming `op`.
    pub(crate) fn scoped<T>(
        &self,
        op: &str,
        oom_bytes: Option<(u64, &'static str)>,
        f: impl FnOnce() -> T,
    ) -> Result<T> {
        let d = &self.inner.device;
        let oom = d.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
        let validation = d.push_error_scope(wgpu::ErrorFilter::Validation);
        let value = f();
        let v = pollster::block_on(validation.pop());
        let o = pollster::block_on(oom.pop());
        if let Some(e) = o {
            let (bytes, what) = oom_bytes.unwrap_or((0, "GPU memory"));
            log::error!("{op}: {e}");
            return Err(Error::OutOfMemory { device: self.name().to_string(), bytes, what });
        }
        if let Some(e) = v {
            return Err(Error::Gpu { op: op.to_string(), message: e.to_string() });
        }
        Ok(value)
    }
}
