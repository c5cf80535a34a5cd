//! The crate's one error type: every message names the file, and the tensor where there is
//! one, and says what was expected.

use std::path::PathBuf;

/// Errors of loading and checking a model.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read.
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    /// `config.json` is not what a Llama model's config holds.
    #[error("{}: {message}", file.display())]
    Config { file: PathBuf, message: String },
    /// The model or one of its tensors is of a kind tilecast-llm does not run.
    #[error("{}: {message}", file.display())]
    Unsupported { file: PathBuf, message: String },
    /// A weight file is malformed (a bad header, a truncated file, an index naming a shard
    /// that lacks the tensor).
    #[error("{}: {message}", file.display())]
    Format { file: PathBuf, message: String },
    /// A tensor the architecture needs is in no weight file.
    #[error("{}: tensor {name} is missing ({expected})", file.display())]
    MissingTensor { file: PathBuf, name: String, expected: String },
    /// The device refused a tensor (out of memory, a buffer past its limits).
    #[error("{}: uploading tensor {name}: {message}", file.display())]
    Device { file: PathBuf, name: String, message: String },
    /// A tensor has another shape or type than the config implies.
    #[error("{}: tensor {name} is {found}; expected {expected}", file.display())]
    Mismatch { file: PathBuf, name: String, found: String, expected: String },
    /// A library kernel could not be loaded or launched for a step of the model.
    #[error("kernel {kernel}: {message}")]
    Kernel { kernel: String, message: String },
    /// The runtime refused an allocation, a copy or a read.
    #[error("{what}: {source}")]
    Runtime { what: String, source: tilecast_runtime::Error },
    /// A request the model cannot serve (a token id past the vocabulary, a sequence longer
    /// than the cache).
    #[error("{0}")]
    Request(String),
}

/// This crate's results.
pub type Result<T> = std::result::Result<T, Error>;
