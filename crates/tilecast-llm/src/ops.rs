//! The library kernels a model runs, each loaded once per problem: a launch names the kernel
//! and its problem the way `tilecast bench` does (`"rms_norm"`, `"7x4096"`), and goes through
//! the registry's plan for it, the same path as the tests, the benchmarks and Python. The
//! first launch of a problem compiles it; later ones only bind and dispatch.

use std::fmt::Write;

use rustc_hash::FxHashMap;
use tilecast_kernels::harness::LoadedPlan;
use tilecast_kernels::{LoadAs, lookup};
use tilecast_lang::DType;
use tilecast_runtime::{Buffer, Device, GpuTimer, ShaderLibrary, Stream};

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
    /// While a step is profiled: the timer, and each timestamp's launch (`"{kernel} {problem}"`).
    profile: Option<(GpuTimer, Vec<String>)>,
}

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
        l.plan
            .launch(stream, args, &l.scratch, &self.values)
            .map_err(|e| kernel_error(name, shape, e))?;
        if let Some((timer, labels)) = &mut self.profile {
            stream.write_timestamp(timer).map_err(|source| Error::Runtime {
                what: "a profile's timestamp".into(),
                source,
            })?;
            labels.push(format!("{name} {shape}"));
        }
        Ok(())
    }

    /// Starts timing every launch on the GPU (a timestamp before the first and after each,
    /// which ends the compute pass each time): `false` where the device cannot write
    /// timestamps between commands.
    pub fn start_profile(&mut self, stream: &mut Stream) -> Result<bool> {
        let runtime = |source| Error::Runtime { what: "a profile's timer".into(), source };
        let Some(mut timer) = GpuTimer::new(&self.device, GpuTimer::MAX_SLOTS).map_err(runtime)?
        else {
            return Ok(false);
        };
        stream.write_timestamp(&mut timer).map_err(runtime)?;
        self.profile = Some((timer, Vec::new()));
        Ok(true)
    }

    /// Ends the profile started by [`start_profile`](Self::start_profile) once the stream has
    /// run it (`SyncType::CommitAndWait`): each launch's GPU time in milliseconds, in launch
    /// order, labelled `"{kernel} {problem}"`.
    pub fn finish_profile(&mut self) -> Result<Vec<(String, f64)>> {
        let Some((mut timer, labels)) = self.profile.take() else {
            return Ok(Vec::new());
        };
        let t = timer
            .read()
            .map_err(|source| Error::Runtime { what: "a profile's timestamps".into(), source })?;
        Ok(labels.into_iter().zip(t.windows(2)).map(|(l, w)| (l, (w[1] - w[0]) * 1e3)).collect())
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
}

fn kernel_error(name: &str, shape: &str, e: tilecast_kernels::Error) -> Error {
    Error::Kernel { kernel: format!("{name} {shape}"), message: e.to_string() }
}
