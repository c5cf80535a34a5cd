//! Kernel expressions with Python operators (`tilecast.Expr`), dtypes (`tilecast.DType`), and
//! the language's functions (`tilecast.exp`, `tilecast.sym`, `tilecast.block_x`, ...).
//!
//! Operators build the same `tilecast_lang::Expr` trees the Rust operators do: `+ - * / // %
//! **`, shifts, `& | ^` (on comparisons, `&` and `|` are logical and/or), and comparisons.
//! `/` and `//` both divide in the operands' type, as in the Rust builder: integers truncate.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt};
use tilecast_lang::ir::{BinOp, MathFn, op_symbol, var_name};
use tilecast_lang::{DType, Expr};

use super::build_error;

/// A dtype of the tile language (`tilecast.f16`, ...).
#[pyclass(name = "DType", module = "tilecast", frozen, eq, hash)]
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PyDType(pub DType);

#[pymethods]
impl PyDType {
    /// Its name, as `tilecast emit` and the docs spell it (`"f16"`).
    #[getter]
    fn name(&self) -> &'static str {
        self.0.name()
    }
    /// Bytes per element.
    #[getter]
    fn itemsize(&self) -> usize {
        self.0.size()
    }
    fn __repr__(&self) -> String {
        format!("tilecast.{}", self.0.name())
    }
    fn __str__(&self) -> &'static str {
        self.0.name()
    }
}

/// An expression of a kernel: built with Python operators and the `tilecast` functions,
/// evaluated on the GPU. It has no value while the kernel is built, so `if`, `and`, `or`,
/// `bool()`, `int()` and `range()` on it are errors: use `with k.if_(cond):`,
/// `tilecast.select`, `&`/`|` and `k.serial(n)`.
#[pyclass(name = "Expr", module = "tilecast", frozen)]
#[derive(Clone)]
pub struct PyExpr {
    pub e: Expr,
}

/// `value` as an expression: an `Expr`, a Python or numpy int or float. Booleans, tiles and
/// parameters are refused with what to write instead.
pub(crate) fn to_expr(value: &Bound<'_, PyAny>) -> PyResult<Expr> {
    let py = value.py();
    if let Ok(x) = value.cast::<PyExpr>() {
        return Ok(x.get().e.clone());
    }
    if value.is_instance_of::<PyBool>() || type_name(value) == "bool_" {
        return Err(build_error(
            py,
            "a Python bool is not a kernel expression; write 1 or 0, or a comparison",
        ));
    }
    if value.is_instance_of::<PyInt>() || value.hasattr("__index__")? {
        return match value.extract::<i64>() {
            Ok(v) => Ok(Expr::Int(v)),
            Err(_) => Err(build_error(py, format!("integer {value} does not fit 64 bits"))),
        };
    }
    if value.is_instance_of::<PyFloat>() || value.hasattr("__float__")? {
        return Ok(Expr::Float(value.extract::<f64>()?));
    }
    let kind = type_name(value);
    let hint = match kind.as_str() {
        "Param" => ": index it (A[i, j]) for one element",
        "Tile" => ": index it (t[i, j]) for one element",
        _ => "",
    };
    Err(build_error(py, format!("expected a kernel expression or a number; got {kind}{hint}")))
}

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value.get_type().name().map(|n| n.to_string()).unwrap_or_default()
}

fn wrap(e: Expr) -> PyExpr {
    PyExpr { e }
}

/// A comparison or a logical and/or: what `&` and `|` join as logic rather than bits.
fn is_logical(e: &Expr) -> bool {
    use BinOp::*;
    matches!(e, Expr::Bin(Lt | Le | Gt | Ge | Eq | Ne | And | Or, ..))
}

fn bin(op: BinOp, a: Expr, b: Expr) -> PyExpr {
    wrap(Expr::Bin(op, Box::new(a), Box::new(b)))
}

/// The text of an expression outside a kernel (loads name their parameter or tile by index).
fn text(e: &Expr) -> String {
    let list = |v: &[Expr]| v.iter().map(text).collect::<Vec<_>>().join(", ");
    match e {
        Expr::Int(v) => v.to_string(),
        Expr::Float(v) => format!("{v:?}"),
        Expr::Sym(s) => s.clone(),
        Expr::Var(v) => var_name(*v),
        Expr::Scalar(id) => format!("scalar{}", id.0),
        Expr::Local(id) => format!("let{}", id.0),
        Expr::Bin(op, a, b) => match op {
            BinOp::Max | BinOp::Min | BinOp::Pow | BinOp::Dot4I8 => {
                format!("{}({}, {})", op_symbol(*op), text(a), text(b))
            }
            _ => format!("({} {} {})", text(a), op_symbol(*op), text(b)),
        },
        Expr::Math(MathFn::Neg, a) => format!("-{}", text(a)),
        Expr::Math(f, a) => format!("{}({})", format!("{f:?}").to_lowercase(), text(a)),
        Expr::Fma(a, b, c) => format!("fma({}, {}, {})", text(a), text(b), text(c)),
        Expr::Select(c, a, b) => format!("select({}, {}, {})", text(c), text(a), text(b)),
        Expr::Cast(d, a) => format!("{d}({})", text(a)),
        Expr::Bitcast(d, a) => format!("bitcast<{d}>({})", text(a)),
        Expr::LoadTile(t, i) => format!("tile{}[{}]", t.0, list(i)),
        Expr::LoadParam(p, i) => format!("param{}[{}]", p.0, list(i)),
        Expr::LoadWord(p, i) => format!("param{}.word({})", p.0, text(i)),
        Expr::Invalid { op, .. } => format!("<invalid {op}>"),
    }
}

/// `PyExpr` methods applying one math function each.
macro_rules! math_methods {
    ($($name:ident),*) => {
        #[pymethods]
        impl PyExpr {
            $(
                #[doc = concat!("`", stringify!($name), "(self)`")]
                fn $name(&self) -> PyExpr {
                    wrap(self.e.clone().$name())
                }
            )*
        }
    };
}
math_methods!(exp, log, sqrt, rsqrt, tanh, erf, exp2, log2, floor, round, sin, cos);

#[pymethods]
impl PyExpr {
    fn __add__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Add, self.e.clone(), to_expr(other)?))
    }
    fn __radd__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Add, to_expr(other)?, self.e.clone()))
    }
    fn __sub__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Sub, self.e.clone(), to_expr(other)?))
    }
    fn __rsub__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Sub, to_expr(other)?, self.e.clone()))
    }
    fn __mul__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Mul, self.e.clone(), to_expr(other)?))
    }
    fn __rmul__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Mul, to_expr(other)?, self.e.clone()))
    }
    fn __truediv__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Div, self.e.clone(), to_expr(other)?))
    }
    fn __rtruediv__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Div, to_expr(other)?, self.e.clone()))
    }
    fn __floordiv__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Div, self.e.clone(), to_expr(other)?))
    }
    fn __rfloordiv__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Div, to_expr(other)?, self.e.clone()))
    }
    fn __mod__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Rem, self.e.clone(), to_expr(other)?))
    }
    fn __rmod__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Rem, to_expr(other)?, self.e.clone()))
    }
    fn __lshift__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Shl, self.e.clone(), to_expr(other)?))
    }
    fn __rlshift__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Shl, to_expr(other)?, self.e.clone()))
    }
    fn __rshift__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Shr, self.e.clone(), to_expr(other)?))
    }
    fn __rrshift__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::Shr, to_expr(other)?, self.e.clone()))
    }
    fn __xor__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::BitXor, self.e.clone(), to_expr(other)?))
    }
    fn __rxor__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(bin(BinOp::BitXor, to_expr(other)?, self.e.clone()))
    }
    fn __pow__(&self, other: &Bound<'_, PyAny>, modulo: Option<Py<PyAny>>) -> PyResult<PyExpr> {
        let _ = modulo;
        Ok(bin(BinOp::Pow, self.e.clone(), to_expr(other)?))
    }
    fn __rpow__(&self, other: &Bound<'_, PyAny>, modulo: Option<Py<PyAny>>) -> PyResult<PyExpr> {
        let _ = modulo;
        Ok(bin(BinOp::Pow, to_expr(other)?, self.e.clone()))
    }
    /// Bitwise and; logical and where either side is a comparison.
    fn __and__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        let o = to_expr(other)?;
        let op = if is_logical(&self.e) || is_logical(&o) { BinOp::And } else { BinOp::BitAnd };
        Ok(bin(op, self.e.clone(), o))
    }
    fn __rand__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        let o = to_expr(other)?;
        let op = if is_logical(&self.e) || is_logical(&o) { BinOp::And } else { BinOp::BitAnd };
        Ok(bin(op, o, self.e.clone()))
    }
    /// Bitwise or; logical or where either side is a comparison.
    fn __or__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        let o = to_expr(other)?;
        let op = if is_logical(&self.e) || is_logical(&o) { BinOp::Or } else { BinOp::BitOr };
        Ok(bin(op, self.e.clone(), o))
    }
    fn __ror__(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        let o = to_expr(other)?;
        let op = if is_logical(&self.e) || is_logical(&o) { BinOp::Or } else { BinOp::BitOr };
        Ok(bin(op, o, self.e.clone()))
    }
    fn __neg__(&self) -> PyExpr {
        wrap(-self.e.clone())
    }
    fn __pos__(&self) -> PyExpr {
        self.clone()
    }
    fn __abs__(&self) -> PyExpr {
        wrap(self.e.clone().abs())
    }
    fn __invert__(&self, py: Python<'_>) -> PyResult<PyExpr> {
        Err(build_error(py, "~ has no kernel operator; write x ^ 0xFFFFFFFF for a u32's bits"))
    }
    fn __richcmp__(
        &self,
        other: &Bound<'_, PyAny>,
        op: pyo3::basic::CompareOp,
    ) -> PyResult<PyExpr> {
        use pyo3::basic::CompareOp as C;
        let o = to_expr(other)?;
        let op = match op {
            C::Lt => BinOp::Lt,
            C::Le => BinOp::Le,
            C::Gt => BinOp::Gt,
            C::Ge => BinOp::Ge,
            C::Eq => BinOp::Eq,
            C::Ne => BinOp::Ne,
        };
        Ok(bin(op, self.e.clone(), o))
    }
    fn __bool__(&self, py: Python<'_>) -> PyResult<bool> {
        Err(build_error(
            py,
            format!(
                "kernel expression {} has no truth value while the kernel is built: `if`, \
                 `and`, `or` and `not` would decide in Python, once. Use `with k.if_(cond):`, \
                 tilecast.select(cond, a, b), or & and | between comparisons",
                text(&self.e)
            ),
        ))
    }
    fn __index__(&self, py: Python<'_>) -> PyResult<i64> {
        Err(build_error(
            py,
            format!(
                "kernel expression {} has no value while the kernel is built; loop over it \
                 with `with k.serial(n) as i:` rather than range(n)",
                text(&self.e)
            ),
        ))
    }
    fn __int__(&self, py: Python<'_>) -> PyResult<i64> {
        self.__index__(py)
    }
    fn __float__(&self, py: Python<'_>) -> PyResult<f64> {
        Err(build_error(
            py,
            format!("kernel expression {} has no value while the kernel is built", text(&self.e)),
        ))
    }
    fn __repr__(&self) -> String {
        format!("tilecast.Expr({})", text(&self.e))
    }
    /// `|self|`.
    fn abs(&self) -> PyExpr {
        wrap(self.e.clone().abs())
    }
    /// The larger of `self` and `other`.
    fn max(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(wrap(self.e.clone().max(to_expr(other)?)))
    }
    /// The smaller of `self` and `other`.
    fn min(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(wrap(self.e.clone().min(to_expr(other)?)))
    }
    /// `self * b + c` as one fused operation.
    fn fma(&self, b: &Bound<'_, PyAny>, c: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(wrap(self.e.clone().fma(to_expr(b)?, to_expr(c)?)))
    }
    /// The value converted to `dtype`.
    fn cast(&self, dtype: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(wrap(self.e.clone().cast(super::dtype_of(dtype)?)))
    }
    /// The same bits read as `dtype` (of the same width).
    fn bitcast(&self, dtype: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(wrap(self.e.clone().bitcast(super::dtype_of(dtype)?)))
    }
    /// Bits `offset .. offset + count` of a u32, as a u32.
    fn bits(&self, offset: u32, count: u32) -> PyExpr {
        wrap(self.e.clone().bits(offset, count))
    }
    /// Bits `offset .. offset + count` of a u32, sign-extended to an i32.
    fn signed_bits(&self, offset: u32, count: u32) -> PyExpr {
        wrap(self.e.clone().signed_bits(offset, count))
    }
    /// Byte `i` (0 lowest) of a u32.
    fn byte(&self, i: u32) -> PyExpr {
        wrap(self.e.clone().byte(i))
    }
    /// Nibble `i` (0 lowest) of a u32.
    fn nibble(&self, i: u32) -> PyExpr {
        wrap(self.e.clone().nibble(i))
    }
    /// The dot product of the four signed bytes of two u32 words, as an i32.
    fn dot4_i8(&self, other: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
        Ok(wrap(self.e.clone().dot4_i8(to_expr(other)?)))
    }
}

/// Module functions applying one math function each: `tilecast.exp(x)`.
macro_rules! math_functions {
    ($($name:ident),*) => {
        $(
            #[doc = concat!("`", stringify!($name), "(x)` of a kernel expression or a number.")]
            #[pyfunction]
            fn $name(x: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
                Ok(wrap(to_expr(x)?.$name()))
            }
        )*
        fn register_math(m: &Bound<'_, PyModule>) -> PyResult<()> {
            $(m.add_function(wrap_pyfunction!($name, m)?)?;)*
            Ok(())
        }
    };
}
math_functions!(exp, log, sqrt, rsqrt, tanh, erf, exp2, log2, floor, round, sin, cos, abs);

/// A shape symbol: a dimension known only at launch, set by a parameter's shape.
#[pyfunction]
fn sym(name: &str) -> PyExpr {
    wrap(tilecast_lang::sym(name))
}
/// The threadgroup's index along x.
#[pyfunction]
fn block_x() -> PyExpr {
    wrap(tilecast_lang::block_x())
}
/// The threadgroup's index along y.
#[pyfunction]
fn block_y() -> PyExpr {
    wrap(tilecast_lang::block_y())
}
/// The threadgroup's index along z.
#[pyfunction]
fn block_z() -> PyExpr {
    wrap(tilecast_lang::block_z())
}
/// The thread's index in its threadgroup (differs per thread: parallel bodies only).
#[pyfunction]
fn thread_index() -> PyExpr {
    wrap(tilecast_lang::thread_index())
}
/// `ceil(a / b)` in unsigned index math.
#[pyfunction]
fn ceil_div(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    Ok(wrap(tilecast_lang::ceil_div(to_expr(a)?, to_expr(b)?)))
}
/// `a` where `cond` holds, else `b`.
#[pyfunction]
fn select(cond: &Bound<'_, PyAny>, a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    Ok(wrap(tilecast_lang::select(to_expr(cond)?, to_expr(a)?, to_expr(b)?)))
}
/// The larger of `a` and `b`.
#[pyfunction]
fn max(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    Ok(wrap(to_expr(a)?.max(to_expr(b)?)))
}
/// The smaller of `a` and `b`.
#[pyfunction]
fn min(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    Ok(wrap(to_expr(a)?.min(to_expr(b)?)))
}
/// `a` to the power `b`.
#[pyfunction]
fn pow(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    Ok(wrap(to_expr(a)?.pow(to_expr(b)?)))
}
/// `a * b + c` as one fused operation.
#[pyfunction]
fn fma(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>, c: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    Ok(wrap(to_expr(a)?.fma(to_expr(b)?, to_expr(c)?)))
}
/// `x` converted to `dtype`.
#[pyfunction]
fn cast(x: &Bound<'_, PyAny>, dtype: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    Ok(wrap(to_expr(x)?.cast(super::dtype_of(dtype)?)))
}
/// `x`'s bits read as `dtype`.
#[pyfunction]
fn bitcast(x: &Bound<'_, PyAny>, dtype: &Bound<'_, PyAny>) -> PyResult<PyExpr> {
    Ok(wrap(to_expr(x)?.bitcast(super::dtype_of(dtype)?)))
}
/// Positive infinity (f32).
#[pyfunction]
fn inf() -> PyExpr {
    wrap(Expr::inf())
}
/// Negative infinity (f32), the start of a running maximum.
#[pyfunction]
fn neg_inf() -> PyExpr {
    wrap(Expr::neg_inf())
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    register_math(m)?;
    for f in [
        wrap_pyfunction!(sym, m)?,
        wrap_pyfunction!(block_x, m)?,
        wrap_pyfunction!(block_y, m)?,
        wrap_pyfunction!(block_z, m)?,
        wrap_pyfunction!(thread_index, m)?,
        wrap_pyfunction!(ceil_div, m)?,
        wrap_pyfunction!(select, m)?,
        wrap_pyfunction!(max, m)?,
        wrap_pyfunction!(min, m)?,
        wrap_pyfunction!(pow, m)?,
        wrap_pyfunction!(fma, m)?,
        wrap_pyfunction!(cast, m)?,
        wrap_pyfunction!(bitcast, m)?,
        wrap_pyfunction!(inf, m)?,
        wrap_pyfunction!(neg_inf, m)?,
    ] {
        m.add_function(f)?;
    }
    for d in [DType::F32, DType::F16, DType::BF16, DType::I32, DType::U32, DType::I8, DType::U8] {
        m.add(d.name(), PyDType(d))?;
    }
    Ok(())
}
