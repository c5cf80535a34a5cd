//! `tilecast.Block`: the body of a loop, a parallel region or a branch, opened by `with` (or
//! a one-pass `for`, TileLang's spelling) and closed when it ends.

use pyo3::prelude::*;
use pyo3::types::PyTuple;
use tilecast_lang::Expr;

use super::build_error;
use super::expr::PyExpr;
use super::state::{Cell, with_kernel};

/// The body of a loop, a parallel region or a branch, open while a `with` (or a one-pass
/// `for`) runs its statements.
#[pyclass(name = "Block", module = "tilecast", unsendable)]
pub struct PyBlock {
    cell: Cell,
    kind: BlockKind,
    state: u8,
}

#[derive(Clone)]
pub(crate) enum BlockKind {
    Serial(Expr),
    Pipelined(Expr, u32),
    Parallel(Vec<u32>),
    If(Expr),
    Else,
}

impl PyBlock {
    fn open(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if self.state != 0 {
            return Err(build_error(py, "a block is entered once"));
        }
        self.state = 1;
        let kind = self.kind.clone();
        let opened =
            with_kernel(py, &self.cell, |k| -> tilecast_lang::Result<Option<Vec<Expr>>> {
                Ok(match kind {
                    BlockKind::Serial(n) => Some(vec![k.open_serial(n)]),
                    BlockKind::Pipelined(n, s) => Some(vec![k.open_pipelined(n, s)]),
                    BlockKind::Parallel(ext) => Some(k.open_parallel(&ext)),
                    BlockKind::If(c) => {
                        k.open_if(c);
                        None
                    }
                    BlockKind::Else => {
                        k.open_else()?;
                        None
                    }
                })
            })?
            .map_err(|e| build_error(py, e.to_string()))?;
        Ok(match opened {
            None => py.None(),
            Some(v) if v.len() == 1 && !matches!(self.kind, BlockKind::Parallel(_)) => {
                Py::new(py, PyExpr { e: v[0].clone() })?.into_any()
            }
            Some(v) => {
                let items: Vec<Py<PyExpr>> =
                    v.into_iter().map(|e| Py::new(py, PyExpr { e })).collect::<PyResult<_>>()?;
                if items.len() == 1 {
                    items[0].clone_ref(py).into_any()
                } else {
                    PyTuple::new(py, items)?.into_any().unbind()
                }
            }
        })
    }

    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        if self.state != 1 {
            return Ok(());
        }
        self.state = 2;
        with_kernel(py, &self.cell, |k| k.close())?.map_err(|e| build_error(py, e.to_string()))
    }
}

#[pymethods]
impl PyBlock {
    fn __enter__(&mut self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.open(py)
    }
    fn __exit__(
        &mut self,
        py: Python<'_>,
        _ty: Option<Bound<'_, PyAny>>,
        _value: Option<Bound<'_, PyAny>>,
        _tb: Option<Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }
    /// `for i in k.serial(n):` runs its body once, to record it: the first step opens the
    /// block and gives the index, the second closes it.
    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        match self.state {
            0 => self.open(py).map(Some),
            _ => {
                self.close(py)?;
                Ok(None)
            }
        }
    }
}

impl PyBlock {
    /// A block of `kind` of the kernel behind `cell`, not yet entered.
    pub(crate) fn new(cell: Cell, kind: BlockKind) -> PyBlock {
        PyBlock { cell, kind, state: 0 }
    }
}
