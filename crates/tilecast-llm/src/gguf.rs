//! GGUF model files, as llama.cpp writes them: the header, metadata and tensor table read by
//! `gguf-rs-lib` (which checks every descriptor against the file before any data is touched),
//! the tensor data memory-mapped. Quantized matrices (`Q4_0`, `Q8_0`, `Q4_K`) go to the device
//! byte for byte and feed `qgemv`/`qgemm` in place; f32 and f16 tensors become f16.
//!
//! llama.cpp's converter permutes each head's rows of `attn_q` and `attn_k` so that RoPE's
//! pairs are adjacent (`x[2i], x[2i + 1]`), where Hugging Face pairs `x[i]` with
//! `x[i + D/2]`. Queries and keys are permuted alike, so their dot products are unchanged: a
//! GGUF model runs the interleaved `rope` kernel on the rows as stored, with no repacking.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::BufReader;
use std::path::{Path, PathBuf};

use gguf_rs_lib::format::metadata::{Metadata, MetadataValue};
use gguf_rs_lib::prelude::{GGUFError, GGUFFileReader, GGUFTensorType};
use half::f16;
use memmap2::Mmap;
use tilecast_kernels::qlinear::WeightFormat;
use tilecast_kernels::quant::dequantize;
use tilecast_runtime::{Buffer, BufferPool, DType};

use crate::config::LlamaConfig;
use crate::error::{Error, Result};
use crate::model::Matrix;
use crate::upload::narrow_f16;

/// One tensor of the file: its encoding, its row-major shape (outermost first, the reverse of
/// GGUF's `ne`) and where its bytes lie in the data section.
#[derive(Clone, Debug)]
pub struct GgufTensor {
    /// The tensor's name (`blk.0.attn_q.weight`).
    pub name: String,
    /// Its encoding as the file declares it.
    pub kind: GGUFTensorType,
    /// Row-major shape: `[rows, columns]` for a matrix.
    pub shape: Vec<usize>,
    offset: usize,
    len: usize,
}

/// How tilecast-llm reads a tensor's encoding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    F32,
    F16,
    Quantized(WeightFormat),
}

/// A GGUF file, open and mapped.
pub struct GgufFile {
    path: PathBuf,
    map: Mmap,
    data_offset: usize,
    metadata: Metadata,
    tensors: BTreeMap<String, GgufTensor>,
}

impl GgufFile {
    /// Opens `path`: reads and checks the header, metadata and tensor table, and maps the file.
    pub fn open(path: &Path) -> Result<GgufFile> {
        let io = |source| Error::Io { path: path.to_path_buf(), source };
        let file = File::open(path).map_err(io)?;
        let format = |message: String| Error::Format { file: path.to_path_buf(), message };
        let reader = GGUFFileReader::new(BufReader::new(&file)).map_err(|e| match e {
            GGUFError::UnexpectedEof => format(
                "the file ends before the tensor data its header describes: it is truncated".into(),
            ),
            e => format(format!("not a readable GGUF file: {e}")),
        })?;
        let data_offset = usize::try_from(reader.tensor_data_offset())
            .map_err(|_| format("the tensor data starts past this platform's addresses".into()))?;
        let mut tensors = BTreeMap::new();
        for info in reader.tensor_infos() {
            let shape: Vec<usize> = info.shape().dims().iter().rev().map(|&d| d as usize).collect();
            let len = info
                .checked_expected_data_size()
                .map_err(|e| format(format!("tensor {}: {e}", info.name())))?
                as usize;
            tensors.insert(
                info.name().to_string(),
                GgufTensor {
                    name: info.name().to_string(),
                    kind: info.tensor_type(),
                    shape,
                    offset: info.data_offset() as usize,
                    len,
                },
            );
        }
        let metadata = reader.metadata().clone();
        // SAFETY: the file is opened read-only and mapped private; tilecast-llm reads the map
        // only while loading, and a file truncated under it is the caller's error (as for any
        // memory-mapped model loader: llama.cpp, candle, safetensors).
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        let g = GgufFile { path: path.to_path_buf(), map, data_offset, metadata, tensors };
        for t in g.tensors.values() {
            if g.data_offset + t.offset + t.len > g.map.len() {
                return Err(g.format(format!(
                    "tensor {} ends at byte {} of a {}-byte file: the file is truncated",
                    t.name,
                    g.data_offset + t.offset + t.len,
                    g.map.len()
                )));
            }
        }
        Ok(g)
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Tensor `name`, if the file has it.
    pub fn get(&self, name: &str) -> Option<&GgufTensor> {
        self.tensors.get(name)
    }

    /// Tensor `name`'s bytes.
    pub fn bytes(&self, t: &GgufTensor) -> &[u8] {
        let start = self.data_offset + t.offset;
        &self.map[start..start + t.len]
    }

    /// The Llama config the metadata describes (`general.architecture = llama`, the `llama.*`
    /// keys), with RoPE's per-pair frequency divisors from `rope_freqs.weight` where present
    /// (how llama.cpp stores Llama 3's scaling).
    pub fn config(&self) -> Result<LlamaConfig> {
        let arch = self.metadata.get_string("general.architecture").unwrap_or("(none)");
        if arch != "llama" {
            return Err(Error::Unsupported {
                file: self.path.clone(),
                message: format!(
                    "general.architecture is {arch:?}: tilecast-llm runs \"llama\" models"
                ),
            });
        }
        let int = |key: &str| -> Result<Option<usize>> {
            match self.metadata.get(&format!("llama.{key}")) {
                None => Ok(None),
                Some(v) => match v.as_u64().or(v.as_i64().and_then(|i| u64::try_from(i).ok())) {
                    Some(n) if n > 0 => Ok(Some(n as usize)),
                    _ => Err(self.config_error(format!(
                        "llama.{key} is {}; expected a positive integer",
                        describe(v)
                    ))),
                },
            }
        };
        let need = |key: &str| -> Result<usize> {
            int(key)?.ok_or_else(|| self.config_error(format!("llama.{key} is missing")))
        };
        let float = |key: &str, default: f64| -> Result<f64> {
            match self.metadata.get(&format!("llama.{key}")) {
                None => Ok(default),
                Some(v) => v.as_f64().filter(|x| *x > 0.0).ok_or_else(|| {
                    self.config_error(format!(
                        "llama.{key} is {}; expected a positive number",
                        describe(v)
                    ))
                }),
            }
        };
        let hidden_size = need("embedding_length")?;
        let num_heads = need("attention.head_count")?;
        let num_kv_heads = int("attention.head_count_kv")?.unwrap_or(num_heads);
        if num_heads % num_kv_heads != 0 {
            return Err(self.config_error(format!(
                "llama.attention.head_count {num_heads} is not a multiple of head_count_kv {num_kv_heads}"
            )));
        }
        let head_dim = match int("attention.key_length")? {
            Some(d) => d,
            None if hidden_size % num_heads == 0 => hidden_size / num_heads,
            None => {
                return Err(self.config_error(format!(
                    "llama.embedding_length {hidden_size} is not a multiple of head_count {num_heads}"
                )));
            }
        };
        if head_dim % 2 != 0 {
            return Err(
                self.config_error(format!("head size {head_dim} is odd; RoPE rotates pairs"))
            );
        }
        if let Some(r) = int("rope.dimension_count")?
            && r != head_dim
        {
            return Err(self.unsupported(format!(
                "llama.rope.dimension_count {r} rotates part of a {head_dim}-wide head; tilecast-llm rotates whole heads"
            )));
        }
        if let Some(kind) = self.metadata.get_string("llama.rope.scaling.type")
            && kind != "none"
        {
            return Err(self.unsupported(format!(
                "llama.rope.scaling.type {kind:?}: only Llama 3's scaling (the rope_freqs tensor) is supported"
            )));
        }
        let vocab_size = match int("vocab_size")? {
            Some(v) => v,
            None => self.tensor("token_embd.weight", "the embedding table")?.shape[0],
        };
        let rope_freq_factors = match self.get("rope_freqs.weight") {
            None => None,
            Some(t) => {
                let f = self.floats(t, &[head_dim / 2])?;
                if let Some(bad) = f.iter().find(|x| !(**x > 0.0 && x.is_finite())) {
                    return Err(self.format(format!(
                        "tensor rope_freqs.weight holds {bad}; frequency divisors must be positive"
                    )));
                }
                Some(f.into_iter().map(f64::from).collect())
            }
        };
        Ok(LlamaConfig {
            hidden_size,
            intermediate_size: need("feed_forward_length")?,
            num_layers: need("block_count")?,
            num_heads,
            num_kv_heads,
            head_dim,
            vocab_size,
            rms_norm_eps: float("attention.layer_norm_rms_epsilon", 1e-5)?,
            rope_theta: float("rope.freq_base", 10000.0)?,
            rope_scaling: None,
            rope_freq_factors,
            max_position_embeddings: int("context_length")?.unwrap_or(2048),
            tie_word_embeddings: self.get("output.weight").is_none(),
            quantization: None,
        })
    }

    /// Tensor `name`, or an error saying it is missing and what it is for.
    pub fn tensor(&self, name: &str, what: &str) -> Result<&GgufTensor> {
        self.get(name).ok_or_else(|| Error::MissingTensor {
            file: self.path.clone(),
            name: name.to_string(),
            expected: what.to_string(),
        })
    }

    /// A matrix `[rows, cols]` on the device: quantized ones as stored (`qgemv`/`qgemm` read
    /// them in place), f16 and f32 ones as f16.
    pub fn upload_matrix(
        &self,
        name: &str,
        shape: [usize; 2],
        pool: &BufferPool,
    ) -> Result<Matrix> {
        let format = self.format_of(name)?;
        let dest = crate::stack::alloc(pool, &[shape[0]], shape[1], format)?.whole;
        self.upload_matrix_into(name, shape, &dest)
    }

    /// Matrix `name`'s block format (`None` for f16 and f32), or an error for a type
    /// tilecast-llm does not read.
    pub fn format_of(&self, name: &str) -> Result<Option<WeightFormat>> {
        Ok(match self.encoding(self.tensor(name, "a weight matrix")?)? {
            Encoding::Quantized(f) => Some(f),
            _ => None,
        })
    }

    /// Matrix `name` (`[rows, cols]`) uploaded into `dest`, a matrix or view of its format and
    /// size (a part of a [`stack`](crate::stack)).
    pub fn upload_matrix_into(
        &self,
        name: &str,
        shape: [usize; 2],
        dest: &Matrix,
    ) -> Result<Matrix> {
        let t = self.tensor(name, "a weight matrix")?;
        self.check_shape(t, &shape)?;
        let device =
            |e: String| Error::Device { file: self.path.clone(), name: name.into(), message: e };
        match self.encoding(t)? {
            Encoding::Quantized(f) if dest.format == Some(f) => {
                dest.buffer.upload(self.bytes(t)).map_err(|e| device(e.to_string()))?
            }
            Encoding::F16 | Encoding::F32 if dest.format.is_none() => dest
                .buffer
                .upload(&self.f16_values(t, &shape)?)
                .map_err(|e| device(e.to_string()))?,
            other => {
                return Err(device(format!(
                    "a {other:?} tensor cannot fill a {:?} stack",
                    dest.format
                )));
            }
        }
        Ok(dest.clone())
    }

    /// Tensor `name` of `shape` on the device as f16, whatever its encoding (a quantized
    /// embedding table is dequantized here, once: the row gather reads f16).
    pub fn upload_f16_tensor(
        &self,
        name: &str,
        shape: &[usize],
        pool: &BufferPool,
    ) -> Result<Buffer> {
        let t = self.tensor(name, "a weight")?;
        self.check_shape(t, shape)?;
        self.upload_f16(t, shape, pool)
    }

    fn upload_f16(&self, t: &GgufTensor, shape: &[usize], pool: &BufferPool) -> Result<Buffer> {
        let values = self.f16_values(t, shape)?;
        let device = |e: tilecast_runtime::Error| Error::Device {
            file: self.path.clone(),
            name: t.name.clone(),
            message: e.to_string(),
        };
        let buffer = pool.alloc(DType::F16, shape).map_err(device)?;
        buffer.upload(&values).map_err(device)?;
        Ok(buffer)
    }

    /// Tensor `t`'s values as f16 (dequantized where quantized).
    fn f16_values(&self, t: &GgufTensor, shape: &[usize]) -> Result<Vec<f16>> {
        Ok(match self.encoding(t)? {
            Encoding::F16 => bytemuck::pod_collect_to_vec(self.bytes(t)),
            Encoding::F32 => {
                narrow_f16(&self.floats(t, shape)?).map_err(|m| self.value_error(t, m))?
            }
            Encoding::Quantized(format) => {
                let q = format.ggml().expect("GGUF formats are GGML ones");
                let cols = *shape.last().unwrap_or(&0);
                let rb = format.row_bytes(cols);
                // A few thousand rows at a time: a 128k-row table never widens whole.
                let mut out = Vec::with_capacity(shape.iter().product());
                for chunk in self.bytes(t).chunks(rb * 4096) {
                    let wide = dequantize(q, chunk, cols)
                        .map_err(|e| self.value_error(t, e.to_string()))?;
                    out.extend(narrow_f16(&wide).map_err(|m| self.value_error(t, m))?);
                }
                out
            }
        })
    }

    /// An f32 tensor's values, checked to have `shape`.
    fn floats(&self, t: &GgufTensor, shape: &[usize]) -> Result<Vec<f32>> {
        self.check_shape(t, shape)?;
        match self.encoding(t)? {
            Encoding::F32 => Ok(bytemuck::pod_collect_to_vec(self.bytes(t))),
            Encoding::F16 => Ok(bytemuck::pod_collect_to_vec::<u8, f16>(self.bytes(t))
                .into_iter()
                .map(f16::to_f32)
                .collect()),
            Encoding::Quantized(f) => Err(self.mismatch(t, format!("{f}"), "f32 or f16")),
        }
    }

    /// The encodings tilecast-llm reads; any other is an error naming the tensor.
    fn encoding(&self, t: &GgufTensor) -> Result<Encoding> {
        Ok(match t.kind {
            GGUFTensorType::F32 => Encoding::F32,
            GGUFTensorType::F16 => Encoding::F16,
            GGUFTensorType::Q4_0 => Encoding::Quantized(WeightFormat::Q4_0),
            GGUFTensorType::Q8_0 => Encoding::Quantized(WeightFormat::Q8_0),
            GGUFTensorType::Q4_K => Encoding::Quantized(WeightFormat::Q4K),
            other => {
                return Err(self.unsupported(format!(
                    "tensor {} is {other:?}; tilecast-llm reads F32, F16, Q4_0, Q8_0 and Q4_K",
                    t.name
                )));
            }
        })
    }

    fn check_shape(&self, t: &GgufTensor, shape: &[usize]) -> Result<()> {
        if t.shape != shape {
            return Err(self.mismatch(
                t,
                format!("{:?}", t.shape),
                &format!("{shape:?} (rows, columns)"),
            ));
        }
        Ok(())
    }

    fn mismatch(&self, t: &GgufTensor, found: String, expected: &str) -> Error {
        Error::Mismatch {
            file: self.path.clone(),
            name: t.name.clone(),
            found,
            expected: expected.into(),
        }
    }

    fn value_error(&self, t: &GgufTensor, message: String) -> Error {
        Error::Device { file: self.path.clone(), name: t.name.clone(), message }
    }

    fn config_error(&self, message: String) -> Error {
        Error::Config { file: self.path.clone(), message }
    }

    fn unsupported(&self, message: String) -> Error {
        Error::Unsupported { file: self.path.clone(), message }
    }

    fn format(&self, message: String) -> Error {
        Error::Format { file: self.path.clone(), message }
    }
}

/// A metadata value for an error message: its type and, for scalars, its value.
fn describe(v: &MetadataValue) -> String {
    match v {
        MetadataValue::String(s) => format!("the string {s:?}"),
        MetadataValue::Array(_) => "an array".into(),
        other => format!("{other:?}"),
    }
}
