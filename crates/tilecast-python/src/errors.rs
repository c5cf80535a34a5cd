//! Runtime errors as Python exceptions carrying the runtime's message.
//!
//! BufferError for the DLPack protocol (copies refused, exported buffers, devices and layouts
//! that cannot be exchanged), TypeError for dtypes, MemoryError for allocations the device
//! cannot hold, ValueError for other bad arguments, RuntimeError for GPU failures.

use pyo3::PyErr;
use pyo3::exceptions::{PyBufferError, PyMemoryError, PyRuntimeError, PyTypeError, PyValueError};
use tilecast_runtime::Error;

/// The Python exception for a runtime error.
pub fn to_py(e: Error) -> PyErr {
    let msg = match &e {
        // The runtime's message names Rust's SyncType; say it as Python calls it.
        Error::PendingEncodedWork { what, uses } => format!(
            "{what}: the buffer is used by {uses} command(s) encoded in a stream and not yet \
             submitted; call synchronize() (or synchronize('commit')) on that stream first"
        ),
        // wgpu's reason names its Rust methods (get_mapped_range(_mut)).
        Error::HostViewConflict { mode, .. } => format!(
            "a {mode} buffer has another live host view that conflicts with this one (a \
             writable DLPack export not yet released, or a read-only one where a writable one \
             was asked for); release the other export first"
        ),
        _ => e.to_string(),
    };
    match e {
        Error::CopyRefused { .. }
        | Error::Exported { .. }
        | Error::Dlpack { .. }
        | Error::MappedOnGpu { .. }
        | Error::PendingEncodedWork { .. }
        | Error::HostViewConflict { .. }
        | Error::NotHostVisible { .. } => PyBufferError::new_err(msg),
        Error::DlpackDType { .. } | Error::DTypeMismatch { .. } => PyTypeError::new_err(msg),
        Error::OutOfMemory { .. } | Error::TooLarge { .. } => PyMemoryError::new_err(msg),
        Error::ShapeOverflow { .. }
        | Error::ViewOutOfBounds { .. }
        | Error::Misaligned { .. }
        | Error::EmptyView { .. }
        | Error::LengthMismatch { .. }
        | Error::ReshapeMismatch { .. }
        | Error::RangeOutOfBounds { .. }
        | Error::InvalidCommand { .. }
        | Error::ForeignBuffer { .. }
        | Error::NotManaged { .. }
        | Error::SharedUnsupported { .. }
        | Error::UnknownBackend { .. }
        | Error::AdapterNotFound { .. } => PyValueError::new_err(msg),
        _ => PyRuntimeError::new_err(msg),
    }
}

/// Extension for `Result<T, tilecast_runtime::Error>`.
pub trait IntoPy<T> {
    /// Converts the error to its Python exception.
    fn py(self) -> pyo3::PyResult<T>;
}

impl<T> IntoPy<T> for Result<T, Error> {
    fn py(self) -> pyo3::PyResult<T> {
        self.map_err(to_py)
    }
}
