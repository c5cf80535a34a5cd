//! A Llama-architecture model's `config.json`, as Hugging Face checkpoints ship it (Llama 3 and
//! 3.2): the shapes every weight is checked against, and the RoPE settings the rotary tables
//! are made from. Anything the decoder would silently get wrong (another architecture, an
//! unknown `rope_scaling` type, heads that do not divide) is an error naming the file.

use std::path::Path;

use serde::Deserialize;

use crate::error::{Error, Result};

/// The fields of `config.json` the decoder uses.
#[derive(Clone, Debug, PartialEq)]
pub struct LlamaConfig {
    /// Width of the residual stream.
    pub hidden_size: usize,
    /// Width of the SwiGLU MLP's inner layer.
    pub intermediate_size: usize,
    /// Decoder layers.
    pub num_layers: usize,
    /// Query heads.
    pub num_heads: usize,
    /// Key/value heads (grouped-query attention: `num_heads` is a multiple).
    pub num_kv_heads: usize,
    /// Head size (`head_dim`, else `hidden_size / num_heads`).
    pub head_dim: usize,
    /// Token ids.
    pub vocab_size: usize,
    /// RMSNorm's epsilon.
    pub rms_norm_eps: f64,
    /// RoPE's base.
    pub rope_theta: f64,
    /// Llama 3's frequency scaling, where the config has one.
    pub rope_scaling: Option<Llama3Scaling>,
    /// Per-pair divisors of RoPE's frequencies (`[head_dim / 2]`), where a GGUF file carries
    /// them (`rope_freqs.weight`: how llama.cpp stores Llama 3's scaling); they replace
    /// `rope_scaling`.
    pub rope_freq_factors: Option<Vec<f64>>,
    /// Longest sequence the model was made for.
    pub max_position_embeddings: usize,
    /// The output projection is the embedding table (no `lm_head.weight`).
    pub tie_word_embeddings: bool,
    /// MLX's affine quantization of every matrix (the embedding table, the projections and the
    /// output layer), where `config.json` has a `quantization` entry as `mlx-lm` writes it.
    pub quantization: Option<MlxQuantization>,
}

/// MLX's affine quantization (`mx.quantize`), as `mlx-lm` records it in `config.json`:
/// `"quantization": {"group_size": 64, "bits": 4}`. A matrix `name.weight` is then its levels
/// packed into u32 words `[out, in * bits / 32]`, with `name.scales` and `name.biases` `[out,
/// in / group]`, the layout `qgemv` and `qgemm` read in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MlxQuantization {
    /// Bits per level: 4 or 8.
    pub bits: u32,
    /// Values per scale and bias: 32, 64 or 128.
    pub group: usize,
}

impl MlxQuantization {
    /// The kernels' name for the format.
    pub fn format(self) -> tilecast_kernels::qlinear::WeightFormat {
        use tilecast_kernels::qlinear::WeightFormat;
        if self.bits == 4 { WeightFormat::Mlx4 } else { WeightFormat::Mlx8 }
    }

    /// The packed levels' shape for a matrix `[out, cols]`.
    pub fn packed_shape(self, out: usize, cols: usize) -> Vec<usize> {
        vec![out, cols * self.bits as usize / 32]
    }

    /// The scales' and biases' shape for a matrix `[out, cols]`.
    pub fn group_shape(self, out: usize, cols: usize) -> Vec<usize> {
        vec![out, cols / self.group]
    }
}

/// `rope_scaling` of type `llama3`: long wavelengths are stretched by `factor`, short ones
/// kept, the band between blended (see [`crate::rope::inv_freq`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Llama3Scaling {
    /// How much long wavelengths are stretched.
    pub factor: f64,
    /// Wavelengths longer than `original / low_freq_factor` are stretched in full.
    pub low_freq_factor: f64,
    /// Wavelengths shorter than `original / high_freq_factor` are kept.
    pub high_freq_factor: f64,
    /// The context length the model was first trained at (`original`).
    pub original_max_position_embeddings: usize,
}

/// `config.json` as written (every field optional, so a missing one is named, not a serde
/// message about a struct).
#[derive(Deserialize)]
struct Raw {
    architectures: Option<Vec<String>>,
    model_type: Option<String>,
    hidden_size: Option<usize>,
    intermediate_size: Option<usize>,
    num_hidden_layers: Option<usize>,
    num_attention_heads: Option<usize>,
    num_key_value_heads: Option<usize>,
    head_dim: Option<usize>,
    vocab_size: Option<usize>,
    rms_norm_eps: Option<f64>,
    rope_theta: Option<f64>,
    rope_scaling: Option<serde_json::Value>,
    max_position_embeddings: Option<usize>,
    tie_word_embeddings: Option<bool>,
    quantization: Option<serde_json::Value>,
}

impl LlamaConfig {
    /// Width of the queries of a token, all heads: `num_heads * head_dim`.
    pub fn q_width(&self) -> usize {
        self.num_heads * self.head_dim
    }

    /// Width of the keys (and of the values) of a token: `num_kv_heads * head_dim`.
    pub fn kv_width(&self) -> usize {
        self.num_kv_heads * self.head_dim
    }

    /// Reads and checks `config.json` at `path`.
    pub fn from_file(path: &Path) -> Result<LlamaConfig> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
        LlamaConfig::from_json(&text, path)
    }

    /// Parses and checks the text of a `config.json`; `path` names it in errors.
    pub fn from_json(text: &str, path: &Path) -> Result<LlamaConfig> {
        let file = path.to_path_buf();
        let raw: Raw = serde_json::from_str(text)
            .map_err(|e| Error::Config { file: file.clone(), message: e.to_string() })?;
        let llama = raw.model_type.as_deref() == Some("llama")
            || raw.architectures.iter().flatten().any(|a| a == "LlamaForCausalLM");
        if !llama {
            let found = raw
                .architectures
                .as_ref()
                .and_then(|a| a.first().cloned())
                .or(raw.model_type.clone())
                .unwrap_or_else(|| "none given".into());
            return Err(Error::Unsupported {
                file,
                message: format!(
                    "architecture {found}: tilecast-llm runs LlamaForCausalLM (model_type \"llama\")"
                ),
            });
        }
        let need = |v: Option<usize>, field: &str| -> Result<usize> {
            match v {
                Some(n) if n > 0 => Ok(n),
                Some(_) => Err(config_error(&file, format!("{field} must be positive"))),
                None => Err(config_error(&file, format!("{field} is missing"))),
            }
        };
        let hidden_size = need(raw.hidden_size, "hidden_size")?;
        let num_heads = need(raw.num_attention_heads, "num_attention_heads")?;
        let num_kv_heads =
            need(raw.num_key_value_heads.or(raw.num_attention_heads), "num_key_value_heads")?;
        if num_heads % num_kv_heads != 0 {
            return Err(config_error(
                &file,
                format!(
                    "num_attention_heads {num_heads} is not a multiple of num_key_value_heads {num_kv_heads}"
                ),
            ));
        }
        let head_dim = match raw.head_dim {
            Some(d) => need(Some(d), "head_dim")?,
            None if hidden_size % num_heads == 0 => hidden_size / num_heads,
            None => {
                return Err(config_error(
                    &file,
                    format!(
                        "hidden_size {hidden_size} is not a multiple of num_attention_heads {num_heads}, and head_dim is not given"
                    ),
                ));
            }
        };
        if head_dim % 2 != 0 {
            return Err(config_error(
                &file,
                format!("head_dim {head_dim} is odd; RoPE rotates pairs"),
            ));
        }
        let rope_scaling = match &raw.rope_scaling {
            None | Some(serde_json::Value::Null) => None,
            Some(v) => Some(llama3_scaling(v, &file)?),
        };
        Ok(LlamaConfig {
            hidden_size,
            intermediate_size: need(raw.intermediate_size, "intermediate_size")?,
            num_layers: need(raw.num_hidden_layers, "num_hidden_layers")?,
            num_heads,
            num_kv_heads,
            head_dim,
            vocab_size: need(raw.vocab_size, "vocab_size")?,
            rms_norm_eps: raw.rms_norm_eps.unwrap_or(1e-6),
            rope_theta: raw.rope_theta.unwrap_or(10000.0),
            rope_scaling,
            rope_freq_factors: None,
            max_position_embeddings: raw.max_position_embeddings.unwrap_or(2048),
            tie_word_embeddings: raw.tie_word_embeddings.unwrap_or(false),
            quantization: match &raw.quantization {
                None | Some(serde_json::Value::Null) => None,
                Some(v) => Some(mlx_quantization(v, &file)?),
            },
        })
    }
}

/// `config.json`'s `quantization` entry: `group_size` and `bits` (mode `affine` where given).
/// Per-layer entries (a mixed-precision export) and other modes are refused by name.
fn mlx_quantization(v: &serde_json::Value, file: &Path) -> Result<MlxQuantization> {
    let obj = v.as_object().ok_or_else(|| {
        config_error(
            file,
            format!("quantization is {v}; expected {{\"group_size\": .., \"bits\": ..}}"),
        )
    })?;
    let unsupported = |message: String| Error::Unsupported { file: file.to_path_buf(), message };
    for (key, value) in obj {
        match key.as_str() {
            "group_size" | "bits" => {}
            "mode" if value.as_str() == Some("affine") => {}
            "mode" => {
                return Err(unsupported(format!(
                    "quantization mode {value}: tilecast-llm reads MLX's affine mode"
                )));
            }
            _ if value.is_object() || value.is_boolean() => {
                return Err(unsupported(format!(
                    "quantization has a per-layer entry {key}; tilecast-llm reads one group size \
                     and bit width for every matrix"
                )));
            }
            _ => {}
        }
    }
    let field = |name: &str| {
        obj.get(name).and_then(|x| x.as_u64()).ok_or_else(|| {
            config_error(file, format!("quantization.{name} is missing or not a whole number"))
        })
    };
    let (bits, group) = (field("bits")?, field("group_size")?);
    if bits != 4 && bits != 8 {
        return Err(unsupported(format!(
            "quantization.bits is {bits}; tilecast-llm reads 4- and 8-bit MLX weights"
        )));
    }
    if ![32, 64, 128].contains(&group) {
        return Err(unsupported(format!(
            "quantization.group_size is {group}; MLX's groups are 32, 64 or 128"
        )));
    }
    Ok(MlxQuantization { bits: bits as u32, group: group as usize })
}

fn config_error(file: &Path, message: String) -> Error {
    Error::Config { file: file.to_path_buf(), message }
}

/// `rope_scaling` of type `llama3` (older configs call the key `type`); any other type is an
/// error, since its frequencies would differ.
fn llama3_scaling(v: &serde_json::Value, file: &Path) -> Result<Llama3Scaling> {
    let kind = v.get("rope_type").or_else(|| v.get("type")).and_then(|t| t.as_str());
    if kind != Some("llama3") {
        return Err(Error::Unsupported {
            file: file.to_path_buf(),
            message: format!(
                "rope_scaling type {}: only \"llama3\" is supported",
                kind.map_or("(none)".to_string(), |k| format!("{k:?}"))
            ),
        });
    }
    let num = |key: &str| -> Result<f64> {
        v.get(key).and_then(|x| x.as_f64()).filter(|x| *x > 0.0).ok_or_else(|| {
            config_error(file, format!("rope_scaling.{key} is missing or not a positive number"))
        })
    };
    let s = Llama3Scaling {
        factor: num("factor")?,
        low_freq_factor: num("low_freq_factor")?,
        high_freq_factor: num("high_freq_factor")?,
        original_max_position_embeddings: num("original_max_position_embeddings")? as usize,
    };
    if s.high_freq_factor <= s.low_freq_factor {
        return Err(config_error(
            file,
            format!(
                "rope_scaling.high_freq_factor {} must exceed low_freq_factor {}",
                s.high_freq_factor, s.low_freq_factor
            ),
        ));
    }
    Ok(s)
}
