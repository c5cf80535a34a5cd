//! The kernel library from Python, through one generic path: every kernel `tilecast_kernels`
//! lists is compiled for the device on first use and launched on tilecast buffers. Parameters
//! the kernel only reads are the inputs, in declaration order; the others are outputs,
//! allocated zero-filled with shapes evaluated from the inputs' shapes and the scalar
//! arguments. Adding a kernel to the library adds it here with no Python code.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use tilecast_lang::{Profile, Scalar, SymbolSource, TileKernel, compile, eval};
use tilecast_runtime::{Buffer, DType, Device, ShaderLibrary, Stream, SyncType};

use crate::buffer::PyBuffer;
use crate::device::shared_device;
use crate::errors::{IntoPy, lang_to_py};
use crate::stream::PyStream;

struct Library {
    device: Device,
    profile: Profile,
    shaders: ShaderLibrary,
    loaded: Mutex<HashMap<String, TileKernel>>,
}

static LIBRARY: OnceLock<Library> = OnceLock::new();

fn library() -> PyResult<&'static Library> {
    if let Some(l) = LIBRARY.get() {
        return Ok(l);
    }
    let device = shared_device()?;
    let profile = Profile::from_capabilities(device.capabilities());
    let shaders = ShaderLibrary::new(&device);
    Ok(LIBRARY.get_or_init(|| Library { device, profile, shaders, loaded: Mutex::default() }))
}

fn kernel(lib: &Library, name: &str) -> PyResult<TileKernel> {
    if let Some(k) = lib.loaded.lock().unwrap_or_else(|p| p.into_inner()).get(name) {
        return Ok(k.clone());
    }
    let ir = tilecast_kernels::by_name_for(name, &lib.profile).ok_or_else(|| {
        PyKeyError::new_err(format!(
            "no kernel {name:?} in the library; kernels: {}",
            tilecast_kernels::CATALOG.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
        ))
    })?;
    let compiled = compile(&ir, &lib.profile).map_err(lang_to_py)?;
    let k = TileKernel::load(&lib.shaders, &compiled).map_err(lang_to_py)?;
    lib.loaded.lock().unwrap_or_else(|p| p.into_inner()).insert(name.to_string(), k.clone());
    Ok(k)
}

/// (name, description) of every kernel in the library.
#[pyfunction]
pub fn kernels() -> Vec<(&'static str, &'static str)> {
    tilecast_kernels::CATALOG.to_vec()
}

/// The kernel's signature: (inputs, outputs, scalars), each a list of (name, dtype, rank or
/// scalar dtype).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn signature(
    name: &str,
) -> PyResult<(Vec<(String, &'static str, usize)>, Vec<(String, &'static str, usize)>, Vec<(String, &'static str)>)>
{
    let k = kernel(library()?, name)?;
    let c = k.compiled();
    let param = |p: &tilecast_lang::ParamBinding| (p.name.clone(), p.dtype.name(), p.shape.len());
    Ok((
        c.params().iter().filter(|p| p.read_only).map(param).collect(),
        c.params().iter().filter(|p| !p.read_only).map(param).collect(),
        c.scalars().iter().map(|s| (s.name.clone(), s.dtype.name())).collect(),
    ))
}

fn scalar(name: &str, dtype: DType, v: &Bound<'_, PyAny>) -> PyResult<Scalar> {
    let bad = |e: PyErr| PyValueError::new_err(format!("scalar {name} is {dtype}: {e}"));
    Ok(match dtype {
        DType::U32 => Scalar::U32(v.extract().map_err(bad)?),
        DType::I32 => Scalar::I32(v.extract().map_err(bad)?),
        DType::F32 => Scalar::F32(v.extract().map_err(bad)?),
        other => return Err(PyValueError::new_err(format!("scalar {name} has dtype {other}"))),
    })
}

/// Launches kernel `name` on `inputs` (tilecast buffers, in the order of the kernel's read-only
/// parameters) with `scalars` by name, and returns its outputs. With `stream`, the launch is
/// only encoded (synchronize the stream before reading results); without, it runs on a stream
/// of its own that is committed (not waited for) before returning.
#[pyfunction]
#[pyo3(signature = (name, inputs, scalars = None, stream = None, storage_mode = None))]
pub fn run_kernel(
    py: Python<'_>,
    name: &str,
    inputs: Vec<PyRef<'_, PyBuffer>>,
    scalars: Option<HashMap<String, Bound<'_, PyAny>>>,
    stream: Option<PyRef<'_, PyStream>>,
    storage_mode: Option<&str>,
) -> PyResult<Vec<PyBuffer>> {
    let lib = library()?;
    let mode = crate::device::storage_mode(&lib.device, storage_mode)?;
    let k = kernel(lib, name)?;
    let c = k.compiled();
    let ins: Vec<usize> = (0..c.params().len()).filter(|&i| c.params()[i].read_only).collect();
    if inputs.len() != ins.len() {
        return Err(PyValueError::new_err(format!(
            "kernel {name} takes {} inputs ({}); got {}",
            ins.len(),
            ins.iter()
                .map(|&i| format!("{}: {}", c.params()[i].name, c.params()[i].dtype))
                .collect::<Vec<_>>()
                .join(", "),
            inputs.len()
        )));
    }
    let mut scalars = scalars.unwrap_or_default();
    let mut values = Vec::new();
    for s in c.scalars() {
        let v = scalars.remove(&s.name).ok_or_else(|| {
            PyValueError::new_err(format!("kernel {name} needs scalar {}: {}", s.name, s.dtype))
        })?;
        values.push(scalar(&s.name, s.dtype, &v)?);
    }
    if let Some(extra) = scalars.keys().next() {
        return Err(PyValueError::new_err(format!("kernel {name} has no scalar {extra:?}")));
    }
    let mut args: Vec<Option<Buffer>> = vec![None; c.params().len()];
    for (&i, b) in ins.iter().zip(&inputs) {
        args[i] = Some(b.inner.clone());
    }
    // Symbols the inputs and scalars determine; outputs are shaped from them.
    let mut names = Vec::new();
    let mut known = Vec::new();
    for (sym, src) in c.symbols() {
        let v = match *src {
            SymbolSource::Shape { param, dim } => {
                args[param].as_ref().and_then(|b| b.shape().get(dim)).map(|&d| d as u64)
            }
            SymbolSource::Scalar { index } => match values.get(index) {
                Some(Scalar::U32(v)) => Some(*v as u64),
                _ => None,
            },
        };
        if let Some(v) = v {
            names.push(sym.clone());
            known.push(v);
        }
    }
    for (i, p) in c.params().iter().enumerate().filter(|(_, p)| !p.read_only) {
        let shape = p
            .shape
            .iter()
            .map(|d| eval(d, &names, &known).map(|v| v as usize))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                PyValueError::new_err(format!(
                    "kernel {name}: the shape of output {} cannot be derived from the inputs' \
                     shapes (check the inputs' ranks: {})",
                    p.name,
                    ins.iter()
                        .map(|&j| format!("{} has rank {}", c.params()[j].name, c.params()[j].shape.len()))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        args[i] = Some(lib.device.alloc_in(mode, p.dtype, &shape).py()?);
    }
    let args: Vec<Buffer> = args.into_iter().map(|a| a.expect("every parameter bound")).collect();
    let launch = |s: &mut Stream| -> PyResult<()> {
        let refs: Vec<&Buffer> = args.iter().collect();
        k.launch_with(s, &refs, &values).map_err(lang_to_py)
    };
    match stream {
        Some(s) => {
            let mut guard = s.inner.lock().unwrap_or_else(|p| p.into_inner());
            launch(&mut guard)?;
        }
        None => py.detach(|| -> PyResult<()> {
            let mut s = Stream::new(&lib.device);
            launch(&mut s)?;
            s.synchronize(SyncType::Commit).py()
        })?,
    }
    Ok(c.params()
        .iter()
        .zip(args)
        .filter(|(p, _)| !p.read_only)
        .map(|(_, inner)| PyBuffer { inner })
        .collect())
}

