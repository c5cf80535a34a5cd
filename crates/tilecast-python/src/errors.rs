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
    let msg = e.to_string();
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
        Error::ZeroSized { .. }
        | Error::ShapeOverflow { .. }
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
