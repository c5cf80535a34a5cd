//! The library kernels a model runs, each loaded once per problem: a launch names the kernel
//! and its problem the way `tilecast bench` does (`"rms_norm"`, `"7x4096"`), and goes through
//! the registry's plan for it, the same path as the tests, the benchmarks and Python. The
//! first launch of a problem compiles it; later ones only bind and dispatch.

use std::fmt::Write;

use rustc_hash::FxHashMap;
use tilecast_kernels::harness::LoadedPlan;
use tilecast_kernels::{LoadAs, lookup};
use tilecast_lang::DType;
use tilecast_runtime::{Buffer, Device, ShaderLibrary, Stream, TimingPolicy, time_batches};

use crate::error::{Error, Result};

/// A problem's plan, loaded, with its scratch buffers and scalar defaults.
struct Loaded {
    plan: LoadedPlan,
    scratch: Vec<Buffer>,
    scalars: Vec<(&'static str, f64)>,
}

/// Loaded kernels by `"{kernel} {problem} {type}"`.
pub struct Ops {
    device: Device,
    shaders: ShaderLibrary,
    loaded: FxHashMap<String, Loaded>,
    /// Where a launch's key and scalar values are built, so that a launch of a loaded problem
    /// allocates nothing here.
    key: String,
    values: Vec<(&'static str, f64)>,
    launches: u64,
    /// While a step is profiled: each problem launched, in first-launch order.
    profile: Option<Vec<Profiled>>,
}

/// A problem launched in a profiled step: its first launch's arguments and values, and how
/// many times the step launched it.
struct Profiled {
    key: String,
    label: String,
    args: Vec<Buffer>,
    values: Vec<(&'static str, f64)>,
    count: usize,
}

/// Launches per timed batch, and batches, when a profile times a problem alone.
const PROFILE_ITERS: u32 = 10;
const PROFILE_BATCHES: u32 = 5;

impl Ops {
    /// No kernels loaded yet, for `device`.
    pub fn new(device: &Device) -> Ops {
        Ops {
            device: device.clone(),
            shaders: ShaderLibrary::new(device),
            loaded: FxHashMap::default(),
            key: String::new(),
            values: Vec::new(),
            launches: 0,
            profile: None,
        }
    }

    /// Launches kernel `name` for problem `shape` (its shape grammar, options after commas)
    /// of `dtype` on `stream`, over `args` in parameter order. Scalars take the registry's
    /// values for the problem, overridden by `values` (`("offset", 17.0)`).
    pub fn run(
        &mut self,
        stream: &mut Stream,
        name: &str,
        shape: &str,
        dtype: DType,
        args: &[&Buffer],
        values: &[(&'static str, f64)],
    ) -> Result<()> {
        self.key.clear();
        let _ = write!(self.key, "{name} {shape} {dtype:?}");
        if !self.loaded.contains_key(&self.key) {
            let loaded = self.load(name, shape, dtype)?;
            self.loaded.insert(self.key.clone(), loaded);
        }
        let l = &self.loaded[&self.key];
        self.values.clear();
        self.values.extend_from_slice(&l.scalars);
        for &(n, v) in values {
            match self.values.iter_mut().find(|(s, _)| *s == n) {
                Some(s) => s.1 = v,
                None => self.values.push((n, v)),
            }
        }
        self.launches += 1;
        if let Some(profiled) = &mut self.profile {
            match profiled.iter_mut().find(|p| p.key == self.key) {
                Some(p) => p.count += 1,
                None => profiled.push(Profiled {
                    key: self.key.clone(),
                    label: format!("{name} {shape}"),
                    args: args.iter().map(|&b| b.clone()).collect(),
                    values: self.values.clone(),
                    count: 1,
                }),
            }
        }
        l.plan
            .launch(stream, args, &l.scratch, &self.values)
            .map_err(|e| kernel_error(name, shape, e))
    }

    /// Starts recording which problems are launched, how often, and over what, for
    /// [`finish_profile`](Self::finish_profile).
    pub fn start_profile(&mut self) {
        self.profile = Some(Vec::new());
    }

    /// Times each problem launched since [`start_profile`](Self::start_profile) alone on
    /// `stream`, over its first launch's arguments, as `tilecast bench` times a kernel (GPU
    /// timestamps around batches of launches, after the clocks settle): per problem, in
    /// first-launch order, `"{kernel} {problem}"`, its launches, and the median seconds of one.
    /// The launches write their outputs again: the caller starts over (a new prompt) after.
    pub fn finish_profile(&mut self, stream: &mut Stream) -> Result<Vec<(String, usize, f64)>> {
        let Some(profiled) = self.profile.take() else { return Ok(Vec::new()) };
        let mut rows = Vec::with_capacity(profiled.len());
        for p in profiled {
            let l = &self.loaded[&p.key];
            let args: Vec<&Buffer> = p.args.iter().collect();
            let policy = TimingPolicy::for_device(&self.device, PROFILE_ITERS, PROFILE_BATCHES);
            let times =
                time_batches(stream, policy, |s| l.plan.launch(s, &args, &l.scratch, &p.values))
                    .map_err(|e| Error::Kernel {
                        kernel: p.label.clone(),
                        message: e.to_string(),
                    })?;
            let median = times.seconds.get(times.seconds.len() / 2).copied().unwrap_or(0.0);
            rows.push((p.label, p.count, median));
        }
        Ok(rows)
    }

    fn load(&self, name: &str, shape: &str, dtype: DType) -> Result<Loaded> {
        let err = |e| kernel_error(name, shape, e);
        let entry = lookup(name).map_err(err)?;
        let problem = entry.problem(shape, dtype).map_err(err)?;
        let plan = LoadedPlan::new(&self.device, &self.shaders, entry, &problem, LoadAs::Auto)
            .map_err(err)?;
        let scratch = plan.alloc_scratch(&self.device).map_err(err)?;
        Ok(Loaded { plan, scratch, scalars: entry.scalars(&problem) })
    }

    /// Problems loaded so far.
    pub fn loaded(&self) -> usize {
        self.loaded.len()
    }

    /// Launches encoded so far.
    pub fn launches(&self) -> u64 {
        self.launches
    }

    /// Counts `n` launches encoded another way (a graph's replay).
    pub fn count_launches(&mut self, n: u64) {
        self.launches += n;
    }

    /// True while a step is profiled ([`start_profile`](Self::start_profile)).
    pub fn profiling(&self) -> bool {
        self.profile.is_some()
    }
}

fn kernel_error(name: &str, shape: &str, e: tilecast_kernels::Error) -> Error {
    Error::Kernel { kernel: format!("{name} {shape}"), message: e.to_string() }
}
