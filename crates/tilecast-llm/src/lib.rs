//! tilecast-llm: the smallest real decoder on tilecast's kernels and runtime, a library and a
//! command rather than a framework. This first part reads a Llama-architecture checkpoint as
//! Hugging Face ships it (`config.json` and `model.safetensors`, or the shards its index
//! lists) and checks every weight against the config, with errors that name the file, the
//! tensor and what was expected, and uploads the weights once, through the runtime's pool.
//! RoPE's tables (Llama 3 frequency scaling) come from the config. The decoder itself
//! (prefill and decode on the GPU) is not built yet.

pub mod config;
pub mod error;
pub mod generate;
pub mod gguf;
pub mod model;
pub mod ops;
pub mod rope;
pub mod session;
pub mod stack;
pub mod upload;
pub mod weights;

pub use config::{Llama3Scaling, LlamaConfig};
pub use error::{Error, Result};
pub use generate::{Report, Request, generate};
pub use model::{Matrix, Model};
pub use session::Session;
pub use upload::DeviceWeights;
pub use weights::{Checkpoint, TensorRef, WeightType};
