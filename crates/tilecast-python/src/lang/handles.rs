//! Handles to a kernel's parameters (`tilecast.Param`), tiles (`tilecast.Tile`) and windows
//! (`tilecast.Region`): indexing one reads an element, assigning writes one (in a parallel
//! body).

use pyo3::prelude::*;
use tilecast_lang::ir::{ParamId, Region, Scope, Target, TileId};
use tilecast_lang::{DType, Expr, GlobalParam, TileRef};

use super::expr::{PyDType, PyExpr, to_expr};
use super::state::{Cell, index_exprs, index_exprs_any, with_kernel};

/// A global tensor parameter. `A[i, j]` reads one element (zero out of bounds) or, inside a
/// parallel body, `A[i, j] = v` writes it; `A.tile(origin)` and `A.window(origin, axes)` are
/// regions for `copy`.
#[pyclass(name = "Param", module = "tilecast", unsendable)]
pub struct PyParam {
    pub(crate) cell: Cell,
    pub(crate) id: ParamId,
    #[pyo3(get)]
    pub(crate) name: String,
    pub(crate) dtype: DType,
    pub(crate) shape: Vec<Expr>,
    pub(crate) writable: bool,
}

/// A tile: threadgroup memory (`shared`), registers spread over the threadgroup
/// (`fragment`), or per-thread registers (`local`). `t[i, j]` reads an element; `t[i, j] = v`
/// writes one inside a parallel body.
#[pyclass(name = "Tile", module = "tilecast", unsendable)]
pub struct PyTile {
    pub(crate) cell: Cell,
    pub(crate) id: TileId,
    #[pyo3(get)]
    pub(crate) name: String,
    pub(crate) dtype: DType,
    #[pyo3(get)]
    pub(crate) shape: Vec<u32>,
    pub(crate) scope: Scope,
}

/// A window of a parameter (`A.tile(origin)`, `A.window(origin, axes)`), a side of `copy`.
#[pyclass(name = "Region", module = "tilecast", frozen)]
pub struct PyRegion {
    pub(crate) region: Region,
}

#[pymethods]
impl PyParam {
    /// Element type.
    #[getter]
    fn dtype(&self) -> PyDType {
        PyDType(self.dtype)
    }
    /// The shape as expressions (symbols and constants).
    #[getter]
    fn shape(&self) -> Vec<PyExpr> {
        self.shape.iter().map(|e| PyExpr { e: e.clone() }).collect()
    }
    /// Rank.
    #[getter]
    fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// Whether the kernel may write it.
    #[getter]
    fn writable(&self) -> bool {
        self.writable
    }
    /// The tile-shaped window starting at `origin` (its extent is the other side's).
    fn tile(&self, origin: &Bound<'_, PyAny>) -> PyResult<PyRegion> {
        Ok(PyRegion { region: GlobalParam(self.id).tile_dyn(index_exprs_any(origin)?) })
    }
    /// The window starting at `origin` whose tile axes run along parameter `axes`, one
    /// element deep along the others (a head's `[T, D]` keys of `K[T, H, D]`:
    /// `K.window([t0, h, 0], [0, 2])`).
    fn window(&self, origin: &Bound<'_, PyAny>, axes: Vec<usize>) -> PyResult<PyRegion> {
        Ok(PyRegion {
            region: Region::Global {
                param: self.id,
                origin: index_exprs_any(origin)?,
                axes: Some(axes),
            },
        })
    }
    /// Word `i` (u32) of a u8/i8 parameter's bytes, the first byte lowest.
    fn word(&self, i: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(PyExpr { e: GlobalParam(self.id).word(to_expr(i)?) })
    }
    fn __getitem__(&self, index: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(PyExpr { e: GlobalParam(self.id).at_dyn(index_exprs(index)?) })
    }
    fn __setitem__(
        &self,
        py: Python<'_>,
        index: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        store(py, &self.cell, Target::Param(self.id), index, value)
    }
    fn __repr__(&self) -> String {
        format!("tilecast.Param({} {} rank {})", self.name, self.dtype, self.shape.len())
    }
}

#[pymethods]
impl PyTile {
    /// Element type.
    #[getter]
    fn dtype(&self) -> PyDType {
        PyDType(self.dtype)
    }
    /// "shared", "fragment" or "local".
    #[getter]
    fn scope(&self) -> &'static str {
        match self.scope {
            Scope::Shared => "shared",
            Scope::Fragment => "fragment",
            Scope::Local => "local",
        }
    }
    fn __getitem__(&self, index: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(PyExpr { e: TileRef(self.id).at_dyn(index_exprs(index)?) })
    }
    fn __setitem__(
        &self,
        py: Python<'_>,
        index: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        store(py, &self.cell, Target::Tile(self.id), index, value)
    }
    fn __repr__(&self) -> String {
        format!("tilecast.Tile({} {} {}{:?})", self.scope(), self.name, self.dtype, self.shape)
    }
}

/// `target[index] = value` in the kernel behind `cell` (`A[i, j] = v`, `t[i, j] = v`).
fn store(
    py: Python<'_>,
    cell: &Cell,
    target: Target,
    index: &Bound<'_, PyAny>,
    value: &Bound<'_, PyAny>,
) -> PyResult<()> {
    let (i, v) = (index_exprs(index)?, to_expr(value)?);
    with_kernel(py, cell, |k| k.store_dyn(target, i, v))
}
