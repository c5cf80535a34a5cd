//! Bytes in and out of buffers for any dtype, and dtype names as numpy and tilecast spell them.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use tilecast_runtime::{Buffer, DType, Device, F8E4M3, F8E5M2, StorageMode};

use crate::errors::IntoPy;

/// (tilecast name, numpy name, module that defines the numpy dtype) for every dtype.
pub const NAMES: [(DType, &str, &str); 9] = [
    (DType::F32, "float32", "numpy"),
    (DType::F16, "float16", "numpy"),
    (DType::BF16, "bfloat16", "ml_dtypes"),
    (DType::I32, "int32", "numpy"),
    (DType::U32, "uint32", "numpy"),
    (DType::I8, "int8", "numpy"),
    (DType::U8, "uint8", "numpy"),
    (DType::F8E4M3, "float8_e4m3fn", "ml_dtypes"),
    (DType::F8E5M2, "float8_e5m2", "ml_dtypes"),
];

/// The dtype called `name` (tilecast's `f32` or numpy's `float32`).
pub fn parse_dtype(name: &str) -> PyResult<DType> {
    NAMES.iter().find(|(d, np, _)| d.name() == name || *np == name).map(|(d, ..)| *d).ok_or_else(
        || {
            PyTypeError::new_err(format!(
                "dtype {name:?} has no tilecast dtype; tilecast holds {}",
                NAMES.iter().map(|(d, np, _)| format!("{d} ({np})")).collect::<Vec<_>>().join(", ")
            ))
        },
    )
}

/// The tilecast dtype of numpy array `arr`'s elements. Arrays in the other byte order are
/// refused, as numpy's DLPack export refuses them: their bytes would be read as native ones.
pub fn array_dtype(arr: &Bound<'_, PyAny>) -> PyResult<DType> {
    let dtype = arr.getattr("dtype")?;
    if !dtype.getattr("isnative")?.extract::<bool>()? {
        let order = if dtype.getattr("byteorder")?.extract::<String>()? == ">" {
            "big-endian"
        } else {
            "little-endian"
        };
        let given: String = dtype.getattr("str")?.extract()?;
        let native: String =
            dtype.call_method1("newbyteorder", ("=",))?.getattr("str")?.extract()?;
        return Err(PyTypeError::new_err(format!(
            "the array has {order} dtype '{given}', and tilecast reads native byte order: pass \
             a.astype('{native}')"
        )));
    }
    parse_dtype(&dtype.getattr("name")?.extract::<String>()?)
}

/// The numpy dtype object for `dtype` (bf16 and fp8 need the `ml_dtypes` package).
pub fn numpy_dtype<'py>(py: Python<'py>, dtype: DType) -> PyResult<Bound<'py, PyAny>> {
    let (_, name, module) = NAMES.iter().find(|(d, ..)| *d == dtype).expect("every dtype");
    let m = py.import(*module).map_err(|e| {
        PyTypeError::new_err(format!("{dtype} as numpy needs the {module} package: {e}"))
    })?;
    py.import("numpy")?.call_method1("dtype", (m.getattr(*name)?,))
}

/// Runs `$body` with `$t` the Rust element type of `$dtype`.
macro_rules! by_dtype {
    ($dtype:expr, $t:ident => $body:expr) => {
        by_dtype!(@match $dtype, $t, $body, F32 f32, F16 half::f16, BF16 half::bf16, I32 i32,
            U32 u32, I8 i8, U8 u8, F8E4M3 F8E4M3, F8E5M2 F8E5M2)
    };
    (@match $dtype:expr, $t:ident, $body:expr, $($variant:ident $ty:ty),*) => {
        match $dtype {
            $(DType::$variant => {
                type $t = $ty;
                $body
            })*
        }
    };
}

/// A new buffer of `dtype` and `shape` in `mode` holding `bytes` (row-major).
pub fn upload_bytes(
    device: &Device,
    mode: StorageMode,
    dtype: DType,
    shape: &[usize],
    bytes: &[u8],
) -> PyResult<Buffer> {
    let buf = device.alloc_in(mode, dtype, shape).py()?;
    by_dtype!(dtype, T => buf.upload::<T>(&bytemuck::pod_collect_to_vec::<u8, T>(bytes))).py()?;
    Ok(buf)
}

/// The buffer's bytes (row-major), after submitted GPU work that uses it.
pub fn download_bytes(buf: &Buffer) -> PyResult<Vec<u8>> {
    by_dtype!(buf.dtype(), T => buf.download::<T>().map(|v| bytemuck::cast_slice::<T, u8>(&v).to_vec())).py()
}
