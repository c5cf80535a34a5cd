//! The kernel library from Python, through one generic path over the kernel registry
//! (`tilecast_kernels::entries()`): every entry is callable. The registry recovers the problem
//! from the inputs' shapes (`Entry::problem_for_inputs`) and says every argument's dtype, shape
//! and role; inputs are the caller's buffers, outputs are allocated; scalars come from the
//! registry, and keywords override them by name. A problem's plan (its kernels) is loaded for
//! the device once per (kernel, dtype, problem size and options); a plan of several launches gets scratch
//! buffers of its own on each call. Adding an entry to the registry adds it here with no
//! Python or Rust code.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use pyo3::exceptions::{PyKeyError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use tilecast_kernels::harness::LoadedPlan;
use tilecast_kernels::qlinear::WeightFormat;
use tilecast_kernels::registry::{Options, Problem, Role};
use tilecast_kernels::{Entry, entries, lookup};
use tilecast_lang::DType;
use tilecast_runtime::{Buffer, Device, ShaderLibrary, Stream, SyncType};

use crate::buffer::PyBuffer;
use crate::device::shared_device;
use crate::errors::{IntoPy, to_py};
use crate::stream::PyStream;

/// Loaded plans kept at most; beyond it the cache starts over.
const MAX_CACHED: usize = 256;

/// Loaded plans (their kernels) by (kernel, input dtype, problem dims, options).
type Cache = HashMap<(String, DType, Vec<usize>, Options), LoadedPlan>;

pub(crate) struct Library {
    pub(crate) device: Device,
    pub(crate) shaders: ShaderLibrary,
    loaded: Mutex<Cache>,
}

static LIBRARY: OnceLock<Library> = OnceLock::new();

pub(crate) fn library() -> PyResult<&'static Library> {
    if let Some(l) = LIBRARY.get() {
        return Ok(l);
    }
    let device = shared_device()?;
    let shaders = ShaderLibrary::new(&device);
    Ok(LIBRARY.get_or_init(|| Library { device, shaders, loaded: Mutex::default() }))
}

/// The Python exception for a kernel-library error.
fn kernels_to_py(e: tilecast_kernels::Error) -> PyErr {
    use tilecast_kernels::Error as E;
    match e {
        E::UnknownKernel { .. } => PyKeyError::new_err(e.to_string()),
        E::UnsupportedDtype { .. } => PyTypeError::new_err(e.to_string()),
        E::Compile(l) => PyRuntimeError::new_err(l.to_string()),
        E::Runtime(r) => to_py(r),
        other => PyValueError::new_err(other.to_string()),
    }
}

fn plan(lib: &Library, entry: &Entry, p: &Problem) -> PyResult<LoadedPlan> {
    let key = (entry.name.to_string(), p.dtype, p.dims.clone(), p.options);
    if let Some(k) = lib.loaded.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(k.clone());
    }
    let loaded =
        LoadedPlan::new(&lib.device, &lib.shaders, entry, p, tilecast_kernels::LoadAs::Auto)
            .map_err(kernels_to_py)?;
    let mut cache = lib.loaded.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= MAX_CACHED {
        cache.clear();
    }
    cache.insert(key, loaded.clone());
    Ok(loaded)
}

/// (name, summary) of every kernel in the registry.
#[pyfunction]
pub fn kernels() -> Vec<(&'static str, &'static str)> {
    entries().iter().map(|e| (e.name, e.summary)).collect()
}

type Params = Vec<(&'static str, &'static str, usize)>;

/// Kernel `name`'s signature: (inputs, outputs, dims, dtypes, scalars): inputs and outputs as
/// (name, dtype, rank) for its default dtype, the shape grammar's dimension names, the input
/// dtypes it takes (the first is the default), and its scalar arguments as (name, default),
/// the default `None` where it follows from the inputs' shapes (attention's `scale` is
/// 1/sqrt(D)).
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn signature(
    name: &str,
) -> PyResult<(
    Params,
    Params,
    Vec<&'static str>,
    Vec<&'static str>,
    Vec<(&'static str, Option<f64>)>,
)> {
    let e = lookup(name).map_err(kernels_to_py)?;
    let p = Problem::new(vec![8; e.dims.len()], e.dtypes[0]);
    // Defaults that change with the problem's size come from the shapes, not a constant.
    let other = Problem::new(vec![16; e.dims.len()], e.dtypes[0]);
    let scalars = e
        .scalars(&p)
        .into_iter()
        .zip(e.scalars(&other))
        .map(|((n, a), (_, b))| (n, (a == b).then_some(a)))
        .collect();
    let args = e.args(&p);
    let pick = |role| {
        args.iter()
            .filter(|a| a.role == role)
            .map(|a| (a.name, a.dtype.name(), a.shape.len()))
            .collect::<Vec<_>>()
    };
    Ok((
        pick(Role::Input),
        pick(Role::Output),
        e.dims.to_vec(),
        e.dtypes.iter().map(|d| d.name()).collect(),
        scalars,
    ))
}

/// `v` as the scalar type the kernel declares (as the registry's harness converts it).
/// The arguments of kernel `name` for a problem, as (name, dtype, shape, role) in parameter
/// order: for `shape` (the grammar's `AxB..` text) and `dtype` when given, else for the
/// smallest shape of the registry's quick suite that is not all ones, in the default dtype.
#[pyfunction]
#[pyo3(signature = (name, shape = None, dtype = None))]
#[allow(clippy::type_complexity)]
pub fn arguments(
    name: &str,
    shape: Option<&str>,
    dtype: Option<&str>,
) -> PyResult<Vec<(&'static str, &'static str, Vec<usize>, &'static str)>> {
    let e = lookup(name).map_err(kernels_to_py)?;
    let dtype = dtype.map(crate::convert::parse_dtype).transpose()?.unwrap_or(e.dtypes[0]);
    let size =
        |s: &&&str| -> usize { s.split('x').filter_map(|d| d.parse::<usize>().ok()).product() };
    let shape = shape
        .or_else(|| e.quick.iter().filter(|s| size(s) > 1).min_by_key(size).copied())
        .or_else(|| e.quick.first().copied())
        .ok_or_else(|| PyValueError::new_err(format!("kernel {name} has no quick shapes")))?;
    let p = e.problem(shape, dtype).map_err(kernels_to_py)?;
    Ok(e.args(&p)
        .into_iter()
        .map(|a| {
            let role = if a.role == Role::Input { "input" } else { "output" };
            (a.name, a.dtype.name(), a.shape, role)
        })
        .collect())
}

/// Launches kernel `name` on `inputs` (tilecast buffers, in the registry's input order) and
/// returns its outputs. `scalars` override the registry's scalar values by name. With `stream`
/// the launch is only encoded (synchronize the stream before reading results); without, it runs
/// on a stream of its own that is committed (not waited for) before returning.
#[pyfunction]
#[pyo3(signature = (name, inputs, scalars = None, stream = None, storage_mode = None, format = None, group = None, out = None))]
#[allow(clippy::too_many_arguments)]
pub fn run_kernel(
    py: Python<'_>,
    name: &str,
    inputs: Vec<PyRef<'_, PyBuffer>>,
    scalars: Option<HashMap<String, f64>>,
    stream: Option<PyRef<'_, PyStream>>,
    storage_mode: Option<&str>,
    format: Option<&str>,
    group: Option<usize>,
    out: Option<Vec<PyRef<'_, PyBuffer>>>,
) -> PyResult<Vec<PyBuffer>> {
    let lib = library()?;
    let mode = crate::device::storage_mode(&lib.device, storage_mode)?;
    let entry = lookup(name).map_err(kernels_to_py)?;
    // The problem's element type is that of the first input of a type the kernel takes: index
    // inputs (an embedding's u32 ids) may come first.
    let dtypes: Vec<DType> = inputs.iter().map(|b| b.inner.dtype()).collect();
    let dtype = dtypes
        .iter()
        .copied()
        .find(|d| entry.dtypes.contains(d))
        .or(dtypes.first().copied())
        .unwrap_or(entry.dtypes[0]);
    let shapes: Vec<Vec<usize>> = inputs.iter().map(|b| b.inner.shape().to_vec()).collect();
    // A quantized matrix's format and group size, where the caller names them.
    let quantized = entry.option_names().contains(&"format");
    if !quantized && (format.is_some() || group.is_some()) {
        return Err(PyTypeError::new_err(format!("kernel {name} takes no format or group")));
    }
    let given = Options {
        format: format
            .map(|f| {
                WeightFormat::parse(f).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "unknown format {f:?}; use q4_0, q8_0, q4_k, mlx4 or mlx8"
                    ))
                })
            })
            .transpose()?,
        group,
        ..Options::default()
    };
    let problem = entry.problem_for_inputs_with(&shapes, dtype, given).map_err(kernels_to_py)?;
    let specs = entry.args(&problem);
    let outputs = specs.iter().filter(|a| a.role == Role::Output).count();
    if let Some(o) = &out
        && o.len() != outputs
    {
        return Err(PyValueError::new_err(format!(
            "{name}: out= takes {outputs} buffer(s) ({}); got {}",
            specs
                .iter()
                .filter(|a| a.role == Role::Output)
                .map(|a| a.name)
                .collect::<Vec<_>>()
                .join(", "),
            o.len()
        )));
    }
    let mut given_out = out.iter().flatten();
    let mut given = inputs.iter();
    let mut args: Vec<Buffer> = Vec::with_capacity(specs.len());
    for a in &specs {
        match a.role {
            Role::Input => {
                let b = &given.next().expect("problem_for_inputs checked the count").inner;
                if b.dtype() != a.dtype {
                    return Err(PyTypeError::new_err(format!(
                        "kernel {name}: input {} is {} for this problem; got a {} buffer",
                        a.name,
                        a.dtype,
                        b.dtype()
                    )));
                }
                args.push(b.clone());
            }
            Role::Output => match given_out.next() {
                Some(b) => {
                    let b = &b.inner;
                    if b.dtype() != a.dtype || b.shape() != a.shape.as_slice() {
                        return Err(PyValueError::new_err(format!(
                            "{name}: out= buffer for {} must be {} {:?}; got {} {:?}",
                            a.name,
                            a.dtype,
                            a.shape,
                            b.dtype(),
                            b.shape()
                        )));
                    }
                    args.push(b.clone());
                }
                None => args.push(lib.device.alloc_in(mode, a.dtype, &a.shape).py()?),
            },
        }
    }
    // Kernels bind each buffer whole: one past the device's binding size cannot run here.
    let limit = lib.device.capabilities().limits.max_storage_binding_size;
    for (a, b) in specs.iter().zip(&args) {
        if b.byte_len() > limit {
            return Err(PyValueError::new_err(format!(
                "{name}: {} {} is {} bytes; this device binds at most {limit} bytes per buffer \
                 (split the work into smaller calls)",
                if a.role == Role::Input { "input" } else { "output" },
                a.name,
                b.byte_len()
            )));
        }
    }
    // Empty tensors: where every output is empty too there is nothing to compute (numpy's and
    // torch's answer); otherwise the outputs would need values no element gives.
    if let Some((a, b)) = specs.iter().zip(&args).find(|(_, b)| b.is_empty()) {
        if let Some(o) =
            specs.iter().zip(&args).find(|(s, b)| s.role == Role::Output && !b.is_empty())
        {
            return Err(PyValueError::new_err(format!(
                "{name}: {} is empty ({:?}) but output {} {:?} is not; there are no elements to \
                 compute it from",
                a.name,
                b.shape(),
                o.0.name,
                o.1.shape()
            )));
        }
        return Ok(specs
            .iter()
            .zip(args)
            .filter(|(a, _)| a.role == Role::Output)
            .map(|(_, inner)| PyBuffer { inner })
            .collect());
    }
    let given: Vec<&Buffer> = inputs.iter().map(|b| &b.inner).collect();
    entry.validate_inputs(&problem, &given).map_err(kernels_to_py)?;
    let plan = plan(lib, entry, &problem)?;
    let mut values = entry.scalars(&problem);
    for (n, v) in scalars.unwrap_or_default() {
        match values.iter_mut().find(|(name, _)| *name == n) {
            Some(slot) => slot.1 = v,
            None => {
                return Err(PyValueError::new_err(format!(
                    "kernel {name} has no scalar {n:?}; its scalars: [{}]",
                    values.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
                )));
            }
        }
    }
    // Scratch is this call's own: another call in flight on another stream must not see it.
    let scratch = plan.alloc_scratch(&lib.device).map_err(kernels_to_py)?;
    let launch = |s: &mut Stream| -> PyResult<()> {
        let refs: Vec<&Buffer> = args.iter().collect();
        plan.launch(s, &refs, &scratch, &values).map_err(kernels_to_py)
    };
    match stream {
        Some(s) => launch(&mut s.inner.lock().unwrap_or_else(|p| p.into_inner()))?,
        None => py.detach(|| -> PyResult<()> {
            let mut s = Stream::new(&lib.device);
            launch(&mut s)?;
            s.synchronize(SyncType::Commit).py()
        })?,
    }
    Ok(specs
        .iter()
        .zip(args)
        .filter(|(a, _)| a.role == Role::Output)
        .map(|(_, inner)| PyBuffer { inner })
        .collect())
}
