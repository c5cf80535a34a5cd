//! Quantized weight formats from Python: `quantize` packs f32/f16/bf16 weights into a format's
//! bytes on the CPU (`tilecast_kernels::quant`), `dequantize` unpacks them, both as tilecast
//! buffers (so any DLPack tensor goes in, and numpy gets the bytes out). GGUF formats are one
//! u8 buffer; MLX's affine ones (`mlx4`, `mlx8`) are u32 words, scales and biases.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use tilecast_kernels::harness::download_f32;
use tilecast_kernels::quant::{self, QuantFormat, mlx};
use tilecast_lang::DType;

use crate::buffer::PyBuffer;
use crate::device::shared_device;
use crate::errors::IntoPy;

fn format(name: &str) -> PyResult<QuantFormat> {
    QuantFormat::parse(name).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Rows and row length of a weight or packed buffer: the last axis is the row.
fn rows_of(shape: &[usize]) -> PyResult<(usize, usize)> {
    match shape {
        [k] => Ok((1, *k)),
        [n, k] => Ok((*n, *k)),
        s => Err(PyValueError::new_err(format!("expected a 1-D or 2-D buffer; got shape {s:?}"))),
    }
}

/// MLX's bits for `mlx4` / `mlx8`, else `None`.
fn mlx_bits(name: &str) -> Option<u32> {
    match name.to_ascii_lowercase().as_str() {
        "mlx4" => Some(4),
        "mlx8" => Some(8),
        _ => None,
    }
}

/// A buffer of `values` (widened) stored as `dtype` (f32, f16 or bf16).
fn typed(values: &[f32], dtype: DType, shape: &[usize]) -> PyResult<PyBuffer> {
    let device = shared_device()?;
    let inner = match dtype {
        DType::F16 => {
            let v: Vec<half::f16> = values.iter().map(|&x| half::f16::from_f32(x)).collect();
            device.buffer_from_slice(&v, shape).py()?
        }
        DType::BF16 => {
            let v: Vec<half::bf16> = values.iter().map(|&x| half::bf16::from_f32(x)).collect();
            device.buffer_from_slice(&v, shape).py()?
        }
        _ => device.buffer_from_slice(values, shape).py()?,
    };
    Ok(PyBuffer { inner })
}

/// `w [N, K]` (f32, f16 or bf16) packed as `format`: for `q8_0`, `q4_0`, `q4_k` a u8 buffer
/// of `[N, row bytes]`, each row's blocks in order, byte for byte as ggml lays them out; for
/// `mlx4`, `mlx8` (groups of `group` along K) a tuple of u32 words `[N, K * bits / 32]` and
/// scales and biases `[N, K / group]` in `w`'s type, as `mx.quantize` packs them.
/// `group` is MLX's (default 64); a GGUF format's blocks are fixed, so a group is an error.
#[pyfunction]
#[pyo3(signature = (w, format_name, group = None))]
pub fn quantize(
    py: Python<'_>,
    w: PyRef<'_, PyBuffer>,
    format_name: &str,
    group: Option<usize>,
) -> PyResult<Py<PyAny>> {
    let b = &w.inner;
    if let Some(bits) = mlx_bits(format_name) {
        let group = group.unwrap_or(64);
        let (n, k) = rows_of(b.shape())?;
        let values = download_f32(b).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let a = mlx::quantize(&values, k, bits, group, b.dtype())
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let device = shared_device()?;
        let words = PyBuffer {
            inner: device.buffer_from_slice(&a.words, &[n, k * bits as usize / 32]).py()?,
        };
        let scales = typed(&a.scales, b.dtype(), &[n, k / group])?;
        let biases = typed(&a.biases, b.dtype(), &[n, k / group])?;
        return Ok((words, scales, biases).into_pyobject(py)?.into_any().unbind());
    }
    let f = format(format_name)?;
    if let Some(g) = group {
        return Err(PyValueError::new_err(format!(
            "{format_name} has fixed blocks ({} values); group={g} is for mlx4 and mlx8",
            f.block_len()
        )));
    }
    if !matches!(b.dtype(), DType::F32 | DType::F16 | DType::BF16) {
        return Err(PyTypeError::new_err(format!(
            "quantize takes f32, f16 or bf16 weights; got {}",
            b.dtype()
        )));
    }
    let (n, k) = rows_of(b.shape())?;
    let values = download_f32(b).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let bytes = quant::quantize(f, &values, k).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let row = bytes.len() / n.max(1);
    let device = shared_device()?;
    let out = PyBuffer { inner: device.buffer_from_slice(&bytes, &[n, row]).py()? };
    Ok(out.into_pyobject(py)?.into_any().unbind())
}

/// Packed `q` in `format` as `[N, K]`: f32 for GGUF formats (`q` the u8 bytes
/// `[N, row bytes]`), the scales' type for MLX's (`q` the u32 words, with `scales` and
/// `biases`). K and MLX's group follow from the shapes; a `k` or `group` given must agree.
#[pyfunction]
#[pyo3(signature = (q, format_name, k = None, group = None, scales = None, biases = None))]
pub fn dequantize(
    q: PyRef<'_, PyBuffer>,
    format_name: &str,
    k: Option<usize>,
    group: Option<usize>,
    scales: Option<PyRef<'_, PyBuffer>>,
    biases: Option<PyRef<'_, PyBuffer>>,
) -> PyResult<PyBuffer> {
    let agree = |what: &str, given: Option<usize>, from_shape: usize| -> PyResult<usize> {
        match given {
            Some(g) if g != from_shape => Err(PyValueError::new_err(format!(
                "dequantize {format_name}: {what}={g} disagrees with the packed shapes, which \
                 give {what}={from_shape}"
            ))),
            _ => Ok(from_shape),
        }
    };
    if let Some(bits) = mlx_bits(format_name) {
        let (Some(s), Some(bi)) = (scales, biases) else {
            return Err(PyValueError::new_err(format!(
                "{format_name} takes the scales and biases quantize returned"
            )));
        };
        let (_, words) = rows_of(q.inner.shape())?;
        let (_, groups) = rows_of(s.inner.shape())?;
        let k = agree("k", k, words * 32 / bits as usize)?;
        if groups == 0 || k % groups != 0 {
            return Err(PyValueError::new_err(format!(
                "dequantize {format_name}: {groups} scales per row do not divide K = {k}"
            )));
        }
        let group = agree("group", group, k / groups)?;
        let dtype = s.inner.dtype();
        let read =
            |b: &PyBuffer| download_f32(&b.inner).map_err(|e| PyValueError::new_err(e.to_string()));
        let a = mlx::Affine {
            words: q.inner.download::<u32>().py()?,
            scales: read(&s)?,
            biases: read(&bi)?,
        };
        let values = mlx::dequantize(&a, k, bits, group, dtype)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        return typed(&values, dtype, &[values.len() / k, k]);
    }
    let f = format(format_name)?;
    let b = &q.inner;
    if b.dtype() != DType::U8 {
        return Err(PyTypeError::new_err(format!(
            "dequantize takes the u8 bytes quantize made; got {}",
            b.dtype()
        )));
    }
    if let Some(g) = group {
        return Err(PyValueError::new_err(format!(
            "{format_name} has fixed blocks; group={g} is for mlx4 and mlx8"
        )));
    }
    let (_, row) = rows_of(b.shape())?;
    if row % f.block_bytes() != 0 {
        return Err(PyValueError::new_err(format!(
            "dequantize {format_name}: rows of {row} bytes are not whole {}-byte blocks",
            f.block_bytes()
        )));
    }
    let k = agree("k", k, row / f.block_bytes() * f.block_len())?;
    let bytes: Vec<u8> = b.download().py()?;
    let values =
        quant::dequantize(f, &bytes, k).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let n = values.len() / k;
    let device = shared_device()?;
    Ok(PyBuffer { inner: device.buffer_from_slice(&values, &[n, k]).py()? })
}
