//! Shader library: WGSL compiled once per source, pipelines created lazily per (entry point,
//! override constants) and cached, the backend pipeline cache persisted across processes.
//!
//! Invariants: a source string maps to exactly one compiled module per library (and per trust
//! level); a (module, entry point, constants) triple maps to exactly one pipeline. Both maps only
//! grow, so a `KernelFunction` handed out stays valid for the library's life.
//!
//! This file holds the library and its modules; beside it, `module` (parsing, validating and
//! creating one module), `kernel` (a pipeline and the arguments bound to it), `reflection` (a WGSL entry point's calling convention, from naga's
//! IR) and `pipeline_cache` (the backend's pipeline cache on disk). SPIR-V for the passthrough
//! path is written and read in `crate::spirv`.

mod kernel;
mod module;
mod pipeline_cache;
mod reflection;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::spirv::SpirvInterface;
use crate::{Device, Error, Result};
pub use kernel::KernelFunction;
use kernel::{DirectWords, PipelineSource};
pub(crate) use kernel::{Launch, PipelineEntry};
use pipeline_cache::DiskCache;
pub use pipeline_cache::{CACHE_DIR_ENV, DiskCacheStatus, default_cache_dir};
pub use reflection::{BindingInfo, BindingKind, ScalarInfo, ScalarType};
pub(crate) use reflection::{EntryReflection, reflect};

/// Library counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LibraryStats {
    /// Sources compiled.
    pub modules_compiled: u64,
    /// `load` calls answered from the compiled-module map.
    pub module_hits: u64,
    /// Pipelines created.
    pub pipelines_created: u64,
    /// Pipeline requests answered from the pipeline map.
    pub pipeline_hits: u64,
    /// Pipelines created whose compiled form the loaded disk cache already held.
    pub disk_cache_hits: u64,
    /// State of the persisted backend cache.
    pub disk_cache: Option<DiskCacheStatus>,
}

/// A module, or the place it will be once its first loader has compiled it (empty again if that
/// compile failed, so the next loader reports the error too).
type ModuleSlot = Mutex<Option<Arc<ModuleEntry>>>;

pub(crate) struct LibraryInner {
    pub(crate) device: Device,
    /// One slot per (source, how it is loaded). The first loader fills its slot while holding the slot's
    /// lock (not the map's), so concurrent loads of one source wait for that single compile and
    /// loads of other sources proceed.
    modules: Mutex<HashMap<(ModuleSource, LoadMode), Arc<ModuleSlot>>>,
    pub(crate) disk: Option<DiskCache>,
    pub(crate) stats: Mutex<LibraryStats>,
}

impl Drop for LibraryInner {
    fn drop(&mut self) {
        if let Some(disk) = &self.disk
            && let Err(e) = disk.save()
        {
            log::warn!("could not save the pipeline cache to {}: {e}", disk.path.display());
        }
    }
}

/// How a module is handed to the backend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum LoadMode {
    /// Through wgpu's own WGSL path with naga's runtime bounds checks.
    Checked,
    /// Through wgpu's WGSL path without bounds checks.
    Trusted,
    /// Validated here without the workgroup-uniformity rule, written as SPIR-V by naga and
    /// passed to the Vulkan driver as is (no bounds checks, no override constants).
    SubgroupRoles,
    /// SPIR-V the caller wrote, passed to the Vulkan driver as is.
    NativeSpirv,
}

/// What a module was made from: the key of the compiled-module map.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum ModuleSource {
    Wgsl(String),
    Spirv(Vec<u32>),
}

/// Where a module's calling convention is read from.
pub(crate) enum Interface {
    /// naga's IR of the WGSL (and its analysis), and for SPIR-V written here, the bindings
    /// every entry point's layout lists (those any entry point uses: the SPIR-V numbers them
    /// by their rank among these).
    Naga {
        module: Box<naga::Module>,
        info: Box<naga::valid::ModuleInfo>,
        bound: Option<Vec<BindingInfo>>,
    },
    /// The SPIR-V module's own declarations.
    Spirv(SpirvInterface),
}

impl Interface {
    fn entry_points(&self) -> Vec<String> {
        match self {
            Interface::Naga { module, .. } => module
                .entry_points
                .iter()
                .filter(|e| e.stage == naga::ShaderStage::Compute)
                .map(|e| e.name.clone())
                .collect(),
            Interface::Spirv(s) => s.entries.iter().map(|(n, _)| n.clone()).collect(),
        }
    }

    fn overrides(&self) -> Vec<String> {
        match self {
            Interface::Naga { module, .. } => {
                module.overrides.iter().filter_map(|(_, o)| o.name.clone()).collect()
            }
            Interface::Spirv(_) => Vec::new(),
        }
    }

    fn reflect(&self, entry: &str) -> Result<EntryReflection> {
        match self {
            Interface::Naga { module, info, bound } => {
                let mut r = reflect(module, info, entry)?;
                if let Some(bound) = bound {
                    r.bindings = bound.clone();
                }
                Ok(r)
            }
            Interface::Spirv(s) => {
                s.entries.iter().find(|(n, _)| n == entry).map(|(_, r)| r.clone()).ok_or_else(
                    || Error::Kernel {
                        kernel: entry.to_string(),
                        reason: format!(
                            "no compute entry point of that name; the module has {:?}",
                            self.entry_points()
                        ),
                    },
                )
            }
        }
    }
}

/// (entry point, override constants as (name, f64 bits), sorted by name).
pub(crate) type PipelineKey = (String, Vec<(String, u64)>);

pub(crate) struct ModuleEntry {
    pub(crate) label: String,
    pub(crate) hash: u64,
    pub(crate) trusted: bool,
    pub(crate) interface: Interface,
    pub(crate) module: wgpu::ShaderModule,
    /// The words wgpu was given, for a native SPIR-V module: what direct recording makes its
    /// own pipelines from.
    pub(crate) spirv: Option<Arc<[u32]>>,
    pub(crate) pipelines: Mutex<HashMap<PipelineKey, Arc<PipelineEntry>>>,
}

impl ModuleEntry {
    /// A module made from `source` (its WGSL or SPIR-V bytes) as `mode` says, with no pipelines
    /// yet.
    fn new(
        label: &str,
        source: &[u8],
        mode: LoadMode,
        interface: Interface,
        module: wgpu::ShaderModule,
    ) -> ModuleEntry {
        ModuleEntry {
            label: label.to_string(),
            hash: xxhash_rust::xxh3::xxh3_64(source) ^ (mode as u64),
            trusted: mode != LoadMode::Checked,
            interface,
            module,
            spirv: None,
            pipelines: Mutex::new(HashMap::new()),
        }
    }
}

/// Creates a module the Vulkan driver takes as it is: `spirv` with `entries` (name, threadgroup
/// size).
///
/// # Safety
/// `spirv` must be valid for the device, with every access in bounds for every launch.
unsafe fn create_passthrough(
    device: &Device,
    label: &str,
    entries: impl Iterator<Item = (String, [u32; 3])>,
    spirv: Vec<u32>,
) -> Result<wgpu::ShaderModule> {
    let desc = wgpu::ShaderModuleDescriptorPassthrough {
        label: Some(label),
        entry_points: entries
            .map(|(name, [x, y, z])| wgpu::PassthroughShaderEntryPoint {
                name: name.into(),
                workgroup_size: (x, y, z),
            })
            .collect::<Vec<_>>()
            .into(),
        spirv: Some(spirv.into()),
        ..Default::default()
    };
    device.scoped(&format!("creating shader module {label:?}"), None, || {
        // SAFETY: the caller's promise.
        unsafe { device.wgpu_device().create_shader_module_passthrough(desc) }
    })
}

/// Compiles WGSL and caches modules and pipelines. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct ShaderLibrary {
    pub(crate) inner: Arc<LibraryInner>,
}

/// A compiled WGSL source; kernels are made from its entry points.
#[derive(Clone)]
pub struct ShaderModule {
    pub(crate) library: Arc<LibraryInner>,
    pub(crate) entry: Arc<ModuleEntry>,
}

impl ShaderLibrary {
    /// A library whose pipeline cache persists under `TILECAST_CACHE_DIR` (default: the OS cache
    /// directory), where the backend supports one.
    pub fn new(device: &Device) -> ShaderLibrary {
        ShaderLibrary::with_cache_dir(device, default_cache_dir())
    }

    /// A library whose pipeline cache persists under `dir`; `None` keeps nothing on disk.
    pub fn with_cache_dir(device: &Device, dir: Option<PathBuf>) -> ShaderLibrary {
        let disk = dir.and_then(|d| DiskCache::open(device, &d));
        let stats = LibraryStats {
            disk_cache: Some(
                disk.as_ref().map_or(DiskCacheStatus::Unsupported, |d| d.status.clone()),
            ),
            ..LibraryStats::default()
        };
        ShaderLibrary {
            inner: Arc::new(LibraryInner {
                device: device.clone(),
                modules: Mutex::new(HashMap::new()),
                disk,
                stats: Mutex::new(stats),
            }),
        }
    }

    /// Compiles `wgsl` (once per distinct source) with runtime bounds checks on.
    /// Errors carry the line and column.
    pub fn load(&self, label: &str, wgsl: &str) -> Result<ShaderModule> {
        self.load_inner(label, wgsl, LoadMode::Checked, None)
    }

    /// Like [`load`](Self::load) but without naga's runtime bounds checks, for sources whose
    /// every memory access the caller has proven in bounds (the tile compiler's masked output).
    ///
    /// # Safety
    /// An out-of-bounds access in a trusted module is undefined behaviour on the GPU: it may
    /// read or corrupt other allocations. Only pass sources proven in bounds for every launch.
    pub unsafe fn load_trusted(&self, label: &str, wgsl: &str) -> Result<ShaderModule> {
        self.load_inner(label, wgsl, LoadMode::Trusted, None)
    }

    /// [`load_trusted`](Self::load_trusted) with naga's parse of `wgsl` in hand (a compiler's,
    /// which validated it): the library validates that module for the device instead of
    /// parsing the text again (naga's WGSL front end takes time quadratic in a function's
    /// expressions, the bulk of loading a large kernel).
    ///
    /// # Safety
    /// As for `load_trusted`; and `module` must be naga's parse of `wgsl`.
    pub unsafe fn load_trusted_parsed(
        &self,
        label: &str,
        wgsl: &str,
        module: &naga::Module,
    ) -> Result<ShaderModule> {
        self.load_inner(label, wgsl, LoadMode::Trusted, Some(module))
    }

    /// Like [`load_trusted`](Self::load_trusted), for kernels whose subgroups take different
    /// roles: some stage memory while others multiply cooperative matrices. WGSL (and so wgpu's
    /// own path) demands workgroup-uniform control flow around every cooperative-matrix
    /// operation; SPIR-V's `SPV_KHR_cooperative_matrix` needs it only per subgroup, the matrix's
    /// scope. This path validates everything else with naga, writes SPIR-V with naga and gives
    /// it to the Vulkan driver directly. Only on Vulkan devices with passthrough shaders (see
    /// [`FeatureSet::subgroup_roles`](crate::FeatureSet::subgroup_roles));
    /// override constants are not available in such modules. The SPIR-V numbers the bindings
    /// once for the whole module, so each entry point's kernel lists, and must be given, every
    /// binding that any entry point of the module uses.
    ///
    /// # Safety
    /// As for `load_trusted`, and in addition every cooperative-matrix operation must run in
    /// control flow that is uniform across its subgroup (branch on the subgroup id, never on
    /// the lane), and every barrier in control flow uniform across the workgroup: naga no
    /// longer checks either.
    pub unsafe fn load_subgroup_roles(&self, label: &str, wgsl: &str) -> Result<ShaderModule> {
        self.load_inner(label, wgsl, LoadMode::SubgroupRoles, None)
    }

    /// Loads a SPIR-V module as it is (once per distinct module): what tilecast's native back
    /// end writes, with instructions WGSL cannot express. Its calling convention (bindings,
    /// push-constant scalars, threadgroup size and memory) is read from the module's own
    /// declarations, so launches get the same argument checks, pipeline cache and error
    /// naming as WGSL kernels. Needs [`FeatureSet::native_spirv`](crate::FeatureSet::native_spirv)
    /// (Vulkan with passthrough shaders); the module must declare its capabilities and
    /// extensions, which the device must have enabled.
    ///
    /// # Safety
    /// Nothing checks the module beyond its interface: an out-of-bounds access or invalid
    /// SPIR-V is undefined behaviour on the GPU. Only pass modules that are valid for the
    /// device (tilecast's tests run every native module through SPIRV-Tools' validator) and
    /// whose every access is in bounds for every launch.
    pub unsafe fn load_spirv(&self, label: &str, words: &[u32]) -> Result<ShaderModule> {
        let key = (ModuleSource::Spirv(words.to_vec()), LoadMode::NativeSpirv);
        self.load_once(key, || self.compile_spirv(label, words))
    }

    /// The module of `key`: the library's, else the one `compile` makes (once, however many
    /// threads ask).
    fn load_once(
        &self,
        key: (ModuleSource, LoadMode),
        compile: impl FnOnce() -> Result<ModuleEntry>,
    ) -> Result<ShaderModule> {
        let slot = self
            .inner
            .modules
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(key)
            .or_default()
            .clone();
        let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(entry) = slot.as_ref() {
            self.inner.stats.lock().unwrap_or_else(|p| p.into_inner()).module_hits += 1;
            return Ok(ShaderModule { library: self.inner.clone(), entry: entry.clone() });
        }
        let entry = Arc::new(compile()?);
        *slot = Some(entry.clone());
        self.inner.stats.lock().unwrap_or_else(|p| p.into_inner()).modules_compiled += 1;
        Ok(ShaderModule { library: self.inner.clone(), entry })
    }

    fn load_inner(
        &self,
        label: &str,
        wgsl: &str,
        mode: LoadMode,
        parsed: Option<&naga::Module>,
    ) -> Result<ShaderModule> {
        let key = (ModuleSource::Wgsl(wgsl.to_string()), mode);
        self.load_once(key, || self.compile(label, wgsl, mode, parsed))
    }

    /// Writes the backend pipeline cache to disk now (it is also written when the library is
    /// dropped). Returns the file, or `None` when nothing persists.
    pub fn save_cache(&self) -> Result<Option<PathBuf>> {
        let Some(disk) = &self.inner.disk else {
            return Ok(None);
        };
        disk.save().map_err(|e| Error::InvalidCommand {
            what: format!("saving the pipeline cache to {}", disk.path.display()),
            reason: e.to_string(),
        })?;
        Ok(Some(disk.path.clone()))
    }

    /// Current counters.
    pub fn stats(&self) -> LibraryStats {
        self.inner.stats.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// The device this library compiles for.
    pub fn device(&self) -> &Device {
        &self.inner.device
    }
}

impl ShaderModule {
    /// The label given at load time.
    pub fn label(&self) -> &str {
        &self.entry.label
    }

    /// Names of the compute entry points.
    pub fn entry_points(&self) -> Vec<String> {
        self.entry.interface.entry_points()
    }

    /// A kernel for entry point `entry` with no override constants.
    pub fn kernel(&self, entry: &str) -> Result<KernelFunction> {
        self.kernel_with_constants(entry, &[])
    }

    /// A kernel for `entry` with `override` constants set; the pipeline is created on first use
    /// of this (entry, constants) pair and cached.
    pub fn kernel_with_constants(
        &self,
        entry: &str,
        constants: &[(&str, f64)],
    ) -> Result<KernelFunction> {
        let mut consts: Vec<(String, u64)> =
            constants.iter().map(|(k, v)| (k.to_string(), v.to_bits())).collect();
        consts.sort();
        let key = (entry.to_string(), consts);
        let mut pipelines = self.entry.pipelines.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(p) = pipelines.get(&key) {
            self.library.stats.lock().unwrap_or_else(|p| p.into_inner()).pipeline_hits += 1;
            return Ok(KernelFunction::new(p.clone()));
        }
        let have = self.entry.interface.overrides();
        for (name, _) in constants {
            if !have.iter().any(|o| o == name) {
                return Err(Error::Kernel {
                    kernel: entry.to_string(),
                    reason: format!("no override named {name:?}; the source declares {have:?}"),
                });
            }
        }
        let reflection = self.entry.interface.reflect(entry)?;
        let pipeline_key = {
            let mut h =
                self.entry.hash ^ xxhash_rust::xxh3::xxh3_64(entry.as_bytes()).rotate_left(17);
            for (name, bits) in &key.1 {
                h ^=
                    xxhash_rust::xxh3::xxh3_64(name.as_bytes()).wrapping_add(*bits).rotate_left(29);
            }
            h
        };
        let p = Arc::new(PipelineEntry::create(
            &self.library.device,
            PipelineSource {
                module: &self.entry.module,
                trusted: self.entry.trusted,
                direct_words: self.entry.has_direct_words().then(|| {
                    let module = self.entry.clone();
                    Arc::new(move |b: &[BindingInfo]| module.direct_words(b)) as DirectWords
                }),
            },
            self.library.disk.as_ref().map(|d| &d.cache),
            entry,
            constants,
            reflection,
        )?);
        let disk_hit = self.library.disk.as_ref().is_some_and(|d| d.record(pipeline_key));
        {
            let mut stats = self.library.stats.lock().unwrap_or_else(|p| p.into_inner());
            stats.pipelines_created += 1;
            stats.disk_cache_hits += disk_hit as u64;
        }
        pipelines.insert(key, p.clone());
        Ok(KernelFunction::new(p))
    }
}
