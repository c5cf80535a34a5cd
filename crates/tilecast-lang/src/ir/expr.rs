//! Expressions: index arithmetic and element math.

use super::ids::{LetId, ParamId, ScalarId, TileId};
use tilecast_core::DType;

/// What a variable stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VarKind {
    /// Threadgroup index along an axis (0 = x).
    Block(u8),
    /// A serial or pipelined loop counter.
    Loop,
    /// A parallel-loop index.
    Parallel,
    /// The thread's index in its threadgroup (`0..threads`; differs per thread).
    Thread,
}

/// A variable (loop index, block index).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Var {
    /// Unique id within a kernel.
    pub id: u32,
    /// Its role.
    pub kind: VarKind,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (integer division truncates)
    Div,
    /// `%`
    Rem,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// logical and
    And,
    /// logical or
    Or,
    /// `<<` (integers)
    Shl,
    /// `>>` (integers; arithmetic for i32)
    Shr,
    /// bitwise and (integers)
    BitAnd,
    /// bitwise or (integers)
    BitOr,
    /// bitwise xor (integers)
    BitXor,
    /// larger of two
    Max,
    /// smaller of two
    Min,
    /// `pow(a, b)`: a raised to b (floats; NaN for a negative base, as WGSL and Metal give)
    Pow,
    /// The dot product of two u32 words read as four signed bytes each: an i32, exact (WGSL
    /// `dot4I8Packed`, SPIR-V `OpSDot` on packed words; one instruction where the device has
    /// integer dot products).
    Dot4I8,
}

/// Unary math functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MathFn {
    /// e^x
    Exp,
    /// natural log
    Log,
    /// square root
    Sqrt,
    /// 1 / sqrt
    Rsqrt,
    /// hyperbolic tangent
    Tanh,
    /// error function
    Erf,
    /// absolute value
    Abs,
    /// negation
    Neg,
    /// 2^x (exact for integral x in f32's exponent range)
    Exp2,
    /// base-2 log
    Log2,
    /// largest integral value not above x
    Floor,
    /// nearest integral value, halves to even (WGSL `round`, MSL `rint`)
    Round,
    /// sine (radians)
    Sin,
    /// cosine (radians)
    Cos,
}

/// An expression tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// An integer constant (takes the type of the other operand; u32 alone).
    Int(i64),
    /// A float constant (takes the type of the other operand; f32 alone).
    Float(f64),
    /// A shape symbol (u32, uniform), bound at launch from the arguments' shapes.
    Sym(String),
    /// A variable (u32).
    Var(Var),
    /// A scalar argument (f32, i32 or u32), set at launch.
    Scalar(ScalarId),
    /// The value of a [`super::Stmt::Let`] of the enclosing parallel body.
    Local(LetId),
    /// Binary operation.
    Bin(BinOp, Box<Expr>, Box<Expr>),
    /// Math function.
    Math(MathFn, Box<Expr>),
    /// `a * b + c` in one rounding where the device fuses it (floats).
    Fma(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `cond ? a : b`
    Select(Box<Expr>, Box<Expr>, Box<Expr>),
    /// Conversion.
    Cast(DType, Box<Expr>),
    /// Reinterpretation of the bits: between f32, u32 and i32, or to f16 from the low 16
    /// bits of a u32 (a half stored in a packed word).
    Bitcast(DType, Box<Expr>),
    /// Element of a tile.
    LoadTile(TileId, Vec<Expr>),
    /// Element of a parameter; out of bounds reads zero.
    LoadParam(ParamId, Vec<Expr>),
    /// Word `i` (u32) of a u8 or i8 parameter's bytes, row-major: bytes `4i .. 4i + 4`,
    /// the first in the lowest bits. Bytes past the parameter's end read zero. One 32-bit
    /// load where element reads take one load per byte.
    LoadWord(ParamId, Box<Expr>),
    /// A mistake made while building an expression, which the builder cannot report itself
    /// (a bit field outside a u32, say): the operation as written and what is wrong with it.
    /// The verifier reports it; no valid kernel holds one.
    Invalid {
        /// The operation as written, e.g. `bits(20, 16)`.
        op: String,
        /// What is wrong with it.
        message: String,
    },
}

/// An [`Expr::Invalid`] for `op`.
fn invalid(op: String, message: String) -> Expr {
    Expr::Invalid { op, message }
}

/// The mistake in a bit field `offset .. offset + count` of a u32, if it is empty or ends past
/// bit 32.
fn field_outside_word(op: &str, offset: u32, count: u32) -> Option<Expr> {
    let op = format!("{op}({offset}, {count})");
    if count == 0 {
        return Some(invalid(op, "a field has at least one bit".into()));
    }
    let end = offset as u64 + count as u64;
    (end > 32).then(|| invalid(op, format!("bits {offset}..{end} end past bit 32 of a u32 word")))
}

/// A shape symbol: a dimension known only at launch.
pub fn sym(name: &str) -> Expr {
    Expr::Sym(name.to_string())
}

/// The thread's index within its threadgroup (u32, differs per thread: use it only where
/// per-thread values are allowed, as in `parallel` bodies).
pub fn thread_index() -> Expr {
    Expr::Var(Var { id: 3, kind: VarKind::Thread })
}

/// `ceil(a / b)` for unsigned index math.
pub fn ceil_div(a: impl Into<Expr>, b: impl Into<Expr>) -> Expr {
    let (a, b) = (a.into(), b.into());
    (a + b.clone() - 1) / b
}

/// `Expr` methods applying one math function each, `self.$name()` for `MathFn::$f`.
macro_rules! math_functions {
    ($($(#[$doc:meta])* $name:ident => $f:ident;)*) => {
        impl Expr {
            $(
                $(#[$doc])*
                pub fn $name(self) -> Expr {
                    Expr::Math(MathFn::$f, Box::new(self))
                }
            )*
        }
    };
}

math_functions! {
        /// sin(self), radians
        sin => Sin;
        /// cos(self), radians
        cos => Cos;
        /// e^self
        exp => Exp;
        /// ln(self)
        log => Log;
        /// sqrt(self)
        sqrt => Sqrt;
        /// 1/sqrt(self)
        rsqrt => Rsqrt;
        /// tanh(self)
        tanh => Tanh;
        /// erf(self)
        erf => Erf;
        /// 2^self
        exp2 => Exp2;
        /// log2(self)
        log2 => Log2;
        /// floor(self)
        floor => Floor;
        /// `self` rounded to the nearest integral value, halves to even (2.5 gives 2): what a
        /// quantizer applies before converting to an integer.
        round => Round;
        /// |self|
        abs => Abs;
}

impl Expr {
    /// The direct sub-expressions (index expressions of loads included).
    pub fn children(&self) -> Vec<&Expr> {
        match self {
            Expr::Bin(_, a, b) => vec![a, b],
            Expr::Math(_, a) | Expr::Cast(_, a) | Expr::Bitcast(_, a) | Expr::LoadWord(_, a) => {
                vec![a]
            }
            Expr::Select(c, a, b) | Expr::Fma(c, a, b) => vec![c, a, b],
            Expr::LoadTile(_, i) | Expr::LoadParam(_, i) => i.iter().collect(),
            Expr::Int(_)
            | Expr::Float(_)
            | Expr::Sym(_)
            | Expr::Var(_)
            | Expr::Scalar(_)
            | Expr::Local(_)
            | Expr::Invalid { .. } => Vec::new(),
        }
    }

    /// The same expression with each direct sub-expression replaced by `f` of it (the ones
    /// [`children`](Self::children) lists, in that order).
    pub fn map_children(&self, f: &mut impl FnMut(&Expr) -> Expr) -> Expr {
        let mut b = |x: &Expr| Box::new(f(x));
        match self {
            Expr::Bin(op, a, c) => {
                let a = b(a);
                Expr::Bin(*op, a, b(c))
            }
            Expr::Math(m, a) => Expr::Math(*m, b(a)),
            Expr::Cast(d, a) => Expr::Cast(*d, b(a)),
            Expr::Bitcast(d, a) => Expr::Bitcast(*d, b(a)),
            Expr::Select(c, x, y) => {
                let (c, x) = (b(c), b(x));
                Expr::Select(c, x, b(y))
            }
            Expr::Fma(x, y, z) => {
                let (x, y) = (b(x), b(y));
                Expr::Fma(x, y, b(z))
            }
            Expr::LoadWord(p, i) => Expr::LoadWord(*p, b(i)),
            Expr::LoadTile(t, i) => Expr::LoadTile(*t, i.iter().map(&mut *f).collect()),
            Expr::LoadParam(p, i) => Expr::LoadParam(*p, i.iter().map(f).collect()),
            // `children` (exhaustive) lists none for the rest.
            leaf => {
                debug_assert!(leaf.children().is_empty(), "{leaf:?} has children to map");
                leaf.clone()
            }
        }
    }

    /// `+inf` (f32 unless combined with f16).
    pub fn inf() -> Expr {
        Expr::Float(f64::INFINITY)
    }
    /// `-inf` (f32 unless combined with f16).
    pub fn neg_inf() -> Expr {
        Expr::Float(f64::NEG_INFINITY)
    }
    /// `max(self, other)`
    pub fn max(self, other: impl Into<Expr>) -> Expr {
        Expr::Bin(BinOp::Max, Box::new(self), Box::new(other.into()))
    }
    /// `min(self, other)`
    pub fn min(self, other: impl Into<Expr>) -> Expr {
        Expr::Bin(BinOp::Min, Box::new(self), Box::new(other.into()))
    }
    /// `self` raised to `exponent` (floats).
    pub fn pow(self, exponent: impl Into<Expr>) -> Expr {
        Expr::Bin(BinOp::Pow, Box::new(self), Box::new(exponent.into()))
    }
    /// `self` and `other` (u32 words) as four signed bytes each, their products summed: an
    /// i32 (`Σ i8(self.byte(i)) * i8(other.byte(i))`), the inner step of int8 dot products.
    pub fn dot4_i8(self, other: impl Into<Expr>) -> Expr {
        Expr::Bin(BinOp::Dot4I8, Box::new(self), Box::new(other.into()))
    }
    /// `self * b + c`, fused where the device has a fused multiply-add (floats).
    pub fn fma(self, b: impl Into<Expr>, c: impl Into<Expr>) -> Expr {
        Expr::Fma(Box::new(self), Box::new(b.into()), Box::new(c.into()))
    }
    /// Converts to `dtype`.
    pub fn cast(self, dtype: DType) -> Expr {
        Expr::Cast(dtype, Box::new(self))
    }
    /// The same bits read as `dtype`: f32, u32 and i32 between themselves; f16 from the low
    /// 16 bits of a u32 (a GGUF block's scale, loaded within a word).
    pub fn bitcast(self, dtype: DType) -> Expr {
        Expr::Bitcast(dtype, Box::new(self))
    }
    /// Bits `offset .. offset + count` of a u32 (a packed field), in the low bits of a u32:
    /// `(self >> offset) & (2^count - 1)`. A field that is empty or ends past bit 32 is a
    /// verify error.
    pub fn bits(self, offset: u32, count: u32) -> Expr {
        if let Some(bad) = field_outside_word("bits", offset, count) {
            return bad;
        }
        let shifted = if offset == 0 { self } else { self >> offset };
        if offset + count == 32 { shifted } else { shifted & ((1u64 << count) - 1) }
    }
    /// Bits `offset .. offset + count` of a u32 read as a signed (two's complement) field,
    /// sign-extended to an i32: a packed int8 of a GGUF `q8_0` block is `w.signed_bits(8, 8)`.
    pub fn signed_bits(self, offset: u32, count: u32) -> Expr {
        if let Some(bad) = field_outside_word("signed_bits", offset, count) {
            return bad;
        }
        let top = 32 - offset - count;
        let up = if top == 0 { self } else { self << top };
        let signed = up.bitcast(DType::I32);
        if count == 32 { signed } else { signed >> (32 - count) }
    }
    /// Byte `i` (0..4, the lowest first) of a u32 word, as a u32.
    pub fn byte(self, i: u32) -> Expr {
        if i >= 4 {
            return invalid(
                format!("byte({i})"),
                format!("a u32 word has bytes 0..4; {i} is past them"),
            );
        }
        self.bits(8 * i, 8)
    }
    /// Nibble `i` (0..8, the lowest first) of a u32 word, as a u32.
    pub fn nibble(self, i: u32) -> Expr {
        if i >= 8 {
            return invalid(
                format!("nibble({i})"),
                format!("a u32 word has nibbles 0..8; {i} is past them"),
            );
        }
        self.bits(4 * i, 4)
    }
    fn cmp(self, op: BinOp, other: impl Into<Expr>) -> Expr {
        Expr::Bin(op, Box::new(self), Box::new(other.into()))
    }
    /// `self < other`
    pub fn lt(self, other: impl Into<Expr>) -> Expr {
        self.cmp(BinOp::Lt, other)
    }
    /// `self <= other`
    pub fn le(self, other: impl Into<Expr>) -> Expr {
        self.cmp(BinOp::Le, other)
    }
    /// `self > other`
    pub fn gt(self, other: impl Into<Expr>) -> Expr {
        self.cmp(BinOp::Gt, other)
    }
    /// `self >= other`
    pub fn ge(self, other: impl Into<Expr>) -> Expr {
        self.cmp(BinOp::Ge, other)
    }
    /// `self == other`
    pub fn eq_(self, other: impl Into<Expr>) -> Expr {
        self.cmp(BinOp::Eq, other)
    }
    /// `self != other`
    pub fn ne_(self, other: impl Into<Expr>) -> Expr {
        self.cmp(BinOp::Ne, other)
    }
    /// logical and
    pub fn and(self, other: impl Into<Expr>) -> Expr {
        self.cmp(BinOp::And, other)
    }
    /// logical or
    pub fn or(self, other: impl Into<Expr>) -> Expr {
        self.cmp(BinOp::Or, other)
    }
}

/// `cond ? a : b`
pub fn select(cond: Expr, a: impl Into<Expr>, b: impl Into<Expr>) -> Expr {
    Expr::Select(Box::new(cond), Box::new(a.into()), Box::new(b.into()))
}

macro_rules! int_from {
    ($($t:ty),*) => { $(impl From<$t> for Expr { fn from(v: $t) -> Expr { Expr::Int(v as i64) } })* };
}
int_from!(u32, i32, usize, u64);

impl From<f32> for Expr {
    fn from(v: f32) -> Expr {
        Expr::Float(v as f64)
    }
}
impl From<f64> for Expr {
    fn from(v: f64) -> Expr {
        Expr::Float(v)
    }
}
impl From<&Expr> for Expr {
    fn from(e: &Expr) -> Expr {
        e.clone()
    }
}

macro_rules! binop {
    ($tr:ident, $m:ident, $op:ident) => {
        impl<R: Into<Expr>> std::ops::$tr<R> for Expr {
            type Output = Expr;
            fn $m(self, rhs: R) -> Expr {
                Expr::Bin(BinOp::$op, Box::new(self), Box::new(rhs.into()))
            }
        }
        impl<R: Into<Expr>> std::ops::$tr<R> for &Expr {
            type Output = Expr;
            fn $m(self, rhs: R) -> Expr {
                Expr::Bin(BinOp::$op, Box::new(self.clone()), Box::new(rhs.into()))
            }
        }
    };
}
binop!(Add, add, Add);
binop!(Sub, sub, Sub);
binop!(Mul, mul, Mul);
binop!(Div, div, Div);
binop!(Rem, rem, Rem);
binop!(BitAnd, bitand, BitAnd);
binop!(BitOr, bitor, BitOr);
binop!(BitXor, bitxor, BitXor);
binop!(Shl, shl, Shl);
binop!(Shr, shr, Shr);

impl std::ops::Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        Expr::Math(MathFn::Neg, Box::new(self))
    }
}
