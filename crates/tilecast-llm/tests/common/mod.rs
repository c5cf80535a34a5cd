//! Tiny Llama checkpoints for the tests: a config and its tensors written with the
//! safetensors crate.
#![allow(dead_code)] // each test binary uses part of it

use std::path::{Path, PathBuf};

use safetensors::Dtype;
use safetensors::tensor::TensorView;
use tilecast_llm::LlamaConfig;
use tilecast_llm::weights::llama_tensors;

pub const CONFIG: &str = r#"{
  "architectures": ["LlamaForCausalLM"], "model_type": "llama",
  "hidden_size": 64, "intermediate_size": 96, "num_hidden_layers": 2,
  "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 100,
  "rms_norm_eps": 1e-5, "rope_theta": 500000.0, "max_position_embeddings": 256,
  "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                   "high_freq_factor": 4.0, "original_max_position_embeddings": 64},
  "tie_word_embeddings": true, "torch_dtype": "float16"
}"#;

/// A fresh directory under the system's temporary one.
pub fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("tilecast-llm-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn config() -> LlamaConfig {
    LlamaConfig::from_json(CONFIG, Path::new("config.json")).unwrap()
}

/// The tensors of `cfg` (with `edit` applied to each name and shape; `None` drops it) as
/// safetensors bytes of `dtype`, each element its index's low byte.
pub fn weights(
    cfg: &LlamaConfig,
    dtype: Dtype,
    edit: impl Fn(&str, Vec<usize>) -> Option<(String, Vec<usize>)>,
) -> Vec<(String, Vec<usize>, Vec<u8>)> {
    llama_tensors(cfg)
        .into_iter()
        .filter_map(|(n, s)| edit(&n, s))
        .map(|(n, s)| {
            let bytes = s.iter().product::<usize>() * dtype.bitsize() / 8;
            (n, s, (0..bytes).map(|i| i as u8).collect())
        })
        .collect()
}

pub fn write(path: &Path, tensors: &[(String, Vec<usize>, Vec<u8>)], dtype: Dtype) {
    let views: Vec<(String, TensorView)> = tensors
        .iter()
        .map(|(n, s, b)| (n.clone(), TensorView::new(dtype, s.clone(), b).unwrap()))
        .collect();
    std::fs::write(path, safetensors::serialize(views, None).unwrap()).unwrap();
}

pub fn keep(n: &str, s: Vec<usize>) -> Option<(String, Vec<usize>)> {
    Some((n.to_string(), s))
}
