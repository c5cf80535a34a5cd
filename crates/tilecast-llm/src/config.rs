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
        })
    }
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
