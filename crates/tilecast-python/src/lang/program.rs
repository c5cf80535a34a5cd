//! `tilecast.Program`: a kernel written in Python, compiled for one profile. Its listings are
//! what `tilecast emit` prints for the same kernel; on this machine's profile it launches
//! through the same `TileKernel` the library's kernels use.

use std::sync::OnceLock;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use tilecast_kernels::listing::{self, Target};
use tilecast_kernels::{LoadAs, TileKernel, plan_profile};
use tilecast_lang::{Compiled, DType, Expr, Profile, Scalar, SymbolSource};
use tilecast_runtime::{Buffer, Stream, SyncType};

use crate::buffer::PyBuffer;
use crate::errors::IntoPy;
use crate::stream::PyStream;

/// The profile named `name`, or this machine's device's.
pub(crate) fn profile(py: Python<'_>, name: Option<&str>) -> PyResult<Profile> {
    match name {
        Some(n) => Profile::named(n).map_err(|e| PyValueError::new_err(e.to_string())),
        None => {
            let lib = crate::ops::library()?;
            let _ = py;
            Ok(plan_profile(&lib.device, LoadAs::Auto))
        }
    }
}

/// A compiled kernel: `source(target)` lists it; `launch(args)` runs it on this machine's
/// device when it was compiled for that device's profile.
#[pyclass(name = "Program", module = "tilecast", frozen)]
pub struct PyProgram {
    compiled: Compiled,
    loaded: OnceLock<TileKernel>,
}

impl PyProgram {
    pub(crate) fn new(compiled: Compiled) -> PyProgram {
        PyProgram { compiled, loaded: OnceLock::new() }
    }

    fn kernel_err(&self, message: String) -> PyErr {
        PyValueError::new_err(format!("kernel {:?}: {message}", self.compiled.name()))
    }

    fn loaded(&self, py: Python<'_>) -> PyResult<&TileKernel> {
        if let Some(k) = self.loaded.get() {
            return Ok(k);
        }
        let lib = crate::ops::library()?;
        let here = profile(py, None)?;
        if here.name != self.compiled.profile() {
            return Err(self.kernel_err(format!(
                "compiled for profile {}; this device's profile is {}, so it cannot run here \
                 (compile() without a profile compiles for this device)",
                self.compiled.profile(),
                here.name
            )));
        }
        let k = TileKernel::load(&lib.shaders, &self.compiled)
            .map_err(|e| self.kernel_err(e.to_string()))?;
        Ok(self.loaded.get_or_init(|| k))
    }

    /// Symbol values from the buffers given (`None` for outputs to allocate) and scalars.
    fn symbols(&self, given: &[Option<Buffer>], scalars: &[Scalar]) -> Vec<Option<u64>> {
        let c = &self.compiled;
        c.symbols()
            .iter()
            .map(|(name, src)| {
                // The first given buffer whose dimension is the bare symbol sets it.
                let by_shape = c.params().iter().zip(given).find_map(|(p, b)| {
                    let b = b.as_ref()?;
                    let d = p.shape.iter().position(|d| matches!(d, Expr::Sym(s) if s == name))?;
                    b.shape().get(d).map(|v| *v as u64)
                });
                by_shape.or(match *src {
                    SymbolSource::Scalar { index } => match scalars.get(index) {
                        Some(Scalar::U32(v)) => Some(*v as u64),
                        _ => None,
                    },
                    SymbolSource::Shape { .. } => None,
                })
            })
            .collect()
    }
}

/// `v` as a scalar argument of `dtype`.
fn scalar(name: &str, dtype: DType, v: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    let bad = |what: &str| PyTypeError::new_err(format!("scalar {name} is {dtype}; got {what}"));
    Ok(match dtype {
        DType::F32 => Scalar::F32(v.extract::<f64>().map_err(|_| bad(&v.to_string()))? as f32),
        DType::I32 => Scalar::I32(v.extract::<i32>().map_err(|_| bad(&v.to_string()))?),
        DType::U32 => Scalar::U32(v.extract::<u32>().map_err(|_| bad(&v.to_string()))?),
        other => return Err(bad(&format!("a {other} scalar, which no kernel takes"))),
    })
}

#[pymethods]
impl PyProgram {
    /// The kernel's name (its entry point).
    #[getter]
    fn name(&self) -> &str {
        self.compiled.name()
    }
    /// The profile it was compiled for.
    #[getter]
    fn profile(&self) -> &str {
        self.compiled.profile()
    }
    /// Buffer parameters as (name, dtype, writable), in launch order.
    #[getter]
    fn params(&self) -> Vec<(String, &'static str, bool)> {
        self.compiled
            .params()
            .iter()
            .map(|p| (p.name.clone(), p.dtype.name(), !p.read_only))
            .collect()
    }
    /// Scalar arguments as (name, dtype), in launch order.
    #[getter]
    fn scalars(&self) -> Vec<(String, &'static str)> {
        self.compiled.scalars().iter().map(|s| (s.name.clone(), s.dtype.name())).collect()
    }
    /// Threadgroup memory its tiles take, in bytes.
    #[getter]
    fn shared_bytes(&self) -> u64 {
        self.compiled.shared_bytes()
    }

    /// The listing in `target`: "wgsl" (what runs through wgpu), "msl" (Metal, through naga),
    /// "spirv" (the native back end's disassembly) or "ir" (the IR as written and after the
    /// passes, every lowering choice shown), as `tilecast emit` prints it.
    #[pyo3(signature = (target = "wgsl"))]
    pub(crate) fn source(&self, py: Python<'_>, target: &str) -> PyResult<String> {
        let t = match target {
            "wgsl" => Target::Wgsl,
            "msl" => Target::Msl,
            "spirv" => Target::Spirv { binary: false },
            "spirv-naga" => Target::SpirvNaga { binary: false },
            "ir" => Target::Ir,
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown target {other:?}; use wgsl, msl, spirv, spirv-naga or ir"
                )));
            }
        };
        let header =
            format!("kernel {}, profile {}", self.compiled.name(), self.compiled.profile());
        let bytes = py.detach(|| listing::one(&self.compiled, t, &header));
        let bytes = bytes.map_err(|e| self.kernel_err(e.to_string()))?;
        String::from_utf8(bytes).map_err(|e| self.kernel_err(e.to_string()))
    }

    /// Runs the kernel over `args` (tilecast Buffers in parameter order; `None` for a
    /// writable parameter to allocate from the shapes the others set) and `scalars` (in
    /// declaration order). Returns the allocated buffers, in order. With `stream` the launch
    /// is encoded there; without, it is submitted at once (reading a result waits for it).
    #[pyo3(signature = (args, scalars = Vec::new(), stream = None, storage_mode = None))]
    fn launch(
        &self,
        py: Python<'_>,
        args: Vec<Option<PyRef<'_, PyBuffer>>>,
        scalars: Vec<Bound<'_, PyAny>>,
        stream: Option<PyRef<'_, PyStream>>,
        storage_mode: Option<&str>,
    ) -> PyResult<Vec<PyBuffer>> {
        let kernel = self.loaded(py)?;
        let c = &self.compiled;
        if args.len() != c.params().len() {
            return Err(self.kernel_err(format!(
                "takes {} buffers ({}); got {}",
                c.params().len(),
                c.params().iter().map(|p| p.name.as_str()).collect::<Vec<_>>().join(", "),
                args.len()
            )));
        }
        if scalars.len() != c.scalars().len() {
            return Err(self.kernel_err(format!(
                "takes {} scalars ({}); got {}",
                c.scalars().len(),
                c.scalars().iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", "),
                scalars.len()
            )));
        }
        let values: Vec<Scalar> = c
            .scalars()
            .iter()
            .zip(&scalars)
            .map(|(s, v)| scalar(&s.name, s.dtype, v))
            .collect::<PyResult<_>>()?;
        let given: Vec<Option<Buffer>> =
            args.iter().map(|a| a.as_ref().map(|b| b.inner.clone())).collect();
        let symbols = self.symbols(&given, &values);
        let names: Vec<String> = c.symbols().iter().map(|(n, _)| n.clone()).collect();
        let lib = crate::ops::library()?;
        let mode = crate::device::storage_mode(&lib.device, storage_mode)?;
        let mut buffers = Vec::with_capacity(given.len());
        let mut allocated = Vec::new();
        for (p, b) in c.params().iter().zip(given) {
            match b {
                Some(b) => buffers.push(b),
                None => {
                    if p.read_only {
                        return Err(self.kernel_err(format!(
                            "input {} needs a buffer; only writable parameters are allocated",
                            p.name
                        )));
                    }
                    let known: Vec<u64> = symbols.iter().map(|v| v.unwrap_or(u64::MAX)).collect();
                    let mut shape = Vec::with_capacity(p.shape.len());
                    for (d, e) in p.shape.iter().enumerate() {
                        let unset = expr_symbols(e).into_iter().find(|s| {
                            names.iter().position(|n| n == s).is_some_and(|i| symbols[i].is_none())
                        });
                        if let Some(s) = unset {
                            return Err(self.kernel_err(format!(
                                "cannot allocate {}: its dimension {d} uses symbol {s}, which no \
                                 given buffer or scalar sets; pass {} yourself",
                                p.name, p.name
                            )));
                        }
                        let v = tilecast_lang::eval(e, &names, &known).ok_or_else(|| {
                            self.kernel_err(format!("{} dimension {d} cannot be evaluated", p.name))
                        })?;
                        shape.push(v as usize);
                    }
                    let b = lib.device.alloc_in(mode, p.dtype, &shape).py()?;
                    allocated.push(b.clone());
                    buffers.push(b);
                }
            }
        }
        // An empty tensor cannot be bound; a launch whose grid is empty too has nothing to do.
        if let Some((p, b)) = c.params().iter().zip(&buffers).find(|(_, b)| b.is_empty()) {
            let refs: Vec<&Buffer> = buffers.iter().collect();
            let symbols = kernel
                .bind_symbols(&refs, &values)
                .map_err(|e| self.kernel_err(launch_message(e)))?;
            if c.grid(&symbols).is_some_and(|g| g.contains(&0)) {
                return Ok(allocated.into_iter().map(|inner| PyBuffer { inner }).collect());
            }
            return Err(self.kernel_err(format!(
                "{} is empty ({:?}) but the grid is not: a kernel cannot bind an empty buffer",
                p.name,
                b.shape()
            )));
        }
        let launch = |s: &mut Stream| -> PyResult<()> {
            let refs: Vec<&Buffer> = buffers.iter().collect();
            kernel.launch_with(s, &refs, &values).map_err(|e| self.kernel_err(launch_message(e)))
        };
        match stream {
            Some(s) => launch(&mut s.inner.lock().unwrap_or_else(|p| p.into_inner()))?,
            None => py.detach(|| -> PyResult<()> {
                let mut s = Stream::new(&lib.device);
                launch(&mut s)?;
                s.synchronize(SyncType::Commit).py()
            })?,
        }
        Ok(allocated.into_iter().map(|inner| PyBuffer { inner }).collect())
    }
}

/// The symbols `e` reads.
fn expr_symbols(e: &Expr) -> Vec<String> {
    match e {
        Expr::Sym(s) => vec![s.clone()],
        _ => e.children().into_iter().flat_map(expr_symbols).collect(),
    }
}

/// A launch error's message without the kernel's name (the caller adds it).
fn launch_message(e: tilecast_kernels::Error) -> String {
    match e {
        tilecast_kernels::Error::Launch { message, .. } => message,
        other => other.to_string(),
    }
}
