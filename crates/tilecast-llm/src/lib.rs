//! tilecast-llm: the smallest real decoder on tilecast's kernels and runtime, a library and a
//! command rather than a framework. It reads a Llama-architecture model as Hugging Face ships it
//! (`config.json` and `model.safetensors`, or the shards its index lists) or as llama.cpp ships
//! it (a GGUF file of F16, Q4_0, Q8_0 or Q4_K tensors), checks every weight against the config
//! with errors that name the file, the tensor and what was expected, and uploads the weights
//! once through the runtime's pool (quantized matrices as stored). A [`Session`] runs prefill
//! and decode steps on the library's kernels over a paged KV cache, picking tokens greedily on
//! the GPU with no host round trip inside a step; [`generate()`] times it.

pub mod config;
pub mod error;
pub mod generate;
pub mod gguf;
pub mod mlx;
pub mod model;
pub mod ops;
pub mod rope;
pub mod session;
pub mod stack;
pub mod upload;
pub mod weights;

pub use config::{Llama3Scaling, LlamaConfig, MlxQuantization};
pub use error::{Error, Result};
pub use generate::{Report, Request, generate};
pub use model::{Matrix, MlxAffine, Model};
pub use session::{Graphs, Session};
pub use upload::DeviceWeights;
pub use weights::{Checkpoint, TensorRef, WeightType};
