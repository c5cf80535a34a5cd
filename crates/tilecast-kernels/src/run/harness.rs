//! Running a registry entry on a device: test values in, one checked launch against the CPU
//! reference, then timed batches. `tilecast bench`, the tests and the Python package share it,
//! so every caller checks a kernel the same way.

use std::sync::Arc;
use std::time::Instant;

use half::{bf16, f16};
use tilecast_lang::{DType, Profile, Scalar, compile};
use tilecast_runtime::{
    BatchTimes, Buffer, Device, Element, F8E4M3, F8E5M2, ShaderLibrary, StorageMode, Stream,
    TimingPolicy, time_batches,
};

use crate::error::{Error, Result};
use crate::reference::{e4m3_to_f32, e5m2_to_f32, f32_to_e4m3, f32_to_e5m2};
use crate::registry::{ArgSpec, Entry, Fixed, Plan, Problem, Role, Slot, Strategy, Tolerance};
use crate::{CodePath, LoadAs, TileKernel};

/// A problem's kernels (its [`Plan`]) compiled and loaded, with its arguments allocated and
/// filled.
pub struct Prepared {
    /// The entry.
    pub entry: &'static Entry,
    /// The problem.
    pub problem: Problem,
    /// The plan, loaded.
    pub plan: LoadedPlan,
    /// The plan's scratch buffers (this problem's own: its launches run on one stream).
    pub scratch: Vec<Buffer>,
    /// The arguments, in parameter order.
    pub buffers: Vec<Buffer>,
    /// Argument descriptions, in the same order.
    pub args: Vec<ArgSpec>,
    /// The stored values of each input (widened to f32), in input order.
    pub inputs: Vec<Vec<f32>>,
    /// Milliseconds to compile the tile programs and create the pipelines.
    pub load_ms: f64,
}

/// Deterministic values in [-1, 1), seeded.
pub fn test_values(n: usize, seed: u64) -> Result<Vec<f32>> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| Error::Problem {
        kernel: "harness".into(),
        message: format!("the host cannot allocate {n} f32 test values"),
    })?;
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    out.extend((0..n).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }));
    Ok(out)
}

/// Uploads `values` stored as `dtype`; returns the buffer and the stored values widened to f32.
fn upload(
    device: &Device,
    dtype: DType,
    values: &[f32],
    shape: &[usize],
) -> Result<(Buffer, Vec<f32>)> {
    fn stored<T: Element>(
        device: &Device,
        values: &[f32],
        shape: &[usize],
        to: impl Fn(f32) -> T,
        back: impl Fn(&T) -> f32,
    ) -> Result<(Buffer, Vec<f32>)> {
        let v: Vec<T> = values.iter().map(|&f| to(f)).collect();
        let widened = v.iter().map(back).collect();
        Ok((device.buffer_from_slice_in(StorageMode::Private, &v, shape)?, widened))
    }
    match dtype {
        DType::F32 => stored(device, values, shape, |f| f, |v| *v),
        DType::F16 => stored(device, values, shape, f16::from_f32, |v| v.to_f32()),
        DType::BF16 => stored(device, values, shape, bf16::from_f32, |v| v.to_f32()),
        // Nearest code, saturating at the largest finite one (test values never overflow).
        DType::F8E4M3 => {
            let code = |f: f32| F8E4M3(f32_to_e4m3(f.clamp(-448.0, 448.0)));
            stored(device, values, shape, code, |v| e4m3_to_f32(v.0))
        }
        DType::F8E5M2 => {
            let code = |f: f32| F8E5M2(f32_to_e5m2(f.clamp(-57344.0, 57344.0)));
            stored(device, values, shape, code, |v| e5m2_to_f32(v.0))
        }
        other => Err(Error::Problem {
            kernel: "harness".into(),
            message: format!("no test values for {other} inputs"),
        }),
    }
}

/// An output read back and widened to f32.
pub fn download_f32(b: &Buffer) -> Result<Vec<f32>> {
    Ok(match b.dtype() {
        DType::F32 => b.download::<f32>()?,
        DType::F16 => b.download::<f16>()?.iter().map(|v| v.to_f32()).collect(),
        DType::BF16 => b.download::<bf16>()?.iter().map(|v| v.to_f32()).collect(),
        DType::F8E4M3 => b.download::<F8E4M3>()?.iter().map(|v| e4m3_to_f32(v.0)).collect(),
        DType::F8E5M2 => b.download::<F8E5M2>()?.iter().map(|v| e5m2_to_f32(v.0)).collect(),
        DType::U32 => b.download::<u32>()?.iter().map(|&v| v as f32).collect(),
        DType::I32 => b.download::<i32>()?.iter().map(|&v| v as f32).collect(),
        other => {
            return Err(Error::Problem {
                kernel: "harness".into(),
                message: format!("cannot read back {other} outputs"),
            });
        }
    })
}

/// How a check went.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// Largest `|got - want|`.
    pub max_abs_error: f64,
    /// Largest error as a fraction of what the tolerance allows there (<= 1 passes).
    pub worst: f64,
    /// Elements compared.
    pub compared: usize,
    /// Whether the reference was sampled.
    pub sampled: bool,
    /// The tolerance applied.
    pub tolerance: Tolerance,
    /// Whether every compared element is within tolerance.
    pub ok: bool,
}

/// `values` (by name) converted to the types `compiled` declares, in declaration order.
fn scalars(
    kernel: &str,
    values: &[(&str, f64)],
    compiled: &tilecast_lang::Compiled,
) -> Result<Vec<Scalar>> {
    compiled
        .scalars()
        .iter()
        .map(|s| {
            let v =
                values.iter().find(|(n, _)| *n == s.name).map(|(_, v)| *v).ok_or_else(|| {
                    Error::Problem {
                        kernel: kernel.into(),
                        message: format!("no value given for scalar {}", s.name),
                    }
                })?;
            Ok(match s.dtype {
                DType::U32 => Scalar::U32(v as u32),
                DType::I32 => Scalar::I32(v as i32),
                DType::F16 => Scalar::F16(f16::from_f64(v)),
                _ => Scalar::F32(v as f32),
            })
        })
        .collect()
}

/// A problem's [`Plan`] loaded on a device: its kernels compiled and their pipelines created.
/// It launches the problem over any arguments of the problem's shapes and scratch buffers from
/// [`alloc_scratch`](Self::alloc_scratch). Scratch belongs to one call at a time: a stream
/// may commit between a plan's launches, so two calls in flight on different streams sharing
/// scratch could interleave and read each other's intermediates.
#[derive(Clone)]
pub struct LoadedPlan {
    kernel: String,
    launches: Vec<(TileKernel, Vec<Slot>)>,
    scratch: Vec<ArgSpec>,
    lowering: &'static str,
    strategy: Strategy,
    /// The entry's check of a launch's scalar values for its problem, where it has one.
    check_scalars: Option<ScalarCheck>,
}

/// An entry's [`Entry::check_scalars`] for one problem.
type ScalarCheck = Arc<dyn Fn(&[(&str, f64)]) -> Result<()> + Send + Sync>;

impl LoadedPlan {
    /// Compiles `entry`'s plan for `p` on `device`'s profile and loads it into `library` (as `how`
    /// says); checks that the device can bind its scratch.
    pub fn new(
        device: &Device,
        library: &ShaderLibrary,
        entry: &Entry,
        p: &Problem,
        how: LoadAs,
    ) -> Result<LoadedPlan> {
        let profile = crate::plan_profile(device, how);
        let plan = entry.plan(p, &profile)?;
        for a in &plan.scratch {
            device.check_bindable(a.dtype, &a.shape).map_err(|e| Error::Problem {
                kernel: entry.name.into(),
                message: format!("scratch buffer {:?}: {e}", a.shape),
            })?;
        }
        Ok(Self::load(library, entry.name, &plan, &profile, how)?.checked_for(entry, p))
    }

    /// The same plan, checking each launch's scalar values as `entry` does for `p`.
    fn checked_for(self, entry: &Entry, p: &Problem) -> LoadedPlan {
        let (entry, p) = (entry.clone(), p.clone());
        let check: ScalarCheck = Arc::new(move |values| entry.check_scalars(&p, values));
        LoadedPlan { check_scalars: Some(check), ..self }
    }

    /// Loads `plan` (the launches of kernel `name`) for `profile`.
    pub fn load(
        library: &ShaderLibrary,
        name: &str,
        plan: &Plan,
        profile: &Profile,
        how: LoadAs,
    ) -> Result<LoadedPlan> {
        let mut launches = Vec::with_capacity(plan.launches.len());
        let mut lowering = "SIMT";
        for launch in &plan.launches {
            let compiled = compile(&launch.ir, profile)?;
            let kernel = TileKernel::load_as(library, &compiled, how)?;
            // Subgroup matrices in WGSL, or workgroup ones natively (a bf16 gemm's WGSL twin is
            // SIMT: the native lowering is its own only where that pass applied).
            let native_matrices =
                kernel.code() == CodePath::NativeSpirv && compiled.native_lowered().is_some();
            if compiled.wgsl().contains("coopMultiplyAdd") || native_matrices {
                lowering = "matrix units";
            }
            launches.push((kernel, launch.bind.clone()));
        }
        Ok(LoadedPlan {
            kernel: name.into(),
            launches,
            scratch: plan.scratch.clone(),
            lowering,
            strategy: plan.strategy,
            check_scalars: None,
        })
    }

    /// Scratch buffers for one call of the plan (none for a single launch).
    pub fn alloc_scratch(&self, device: &Device) -> Result<Vec<Buffer>> {
        Ok(self
            .scratch
            .iter()
            .map(|a| device.alloc_in(StorageMode::Private, a.dtype, &a.shape))
            .collect::<std::result::Result<_, _>>()?)
    }

    /// The code the launches run as: `wgsl`, `spirv`, or both names when they differ.
    pub fn code(&self) -> String {
        let mut names: Vec<&str> = self.launches.iter().map(|(k, _)| k.code().name()).collect();
        names.dedup();
        names.join("+")
    }

    /// `"matrix units"` or `"SIMT"`: what the selection pass chose (matrix units where any
    /// launch uses them).
    pub fn lowering(&self) -> &'static str {
        self.lowering
    }

    /// What the kernel family decided for this problem.
    pub fn strategy(&self) -> Strategy {
        self.strategy
    }

    /// Encodes the launches, in order, over `args` (the entry's arguments in parameter order)
    /// and `scratch` (from [`alloc_scratch`](Self::alloc_scratch)) with scalar `values` by name,
    /// once the entry's check of those values passes (a plan made by [`new`](Self::new)).
    pub fn launch(
        &self,
        stream: &mut Stream,
        args: &[&Buffer],
        scratch: &[Buffer],
        values: &[(&str, f64)],
    ) -> Result<()> {
        if let Some(check) = &self.check_scalars {
            check(values)?;
        }
        if scratch.len() != self.scratch.len() {
            return Err(Error::Problem {
                kernel: self.kernel.clone(),
                message: format!(
                    "its plan takes {} scratch buffers; got {}",
                    self.scratch.len(),
                    scratch.len()
                ),
            });
        }
        for (k, bind) in &self.launches {
            let mut bufs = Vec::with_capacity(bind.len());
            for slot in bind {
                bufs.push(match *slot {
                    Slot::Arg(i) => *args.get(i).ok_or_else(|| Error::Problem {
                        kernel: self.kernel.clone(),
                        message: format!("takes at least {} arguments; got {}", i + 1, args.len()),
                    })?,
                    Slot::Scratch(i) => &scratch[i],
                });
            }
            let scalars = scalars(&self.kernel, values, k.compiled())?;
            k.launch_with(stream, &bufs, &scalars)?;
        }
        Ok(())
    }
}

impl Prepared {
    /// Compiles `entry` for `p` on `device`, loads it into `library` as `how` says, and allocates its arguments: inputs filled with test values.
    pub fn new(
        device: &Device,
        library: &ShaderLibrary,
        entry: &'static Entry,
        p: &Problem,
        how: LoadAs,
    ) -> Result<Prepared> {
        Self::prepare(device, library, entry, p, None, how)
    }

    /// [`new`](Self::new) with a plan the caller made instead of the entry's (a block size
    /// under study); the arguments, reference and check are the entry's.
    pub fn with_plan(
        device: &Device,
        library: &ShaderLibrary,
        entry: &'static Entry,
        p: &Problem,
        plan: &Plan,
        how: LoadAs,
    ) -> Result<Prepared> {
        Self::prepare(device, library, entry, p, Some(plan), how)
    }

    fn prepare(
        device: &Device,
        library: &ShaderLibrary,
        entry: &'static Entry,
        p: &Problem,
        plan: Option<&Plan>,
        how: LoadAs,
    ) -> Result<Prepared> {
        let args = entry.args(p);
        // Refuse sizes the device cannot bind before any host allocation.
        for a in &args {
            device.check_bindable(a.dtype, &a.shape).map_err(|e| Error::Problem {
                kernel: entry.name.into(),
                message: format!("argument {}: {e}", a.name),
            })?;
        }
        let start = Instant::now();
        let plan = match plan {
            None => LoadedPlan::new(device, library, entry, p, how)?,
            Some(plan) => {
                let profile = crate::plan_profile(device, how);
                LoadedPlan::load(library, entry.name, plan, &profile, how)?.checked_for(entry, p)
            }
        };
        let scratch = plan.alloc_scratch(device)?;
        let load_ms = start.elapsed().as_secs_f64() * 1e3;
        let (mut buffers, mut inputs) = (Vec::new(), Vec::new());
        for (i, a) in args.iter().enumerate() {
            match a.role {
                Role::Input => {
                    let seed = (i as u64 + 1) * 0x1234_5677 + a.len() as u64;
                    // Words beyond 2^24 reach the reference rounded: references of packed
                    // weights rebuild them from the problem instead.
                    let (b, stored) = match a.values.as_ref().map(|v| v.get()) {
                        Some(Fixed::Words(v)) => (
                            device.buffer_from_slice_in(StorageMode::Private, &v, &a.shape)?,
                            v.iter().map(|&x| x as f32).collect(),
                        ),
                        Some(Fixed::Bytes(v)) => (
                            device.buffer_from_slice_in(StorageMode::Private, &v, &a.shape)?,
                            v.iter().map(|&x| x as f32).collect(),
                        ),
                        Some(Fixed::Floats(v)) => upload(device, a.dtype, &v, &a.shape)?,
                        None => upload(device, a.dtype, &test_values(a.len(), seed)?, &a.shape)?,
                    };
                    buffers.push(b);
                    inputs.push(stored);
                }
                Role::Output => {
                    buffers.push(device.alloc_in(StorageMode::Private, a.dtype, &a.shape)?)
                }
            }
        }
        Ok(Prepared { entry, problem: p.clone(), plan, scratch, buffers, args, inputs, load_ms })
    }

    /// What the kernel family decided for this problem.
    pub fn strategy(&self) -> Strategy {
        self.plan.strategy()
    }

    /// The code the launches run as (see [`LoadedPlan::code`]).
    pub fn code(&self) -> String {
        self.plan.code()
    }

    /// `"matrix units"` or `"SIMT"` (see [`LoadedPlan::lowering`]).
    pub fn lowering(&self) -> &'static str {
        self.plan.lowering()
    }

    /// Encodes the problem's launches, in order.
    pub fn launch(&self, stream: &mut Stream) -> Result<()> {
        let refs: Vec<&Buffer> = self.buffers.iter().collect();
        self.plan.launch(stream, &refs, &self.scratch, &self.entry.scalars(&self.problem))
    }

    /// Reads the outputs back and compares them with the reference.
    pub fn check(&self) -> Result<Check> {
        let expected = self.entry.reference(&self.problem, &self.inputs);
        let tolerance = self.entry.tolerance(&self.problem);
        let outputs = self.args.iter().zip(&self.buffers).filter(|(a, _)| a.role == Role::Output);
        let (mut max_abs, mut worst, mut compared, mut sampled, mut ok) =
            (0f64, 0f64, 0, false, true);
        for ((_, buffer), want) in outputs.zip(&expected) {
            let got = download_f32(buffer)?;
            let pairs: Box<dyn Iterator<Item = (f32, f32)>> = match &want.indices {
                Some(idx) => {
                    sampled = true;
                    Box::new(idx.iter().zip(&want.values).map(|(&i, &w)| (got[i], w)))
                }
                None => {
                    if got.len() != want.values.len() {
                        return Err(Error::Problem {
                            kernel: self.entry.name.into(),
                            message: format!(
                                "reference has {} values for an output of {}",
                                want.values.len(),
                                got.len()
                            ),
                        });
                    }
                    Box::new(got.iter().copied().zip(want.values.iter().copied()))
                }
            };
            for (g, w) in pairs {
                compared += 1;
                let err = (g as f64 - w as f64).abs();
                if err.is_finite() {
                    max_abs = max_abs.max(err);
                }
                let allowed = tolerance.abs + tolerance.rel * (w as f64).abs();
                let ratio = match (tolerance.accepts(g, w), allowed > 0.0) {
                    (true, true) => err / allowed,
                    (true, false) => 0.0,
                    (false, true) if err.is_finite() => err / allowed,
                    (false, _) => f64::INFINITY,
                };
                ok &= tolerance.accepts(g, w);
                worst = worst.max(ratio);
            }
        }
        Ok(Check { max_abs_error: max_abs, worst, compared, sampled, tolerance, ok })
    }

    /// Seconds per launch of each batch, sorted: `batches` batches of `iters` launches, each
    /// timed by GPU timestamps where the device has them (else on the host, from encoding to
    /// the GPU's completion), after the device's clocks have settled (see [`time_batches`]).
    pub fn time(&self, stream: &mut Stream, iters: u32, batches: u32) -> Result<BatchTimes> {
        let policy = TimingPolicy::for_device(stream.device(), iters, batches);
        time_batches(stream, policy, |s| self.launch(s))
    }
}

pub use tilecast_runtime::median;
