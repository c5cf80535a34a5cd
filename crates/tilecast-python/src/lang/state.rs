//! The state behind a kernel written in Python: the Rust builder while ops are recorded, the
//! built IR with the location of each statement, tile and parameter, and its compilations per
//! profile. Handles (kernel, parameters, tiles, blocks) share it through one `Cell`.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use tilecast_lang::ir;
use tilecast_lang::{Compiled, Expr, Kernel, Site};

use super::expr::to_expr;
use super::program::PyProgram;
use super::{build_error, caller_text, kernel_error};

/// A kernel being built, or built.
pub(crate) struct Builder {
    pub(crate) name: String,
    pub(crate) kernel: Option<Kernel>,
    pub(crate) built: Option<Rc<Built>>,
    pub(crate) tile_locs: Vec<Option<String>>,
    pub(crate) param_locs: Vec<Option<String>>,
    pub(crate) tile_names: Vec<String>,
    pub(crate) created_at: Option<String>,
}

/// A finished kernel: its IR, where each statement was written, and its compilations.
pub(crate) struct Built {
    pub(crate) ir: ir::Kernel,
    pub(crate) stmt_locs: Vec<Option<String>>,
    pub(crate) tile_locs: Vec<Option<String>>,
    pub(crate) param_locs: Vec<Option<String>>,
    pub(crate) created_at: Option<String>,
    pub(crate) compiled: RefCell<HashMap<String, Py<PyProgram>>>,
}

impl Built {
    /// Compiles for `profile` once; the error is a `KernelError` placed where its site was
    /// written.
    pub(crate) fn compile(
        &self,
        py: Python<'_>,
        profile: &tilecast_lang::Profile,
    ) -> PyResult<Py<PyProgram>> {
        if let Some(p) = self.compiled.borrow().get(&profile.name) {
            return Ok(p.clone_ref(py));
        }
        let compiled: Compiled =
            tilecast_lang::compile(&self.ir, profile).map_err(|e| self.error(py, e))?;
        let program = Py::new(py, PyProgram::new(compiled))?;
        self.compiled.borrow_mut().insert(profile.name.clone(), program.clone_ref(py));
        Ok(program)
    }

    /// The Python exception for compile error `e`.
    fn error(&self, py: Python<'_>, e: tilecast_lang::Error) -> PyErr {
        let at = match e.site() {
            Some(Site::Stmt(i)) => self.stmt_locs.get(i).cloned().flatten(),
            Some(Site::Tile(i)) => self.tile_locs.get(i).cloned().flatten(),
            Some(Site::Param(i)) => self.param_locs.get(i).cloned().flatten(),
            None => None,
        }
        .or_else(|| self.created_at.clone());
        let (class, op) = match &e {
            tilecast_lang::Error::Verify { op, .. } => ("KernelVerifyError", Some(op.clone())),
            _ => ("KernelCompileError", None),
        };
        kernel_error(py, class, e.to_string(), Some(&self.ir.name), op.as_deref(), at.as_deref())
    }
}

pub(crate) type Cell = Rc<RefCell<Option<Builder>>>;

/// Runs `f` on the builder behind `cell`: a `KernelBuildError` when the kernel is built
/// already or, for jit handles, not created yet.
pub(crate) fn with_kernel<T>(
    py: Python<'_>,
    cell: &Cell,
    f: impl FnOnce(&Kernel) -> T,
) -> PyResult<T> {
    let b = cell.borrow();
    let Some(b) = b.as_ref() else {
        return Err(build_error(
            py,
            "this parameter's kernel does not exist yet: create it with tilecast.Kernel(grid=..., \
             threads=...) in the jitted function before using the parameter",
        ));
    };
    let Some(k) = b.kernel.as_ref() else {
        return Err(build_error(
            py,
            format!("kernel {:?} is built already; build a new kernel to add ops", b.name),
        ));
    };
    k.set_location(caller_text(py).as_deref());
    Ok(f(k))
}

/// One `Expr` per entry of a shape: names are symbols, ints constants.
pub(crate) fn shape_exprs(shape: &Bound<'_, PyAny>) -> PyResult<Vec<Expr>> {
    let items: Vec<Bound<'_, PyAny>> =
        if shape.is_instance_of::<PyTuple>() || shape.is_instance_of::<PyList>() {
            shape.try_iter()?.collect::<PyResult<_>>()?
        } else {
            vec![shape.clone()]
        };
    items
        .iter()
        .map(|d| match d.extract::<String>() {
            Ok(name) => Ok(tilecast_lang::sym(&name)),
            Err(_) => to_expr(d),
        })
        .collect()
}

/// An index: one value or a tuple of them.
pub(crate) fn index_exprs(index: &Bound<'_, PyAny>) -> PyResult<Vec<Expr>> {
    if index.is_instance_of::<PyTuple>() {
        index.try_iter()?.map(|i| to_expr(&i?)).collect()
    } else {
        Ok(vec![to_expr(index)?])
    }
}

/// An origin given as a list, a tuple or one value.
pub(crate) fn index_exprs_any(v: &Bound<'_, PyAny>) -> PyResult<Vec<Expr>> {
    if v.is_instance_of::<PyList>() || v.is_instance_of::<PyTuple>() {
        v.try_iter()?.map(|i| to_expr(&i?)).collect()
    } else {
        Ok(vec![to_expr(v)?])
    }
}
