//! `tilecast.Stream`: batches kernel launches; `synchronize(mode)` submits and waits as asked.

use std::sync::Mutex;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use tilecast_runtime::{Stream, SyncType};

use crate::device::shared_device;
use crate::errors::IntoPy;

/// A queue of GPU work with one open command buffer. Kernels launched with `stream=s` are only
/// encoded; `s.synchronize(...)` submits them.
#[pyclass(frozen, module = "tilecast", name = "Stream")]
pub struct PyStream {
    pub inner: Mutex<Stream>,
}

fn sync_type(mode: &str) -> PyResult<SyncType> {
    Ok(match mode.to_ascii_lowercase().replace('-', "_").as_str() {
        "none" => SyncType::None,
        "commit" => SyncType::Commit,
        "commit_and_wait" => SyncType::CommitAndWait,
        "commit_and_continue" => SyncType::CommitAndContinue,
        "commit_adaptive" => SyncType::CommitAdaptive,
        _ => {
            return Err(PyValueError::new_err(format!(
                "sync mode {mode:?} is not one of 'none', 'commit', 'commit_and_wait', \
                 'commit_and_continue', 'commit_adaptive'"
            )));
        }
    })
}

#[pymethods]
impl PyStream {
    #[new]
    fn new() -> PyResult<Self> {
        Ok(PyStream { inner: Mutex::new(Stream::new(&shared_device()?)) })
    }

    /// Submits (and waits) as `mode` says: 'none', 'commit', 'commit_and_wait' (default),
    /// 'commit_and_continue' or 'commit_adaptive'. GPU errors of the submitted work are raised
    /// here, naming the kernel.
    #[pyo3(signature = (mode = "commit_and_wait"))]
    fn synchronize(&self, py: Python<'_>, mode: &str) -> PyResult<()> {
        let sync = sync_type(mode)?;
        py.detach(|| self.inner.lock().unwrap_or_else(|p| p.into_inner()).synchronize(sync)).py()
    }

    /// `with tilecast.Stream() as s:` encodes into `s` and, leaving the block, submits and
    /// waits (as `synchronize()`), also when the block raised.
    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __exit__(
        &self,
        py: Python<'_>,
        _ty: Option<Bound<'_, PyAny>>,
        value: Option<Bound<'_, PyAny>>,
        _tb: Option<Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let done = self.synchronize(py, "commit_and_wait");
        // The block's own exception is the one to see.
        if value.is_none_or(|v| v.is_none()) {
            done?;
        }
        Ok(false)
    }

    /// Commands encoded and not yet submitted.
    #[getter]
    fn pending_ops(&self) -> usize {
        self.inner.lock().unwrap_or_else(|p| p.into_inner()).pending_ops()
    }
}
