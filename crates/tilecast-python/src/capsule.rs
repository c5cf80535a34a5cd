//! DLPack capsules, per the Python array API protocol.
//!
//! - Export: a `dltensor_versioned` capsule (DLPack 1.1) or, for consumers that ask for a
//!   version below 1.0 or none at all, a legacy `dltensor` capsule. Its destructor calls the
//!   tensor's deleter only if the capsule was never consumed (still carries its first name).
//! - Import: a capsule is consumed at most once: its pointer is taken and the capsule renamed to
//!   `used_dltensor_versioned` / `used_dltensor`, which makes a second use an error and tells
//!   the destructor the consumer now owns the tensor.

use std::ffi::{CStr, c_void};

use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use tilecast_runtime::DlpackTensor;
use tilecast_runtime::dlpack::ffi::{DLManagedTensor, DLManagedTensorVersioned};

use crate::errors::IntoPy;

const VERSIONED: &CStr = c"dltensor_versioned";
const USED_VERSIONED: &CStr = c"used_dltensor_versioned";
const LEGACY: &CStr = c"dltensor";
const USED_LEGACY: &CStr = c"used_dltensor";

unsafe extern "C" fn destroy_versioned(capsule: *mut ffi::PyObject) {
    // SAFETY: Python calls a capsule destructor with the capsule, holding the GIL. `IsValid`
    // sets no exception; the pointer is read only under the name we created it with, and the
    // deleter runs once because a consumed capsule carries another name.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, VERSIONED.as_ptr()) == 1 {
            let t = ffi::PyCapsule_GetPointer(capsule, VERSIONED.as_ptr())
                .cast::<DLManagedTensorVersioned>();
            if let Some(d) = (*t).deleter {
                d(t)
            }
        }
    }
}

unsafe extern "C" fn destroy_legacy(capsule: *mut ffi::PyObject) {
    // SAFETY: as in `destroy_versioned`, for the legacy name and header.
    unsafe {
        if ffi::PyCapsule_IsValid(capsule, LEGACY.as_ptr()) == 1 {
            let t = ffi::PyCapsule_GetPointer(capsule, LEGACY.as_ptr()).cast::<DLManagedTensor>();
            if let Some(d) = (*t).deleter {
                d(t)
            }
        }
    }
}

/// Wraps an export in a capsule that owns it.
pub fn into_capsule(
    py: Python<'_>,
    tensor: tilecast_runtime::ExportedTensor,
    legacy: bool,
) -> PyResult<Bound<'_, PyAny>> {
    let (ptr, name, destroy): (*mut c_void, &CStr, ffi::PyCapsule_Destructor) = if legacy {
        (tensor.into_raw_legacy().cast(), LEGACY, destroy_legacy)
    } else {
        (tensor.into_raw_versioned().cast(), VERSIONED, destroy_versioned)
    };
    // SAFETY: `ptr` is a live managed tensor whose deleter the capsule destructor owns; the name
    // is 'static, as capsules require.
    let capsule = unsafe { ffi::PyCapsule_New(ptr, name.as_ptr(), Some(destroy)) };
    if capsule.is_null() {
        // The capsule was not made: release the export ourselves.
        // SAFETY: `ptr` is the header handed out just above, its deleter not run yet.
        unsafe {
            if legacy {
                let t = ptr.cast::<DLManagedTensor>();
                (*t).deleter.expect("tilecast sets a deleter")(t)
            } else {
                let t = ptr.cast::<DLManagedTensorVersioned>();
                (*t).deleter.expect("tilecast sets a deleter")(t)
            }
        }
    }
    // SAFETY: `capsule` is a new reference or null with an exception set.
    unsafe { Bound::from_owned_ptr_or_err(py, capsule) }
}

/// True when `obj` is a capsule (of any name).
pub fn is_capsule(obj: &Bound<'_, PyAny>) -> bool {
    // SAFETY: `obj` is a live object; the check reads its type only.
    unsafe { ffi::PyCapsule_CheckExact(obj.as_ptr()) == 1 }
}

/// Consumes a DLPack capsule: takes ownership of its tensor and renames the capsule so it can
/// never be consumed again.
pub fn consume(capsule: &Bound<'_, PyAny>) -> PyResult<DlpackTensor> {
    if !is_capsule(capsule) {
        return Err(PyTypeError::new_err("expected a DLPack capsule (a PyCapsule)"));
    }
    let cap = capsule.as_ptr();
    // SAFETY: `cap` is a capsule; `GetName` returns its name (possibly null) without failing.
    let name_ptr = unsafe { ffi::PyCapsule_GetName(cap) };
    let name = if name_ptr.is_null() {
        None
    } else {
        // SAFETY: a capsule name is a NUL-terminated string that lives as long as the capsule.
        Some(unsafe { CStr::from_ptr(name_ptr) })
    };
    let (versioned, used) = match name {
        Some(n) if n == VERSIONED => (true, USED_VERSIONED),
        Some(n) if n == LEGACY => (false, USED_LEGACY),
        Some(n) if n == USED_VERSIONED || n == USED_LEGACY => {
            return Err(PyBufferError::new_err(format!(
                "this DLPack capsule ({}) was already consumed; a capsule can be used once: ask \
                 the producer for a new one (call __dlpack__ again)",
                n.to_string_lossy()
            )));
        }
        other => {
            return Err(PyTypeError::new_err(format!(
                "capsule named {:?} is not a DLPack capsule ('dltensor_versioned' or 'dltensor')",
                other.map(|n| n.to_string_lossy().into_owned())
            )));
        }
    };
    let current = if versioned { VERSIONED } else { LEGACY };
    // SAFETY: the name was just checked, so `GetPointer` succeeds; renaming to a 'static name
    // marks the capsule consumed before anything can fail, and from then on the tensor is ours.
    unsafe {
        let ptr = ffi::PyCapsule_GetPointer(cap, current.as_ptr());
        if ptr.is_null() || ffi::PyCapsule_SetName(cap, used.as_ptr()) != 0 {
            return Err(PyErr::fetch(capsule.py()));
        }
        if versioned {
            DlpackTensor::from_raw_versioned(ptr.cast()).py()
        } else {
            DlpackTensor::from_raw_legacy(ptr.cast()).py()
        }
    }
}
