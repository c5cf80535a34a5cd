//! `tilecast.Kernel`: the Rust builder from Python. Its methods declare parameters and tiles,
//! record ops (each with the caller's file and line), open blocks, and compile.

use std::cell::RefCell;
use std::rc::Rc;

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use tilecast_lang::ir::{ReduceOp, Region, Scope, Target};
use tilecast_lang::{Expr, GlobalParam, Kernel, TileRef};

use super::blocks::{BlockKind, PyBlock};
use super::expr::{PyExpr, to_expr};
use super::handles::{PyParam, PyRegion, PyTile};
use super::program::PyProgram;
use super::state::{Builder, Built, Cell, index_exprs, shape_exprs, with_kernel};
use super::{assigned_name, build_error, caller_text, dtype_of};

/// A kernel being written: its parameters, tiles, ops and blocks. `Kernel(name, grid=[..],
/// threads=128)`; `compile()` or `source()` finish it.
#[pyclass(name = "Kernel", module = "tilecast", unsendable)]
pub struct PyKernel {
    cell: Cell,
}

/// Ends a jitted function's trace: the kernel the function created, or an error saying it
/// created none.
#[pyfunction]
pub fn end_trace(py: Python<'_>) -> PyResult<PyKernel> {
    match super::trace::finish() {
        Some(Ok(cell)) => Ok(PyKernel { cell }),
        Some(Err(name)) => Err(build_error(
            py,
            format!(
                "jitted function {name} created no kernel: call tilecast.Kernel(grid=..., \
                 threads=...) in it before its ops"
            ),
        )),
        None => Err(build_error(py, "no jit trace is running")),
    }
}

impl PyKernel {
    fn new_block(&self, kind: BlockKind) -> PyBlock {
        PyBlock::new(self.cell.clone(), kind)
    }

    fn with<T>(&self, py: Python<'_>, f: impl FnOnce(&Kernel) -> T) -> PyResult<T> {
        with_kernel(py, &self.cell, f)
    }

    fn tile_ref(&self, py: Python<'_>, t: &Bound<'_, PyAny>, what: &str) -> PyResult<TileRef> {
        match t.cast::<PyTile>() {
            Ok(t) => {
                let t = t.borrow();
                self.same_kernel(py, &t.cell)?;
                Ok(TileRef(t.id))
            }
            Err(_) => Err(build_error(
                py,
                format!("{what} must be a tile (k.shared/k.fragment/k.local); got {}", kind(t)),
            )),
        }
    }

    fn same_kernel(&self, py: Python<'_>, other: &Cell) -> PyResult<()> {
        if Rc::ptr_eq(&self.cell, other) {
            Ok(())
        } else {
            Err(build_error(py, "this tile or parameter belongs to another kernel"))
        }
    }

    fn param_ref(&self, py: Python<'_>, p: &Bound<'_, PyAny>, what: &str) -> PyResult<GlobalParam> {
        match p.cast::<PyParam>() {
            Ok(p) => {
                let p = p.borrow();
                self.same_kernel(py, &p.cell)?;
                Ok(GlobalParam(p.id))
            }
            Err(_) => Err(build_error(
                py,
                format!("{what} must be a parameter (k.input/k.param); got {}", kind(p)),
            )),
        }
    }

    /// A side of `copy`: a tile, a region, or an element read `A[i, j]` (its index is the
    /// window's origin, TileLang's `T.copy(A[by * BM, ko * BK], A_shared)`).
    fn region(&self, py: Python<'_>, r: &Bound<'_, PyAny>, what: &str) -> PyResult<Region> {
        if let Ok(t) = r.cast::<PyTile>() {
            let t = t.borrow();
            self.same_kernel(py, &t.cell)?;
            return Ok(Region::Tile { tile: t.id, stage: None });
        }
        if let Ok(reg) = r.cast::<PyRegion>() {
            return Ok(reg.get().region.clone());
        }
        if let Ok(e) = r.cast::<PyExpr>()
            && let Expr::LoadParam(p, idx) = &e.get().e
        {
            return Ok(Region::Global { param: *p, origin: idx.clone(), axes: None });
        }
        if r.cast::<PyParam>().is_ok() {
            return Err(build_error(
                py,
                format!(
                    "{what}: a whole parameter is not a region; name its origin: A.tile([i, j]) \
                     or A[i, j]"
                ),
            ));
        }
        Err(build_error(py, format!("{what} must be a tile or a region; got {}", kind(r))))
    }

    fn target(&self, py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<Target> {
        if let Ok(tile) = self.tile_ref(py, t, "target") {
            return Ok(Target::Tile(tile.0));
        }
        self.param_ref(py, t, "the store's target").map(|p| Target::Param(p.0))
    }

    fn add_tile(
        &self,
        py: Python<'_>,
        scope: Scope,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        name: Option<String>,
    ) -> PyResult<PyTile> {
        // (dtype, shape) as the Rust builder takes them, or (shape, dtype) as TileLang's
        // alloc_shared does.
        let (dtype, shape) = match dtype_of(a) {
            Ok(d) => (d, b),
            Err(_) => (dtype_of(b)?, a),
        };
        let dims: Vec<u32> =
            if shape.is_instance_of::<PyTuple>() || shape.is_instance_of::<PyList>() {
                shape.extract()
            } else {
                shape.extract::<u32>().map(|d| vec![d])
            }
            .map_err(|_| {
                build_error(py, format!("a tile's shape is a list of whole numbers; got {shape}"))
            })?;
        let loc = caller_text(py);
        let mut guard = self.cell.borrow_mut();
        let b = guard.as_mut().ok_or_else(|| build_error(py, "the kernel does not exist yet"))?;
        let k = b.kernel.as_ref().ok_or_else(|| {
            build_error(py, format!("kernel {:?} is built already; tiles cannot be added", b.name))
        })?;
        // Named as the variable it is assigned to, made unique.
        let base = name.or_else(|| assigned_name(py)).unwrap_or_else(|| {
            match scope {
                Scope::Shared => "shared",
                Scope::Fragment => "frag",
                Scope::Local => "local",
            }
            .to_string()
        });
        let mut unique = base.clone();
        let mut n = 1;
        while b.tile_names.contains(&unique) {
            unique = format!("{base}_{n}");
            n += 1;
        }
        let t = k.tile_named_dyn(&unique, scope, dtype, &dims);
        b.tile_names.push(unique.clone());
        b.tile_locs.push(loc);
        Ok(PyTile { cell: self.cell.clone(), id: t.0, name: unique, dtype, shape: dims, scope })
    }

    fn add_param(
        &self,
        py: Python<'_>,
        name: &str,
        dtype: &Bound<'_, PyAny>,
        shape: &Bound<'_, PyAny>,
        writable: bool,
    ) -> PyResult<PyParam> {
        let dtype = dtype_of(dtype)?;
        let shape = shape_exprs(shape)?;
        let loc = caller_text(py);
        let mut guard = self.cell.borrow_mut();
        let b = guard.as_mut().ok_or_else(|| build_error(py, "the kernel does not exist yet"))?;
        let k = b
            .kernel
            .as_ref()
            .ok_or_else(|| build_error(py, format!("kernel {:?} is built already", b.name)))?;
        let p = if writable {
            k.param_dyn(name, dtype, shape.clone())
        } else {
            k.input_dyn(name, dtype, shape.clone())
        };
        b.param_locs.push(loc);
        Ok(PyParam { cell: self.cell.clone(), id: p.0, name: name.into(), dtype, shape, writable })
    }

    /// Finishes the kernel once; later calls return the same build.
    pub(crate) fn built(&self, py: Python<'_>) -> PyResult<Rc<Built>> {
        let mut guard = self.cell.borrow_mut();
        let b = guard.as_mut().ok_or_else(|| build_error(py, "the kernel does not exist yet"))?;
        if let Some(done) = &b.built {
            return Ok(done.clone());
        }
        let k = b.kernel.take().expect("a kernel is built or being built");
        if k.open_blocks() > 0 {
            let message = format!(
                "kernel {:?} is built with {} block(s) still open: finish each `with` block first",
                b.name,
                k.open_blocks()
            );
            b.kernel = Some(k);
            return Err(build_error(py, message));
        }
        let (ir, stmt_locs) = k.build_located();
        let done = Rc::new(Built {
            ir,
            stmt_locs,
            tile_locs: b.tile_locs.clone(),
            param_locs: b.param_locs.clone(),
            created_at: b.created_at.clone(),
            compiled: RefCell::default(),
        });
        b.built = Some(done.clone());
        Ok(done)
    }
}

fn kind(v: &Bound<'_, PyAny>) -> String {
    v.get_type().name().map(|n| n.to_string()).unwrap_or_default()
}

/// Reduction operators by name.
fn reduce_op(py: Python<'_>, op: &str) -> PyResult<ReduceOp> {
    Ok(match op {
        "sum" => ReduceOp::Sum,
        "max" => ReduceOp::Max,
        "min" => ReduceOp::Min,
        "abs_sum" => ReduceOp::AbsSum,
        "sq_sum" => ReduceOp::SqSum,
        "argmax" => ReduceOp::Argmax,
        "argmin" => ReduceOp::Argmin,
        _ => {
            return Err(build_error(
                py,
                format!(
                    "unknown reduction {op:?}; use sum, max, min, abs_sum, sq_sum, argmax or argmin"
                ),
            ));
        }
    })
}

/// `PyKernel` shorthands for one reduction each: `k.reduce_sum(src, dst, axis, clear=True)`.
macro_rules! reduce_shorthands {
    ($($name:ident => $op:literal;)*) => {
        #[pymethods]
        impl PyKernel {
            $(
                #[doc = concat!("`dst = ", $op, " of src along axis` (`clear=False`: combined with dst's contents).")]
                #[pyo3(signature = (src, dst, axis = 1, clear = true))]
                fn $name(
                    &self,
                    py: Python<'_>,
                    src: &Bound<'_, PyAny>,
                    dst: &Bound<'_, PyAny>,
                    axis: usize,
                    clear: bool,
                ) -> PyResult<()> {
                    self.reduce(py, src, dst, axis, $op, clear)
                }
            )*
        }
    };
}
reduce_shorthands! {
    reduce_sum => "sum";
    reduce_max => "max";
    reduce_min => "min";
    reduce_abs_sum => "abs_sum";
    reduce_sq_sum => "sq_sum";
    reduce_argmax => "argmax";
    reduce_argmin => "argmin";
}

#[pymethods]
impl PyKernel {
    /// A kernel named `name` (its entry point) over `grid` threadgroups (up to three
    /// expressions of shape symbols) of `threads` threads. In a `@tilecast.jit` function, the
    /// function's kernel, its parameters declared first; its name defaults to the function's.
    #[new]
    #[pyo3(signature = (name = None, grid = None, threads = 128))]
    fn new(
        py: Python<'_>,
        name: Option<String>,
        grid: Option<Bound<'_, PyAny>>,
        threads: u32,
    ) -> PyResult<PyKernel> {
        let grid = match grid {
            None => vec![Expr::Int(1)],
            Some(g) => shape_exprs(&g)?,
        };
        let traced = super::trace::claim();
        let at = caller_text(py);
        let (cell, default_name, params, scalars) = match traced {
            Some(t) => t,
            None => (Rc::new(RefCell::new(None)), "kernel".to_string(), Vec::new(), Vec::new()),
        };
        let name = name.unwrap_or(default_name);
        let k = Kernel::new(&name).grid_dyn(grid).threads(threads);
        for (pname, dtype, shape, read_only) in &params {
            if *read_only {
                k.input_dyn(pname, *dtype, shape.clone());
            } else {
                k.param_dyn(pname, *dtype, shape.clone());
            }
        }
        for (sname, dtype) in &scalars {
            k.scalar(sname, *dtype);
        }
        *cell.borrow_mut() = Some(Builder {
            name,
            kernel: Some(k),
            built: None,
            tile_locs: Vec::new(),
            param_locs: vec![at.clone(); params.len()],
            tile_names: Vec::new(),
            created_at: at,
        });
        Ok(PyKernel { cell })
    }

    /// The kernel's name.
    #[getter]
    fn name(&self) -> String {
        self.cell.borrow().as_ref().map(|b| b.name.clone()).unwrap_or_default()
    }

    /// A read-only global tensor of `dtype` and `shape` (names are shape symbols).
    fn input(
        &self,
        py: Python<'_>,
        name: &str,
        dtype: &Bound<'_, PyAny>,
        shape: &Bound<'_, PyAny>,
    ) -> PyResult<PyParam> {
        self.add_param(py, name, dtype, shape, false)
    }

    /// A global tensor the kernel may read and write.
    fn param(
        &self,
        py: Python<'_>,
        name: &str,
        dtype: &Bound<'_, PyAny>,
        shape: &Bound<'_, PyAny>,
    ) -> PyResult<PyParam> {
        self.add_param(py, name, dtype, shape, true)
    }

    /// A scalar argument set at launch (f32, i32 or u32; a u32 is also the shape symbol of
    /// its name).
    fn scalar(&self, py: Python<'_>, name: &str, dtype: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        let dtype = dtype_of(dtype)?;
        Ok(PyExpr { e: self.with(py, |k| k.scalar(name, dtype))? })
    }

    /// A threadgroup-memory tile: `k.shared(tc.f16, [64, 32])` (or shape first, as TileLang's
    /// `alloc_shared`). Named after the variable it is assigned to unless `name` is given.
    #[pyo3(signature = (a, b, name = None))]
    fn shared(
        &self,
        py: Python<'_>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        name: Option<String>,
    ) -> PyResult<PyTile> {
        self.add_tile(py, Scope::Shared, a, b, name)
    }

    /// A register tile spread over the threadgroup (accumulators, row statistics).
    #[pyo3(signature = (a, b, name = None))]
    fn fragment(
        &self,
        py: Python<'_>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        name: Option<String>,
    ) -> PyResult<PyTile> {
        self.add_tile(py, Scope::Fragment, a, b, name)
    }

    /// A per-thread tile.
    #[pyo3(signature = (a, b, name = None))]
    fn local(
        &self,
        py: Python<'_>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        name: Option<String>,
    ) -> PyResult<PyTile> {
        self.add_tile(py, Scope::Local, a, b, name)
    }

    /// Copies between a global window and a tile, or two tiles, of the same shape.
    fn copy(&self, py: Python<'_>, src: &Bound<'_, PyAny>, dst: &Bound<'_, PyAny>) -> PyResult<()> {
        let (s, d) =
            (self.region(py, src, "copy's source")?, self.region(py, dst, "copy's destination")?);
        self.with(py, |k| k.copy(s, d))
    }

    /// Sets every element of `tile` to `value`.
    fn fill(
        &self,
        py: Python<'_>,
        tile: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let (t, v) = (self.tile_ref(py, tile, "fill's tile")?, to_expr(value)?);
        self.with(py, |k| k.fill(&t, v))
    }

    /// Sets every element of `tile` to zero.
    fn clear(&self, py: Python<'_>, tile: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = self.tile_ref(py, tile, "clear's tile")?;
        self.with(py, |k| k.clear(&t))
    }

    /// `c += op(a) @ op(b)`: a `[M, K]` (stored `[K, M]` when `trans_a`), b `[K, N]` (stored
    /// `[N, K]` when `trans_b`), c a `[M, N]` fragment.
    #[pyo3(signature = (a, b, c, trans_a = false, trans_b = false))]
    fn gemm(
        &self,
        py: Python<'_>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
        c: &Bound<'_, PyAny>,
        trans_a: bool,
        trans_b: bool,
    ) -> PyResult<()> {
        let a = self.tile_ref(py, a, "gemm's A")?;
        let b = self.tile_ref(py, b, "gemm's B")?;
        let c = self.tile_ref(py, c, "gemm's C")?;
        self.with(py, |k| k.gemm_t(&a, &b, &c, trans_a, trans_b))
    }

    /// `dst = op(src) along axis` for `op` in sum, max, min, abs_sum, sq_sum, argmax, argmin;
    /// with `clear=False`, combined with dst's contents (accumulating across a loop).
    #[pyo3(signature = (src, dst, axis = 1, op = "sum", clear = true))]
    fn reduce(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: &Bound<'_, PyAny>,
        axis: usize,
        op: &str,
        clear: bool,
    ) -> PyResult<()> {
        let op = reduce_op(py, op)?;
        let s = self.tile_ref(py, src, "the reduction's source")?;
        let d = self.tile_ref(py, dst, "the reduction's destination")?;
        self.with(py, |k| {
            if clear { k.reduce(op, &s, &d, axis) } else { k.reduce_into(op, &s, &d, axis) }
        })
    }

    /// Inclusive prefix sum of `src` along `axis` into `dst`.
    #[pyo3(signature = (src, dst, axis = 1))]
    fn cumsum(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: &Bound<'_, PyAny>,
        axis: usize,
    ) -> PyResult<()> {
        let s = self.tile_ref(py, src, "cumsum's source")?;
        let d = self.tile_ref(py, dst, "cumsum's destination")?;
        self.with(py, |k| k.cumsum(&s, &d, axis))
    }

    /// `param[index] += value` atomically (inside a parallel body; i32 or u32).
    fn atomic_add(
        &self,
        py: Python<'_>,
        param: &Bound<'_, PyAny>,
        index: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let p = self.param_ref(py, param, "atomic_add's target")?;
        let (i, v) = (index_exprs(index)?, to_expr(value)?);
        self.with(py, |k| k.atomic_add_dyn(&p, i, v))
    }

    /// `target[index] = value` (inside a parallel body); `t[i, j] = v` says the same.
    fn store(
        &self,
        py: Python<'_>,
        target: &Bound<'_, PyAny>,
        index: &Bound<'_, PyAny>,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let t = self.target(py, target)?;
        let (i, v) = (index_exprs(index)?, to_expr(value)?);
        self.with(py, |k| k.store_dyn(t, i, v))
    }

    /// `let name = value` inside a parallel body: evaluated once per element; the returned
    /// expression reads it.
    #[pyo3(name = "let")]
    fn let_(&self, py: Python<'_>, name: &str, value: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        let v = to_expr(value)?;
        Ok(PyExpr { e: self.with(py, |k| k.let_named(name, v))? })
    }

    /// A serial loop over `0..extent`: `with k.serial(n) as i:` (or `for i in k.serial(n):`).
    fn serial(&self, extent: &Bound<'_, PyAny>) -> PyResult<PyBlock> {
        Ok(self.new_block(BlockKind::Serial(to_expr(extent)?)))
    }

    /// A software-pipelined loop over `0..extent` with `stages` buffers per shared tile it
    /// loads: `with k.pipelined(n, stages=3) as ko:`.
    #[pyo3(signature = (extent, stages = 2))]
    fn pipelined(&self, extent: &Bound<'_, PyAny>, stages: u32) -> PyResult<PyBlock> {
        Ok(self.new_block(BlockKind::Pipelined(to_expr(extent)?, stages)))
    }

    /// Elementwise work over `extents` (whole numbers, or one tile for its shape):
    /// `with k.parallel(acc) as (i, j):`.
    #[pyo3(signature = (*extents))]
    fn parallel(&self, py: Python<'_>, extents: &Bound<'_, PyTuple>) -> PyResult<PyBlock> {
        let ext: Vec<u32> = if extents.len() == 1
            && let Ok(t) = extents.get_item(0)?.cast::<PyTile>()
        {
            t.borrow().shape.clone()
        } else if extents.len() == 1 && extents.get_item(0)?.is_instance_of::<PyList>() {
            extents.get_item(0)?.extract()?
        } else {
            extents
                .extract()
                .map_err(|_| build_error(py, "parallel takes whole-number extents or one tile"))?
        };
        if ext.is_empty() {
            return Err(build_error(py, "parallel needs at least one extent"));
        }
        Ok(self.new_block(BlockKind::Parallel(ext)))
    }

    /// The branch run when `cond` holds (a uniform condition): `with k.if_(cond):`.
    fn if_(&self, cond: &Bound<'_, PyAny>) -> PyResult<PyBlock> {
        Ok(self.new_block(BlockKind::If(to_expr(cond)?)))
    }

    /// The branch run when the `if_` block just before it did not: `with k.else_():`.
    fn else_(&self) -> PyBlock {
        self.new_block(BlockKind::Else)
    }

    /// The kernel compiled for `profile` (a name: vulkan-nvidia, vulkan-lavapipe,
    /// metal-apple7; by default this machine's device). Compiles once per profile; the
    /// kernel takes no more ops after the first call.
    #[pyo3(signature = (profile = None))]
    fn compile(&self, py: Python<'_>, profile: Option<&str>) -> PyResult<Py<PyProgram>> {
        let profile = super::program::profile(py, profile)?;
        self.built(py)?.compile(py, &profile)
    }

    /// The kernel's listing in `target` ("wgsl", "msl", "spirv", "ir") for `profile`, as
    /// `tilecast emit` prints it.
    #[pyo3(signature = (target = "wgsl", profile = None))]
    fn source(&self, py: Python<'_>, target: &str, profile: Option<&str>) -> PyResult<String> {
        let p = self.compile(py, profile)?;
        p.borrow(py).source(py, target)
    }
}
