//! The kernel library's error type.

use tilecast_lang::DType;

/// What can go wrong looking up, building or running a library kernel.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No kernel of that name.
    #[error("no kernel named {name:?}; the library has: {known}")]
    UnknownKernel {
        /// The name asked for.
        name: String,
        /// Every name, comma-separated.
        known: String,
    },
    /// The shape does not follow the kernel's grammar.
    #[error("kernel {kernel}: shape {shape:?} is not {grammar} with positive sizes")]
    BadShape {
        /// Kernel.
        kernel: String,
        /// The shape given.
        shape: String,
        /// The kernel's dimensions joined by `x`.
        grammar: String,
    },
    /// The kernel does not take that element type.
    #[error("kernel {kernel} does not take {dtype} inputs; it takes {supported}")]
    UnsupportedDtype {
        /// Kernel.
        kernel: String,
        /// The type asked for.
        dtype: DType,
        /// The types it takes.
        supported: String,
    },
    /// A shape the kernel's grammar allows but its definition does not (an odd head size for
    /// rope, say), or a problem too large for the host or device.
    #[error("kernel {kernel}: {message}")]
    Problem {
        /// Kernel.
        kernel: String,
        /// What is wrong.
        message: String,
    },
    /// Quantizing or dequantizing weights.
    #[error("quantized format {format}: {message}")]
    Quantize {
        /// The format.
        format: String,
        /// What is wrong.
        message: String,
    },
    /// Reading or writing the gemm tuning file.
    #[error("gemm tuning file {path}: {message}")]
    Tuning {
        /// The file.
        path: std::path::PathBuf,
        /// What went wrong.
        message: String,
    },
    /// Launch arguments do not fit the kernel.
    #[error("launching {kernel:?}: {message}")]
    Launch {
        /// Kernel name.
        kernel: String,
        /// What is wrong.
        message: String,
    },
    /// Compiling the tile program.
    #[error(transparent)]
    Compile(#[from] tilecast_lang::Error),
    /// Allocating, uploading, launching or reading back.
    #[error(transparent)]
    Runtime(#[from] tilecast_runtime::Error),
}

/// The library's result type.
pub type Result<T> = std::result::Result<T, Error>;
