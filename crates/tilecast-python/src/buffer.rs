//! `tilecast.Buffer` and `tilecast.from_dlpack`: typed GPU buffers, numpy conversion, and the
//! DLPack protocol (`__dlpack__`, `__dlpack_device__`).

use pyo3::exceptions::{PyBufferError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyInt, PyTuple};
use tilecast_runtime::dlpack::ffi::device_type;
use tilecast_runtime::{Buffer, CopyPolicy, ExportOptions};

use crate::capsule;
use crate::convert::{array_dtype, download_bytes, numpy_dtype, parse_dtype, upload_bytes};
use crate::device::shared_device;
use crate::errors::IntoPy;

/// A typed GPU buffer: a dtype and a shape over one allocation in a storage mode.
#[pyclass(frozen, module = "tilecast", name = "Buffer")]
pub struct PyBuffer {
    pub inner: Buffer,
}

fn copy_policy(copy: Option<bool>) -> CopyPolicy {
    match copy {
        Some(false) => CopyPolicy::Never,
        None => CopyPolicy::IfNeeded,
        Some(true) => CopyPolicy::Always,
    }
}

fn host_device(t: i32) -> bool {
    matches!(t, device_type::CPU | device_type::CUDA_HOST | device_type::ROCM_HOST)
}

fn device_name(t: i32) -> String {
    match t {
        device_type::CUDA => "kDLCUDA".into(),
        device_type::ROCM => "kDLROCm".into(),
        device_type::METAL => "kDLMetal".into(),
        device_type::VULKAN => "kDLVulkan".into(),
        device_type::CUDA_MANAGED => "kDLCUDAManaged".into(),
        other => format!("DLPack device type {other}"),
    }
}

#[pymethods]
impl PyBuffer {
    /// A zero-filled buffer of `dtype` ('f32', 'float32', 'bf16', ...) and `shape`, in
    /// `storage_mode` ('private', 'shared', 'managed'; default: the device's default).
    #[new]
    #[pyo3(signature = (dtype, shape, storage_mode = None))]
    fn new(dtype: &str, shape: Vec<usize>, storage_mode: Option<&str>) -> PyResult<Self> {
        let device = shared_device()?;
        let mode = crate::device::storage_mode(&device, storage_mode)?;
        Ok(PyBuffer { inner: device.alloc_in(mode, parse_dtype(dtype)?, &shape).py()? })
    }

    /// A new buffer holding a copy of a numpy array (any layout; bf16 and fp8 through ml_dtypes).
    /// Arrays in the other byte order raise TypeError.
    #[staticmethod]
    #[pyo3(signature = (array, storage_mode = None))]
    fn from_numpy(array: &Bound<'_, PyAny>, storage_mode: Option<&str>) -> PyResult<Self> {
        let py = array.py();
        let device = shared_device()?;
        let mode = crate::device::storage_mode(&device, storage_mode)?;
        let np = py.import("numpy")?;
        // ascontiguousarray makes a 0-d array 1-d: the shape is the original's.
        let shape: Vec<usize> = np.call_method1("shape", (array,))?.extract()?;
        let arr = np.call_method1("ascontiguousarray", (array,))?;
        let dtype = array_dtype(&arr)?;
        let bytes = arr.call_method0("tobytes")?;
        let bytes = bytes.cast::<PyBytes>()?.as_bytes();
        Ok(PyBuffer { inner: upload_bytes(&device, mode, dtype, &shape, bytes)? })
    }

    /// A new numpy array with a copy of the elements (waits for submitted GPU work that uses
    /// the buffer; a Managed buffer is synchronized first).
    fn numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let inner = self.inner.clone();
        let bytes = py.detach(|| download_bytes(&inner))?;
        let arr = PyByteArray::new(py, &bytes);
        let np = py.import("numpy")?;
        let flat = np.call_method1("frombuffer", (arr, numpy_dtype(py, self.inner.dtype())?))?;
        flat.call_method1("reshape", (PyTuple::new(py, self.inner.shape())?,))
    }

    /// The element type ('f32', 'f16', 'bf16', 'i32', 'u32', 'i8', 'u8', 'f8e4m3', 'f8e5m2').
    #[getter]
    fn dtype(&self) -> &'static str {
        self.inner.dtype().name()
    }

    /// The shape.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.inner.shape())
    }

    /// 'private', 'shared' or 'managed'.
    #[getter]
    fn storage_mode(&self) -> &'static str {
        self.inner.storage_mode().name()
    }

    /// Bytes the buffer covers.
    #[getter]
    fn nbytes(&self) -> u64 {
        self.inner.byte_len()
    }

    /// Live zero-copy DLPack exports of the allocation; the GPU may not use it while > 0.
    #[getter]
    fn dlpack_exports(&self) -> usize {
        self.inner.dlpack_exports()
    }

    /// The same elements under another shape (shares the allocation); one entry may be -1,
    /// the length that makes the element counts agree (`reshape(-1)` flattens).
    #[pyo3(signature = (*shape))]
    fn reshape(&self, shape: &Bound<'_, PyTuple>) -> PyResult<Self> {
        // reshape(3, 4), reshape((3, 4)) and reshape([3, 4]) all work, as numpy's.
        let dims: Vec<i64> = if shape.len() == 1 && !shape.get_item(0)?.is_instance_of::<PyInt>() {
            shape.get_item(0)?.extract()?
        } else {
            shape.extract()?
        };
        let known: i64 = dims.iter().filter(|&&d| d != -1).product();
        let wild = dims.iter().filter(|&&d| d == -1).count();
        let len = self.inner.len() as i64;
        if wild > 1 || dims.iter().any(|&d| d < -1) {
            return Err(PyValueError::new_err(format!(
                "reshape {dims:?}: dimensions are whole numbers, with at most one -1"
            )));
        }
        let dims: Vec<usize> = if wild == 1 {
            if known == 0 || len % known != 0 {
                return Err(PyValueError::new_err(format!(
                    "cannot reshape {} elements of shape {:?} into {dims:?}",
                    len,
                    self.inner.shape()
                )));
            }
            dims.iter()
                .map(|&d| if d == -1 { (len / known) as usize } else { d as usize })
                .collect()
        } else {
            dims.iter().map(|&d| d as usize).collect()
        };
        Ok(PyBuffer { inner: self.inner.reshape(&dims).py()? })
    }

    /// Number of dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        self.inner.shape().len()
    }

    /// Number of elements.
    #[getter]
    fn size(&self) -> usize {
        self.inner.len()
    }

    /// Length of the first dimension, as numpy's `len`.
    fn __len__(&self) -> PyResult<usize> {
        self.inner
            .shape()
            .first()
            .copied()
            .ok_or_else(|| PyTypeError::new_err("len() of a 0-d buffer"))
    }

    /// numpy's conversion protocol: `np.asarray(buffer)` is a copy of the elements (as
    /// `numpy()`), in `dtype` when given. `copy=False` raises: the elements always copy.
    #[pyo3(signature = (dtype = None, copy = None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if copy == Some(false) {
            return Err(PyValueError::new_err(
                "a tilecast Buffer becomes a numpy array by a copy; np.asarray(buffer, \
                 copy=False) cannot avoid it (np.from_dlpack(buffer) is zero-copy for Shared \
                 and Managed buffers)",
            ));
        }
        let arr = self.numpy(py)?;
        match dtype {
            Some(d) if !d.is_none() => arr.call_method1("astype", (d,)),
            _ => Ok(arr),
        }
    }

    /// Managed buffers: brings GPU results into the host copy (which zero-copy exports show).
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        let inner = self.inner.clone();
        py.detach(|| inner.synchronize()).py()
    }

    /// Managed buffers: sends host-copy writes (e.g. made through a DLPack export) to the GPU.
    fn did_modify(&self) -> PyResult<()> {
        self.inner.did_modify_range(0..self.inner.byte_len()).py()
    }

    /// DLPack export as host memory. Shared and Managed buffers are zero-copy (the GPU may not
    /// use the buffer until the consumer releases it); Private buffers are copied (IS_COPIED),
    /// which `copy=False` refuses with BufferError. A consumer asking for no version or one
    /// below 1.0 gets a legacy 'dltensor' capsule. Never synchronizes: commit stream work first.
    #[pyo3(signature = (*, stream = None, max_version = None, dl_device = None, copy = None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<&Bound<'py, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Some(s) = stream.filter(|s| !s.is_none()) {
            return Err(PyValueError::new_err(format!(
                "stream={s} was given, but tilecast exports host memory (kDLCPU), which has no \
                 streams: pass stream=None"
            )));
        }
        if let Some((t, id)) = dl_device
            && (t, id) != (device_type::CPU, 0)
        {
            return Err(PyBufferError::new_err(format!(
                "dl_device=({t}, {id}) was asked for, but tilecast exports host memory only \
                 (kDLCPU, 0)"
            )));
        }
        let legacy = max_version.is_none_or(|(major, _)| major < 1);
        let options = ExportOptions { copy: copy_policy(copy), read_only: false };
        let inner = self.inner.clone();
        let tensor = py.detach(|| inner.export_dlpack(options)).py()?;
        capsule::into_capsule(py, tensor, legacy)
    }

    /// (kDLCPU, 0): exports are host memory.
    fn __dlpack_device__(&self) -> (i32, i32) {
        (device_type::CPU, 0)
    }

    fn __repr__(&self) -> String {
        format!(
            "Buffer(dtype={:?}, shape={:?}, storage_mode={:?})",
            self.inner.dtype().name(),
            self.inner.shape(),
            self.inner.storage_mode().name()
        )
    }
}

/// Calls `obj.__dlpack__` with the keywords the protocol defines, falling back to fewer for
/// producers that predate them.
fn request_capsule<'py>(
    obj: &Bound<'py, PyAny>,
    cross_device_copy: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let kw = PyDict::new(py);
    kw.set_item("max_version", (1u32, 1u32))?;
    if cross_device_copy {
        kw.set_item("dl_device", (device_type::CPU, 0))?;
        kw.set_item("copy", true)?;
        return obj.call_method("__dlpack__", (), Some(&kw)).map_err(|e| {
            PyBufferError::new_err(format!(
                "the producer could not copy its tensor to host memory (dl_device=(1, 0), \
                 copy=True): {e}"
            ))
        });
    }
    match obj.call_method("__dlpack__", (), Some(&kw)) {
        Err(e) if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py) => {
            obj.call_method0("__dlpack__")
        }
        other => other,
    }
}

/// A tilecast buffer from any DLPack object (or capsule). A tilecast Buffer comes back as is
/// (zero-copy; `copy=True` duplicates it). Anything else is host memory copied into a new
/// buffer in `storage_mode`, so `copy=False` raises BufferError. Device memory (a CUDA tensor)
/// is never read as host memory: it is an error, unless `copy=True` lets the producer copy it
/// to the host first.
#[pyfunction]
#[pyo3(signature = (obj, copy = None, storage_mode = None))]
pub fn from_dlpack<'py>(
    obj: &Bound<'py, PyAny>,
    copy: Option<bool>,
    storage_mode: Option<&str>,
) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let device = shared_device()?;
    let mode = crate::device::storage_mode(&device, storage_mode)?;
    if let Ok(b) = obj.cast::<PyBuffer>() {
        let b = b.get();
        if copy != Some(true) {
            return Ok(obj.clone());
        }
        let bytes = download_bytes(&b.inner)?;
        let inner = upload_bytes(&device, mode, b.inner.dtype(), b.inner.shape(), &bytes)?;
        return Ok(Bound::new(py, PyBuffer { inner })?.into_any());
    }
    if copy == Some(false) {
        return Err(PyBufferError::new_err(
            "tilecast.from_dlpack(copy=False): importing memory from another framework into a \
             tilecast buffer always copies (a GPU buffer cannot wrap host memory), and \
             copy=False refuses copies; zero-copy works the other way: export a Shared buffer \
             (e.g. numpy.from_dlpack(buffer))",
        ));
    }
    let capsule = if capsule::is_capsule(obj) {
        obj.clone()
    } else {
        let mut cross = false;
        if obj.hasattr("__dlpack_device__")? {
            let (t, id): (i32, i32) = obj.call_method0("__dlpack_device__")?.extract()?;
            if !host_device(t) {
                if copy != Some(true) {
                    return Err(PyBufferError::new_err(format!(
                        "tilecast.from_dlpack: the tensor lives on {} device {id}, and tilecast \
                         imports host memory only (it never reads device memory as host \
                         memory); pass copy=True to let the producer copy it to the host, or \
                         move it to the CPU first",
                        device_name(t)
                    )));
                }
                cross = true;
            }
        }
        request_capsule(obj, cross)?
    };
    // The producer's deleter may need the GIL: the import (a host copy) keeps it.
    let tensor = capsule::consume(&capsule)?;
    let inner = device.import_dlpack(&tensor, mode).py()?;
    drop(tensor);
    Ok(Bound::new(py, PyBuffer { inner })?.into_any())
}
