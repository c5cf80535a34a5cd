//! A `@tilecast.jit` function's trace: its parameters exist before its kernel. `begin_trace`
//! makes their handles over an empty cell; the first `tilecast.Kernel(..)` the function creates
//! claims the trace and fills that cell, declaring the parameters first in annotation order.

use std::cell::RefCell;
use std::rc::Rc;

use pyo3::prelude::*;
use tilecast_lang::ir::{self, ParamId};
use tilecast_lang::{DType, Expr};

use super::dtype_of;
use super::expr::PyExpr;
use super::handles::PyParam;
use super::state::{Cell, shape_exprs};

/// Parameters declared before a jitted function's kernel exists.
struct Trace {
    cell: Cell,
    name: String,
    params: Vec<(String, DType, Vec<Expr>, bool)>,
    scalars: Vec<(String, DType)>,
    claimed: bool,
}

thread_local! {
    static TRACE: RefCell<Option<Trace>> = const { RefCell::new(None) };
}

/// Starts a jitted function's trace: handles for its parameters (`params`: name, dtype,
/// shape, writable) and scalars (name, dtype), for a kernel named `name` by default.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub fn begin_trace(
    py: Python<'_>,
    name: String,
    params: Vec<(String, Bound<'_, PyAny>, Bound<'_, PyAny>, bool)>,
    scalars: Vec<(String, Bound<'_, PyAny>)>,
) -> PyResult<(Vec<Py<PyParam>>, Vec<PyExpr>)> {
    let cell: Cell = Rc::new(RefCell::new(None));
    let mut specs = Vec::new();
    let mut handles = Vec::new();
    for (i, (pname, dtype, shape, writable)) in params.into_iter().enumerate() {
        let dtype = dtype_of(&dtype)?;
        let shape = shape_exprs(&shape)?;
        handles.push(Py::new(
            py,
            PyParam {
                cell: cell.clone(),
                id: ParamId(i),
                name: pname.clone(),
                dtype,
                shape: shape.clone(),
                writable,
            },
        )?);
        specs.push((pname, dtype, shape, !writable));
    }
    let mut scalar_specs = Vec::new();
    let mut exprs = Vec::new();
    for (i, (sname, dtype)) in scalars.into_iter().enumerate() {
        let dtype = dtype_of(&dtype)?;
        exprs.push(PyExpr {
            e: if dtype == DType::U32 {
                tilecast_lang::sym(&sname)
            } else {
                Expr::Scalar(ir::ScalarId(i))
            },
        });
        scalar_specs.push((sname, dtype));
    }
    TRACE.with(|t| {
        *t.borrow_mut() =
            Some(Trace { cell, name, params: specs, scalars: scalar_specs, claimed: false })
    });
    Ok((handles, exprs))
}

/// What a claimed trace hands the kernel it becomes: its cell, default name, parameters and
/// scalars.
pub(crate) type Claimed =
    (Cell, String, Vec<(String, DType, Vec<Expr>, bool)>, Vec<(String, DType)>);

/// Claims the running trace for the kernel being created, if one runs and is unclaimed.
pub(crate) fn claim() -> Option<Claimed> {
    TRACE.with(|t| {
        let mut t = t.borrow_mut();
        match t.as_mut() {
            Some(tr) if !tr.claimed => {
                tr.claimed = true;
                Some((tr.cell.clone(), tr.name.clone(), tr.params.clone(), tr.scalars.clone()))
            }
            _ => None,
        }
    })
}

/// Ends the running trace: the claimed cell, or the function's name when no kernel claimed it
/// (`None` when no trace runs).
pub(crate) fn finish() -> Option<Result<Cell, String>> {
    let trace = TRACE.with(|t| t.borrow_mut().take())?;
    Some(if trace.claimed { Ok(trace.cell) } else { Err(trace.name) })
}
