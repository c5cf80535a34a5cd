//! Elementwise kernels over flat tensors of `N` elements (any shape, viewed flat): activations,
//! binary ops, the fused SwiGLU gate, dtype casts, and the transpose of the last two axes.
//! Values are computed in f32 whatever the storage type.

use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{DType, Expr, Kernel, block_x, block_y, block_z, ceil_div, sym};

use crate::families::grid::{flat_block, flat_grid};

/// Threads per threadgroup.
const THREADS: u32 = 256;
/// Elements per threadgroup: 16 per thread (four runs of 4), so a thread has four vector loads
/// per input in flight before it computes: faster than 8 per thread (gelu at 84% of copy
/// bandwidth against 72%); 32 per thread gained nothing.
const BLOCK: u32 = 4096;

/// One-input activations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unary {
    /// `x * sigmoid(x)`.
    Silu,
    /// `0.5 x (1 + erf(x / sqrt 2))`.
    GeluErf,
    /// `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))`.
    GeluTanh,
    /// `max(x, 0)`.
    Relu,
}

impl Unary {
    /// `f(v)` in f32.
    pub fn apply(self, v: Expr) -> Expr {
        match self {
            Unary::Silu => v.clone() / ((-v).exp() + 1.0f32),
            Unary::GeluErf => {
                v.clone() * 0.5f32 * ((v * std::f32::consts::FRAC_1_SQRT_2).erf() + 1.0f32)
            }
            Unary::GeluTanh => {
                // 0.5 (1 + tanh(z)) = 1 / (1 + exp(-2z)): one exp instead of a tanh, which
                // ran at 60% of copy bandwidth. The limits hold: exp overflows to inf for very
                // negative z, giving x / inf = 0.
                let z2 = (v.clone() + v.clone() * v.clone() * v.clone() * 0.044715f32)
                    * (2.0f32 * 0.797_884_6f32);
                v / ((-z2).exp() + 1.0f32)
            }
            Unary::Relu => v.max(0.0f32),
        }
    }

    /// Kernel name.
    pub fn name(self) -> &'static str {
        match self {
            Unary::Silu => "silu",
            Unary::GeluErf => "gelu",
            Unary::GeluTanh => "gelu_tanh",
            Unary::Relu => "relu",
        }
    }
}

/// Two-input ops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    /// `a + b`.
    Add,
    /// `a * b`.
    Mul,
    /// `silu(a) * b`, the gate of SwiGLU MLPs.
    Swiglu,
}

impl Binary {
    /// Kernel name.
    pub fn name(self) -> &'static str {
        match self {
            Binary::Add => "add",
            Binary::Mul => "mul",
            Binary::Swiglu => "swiglu",
        }
    }
}

/// A flat kernel: `f` maps the f32 values of `inputs` at one index to the output's value. Each
/// input window goes into a register fragment first, so a thread has all its loads in flight
/// before it computes or stores anything.
fn flat(name: &str, inputs: &[DType], output: DType, f: impl Fn(Vec<Expr>) -> Expr) -> Ir {
    let n = sym("N");
    let blocks = ceil_div(&n, BLOCK);
    let k = Kernel::new(name).grid(flat_grid(&blocks)).threads(THREADS);
    let names = ["X", "Y2", "Y3"];
    let ins: Vec<_> = inputs.iter().zip(names).map(|(&d, nm)| k.input(nm, d, [&n])).collect();
    let y = k.param("Y", output, [&n]);
    let base = flat_block(&blocks) * BLOCK;
    let frags: Vec<_> = names
        .iter()
        .take(ins.len())
        .map(|nm| k.fragment_named(&format!("{nm}_values"), DType::F32, [BLOCK]))
        .collect();
    for (p, fr) in ins.iter().zip(&frags) {
        k.copy(p.tile([base.clone()]), fr);
    }
    k.parallel([BLOCK], |k, [i]| {
        let vals = frags.iter().map(|fr| fr.at([&i])).collect();
        k.store(&frags[0], [&i], f(vals));
    });
    k.copy(&frags[0], y.tile([base]));
    k.build()
}

/// `Y = op(X)`, `X` and `Y` of `dtype`.
pub fn unary(op: Unary, dtype: DType) -> Ir {
    flat(op.name(), &[dtype], dtype, |v| op.apply(v[0].clone()))
}

/// `Y = op(X, Y2)`; arguments `X`, `Y2`, `Y`, all of `dtype`.
pub fn binary(op: Binary, dtype: DType) -> Ir {
    flat(op.name(), &[dtype, dtype], dtype, |v| match op {
        Binary::Add => v[0].clone() + v[1].clone(),
        Binary::Mul => v[0].clone() * v[1].clone(),
        Binary::Swiglu => Unary::Silu.apply(v[0].clone()) * v[1].clone(),
    })
}

/// `Y = X` converted from `from` to `to`. Any loadable type converts to f32 or f16 (bf16 and fp8
/// decode exactly to f32 first; f16 results round to nearest even).
pub fn cast(from: DType, to: DType) -> Ir {
    flat("cast", &[from], to, |v| v[0].clone())
}

/// Tile edge of the transpose (64 x 64 elements, 16 per thread, so each threadgroup moves
/// enough to hide its latency).
const T: u32 = 64;

/// `Y[b, j, i] = X[b, i, j]` for `X[B, R, C]`: square windows through threadgroup memory. The
/// window is copied in whole (vector loads where the row allows), then gathered down its
/// columns into a register fragment that is saved to Y. The selection pass gives that fragment
/// runs of 4 columns per thread, so the save takes vector stores; the gather then reads the
/// window down a column, 4 rows per thread, and the padding pass pads the window's rows to an
/// odd word pitch (`tilecast emit --target ir` shows both). Each of the three is faster than
/// going without it (f16 1x8192x8192: 82% of copy bandwidth, against 78% for scalar stores
/// straight from the window).
pub fn transpose(dtype: DType) -> Ir {
    let (b, r, c) = (sym("B"), sym("R"), sym("C"));
    let k = Kernel::new("transpose")
        .grid([ceil_div(&c, T), ceil_div(&r, T), b.clone()])
        .threads(THREADS);
    let x = k.input("X", dtype, [&b, &r, &c]);
    let y = k.param("Y", dtype, [&b, &c, &r]);
    let w = k.shared_named("window", dtype, [1, T, T]);
    let (bx, by, bz) = (block_x(), block_y(), block_z());
    k.copy(x.tile([bz.clone(), &by * T, &bx * T]), &w);
    let zero = Expr::from(0u32);
    let out = k.fragment_named("out", dtype, [T, T]);
    k.parallel([T, T], |k, [j, i]| {
        k.store(&out, [&j, &i], w.at([zero.clone(), i.clone(), j.clone()]));
    });
    k.copy(&out, y.window([bz.clone(), &bx * T, &by * T], [1, 2]));
    k.build()
}
