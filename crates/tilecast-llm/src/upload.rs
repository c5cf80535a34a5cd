//! A checkpoint's tensors on the device: each uploaded once, into a buffer from the caller's
//! pool, straight from the mapped file (a tensor whose bytes are not aligned for its type is
//! copied once to align them). The decoder's weights live here for the model's lifetime.

use std::collections::BTreeMap;

use half::{bf16, f16};
use tilecast_runtime::{Buffer, BufferPool, DType};

use crate::error::{Error, Result};
use crate::weights::{Checkpoint, TensorRef, WeightType};

/// Tensors of a checkpoint, uploaded.
pub struct DeviceWeights {
    tensors: BTreeMap<String, Buffer>,
    bytes: u64,
}

impl DeviceWeights {
    /// Uploads the tensors `names` of `checkpoint` into buffers from `pool`, calling
    /// `progress(bytes_done, bytes_total)` after each (a loading line for the command).
    pub fn upload<'a>(
        checkpoint: &Checkpoint,
        names: impl IntoIterator<Item = &'a str>,
        pool: &BufferPool,
        progress: impl FnMut(u64, u64),
    ) -> Result<DeviceWeights> {
        Self::upload_as(checkpoint, names, pool, false, progress)
    }

    /// [`upload`](Self::upload), each tensor converted to f16 on the way where `to_f16` is set
    /// (the decoder's kernels take f16 weights). A bf16 or f32 value beyond f16's range is an
    /// error naming the tensor, never an infinity.
    pub fn upload_as<'a>(
        checkpoint: &Checkpoint,
        names: impl IntoIterator<Item = &'a str>,
        pool: &BufferPool,
        to_f16: bool,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<DeviceWeights> {
        let mut wanted = Vec::new();
        for name in names {
            let t = checkpoint.get(name).ok_or_else(|| Error::MissingTensor {
                file: checkpoint.dir().to_path_buf(),
                name: name.to_string(),
                expected: "a tensor to upload".into(),
            })?;
            wanted.push((name, t));
        }
        let total: u64 = wanted.iter().map(|(_, t)| t.bytes.len() as u64).sum();
        let mut w = DeviceWeights { tensors: BTreeMap::new(), bytes: 0 };
        for (name, t) in wanted {
            let buffer = upload_one(&t, pool, to_f16).map_err(|e| Error::Device {
                file: t.file.to_path_buf(),
                name: name.to_string(),
                message: e,
            })?;
            w.bytes += t.bytes.len() as u64;
            w.tensors.insert(name.to_string(), buffer);
            progress(w.bytes, total);
        }
        Ok(w)
    }

    /// The buffer of tensor `name`, if it was uploaded.
    pub fn get(&self, name: &str) -> Option<&Buffer> {
        self.tensors.get(name)
    }

    /// Bytes uploaded.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }
}

/// Tensor `t` converted to f16 into `dest` (a buffer or view of as many f16 elements).
pub(crate) fn upload_f16_into(t: &TensorRef<'_>, dest: &Buffer) -> std::result::Result<(), String> {
    let values: std::borrow::Cow<'_, [f16]> = match t.dtype {
        WeightType::F16 => elements::<f16>(t.bytes),
        WeightType::BF16 => std::borrow::Cow::Owned(narrow_f16(
            &elements::<bf16>(t.bytes).iter().map(|v| v.to_f32()).collect::<Vec<_>>(),
        )?),
        WeightType::F32 => std::borrow::Cow::Owned(narrow_f16(&elements::<f32>(t.bytes))?),
        WeightType::U32 => return Err("it holds packed u32 levels, not floats".into()),
    };
    dest.upload(&values).map_err(|e| e.to_string())
}

/// One tensor into a new buffer of its type (or f16, where `to_f16` and it holds floats) and
/// shape.
fn upload_one(
    t: &TensorRef<'_>,
    pool: &BufferPool,
    to_f16: bool,
) -> std::result::Result<Buffer, String> {
    if to_f16 && matches!(t.dtype, WeightType::BF16 | WeightType::F32) {
        let out = narrow_f16(&floats(t)?)?;
        let buffer = pool.alloc(DType::F16, t.shape).map_err(|e| e.to_string())?;
        buffer.upload(&out).map_err(|e| e.to_string())?;
        return Ok(buffer);
    }
    upload_raw(t, pool).map_err(|e| e.to_string())
}

/// Tensor `t`'s values widened to f32 (F16, BF16 or F32; packed levels are an error).
pub(crate) fn floats(t: &TensorRef<'_>) -> std::result::Result<Vec<f32>, String> {
    Ok(match t.dtype {
        WeightType::F16 => elements::<f16>(t.bytes).iter().map(|v| v.to_f32()).collect(),
        WeightType::BF16 => elements::<bf16>(t.bytes).iter().map(|v| v.to_f32()).collect(),
        WeightType::F32 => elements::<f32>(t.bytes).into_owned(),
        WeightType::U32 => return Err("it holds packed u32 levels, not floats".into()),
    })
}

/// `values` as f16, or the first that f16 cannot hold.
pub(crate) fn narrow_f16(values: &[f32]) -> std::result::Result<Vec<f16>, String> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            let h = f16::from_f32(v);
            if h.is_infinite() && v.is_finite() {
                Err(format!(
                    "element {i} = {v} is beyond f16's range (65504); the decoder runs f16"
                ))
            } else {
                Ok(h)
            }
        })
        .collect()
}

fn upload_raw(t: &TensorRef<'_>, pool: &BufferPool) -> tilecast_runtime::Result<Buffer> {
    let dtype = match t.dtype {
        WeightType::F16 => DType::F16,
        WeightType::BF16 => DType::BF16,
        WeightType::F32 => DType::F32,
        WeightType::U32 => DType::U32,
    };
    let buffer = pool.alloc(dtype, t.shape)?;
    match t.dtype {
        WeightType::F16 => buffer.upload(&elements::<f16>(t.bytes))?,
        WeightType::BF16 => buffer.upload(&elements::<bf16>(t.bytes))?,
        WeightType::F32 => buffer.upload(&elements::<f32>(t.bytes))?,
        WeightType::U32 => buffer.upload(&elements::<u32>(t.bytes))?,
    }
    Ok(buffer)
}

/// `bytes` as elements of `T`: borrowed where aligned, else copied once.
pub(crate) fn elements<T: bytemuck::Pod>(bytes: &[u8]) -> std::borrow::Cow<'_, [T]> {
    match bytemuck::try_cast_slice(bytes) {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(bytemuck::pod_collect_to_vec(bytes)),
    }
}
