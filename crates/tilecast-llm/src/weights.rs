//! A Hugging Face checkpoint's weights: `model.safetensors`, or the shards listed in
//! `model.safetensors.index.json`, memory-mapped and read through the `safetensors` crate's
//! header parser. A tensor is a borrowed view of its bytes; nothing is copied until the
//! decoder uploads it. [`Checkpoint::check_llama`] checks every tensor a Llama model needs.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};

use memmap2::Mmap;
use safetensors::{Dtype, SafeTensors};

use crate::config::LlamaConfig;
use crate::error::{Error, Result};

/// Element types of the weights the decoder takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeightType {
    /// IEEE half precision.
    F16,
    /// bfloat16.
    BF16,
    /// IEEE single precision (norm weights of some exports; not a whole checkpoint).
    F32,
    /// Packed u32 words: an MLX-quantized matrix's levels ([`crate::MlxQuantization`]).
    U32,
}

impl WeightType {
    fn of(d: Dtype) -> Option<WeightType> {
        match d {
            Dtype::F16 => Some(WeightType::F16),
            Dtype::BF16 => Some(WeightType::BF16),
            Dtype::F32 => Some(WeightType::F32),
            Dtype::U32 => Some(WeightType::U32),
            _ => None,
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            WeightType::F16 | WeightType::BF16 => 2,
            WeightType::F32 | WeightType::U32 => 4,
        }
    }
}

/// One tensor of a checkpoint: its type, shape and bytes (little-endian, row-major).
#[derive(Clone, Copy, Debug)]
pub struct TensorRef<'a> {
    /// Element type.
    pub dtype: WeightType,
    /// Shape, outermost first.
    pub shape: &'a [usize],
    /// The elements, straight from the mapped file.
    pub bytes: &'a [u8],
    /// The file that holds it.
    pub file: &'a Path,
}

/// One memory-mapped weight file and where its tensors lie in it.
struct Shard {
    path: PathBuf,
    map: Mmap,
    /// Name -> (type, shape, byte range in `map`).
    tensors: HashMap<String, (WeightType, Vec<usize>, std::ops::Range<usize>)>,
}

/// A checkpoint directory's weights.
pub struct Checkpoint {
    dir: PathBuf,
    shards: Vec<Shard>,
    /// Tensor name -> shard.
    at: BTreeMap<String, usize>,
}

impl Checkpoint {
    /// Opens the weights in `dir`: the shards `model.safetensors.index.json` lists (each tensor
    /// must be in the shard it names), else `model.safetensors`.
    pub fn open(dir: &Path) -> Result<Checkpoint> {
        let index = dir.join("model.safetensors.index.json");
        let mut c = Checkpoint { dir: dir.to_path_buf(), shards: Vec::new(), at: BTreeMap::new() };
        if index.exists() {
            let text = std::fs::read_to_string(&index)
                .map_err(|source| Error::Io { path: index.clone(), source })?;
            let json: serde_json::Value = serde_json::from_str(&text)
                .map_err(|e| Error::Format { file: index.clone(), message: e.to_string() })?;
            let map = json.get("weight_map").and_then(|m| m.as_object()).ok_or_else(|| {
                Error::Format {
                    file: index.clone(),
                    message: "has no \"weight_map\" object".into(),
                }
            })?;
            let mut files: Vec<&str> = Vec::new();
            for (name, file) in map {
                let file = file.as_str().ok_or_else(|| Error::Format {
                    file: index.clone(),
                    message: format!("weight_map entry {name} is not a file name"),
                })?;
                if !files.contains(&file) {
                    files.push(file);
                }
            }
            for f in &files {
                c.add_shard(&dir.join(f))?;
            }
            for (name, file) in map {
                let shard = files.iter().position(|f| Some(*f) == file.as_str()).expect("listed");
                if !c.shards[shard].tensors.contains_key(name) {
                    return Err(Error::Format {
                        file: c.shards[shard].path.clone(),
                        message: format!(
                            "the index places tensor {name} here, but the file does not hold it"
                        ),
                    });
                }
                c.at.insert(name.clone(), shard);
            }
        } else {
            c.add_shard(&dir.join("model.safetensors"))?;
            for name in c.shards[0].tensors.keys() {
                c.at.insert(name.clone(), 0);
            }
        }
        Ok(c)
    }

    fn add_shard(&mut self, path: &Path) -> Result<()> {
        let io = |source| Error::Io { path: path.to_path_buf(), source };
        let file = File::open(path).map_err(io)?;
        // SAFETY: the file is opened read-only and the mapping is only ever read. Another
        // process truncating it while mapped would fault the reader, as with any mmap'd
        // checkpoint (safetensors' own loaders map it the same way).
        let map = unsafe { Mmap::map(&file) }.map_err(io)?;
        let format = |message: String| Error::Format { file: path.to_path_buf(), message };
        // The header parser checks the header's length, its JSON, and that the data section
        // is exactly as long as the tensors it lists (a truncated file fails here).
        let (n, meta) = SafeTensors::read_metadata(&map).map_err(|e| format(e.to_string()))?;
        let start = 8 + n;
        let mut tensors = HashMap::new();
        for (name, info) in meta.tensors() {
            let dtype = WeightType::of(info.dtype).ok_or_else(|| Error::Unsupported {
                file: path.to_path_buf(),
                message: format!(
                    "tensor {name} is {:?}; weights must be F16, BF16, F32 or U32 (MLX's packed levels)",
                    info.dtype
                ),
            })?;
            let (a, b) = info.data_offsets;
            tensors.insert(name.clone(), (dtype, info.shape.clone(), start + a..start + b));
        }
        self.shards.push(Shard { path: path.to_path_buf(), map, tensors });
        Ok(())
    }

    /// The checkpoint's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Every tensor's name, sorted.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.at.keys().map(String::as_str)
    }

    /// The tensor `name`, if the checkpoint has it.
    pub fn get(&self, name: &str) -> Option<TensorRef<'_>> {
        let shard = &self.shards[*self.at.get(name)?];
        let (dtype, shape, range) = &shard.tensors[name];
        Some(TensorRef {
            dtype: *dtype,
            shape,
            bytes: &shard.map[range.clone()],
            file: &shard.path,
        })
    }

    /// Whether matrix `name` (`<base>.weight`) is MLX-quantized: the config has a
    /// `quantization` entry and the checkpoint a `<base>.scales` tensor (`mlx-lm` leaves a
    /// matrix whose rows are not whole groups unquantized).
    pub fn is_quantized(&self, cfg: &LlamaConfig, name: &str) -> bool {
        cfg.quantization.is_some() && self.get(&mlx_part(name, "scales")).is_some()
    }

    /// Checks every tensor a Llama model of `cfg` needs ([`llama_tensors`]): present, of the
    /// shape the config implies, and all of one float type (F16 or BF16); returns that type.
    /// An MLX-quantized matrix ([`Checkpoint::is_quantized`]) is its packed levels (U32) and
    /// its scales and biases (of the float type).
    pub fn check_llama(&self, cfg: &LlamaConfig) -> Result<WeightType> {
        let mut kind: Option<(WeightType, String)> = None;
        let mut expected = Vec::new();
        for (name, shape) in llama_tensors(cfg) {
            match cfg.quantization {
                Some(q) if shape.len() == 2 && self.is_quantized(cfg, &name) => {
                    let (out, cols) = (shape[0], shape[1]);
                    if cols % q.group != 0 {
                        return Err(Error::Mismatch {
                            file: self.weights_file(),
                            name: mlx_part(&name, "scales"),
                            found: format!("present for a matrix of {cols} columns"),
                            expected: format!("whole groups of {} (config.json)", q.group),
                        });
                    }
                    for part in ["scales", "biases"] {
                        expected.push((mlx_part(&name, part), q.group_shape(out, cols), None));
                    }
                    expected.push((name, q.packed_shape(out, cols), Some(WeightType::U32)));
                }
                _ => expected.push((name, shape, None)),
            }
        }
        for (name, shape, packed) in expected {
            let Some(t) = self.get(&name) else {
                return Err(Error::MissingTensor {
                    file: self.weights_file(),
                    name,
                    expected: format!("shape {shape:?}"),
                });
            };
            if t.shape != shape.as_slice() {
                return Err(Error::Mismatch {
                    file: t.file.to_path_buf(),
                    name,
                    found: format!("shape {:?}", t.shape),
                    expected: format!("shape {shape:?} from config.json"),
                });
            }
            if let Some(want) = packed {
                if t.dtype != want {
                    return Err(Error::Mismatch {
                        file: t.file.to_path_buf(),
                        name,
                        found: format!("{:?}", t.dtype),
                        expected: format!("{want:?}: MLX's packed levels"),
                    });
                }
                continue;
            }
            match &kind {
                None if matches!(t.dtype, WeightType::F32 | WeightType::U32) => {
                    return Err(Error::Unsupported {
                        file: t.file.to_path_buf(),
                        message: format!(
                            "tensor {name} is {:?}; the decoder takes F16 or BF16 checkpoints",
                            t.dtype
                        ),
                    });
                }
                None => kind = Some((t.dtype, name)),
                Some((k, first)) if *k != t.dtype => {
                    return Err(Error::Mismatch {
                        file: t.file.to_path_buf(),
                        name,
                        found: format!("{:?}", t.dtype),
                        expected: format!("{k:?}, the type of {first}"),
                    });
                }
                Some(_) => {}
            }
        }
        Ok(kind.expect("a Llama model has tensors").0)
    }

    /// The file a missing tensor would have been in: the index, or the single file.
    fn weights_file(&self) -> PathBuf {
        let index = self.dir.join("model.safetensors.index.json");
        if self.shards.len() > 1 || index.exists() { index } else { self.shards[0].path.clone() }
    }
}

/// The name of part `part` (`scales`, `biases`) of MLX-quantized matrix `name` (`<base>.weight`).
pub fn mlx_part(name: &str, part: &str) -> String {
    format!("{}.{part}", name.strip_suffix(".weight").unwrap_or(name))
}

/// The tensors of a Llama model of `cfg`, by their Hugging Face names, with their shapes:
/// the embedding table, per layer the two norms, the four attention projections and the three
/// MLP projections, the final norm, and `lm_head` unless the embeddings are tied.
pub fn llama_tensors(cfg: &LlamaConfig) -> Vec<(String, Vec<usize>)> {
    let (h, i, d) = (cfg.hidden_size, cfg.intermediate_size, cfg.head_dim);
    let (q, kv) = (cfg.num_heads * d, cfg.num_kv_heads * d);
    let mut out = vec![("model.embed_tokens.weight".to_string(), vec![cfg.vocab_size, h])];
    for l in 0..cfg.num_layers {
        let p = format!("model.layers.{l}");
        out.extend([
            (format!("{p}.input_layernorm.weight"), vec![h]),
            (format!("{p}.self_attn.q_proj.weight"), vec![q, h]),
            (format!("{p}.self_attn.k_proj.weight"), vec![kv, h]),
            (format!("{p}.self_attn.v_proj.weight"), vec![kv, h]),
            (format!("{p}.self_attn.o_proj.weight"), vec![h, q]),
            (format!("{p}.post_attention_layernorm.weight"), vec![h]),
            (format!("{p}.mlp.gate_proj.weight"), vec![i, h]),
            (format!("{p}.mlp.up_proj.weight"), vec![i, h]),
            (format!("{p}.mlp.down_proj.weight"), vec![h, i]),
        ]);
    }
    out.push(("model.norm.weight".to_string(), vec![h]));
    if !cfg.tie_word_embeddings {
        out.push(("lm_head.weight".to_string(), vec![cfg.vocab_size, h]));
    }
    out
}
