//! Quantized weight formats from Python: `quantize` packs f32/f16/bf16 weights into a format's
//! bytes on the CPU (`tilecast_kernels::quant`), `dequantize` unpacks them, both as tilecast
//! buffers (so any DLPack tensor goes in, and numpy gets the bytes out).

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use tilecast_kernels::harness::download_f32;
use tilecast_kernels::quant::{self, QuantFormat};
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

/// `w [N, K]` (f32, f16 or bf16) packed as `format` (`q8_0`, `q4_0`, `q4_k`): a u8 buffer of
/// `[N, row bytes]`, each row's blocks in order, byte for byte as ggml lays them out.
#[pyfunction]
pub fn quantize(w: PyRef<'_, PyBuffer>, format_name: &str) -> PyResult<PyBuffer> {
    let f = format(format_name)?;
    let b = &w.inner;
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
    Ok(PyBuffer { inner: device.buffer_from_slice(&bytes, &[n, row]).py()? })
}

/// Packed `q [N, row bytes]` (u8) of rows of `k` values in `format`, as f32 `[N, k]`.
#[pyfunction]
pub fn dequantize(q: PyRef<'_, PyBuffer>, format_name: &str, k: usize) -> PyResult<PyBuffer> {
    let f = format(format_name)?;
    let b = &q.inner;
    if b.dtype() != DType::U8 {
        return Err(PyTypeError::new_err(format!(
            "dequantize takes the u8 bytes quantize made; got {}",
            b.dtype()
        )));
    }
    let bytes: Vec<u8> = b.download().py()?;
    let values =
        quant::dequantize(f, &bytes, k).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let n = values.len() / k;
    let device = shared_device()?;
    Ok(PyBuffer { inner: device.buffer_from_slice(&values, &[n, k]).py()? })
}
