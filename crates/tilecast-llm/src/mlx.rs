//! MLX-quantized matrices of a Hugging Face checkpoint (`mlx-lm`'s exports): each uploaded as
//! stored, its packed u32 levels and its scales and biases (as f16), for `qgemv` and `qgemm` to
//! read in place; an embedding table is dequantized once on the host for the row gather.

use half::f16;
use tilecast_kernels::quant::mlx::{self, Affine};
use tilecast_runtime::{BufferPool, DType};

use crate::config::MlxQuantization;
use crate::error::{Error, Result};
use crate::model::{Matrix, MlxAffine};
use crate::upload::{elements, floats, narrow_f16, upload_f16_into};
use crate::weights::{Checkpoint, TensorRef, WeightType, mlx_part};

/// The three tensors of quantized matrix `name` (`<base>.weight`): levels, scales, biases.
fn parts<'a>(c: &'a Checkpoint, name: &str) -> Result<[(String, TensorRef<'a>); 3]> {
    let get = |n: String| {
        c.get(&n).map(|t| (n.clone(), t)).ok_or_else(|| Error::MissingTensor {
            file: c.dir().to_path_buf(),
            name: n,
            expected: "a part of an MLX-quantized matrix".into(),
        })
    };
    Ok([get(name.to_string())?, get(mlx_part(name, "scales"))?, get(mlx_part(name, "biases"))?])
}

/// Bytes of quantized matrix `name`'s three tensors.
pub fn bytes(c: &Checkpoint, name: &str) -> u64 {
    ["weight", "scales", "biases"]
        .iter()
        .map(|p| c.get(&mlx_part(name, p)).map_or(0, |t| t.bytes.len() as u64))
        .sum()
}

/// Uploads quantized matrix `name` (`[out, cols]` as the config implies, checked by
/// [`Checkpoint::check_llama`]) from `pool`: the levels as stored, scales and biases as f16.
pub fn upload_matrix(
    c: &Checkpoint,
    q: MlxQuantization,
    name: &str,
    [out, cols]: [usize; 2],
    pool: &BufferPool,
) -> Result<Matrix> {
    let [(wn, w), (sn, s), (bn, b)] = parts(c, name)?;
    let device_err = |n: &str, t: &TensorRef<'_>, message: String| Error::Device {
        file: t.file.to_path_buf(),
        name: n.to_string(),
        message,
    };
    let levels = pool
        .alloc(DType::U32, &q.packed_shape(out, cols))
        .map_err(|e| device_err(&wn, &w, e.to_string()))?;
    // Straight from the mapped file where its words are aligned.
    levels.upload(&elements::<u32>(w.bytes)).map_err(|e| device_err(&wn, &w, e.to_string()))?;
    let f16_part = |n: &str, t: &TensorRef<'_>| -> Result<tilecast_runtime::Buffer> {
        let buffer = pool
            .alloc(DType::F16, &q.group_shape(out, cols))
            .map_err(|e| device_err(n, t, e.to_string()))?;
        upload_f16_into(t, &buffer).map_err(|e| device_err(n, t, e))?;
        Ok(buffer)
    };
    Ok(Matrix {
        buffer: levels,
        format: Some(q.format()),
        affine: Some(MlxAffine {
            scales: f16_part(&sn, &s)?,
            biases: f16_part(&bn, &b)?,
            group: q.group,
        }),
    })
}

/// Quantized matrix `name` (`[out, cols]`) dequantized on the host to f16, as MLX computes
/// `scale * q + bias` in the checkpoint's float type.
pub fn dequantized(
    c: &Checkpoint,
    q: MlxQuantization,
    name: &str,
    [out, cols]: [usize; 2],
) -> Result<Vec<f16>> {
    let [(wn, w), (sn, s), (bn, b)] = parts(c, name)?;
    let format_err = |n: &str, message: String| Error::Format {
        file: w.file.to_path_buf(),
        message: format!("tensor {n}: {message}"),
    };
    let dtype = match s.dtype {
        WeightType::BF16 => tilecast_lang::DType::BF16,
        WeightType::F16 => tilecast_lang::DType::F16,
        _ => tilecast_lang::DType::F32,
    };
    let affine = Affine {
        words: bytemuck::pod_collect_to_vec(w.bytes),
        scales: floats(&s).map_err(|m| format_err(&sn, m))?,
        biases: floats(&b).map_err(|m| format_err(&bn, m))?,
    };
    let values = mlx::dequantize(&affine, cols, q.bits, q.group, dtype)
        .map_err(|e| format_err(&wn, e.to_string()))?;
    debug_assert_eq!(values.len(), out * cols);
    narrow_f16(&values).map_err(|m| format_err(&wn, m))
}
