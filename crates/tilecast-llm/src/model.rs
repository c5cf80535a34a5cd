//! A Llama model on the device: its config and its weights, uploaded once into buffers from
//! the model's pool (f16, or a GGUF file's quantized matrices as stored). Running it is a
//! [`Session`](crate::Session)'s job.

use std::path::Path;

use tilecast_kernels::qlinear::WeightFormat;
use tilecast_kernels::rope::RopeLayout;
use tilecast_runtime::{Buffer, BufferPool, DType, Device, StorageMode};

use crate::config::LlamaConfig;
use crate::error::{Error, Result};
use crate::gguf::GgufFile;
use crate::mlx;
use crate::stack;
use crate::upload::{DeviceWeights, upload_f16_into};
use crate::weights::{Checkpoint, llama_tensors};

/// A weight matrix `[out, in]` on the device: f16, or quantized rows in a GGUF block format
/// (`[out, row_bytes]` bytes) or MLX's (packed u32 levels, with [`MlxAffine`] scales and
/// biases), read in place by `qgemv`/`qgemm`.
#[derive(Clone)]
pub struct Matrix {
    /// The matrix's buffer.
    pub buffer: Buffer,
    /// Its block format; `None` for f16.
    pub format: Option<WeightFormat>,
    /// An MLX-quantized matrix's scales and biases.
    pub affine: Option<MlxAffine>,
}

/// An MLX-quantized matrix's per-group scales and biases, `[out, in / group]` f16.
#[derive(Clone)]
pub struct MlxAffine {
    /// One scale per group.
    pub scales: Buffer,
    /// One bias per group.
    pub biases: Buffer,
    /// Values per group.
    pub group: usize,
}

impl Matrix {
    pub(crate) fn f16(buffer: Buffer) -> Matrix {
        Matrix { buffer, format: None, affine: None }
    }
}

/// One decoder layer's weights, by role.
pub struct LayerWeights {
    /// RMSNorm before attention `[hidden]`.
    pub attn_norm: Buffer,
    /// Projections `[out, in]`, as checkpoints store them.
    pub q: Matrix,
    /// Keys' projection `[KV * D, hidden]`.
    pub k: Matrix,
    /// Values' projection `[KV * D, hidden]`.
    pub v: Matrix,
    /// Attention output `[hidden, H * D]`.
    pub o: Matrix,
    /// RMSNorm before the MLP `[hidden]`.
    pub mlp_norm: Buffer,
    /// SwiGLU gate `[inner, hidden]`.
    pub gate: Matrix,
    /// SwiGLU up `[inner, hidden]`.
    pub up: Matrix,
    /// SwiGLU down `[hidden, inner]`.
    pub down: Matrix,
    /// Q, K and V stacked `[q + 2 kv, hidden]` (`q`, `k`, `v` are then views of it), where
    /// the device can bind each part ([`stack`](mod@crate::stack)).
    pub qkv: Option<Matrix>,
    /// Gate and up stacked `[2 inner, hidden]` (`gate` and `up` then views of it).
    pub gate_up: Option<Matrix>,
}

/// Matrices of `rows` rows and `cols` columns of one `format`: stacked into one allocation
/// where [`stack::fits`] (each part uploaded by `upload(i, Some(view))`), else each made by
/// `upload(i, None)`.
fn stacked_or_separate(
    device: &Device,
    pool: &BufferPool,
    rows: &[usize],
    cols: usize,
    format: Option<Option<WeightFormat>>,
    mut upload: impl FnMut(usize, Option<&Matrix>) -> Result<Matrix>,
) -> Result<(Option<Matrix>, Vec<Matrix>)> {
    let align = device.capabilities().limits.min_storage_offset_alignment as u64;
    match format {
        Some(format) if stack::fits(rows, cols, format, align) => {
            let st = stack::alloc(pool, rows, cols, format)?;
            for (i, part) in st.parts.iter().enumerate() {
                upload(i, Some(part))?;
            }
            Ok((Some(st.whole), st.parts))
        }
        _ => Ok((None, (0..rows.len()).map(|i| upload(i, None)).collect::<Result<_>>()?)),
    }
}

/// A Llama model's weights on the device.
pub struct Model {
    /// The architecture's sizes.
    pub config: LlamaConfig,
    device: Device,
    pool: BufferPool,
    /// The embedding table `[vocab, hidden]`.
    pub embed: Buffer,
    /// Per layer.
    pub layers: Vec<LayerWeights>,
    /// The final RMSNorm `[hidden]`.
    pub norm: Buffer,
    /// The output projection `[vocab, hidden]` (the embedding table where tied).
    pub lm_head: Matrix,
    /// How RoPE pairs a head's elements: half-split for Hugging Face checkpoints, interleaved
    /// for GGUF files (whose converter permuted the query and key rows to match).
    pub rope: RopeLayout,
    bytes: u64,
}

impl Model {
    /// Loads a model from `path`: a GGUF file, or a Hugging Face checkpoint directory; calls
    /// `progress(done, total)` in bytes as the weights go up.
    pub fn load(path: &Path, device: &Device, progress: impl FnMut(u64, u64)) -> Result<Model> {
        if path.is_dir() {
            Model::load_hf(path, device, progress)
        } else {
            Model::load_gguf(path, device, progress)
        }
    }

    /// Loads a Hugging Face checkpoint directory (`config.json` and `model.safetensors` or its
    /// indexed shards): the config is read, every tensor checked against it, and the weights
    /// uploaded as f16 (bf16 converted on the way), calling `progress(done, total)` in bytes.
    /// MLX-quantized matrices ([`MlxQuantization`](crate::MlxQuantization)) are uploaded as
    /// stored, unstacked; a quantized embedding table is dequantized once for the row gather.
    pub fn load_hf(
        dir: &Path,
        device: &Device,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<Model> {
        let config = LlamaConfig::from_file(&dir.join("config.json"))?;
        let checkpoint = Checkpoint::open(dir)?;
        checkpoint.check_llama(&config)?;
        let c = &config;
        let (hid, qd, kvd, inner) = (c.hidden_size, c.q_width(), c.kv_width(), c.intermediate_size);
        // Freed activations (a prefill's) stay cached for the next pass of the same shapes.
        let pool = BufferPool::new(device, StorageMode::Private, 1 << 31);
        let stacked = |n: &str| {
            [".q_proj.", ".k_proj.", ".v_proj.", ".gate_proj.", ".up_proj."]
                .iter()
                .any(|p| n.contains(p))
        };
        let quantized = |n: &str| checkpoint.is_quantized(c, n);
        let all: Vec<String> = llama_tensors(&config).into_iter().map(|(n, _)| n).collect();
        let size = |n: &str| {
            if quantized(n) {
                mlx::bytes(&checkpoint, n)
            } else {
                checkpoint.get(n).map_or(0, |t| t.bytes.len() as u64)
            }
        };
        let total: u64 = all.iter().map(|n| size(n)).sum();
        let mut done = 0u64;
        let w = DeviceWeights::upload_as(
            &checkpoint,
            all.iter().filter(|n| !stacked(n) && !quantized(n)).map(String::as_str),
            &pool,
            true,
            |d, _| {
                done = d;
                progress(d, total)
            },
        )?;
        let get = |name: &str| {
            w.get(name).cloned().ok_or_else(|| Error::MissingTensor {
                file: dir.to_path_buf(),
                name: name.to_string(),
                expected: "uploaded with the model".into(),
            })
        };
        // One MLX-quantized matrix `[out, cols]`.
        let mlx_matrix = |name: &str, shape: [usize; 2]| -> Result<Matrix> {
            let q = c.quantization.expect("a quantized matrix has a quantization");
            mlx::upload_matrix(&checkpoint, q, name, shape, &pool)
        };
        // One matrix `[out, cols]` of the checkpoint: f16 into `dest` or a buffer of its own, or
        // MLX-quantized.
        let mut matrix = |name: &str, shape: [usize; 2], dest: Option<&Matrix>| -> Result<Matrix> {
            if quantized(name) {
                let m = mlx_matrix(name, shape)?;
                done += mlx::bytes(&checkpoint, name);
                progress(done, total);
                return Ok(m);
            }
            let t = checkpoint.get(name).ok_or_else(|| Error::MissingTensor {
                file: dir.to_path_buf(),
                name: name.to_string(),
                expected: "a weight matrix".into(),
            })?;
            let device_err = |message| Error::Device {
                file: t.file.to_path_buf(),
                name: name.to_string(),
                message,
            };
            let buffer = match dest {
                Some(m) => m.buffer.clone(),
                None => pool.alloc(DType::F16, t.shape).map_err(|e| device_err(e.to_string()))?,
            };
            upload_f16_into(&t, &buffer).map_err(device_err)?;
            done += t.bytes.len() as u64;
            progress(done, total);
            Ok(Matrix::f16(buffer))
        };
        let mut layers = Vec::with_capacity(config.num_layers);
        for l in 0..config.num_layers {
            let p = format!("model.layers.{l}");
            // f16 parts stack; MLX-quantized ones stay apart (three tensors each).
            let stack = |names: &[String]| (!names.iter().any(|n| quantized(n))).then_some(None);
            let names = ["q_proj", "k_proj", "v_proj"].map(|n| format!("{p}.self_attn.{n}.weight"));
            let rows = [qd, kvd, kvd];
            let (qkv, mut parts) =
                stacked_or_separate(device, &pool, &rows, hid, stack(&names), |i, d| {
                    matrix(&names[i], [rows[i], hid], d)
                })?;
            let (v, k, q) = (parts.pop(), parts.pop(), parts.pop());
            let names = ["gate_proj", "up_proj"].map(|n| format!("{p}.mlp.{n}.weight"));
            let (gate_up, mut parts) =
                stacked_or_separate(device, &pool, &[inner, inner], hid, stack(&names), |i, d| {
                    matrix(&names[i], [inner, hid], d)
                })?;
            let (up, gate) = (parts.pop(), parts.pop());
            let part =
                |m: Option<Matrix>| m.ok_or_else(|| Error::Request("a stack lost a part".into()));
            // o and down: f16 ones went up with the norms; MLX-quantized ones go up here.
            let (o_name, down_name) =
                (format!("{p}.self_attn.o_proj.weight"), format!("{p}.mlp.down_proj.weight"));
            let o = match quantized(&o_name) {
                true => matrix(&o_name, [hid, qd], None)?,
                false => Matrix::f16(get(&o_name)?),
            };
            let down = match quantized(&down_name) {
                true => matrix(&down_name, [hid, inner], None)?,
                false => Matrix::f16(get(&down_name)?),
            };
            layers.push(LayerWeights {
                attn_norm: get(&format!("{p}.input_layernorm.weight"))?,
                q: part(q)?,
                k: part(k)?,
                v: part(v)?,
                o,
                mlp_norm: get(&format!("{p}.post_attention_layernorm.weight"))?,
                gate: part(gate)?,
                up: part(up)?,
                down,
                qkv,
                gate_up,
            });
        }
        let table = "model.embed_tokens.weight";
        let vocab = [c.vocab_size, hid];
        let embed = match c.quantization {
            Some(q) if quantized(table) => {
                let values = mlx::dequantized(&checkpoint, q, table, vocab)?;
                let device_err = |e: tilecast_runtime::Error| Error::Device {
                    file: dir.to_path_buf(),
                    name: table.into(),
                    message: e.to_string(),
                };
                let buffer = pool.alloc(DType::F16, &vocab).map_err(device_err)?;
                buffer.upload(&values).map_err(device_err)?;
                buffer
            }
            _ => get(table)?,
        };
        let head = if config.tie_word_embeddings { table } else { "lm_head.weight" };
        let lm_head = if quantized(head) {
            matrix(head, vocab, None)?
        } else if config.tie_word_embeddings {
            Matrix::f16(embed.clone())
        } else {
            Matrix::f16(get(head)?)
        };
        // Every byte is up (a dequantized embedding table is not counted as it goes).
        progress(total, total);
        Ok(Model {
            norm: get("model.norm.weight")?,
            embed,
            lm_head,
            rope: RopeLayout::HalfSplit,
            layers,
            bytes: total,
            device: device.clone(),
            pool,
            config,
        })
    }

    /// Loads a GGUF file (llama.cpp's tensor names; F32, F16, Q4_0, Q8_0 or Q4_K tensors): the
    /// metadata gives the config, quantized matrices are uploaded as stored, everything else
    /// as f16 (a quantized embedding table dequantized once, for the row gather).
    pub fn load_gguf(
        path: &Path,
        device: &Device,
        mut progress: impl FnMut(u64, u64),
    ) -> Result<Model> {
        let file = GgufFile::open(path)?;
        let config = file.config()?;
        let c = &config;
        let (hid, qd, kvd, inner) = (c.hidden_size, c.q_width(), c.kv_width(), c.intermediate_size);
        let pool = BufferPool::new(device, StorageMode::Private, 1 << 31);
        let mut names = vec!["token_embd.weight".to_string(), "output_norm.weight".to_string()];
        if !c.tie_word_embeddings {
            names.push("output.weight".into());
        }
        for l in 0..c.num_layers {
            for part in [
                "attn_norm",
                "attn_q",
                "attn_k",
                "attn_v",
                "attn_output",
                "ffn_norm",
                "ffn_gate",
                "ffn_up",
                "ffn_down",
            ] {
                names.push(format!("blk.{l}.{part}.weight"));
            }
        }
        let total: u64 = names
            .iter()
            .map(|n| {
                file.tensor(n, "a tensor of a Llama model").map(|t| file.bytes(t).len() as u64)
            })
            .sum::<Result<u64>>()?;
        let (done, progress) = (std::cell::Cell::new(0u64), std::cell::RefCell::new(&mut progress));
        let step = |name: &str| {
            done.set(done.get() + file.get(name).map_or(0, |t| file.bytes(t).len() as u64));
            (progress.borrow_mut())(done.get(), total);
        };
        let matrix = |name: String, shape: [usize; 2]| -> Result<Matrix> {
            let m = file.upload_matrix(&name, shape, &pool)?;
            step(&name);
            Ok(m)
        };
        let mut layers = Vec::with_capacity(c.num_layers);
        for l in 0..c.num_layers {
            let p = format!("blk.{l}");
            // Parts stack when they share a format (real files mix types: a Q4_K_M's attn_v
            // is often Q6_K).
            let stacked = |parts: &[&str],
                           rows: &[usize]|
             -> Result<(Option<Matrix>, Vec<Matrix>)> {
                let names: Vec<String> = parts.iter().map(|n| format!("{p}.{n}.weight")).collect();
                let formats =
                    names.iter().map(|n| file.format_of(n)).collect::<Result<Vec<_>>>()?;
                let common = formats.iter().all(|f| *f == formats[0]).then_some(formats[0]);
                stacked_or_separate(device, &pool, rows, hid, common, |i, dest| {
                    let m = match dest {
                        Some(d) => file.upload_matrix_into(&names[i], [rows[i], hid], d)?,
                        None => file.upload_matrix(&names[i], [rows[i], hid], &pool)?,
                    };
                    step(&names[i]);
                    Ok(m)
                })
            };
            let (qkv, mut parts) = stacked(&["attn_q", "attn_k", "attn_v"], &[qd, kvd, kvd])?;
            let (v, k, q) = (parts.pop(), parts.pop(), parts.pop());
            let (gate_up, mut parts) = stacked(&["ffn_gate", "ffn_up"], &[inner, inner])?;
            let (up, gate) = (parts.pop(), parts.pop());
            let part =
                |m: Option<Matrix>| m.ok_or_else(|| Error::Request("a stack lost a part".into()));
            let o = matrix(format!("{p}.attn_output.weight"), [hid, qd])?;
            let down = matrix(format!("{p}.ffn_down.weight"), [hid, inner])?;
            layers.push(LayerWeights {
                attn_norm: file.upload_f16_tensor(
                    &format!("{p}.attn_norm.weight"),
                    &[hid],
                    &pool,
                )?,
                mlp_norm: file.upload_f16_tensor(&format!("{p}.ffn_norm.weight"), &[hid], &pool)?,
                q: part(q)?,
                k: part(k)?,
                v: part(v)?,
                o,
                gate: part(gate)?,
                up: part(up)?,
                down,
                qkv,
                gate_up,
            });
        }
        let lm_head = if c.tie_word_embeddings {
            matrix("token_embd.weight".into(), [c.vocab_size, hid])?
        } else {
            matrix("output.weight".into(), [c.vocab_size, hid])?
        };
        let embed = file.upload_f16_tensor("token_embd.weight", &[c.vocab_size, hid], &pool)?;
        let norm = file.upload_f16_tensor("output_norm.weight", &[hid], &pool)?;
        Ok(Model {
            embed,
            layers,
            norm,
            lm_head,
            rope: RopeLayout::Interleaved,
            bytes: total,
            device: device.clone(),
            pool,
            config,
        })
    }

    /// The device the weights live on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// The pool the weights came from; sessions take their caches and activations from it.
    pub fn pool(&self) -> &BufferPool {
        &self.pool
    }

    /// Bytes of weights read from the checkpoint.
    pub fn weight_bytes(&self) -> u64 {
        self.bytes
    }
}
