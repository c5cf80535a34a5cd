//! A registry entry's arguments and checks: what each buffer is ([`ArgSpec`], with fixed test
//! values where seeded ones would not do), what its outputs should hold ([`Expected`]) and how
//! close is close enough ([`Tolerance`]).

use std::fmt;
use std::sync::Arc;

use tilecast_lang::DType;

/// Whether an argument is read or written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Read by the kernel; filled with test values.
    Input,
    /// Written by the kernel; compared with the reference.
    Output,
}

/// One buffer argument of a launch, in parameter order.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgSpec {
    /// Parameter name.
    pub name: &'static str,
    /// Element type.
    pub dtype: DType,
    /// Shape.
    pub shape: Vec<usize>,
    /// Read or written.
    pub role: Role,
    /// The values of an input whose test values must be particular ones (a block table's
    /// valid page indices, quantized weights); other inputs get seeded values in [-1, 1).
    pub values: Option<FixedValues>,
}

/// Fixed test values, made when a run needs them (packing a large matrix's weights takes
/// seconds; listing its arguments should not).
#[derive(Clone)]
pub struct FixedValues(Arc<dyn Fn() -> Fixed + Send + Sync>);

impl FixedValues {
    /// Values made by `f` when needed.
    pub fn new(f: impl Fn() -> Fixed + Send + Sync + 'static) -> FixedValues {
        FixedValues(Arc::new(f))
    }
    /// The values.
    pub fn get(&self) -> Fixed {
        (self.0)()
    }
}

impl fmt::Debug for FixedValues {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FixedValues")
    }
}

impl PartialEq for FixedValues {
    fn eq(&self, other: &FixedValues) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

/// Fixed test values of an input.
#[derive(Clone, Debug, PartialEq)]
pub enum Fixed {
    /// The elements of a u32 input (indices, packed words).
    Words(Vec<u32>),
    /// The elements of a u8 input (packed bytes).
    Bytes(Vec<u8>),
    /// Values of a float input, each exactly representable in its type (scales, biases).
    Floats(Vec<f32>),
}

impl ArgSpec {
    /// An input of `dtype` and `shape`.
    pub fn input(name: &'static str, dtype: DType, shape: &[usize]) -> ArgSpec {
        ArgSpec { name, dtype, shape: shape.to_vec(), role: Role::Input, values: None }
    }
    /// A u32 input of `shape` holding `values`.
    pub fn indices(name: &'static str, shape: &[usize], values: Vec<u32>) -> ArgSpec {
        let values = FixedValues::new(move || Fixed::Words(values.clone()));
        ArgSpec { values: Some(values), ..ArgSpec::input(name, DType::U32, shape) }
    }
    /// An input of `dtype` and `shape` holding the values `values` makes.
    pub fn fixed(
        name: &'static str,
        dtype: DType,
        shape: &[usize],
        values: FixedValues,
    ) -> ArgSpec {
        ArgSpec { values: Some(values), ..ArgSpec::input(name, dtype, shape) }
    }
    /// An output of `dtype` and `shape`.
    pub fn output(name: &'static str, dtype: DType, shape: &[usize]) -> ArgSpec {
        ArgSpec { name, dtype, shape: shape.to_vec(), role: Role::Output, values: None }
    }
    /// Elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }
    /// Whether it has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Bytes.
    pub fn bytes(&self) -> u64 {
        self.len() as u64 * self.dtype.size() as u64
    }
}

/// Expected values of one output: all of them, or those at `indices` (large gemms, whose full
/// reference would take minutes on the CPU).
#[derive(Clone, Debug, PartialEq)]
pub struct Expected {
    /// Values.
    pub values: Vec<f32>,
    /// Flat indices of `values`, when sampled.
    pub indices: Option<Vec<usize>>,
}

impl Expected {
    /// Every element.
    pub fn all(values: Vec<f32>) -> Expected {
        Expected { values, indices: None }
    }
}

/// `|got - want| <= abs + rel * |want|`, per element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Absolute part.
    pub abs: f64,
    /// Relative part.
    pub rel: f64,
}

impl Tolerance {
    /// Exact equality (indices, copies, casts to wider types).
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0 };

    /// Rounding of a result stored as `dtype`, plus `compute` (relative) for the f32 arithmetic
    /// and the GPU's transcendental functions. f32 results: 1e-5 abs; f16: half an ulp is 2^-11
    /// relative, allowed 2^-10 plus 1e-3 abs for results near zero; bf16: 2^-8 relative, 8e-3 abs.
    pub fn stored_as(dtype: DType, compute: f64) -> Tolerance {
        let (abs, rel) = match dtype {
            DType::F16 => (1e-3, 1.0 / 1024.0),
            DType::BF16 => (8e-3, 1.0 / 128.0),
            _ => (1e-5, 0.0),
        };
        Tolerance { abs, rel: rel + compute }
    }

    /// Whether `got` is close enough to `want`.
    pub fn accepts(&self, got: f32, want: f32) -> bool {
        let (g, w) = (got as f64, want as f64);
        if w.is_nan() {
            return g.is_nan();
        }
        if w.is_infinite() {
            return g == w;
        }
        (g - w).abs() <= self.abs + self.rel * w.abs()
    }
}
