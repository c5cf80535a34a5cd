//! `tilecast.Device`: the process's one device (opened on first use) and its capability report.

use std::sync::Mutex;

use pyo3::prelude::*;
use tilecast_runtime::{Device, StorageMode};

use crate::errors::IntoPy;

static DEVICE: Mutex<Option<Device>> = Mutex::new(None);

/// The shared device, opened on first use (honours TILECAST_BACKEND / TILECAST_ADAPTER).
pub fn shared_device() -> PyResult<Device> {
    let mut d = DEVICE.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(dev) = d.as_ref() {
        return Ok(dev.clone());
    }
    let dev = Device::new().py()?;
    *d = Some(dev.clone());
    Ok(dev)
}

/// Parses a storage mode name; `None` is the device default.
pub fn storage_mode(device: &Device, name: Option<&str>) -> PyResult<StorageMode> {
    match name {
        None => Ok(device.default_storage_mode()),
        Some(n) => StorageMode::parse(n).ok_or_else(|| {
            pyo3::exceptions::PyValueError::new_err(format!(
                "storage mode {n:?} is not 'private', 'shared' or 'managed'"
            ))
        }),
    }
}

/// The GPU tilecast runs on. Every `Device()` is the same device.
#[pyclass(frozen, module = "tilecast", name = "Device")]
pub struct PyDevice {
    pub device: Device,
}

#[pymethods]
impl PyDevice {
    #[new]
    fn new() -> PyResult<Self> {
        Ok(PyDevice { device: shared_device()? })
    }

    /// The adapter's name.
    #[getter]
    fn name(&self) -> String {
        self.device.name().to_string()
    }

    /// The storage mode buffers get when none is given ('private' unless
    /// TILECAST_STORAGE_MODE says otherwise).
    #[getter]
    fn default_storage_mode(&self) -> &'static str {
        self.device.default_storage_mode().name()
    }

    /// The capability report (backend, name, unified memory, subgroup sizes, matrix
    /// configurations, limits, features) as a dict.
    fn capabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let json = serde_json::to_string(self.device.capabilities())
            .map_err(|e| pyo3::exceptions::PyRuntimeError::new_err(e.to_string()))?;
        py.import("json")?.call_method1("loads", (json,))
    }

    fn __repr__(&self) -> String {
        let c = self.device.capabilities();
        format!("Device({:?}, backend={:?})", c.name, c.backend)
    }
}
