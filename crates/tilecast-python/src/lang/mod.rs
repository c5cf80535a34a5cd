//! The tile language from Python: the Rust builder (`tilecast_lang::Kernel`) behind Python
//! objects, so a kernel written in Python is the same IR, verifier and back ends as one
//! written in Rust (`tilecast.Kernel`, `tilecast.Expr`, the `tilecast.lang` functions).
//!
//! - `expr`: expressions with Python operators and the math functions.
//! - `kernel`: the kernel builder; `handles`: its parameters, tiles and regions; `blocks`:
//!   blocks as `with`/`for` forms; `state`: what they share; `trace`: `@tilecast.jit`'s
//!   parameters before the kernel exists.
//! - `program`: a built kernel compiled for a profile: its listings and its launch.
//!
//! Every op records the Python file and line that wrote it, so a verifier error names them
//! (`tilecast.KernelVerifyError`); misuse found while building raises
//! `tilecast.KernelBuildError` at once.

mod blocks;
mod expr;
mod handles;
mod kernel;
mod program;
mod state;
mod trace;

use pyo3::prelude::*;
use pyo3::types::PyDict;
use tilecast_lang::DType;

/// Registers the language's classes and functions on `m`.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<expr::PyExpr>()?;
    m.add_class::<expr::PyDType>()?;
    m.add_class::<kernel::PyKernel>()?;
    m.add_class::<handles::PyParam>()?;
    m.add_class::<handles::PyTile>()?;
    m.add_class::<handles::PyRegion>()?;
    m.add_class::<blocks::PyBlock>()?;
    m.add_class::<program::PyProgram>()?;
    expr::register(m)?;
    m.add_function(wrap_pyfunction!(trace::begin_trace, m)?)?;
    m.add_function(wrap_pyfunction!(kernel::end_trace, m)?)?;
    Ok(())
}

/// Where Python code outside the tilecast package called in from: `(file, line)` of the
/// innermost frame that is the user's (the package's own wrappers are skipped).
pub(crate) fn caller(py: Python<'_>) -> Option<(String, u32)> {
    let package = py
        .import("tilecast")
        .and_then(|m| m.getattr("__file__"))
        .and_then(|f| f.extract::<String>())
        .ok()
        .and_then(|f| std::path::Path::new(&f).parent().map(|p| p.to_string_lossy().into_owned()));
    let mut frame = py.import("sys").ok()?.call_method1("_getframe", (0,)).ok()?;
    loop {
        if frame.is_none() {
            return None;
        }
        let code = frame.getattr("f_code").ok()?;
        let file: String = code.getattr("co_filename").ok()?.extract().ok()?;
        let ours = package.as_deref().is_some_and(|p| file.starts_with(p));
        if !ours {
            let line: u32 = frame.getattr("f_lineno").ok()?.extract().ok()?;
            return Some((file, line));
        }
        frame = frame.getattr("f_back").ok()?;
    }
}

/// `file:line` of [`caller`].
pub(crate) fn caller_text(py: Python<'_>) -> Option<String> {
    caller(py).map(|(f, l)| format!("{f}:{l}"))
}

/// The name assigned on the caller's line (`A_shared = k.shared(..)` gives `A_shared`).
pub(crate) fn assigned_name(py: Python<'_>) -> Option<String> {
    let (file, line) = caller(py)?;
    let text: String =
        py.import("linecache").ok()?.call_method1("getline", (file, line)).ok()?.extract().ok()?;
    let (lhs, _) = text.split_once('=')?;
    let name = lhs.trim();
    let ok = !name.is_empty()
        && name.chars().next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    ok.then(|| name.to_string())
}

/// A `tilecast.<class>` exception (defined in `tilecast/_errors.py`) with `message` and the
/// attributes a kernel error carries.
pub(crate) fn kernel_error(
    py: Python<'_>,
    class: &str,
    message: String,
    kernel: Option<&str>,
    op: Option<&str>,
    location: Option<&str>,
) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let cls = py.import("tilecast._errors")?.getattr(class)?;
        let kw = PyDict::new(py);
        kw.set_item("kernel", kernel)?;
        kw.set_item("op", op)?;
        if let Some((file, line)) = location.and_then(|l| l.rsplit_once(':')) {
            kw.set_item("filename", file)?;
            kw.set_item("lineno", line.parse::<u32>().ok())?;
        }
        let e = cls.call((message.clone(),), Some(&kw))?;
        Ok(PyErr::from_value(e))
    };
    build().unwrap_or_else(|e| e)
}

/// A [`kernel_error`] of class `KernelBuildError` at the caller's line: misuse of the builder.
pub(crate) fn build_error(py: Python<'_>, message: impl Into<String>) -> PyErr {
    let at = caller_text(py);
    let message = message.into();
    kernel_error(py, "KernelBuildError", message, None, None, at.as_deref())
}

/// The dtype `value` names: a `tilecast.DType` or its name (`"f16"`, numpy's `"float16"`).
pub(crate) fn dtype_of(value: &Bound<'_, PyAny>) -> PyResult<DType> {
    if let Ok(d) = value.cast::<expr::PyDType>() {
        return Ok(d.get().0);
    }
    if let Ok(name) = value.extract::<String>() {
        return crate::convert::parse_dtype(&name)
            .map_err(|e| build_error(value.py(), e.value(value.py()).to_string()));
    }
    Err(build_error(
        value.py(),
        format!(
            "expected a dtype (tc.f16, tc.f32, ... or its name); got {}",
            value.get_type().name().map(|n| n.to_string()).unwrap_or_default()
        ),
    ))
}
