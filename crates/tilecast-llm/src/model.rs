//! A Llama model on the device: its config and its weights, uploaded once as f16 into buffers
//! from the model's pool. Running it is a [`Session`](crate::Session)'s job.

use std::path::Path;

use tilecast_runtime::{Buffer, BufferPool, Device, StorageMode};

use crate::config::LlamaConfig;
use crate::error::{Error, Result};
use crate::upload::DeviceWeights;
use crate::weights::{Checkpoint, llama_tensors};

/// One decoder layer's weights, by role.
pub struct LayerWeights {
    /// RMSNorm before attention `[hidden]`.
    pub attn_norm: Buffer,
    /// Projections `[out, in]`, as checkpoints store them.
    pub q: Buffer,
    /// Keys' projection `[KV * D, hidden]`.
    pub k: Buffer,
    /// Values' projection `[KV * D, hidden]`.
    pub v: Buffer,
    /// Attention output `[hidden, H * D]`.
    pub o: Buffer,
    /// RMSNorm before the MLP `[hidden]`.
    pub mlp_norm: Buffer,
    /// SwiGLU gate `[inner, hidden]`.
    pub gate: Buffer,
    /// SwiGLU up `[inner, hidden]`.
    pub up: Buffer,
    /// SwiGLU down `[hidden, inner]`.
    pub down: Buffer,
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
    pub lm_head: Buffer,
    bytes: u64,
}

impl Model {
    /// Loads a Hugging Face checkpoint directory (`config.json` and `model.safetensors` or its
    /// indexed shards): the config is read, every tensor checked against it, and the weights
    /// uploaded as f16 (bf16 converted on the way), calling `progress(done, total)` in bytes.
    pub fn load_hf(dir: &Path, device: &Device, progress: impl FnMut(u64, u64)) -> Result<Model> {
        let config = LlamaConfig::from_file(&dir.join("config.json"))?;
        let checkpoint = Checkpoint::open(dir)?;
        checkpoint.check_llama(&config)?;
        let names: Vec<String> = llama_tensors(&config).into_iter().map(|(n, _)| n).collect();
        // Freed activations (a prefill's) stay cached for the next pass of the same shapes.
        let pool = BufferPool::new(device, StorageMode::Private, 1 << 31);
        let w = DeviceWeights::upload_as(
            &checkpoint,
            names.iter().map(String::as_str),
            &pool,
            true,
            progress,
        )?;
        let get = |name: &str| {
            w.get(name).cloned().ok_or_else(|| Error::MissingTensor {
                file: dir.to_path_buf(),
                name: name.to_string(),
                expected: "uploaded with the model".into(),
            })
        };
        let mut layers = Vec::with_capacity(config.num_layers);
        for l in 0..config.num_layers {
            let p = format!("model.layers.{l}");
            layers.push(LayerWeights {
                attn_norm: get(&format!("{p}.input_layernorm.weight"))?,
                q: get(&format!("{p}.self_attn.q_proj.weight"))?,
                k: get(&format!("{p}.self_attn.k_proj.weight"))?,
                v: get(&format!("{p}.self_attn.v_proj.weight"))?,
                o: get(&format!("{p}.self_attn.o_proj.weight"))?,
                mlp_norm: get(&format!("{p}.post_attention_layernorm.weight"))?,
                gate: get(&format!("{p}.mlp.gate_proj.weight"))?,
                up: get(&format!("{p}.mlp.up_proj.weight"))?,
                down: get(&format!("{p}.mlp.down_proj.weight"))?,
            });
        }
        let embed = get("model.embed_tokens.weight")?;
        let lm_head =
            if config.tie_word_embeddings { embed.clone() } else { get("lm_head.weight")? };
        Ok(Model {
            norm: get("model.norm.weight")?,
            embed,
            lm_head,
            layers,
            bytes: w.bytes(),
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
