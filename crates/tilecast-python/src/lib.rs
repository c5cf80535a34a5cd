//! The `tilecast` Python module (`tilecast._core`): buffers with DLPack 1.1, streams, the device's
//! capability report, and the kernel library. The Python package around it (`python/tilecast`)
//! adds `tilecast.ops` and the type stubs.

mod buffer;
mod capsule;
mod convert;
mod device;
mod errors;
mod lang;
mod llm;
mod ops;
mod quant;
mod stream;

use pyo3::prelude::*;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<device::PyDevice>()?;
    m.add_class::<buffer::PyBuffer>()?;
    m.add_class::<stream::PyStream>()?;
    m.add_function(wrap_pyfunction!(buffer::from_dlpack, m)?)?;
    m.add_function(wrap_pyfunction!(ops::kernels, m)?)?;
    m.add_function(wrap_pyfunction!(ops::signature, m)?)?;
    m.add_function(wrap_pyfunction!(ops::arguments, m)?)?;
    m.add_function(wrap_pyfunction!(ops::run_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(quant::quantize, m)?)?;
    m.add_function(wrap_pyfunction!(quant::dequantize, m)?)?;
    m.add_function(wrap_pyfunction!(live_exports, m)?)?;
    m.add_class::<llm::PyLlm>()?;
    m.add_function(wrap_pyfunction!(llm::llm_load, m)?)?;
    lang::register(m)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}

/// DLPack exports whose deleter has not run yet, process-wide (a leak check).
#[pyfunction]
fn live_exports() -> usize {
    tilecast_runtime::dlpack::live_exports()
}
