//! Typed expressions of the lowered form: every value's type decided once by the typing pass,
//! tile and parameter elements with their bounds proofs.

use super::{ParamIx, TileIx};
use crate::ir::{BinOp, DType, MathFn, Var};

/// A value type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ETy {
    /// A number.
    Num(DType),
    /// A comparison result.
    Bool,
}

/// An expression with its type decided once, by the typing pass.
#[derive(Clone, Debug, PartialEq)]
pub struct TExpr {
    /// Its type.
    pub ty: ETy,
    /// What it is.
    pub kind: TKind,
}

impl TExpr {
    /// The expressions `self` is built from (operands and coordinates; a tile element's stage
    /// is not one), for passes that walk expression trees.
    pub fn children(&self) -> Vec<&TExpr> {
        match &self.kind {
            TKind::Bin(_, a, b) => vec![a, b],
            TKind::Math(_, a)
            | TKind::Cast(a)
            | TKind::Bitcast(a)
            | TKind::HalfBits(a)
            | TKind::Word(_, a, _)
            | TKind::WordLane(_, a, _) => vec![a],
            TKind::Select(c, a, b) | TKind::Fma(c, a, b) => vec![c, a, b],
            TKind::Tile(el) => el.index.iter().collect(),
            TKind::Param(_, index, _) | TKind::ParamLane(_, index, _, _) => index.iter().collect(),
            TKind::Lit(_) | TKind::Sym(_) | TKind::Scalar(_) | TKind::Var(_) => Vec::new(),
            TKind::FragmentSlot(_) | TKind::Local(..) => Vec::new(),
        }
    }

    /// Whether the value depends on memory (a parameter, tile or fragment element): an
    /// expression that reads none has the same value anywhere in a block, so printers may
    /// share what it computes (a run's vector load) between the lets that name it.
    pub fn reads_memory(&self) -> bool {
        matches!(
            self.kind,
            TKind::Tile(_)
                | TKind::FragmentSlot(_)
                | TKind::Param(..)
                | TKind::ParamLane(..)
                | TKind::Word(..)
                | TKind::WordLane(..)
        ) || self.children().into_iter().any(TExpr::reads_memory)
    }

    /// [`children`](Self::children), mutable.
    pub fn children_mut(&mut self) -> Vec<&mut TExpr> {
        match &mut self.kind {
            TKind::Bin(_, a, b) => vec![a, b],
            TKind::Math(_, a)
            | TKind::Cast(a)
            | TKind::Bitcast(a)
            | TKind::HalfBits(a)
            | TKind::Word(_, a, _)
            | TKind::WordLane(_, a, _) => vec![a],
            TKind::Select(c, a, b) | TKind::Fma(c, a, b) => vec![c, a, b],
            TKind::Tile(el) => el.index.iter_mut().collect(),
            TKind::Param(_, index, _) | TKind::ParamLane(_, index, _, _) => {
                index.iter_mut().collect()
            }
            TKind::Lit(_) | TKind::Sym(_) | TKind::Scalar(_) | TKind::Var(_) => Vec::new(),
            TKind::FragmentSlot(_) | TKind::Local(..) => Vec::new(),
        }
    }
}

/// Whether an index is proven inside the tile or must be checked when the kernel runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bounds {
    /// Every coordinate is provably below its dimension.
    Proven,
    /// Out-of-range loads read zero and out-of-range stores are dropped.
    Checked,
}

/// Expression kinds.
#[derive(Clone, Debug, PartialEq)]
pub enum TKind {
    /// A constant of the expression's type (integers exact, floats possibly infinite).
    Lit(f64),
    /// Shape symbol by index.
    Sym(usize),
    /// Non-symbol scalar argument by index.
    Scalar(usize),
    /// A variable.
    Var(Var),
    /// Binary operation (operands typed for it).
    Bin(BinOp, Box<TExpr>, Box<TExpr>),
    /// Math function.
    Math(MathFn, Box<TExpr>),
    /// The value of the parallel body's let with this number and name ([`super::Op::Let`]).
    Local(usize, String),
    /// `a * b + c`, fused where the device can.
    Fma(Box<TExpr>, Box<TExpr>, Box<TExpr>),
    /// `cond ? a : b`.
    Select(Box<TExpr>, Box<TExpr>, Box<TExpr>),
    /// Conversion to the expression's type.
    Cast(Box<TExpr>),
    /// The operand's bits read as this expression's type ([`crate::ir::Expr::Bitcast`]).
    Bitcast(Box<TExpr>),
    /// A tile element.
    Tile(TileElem),
    /// The current parallel element of a fragment.
    FragmentSlot(TileIx),
    /// A parameter element (zero out of bounds), and per axis whether its bound is tested
    /// when the kernel runs (`false` where the bounds pass proved the coordinate inside).
    Param(ParamIx, Vec<TExpr>, Vec<bool>),
    /// Lane `3` of the aligned run of four elements of parameter `0` at coordinates `1` (the
    /// run's first), read through its vector view: lets reading the lanes of one run share
    /// one vector load ([`crate::passes`]' `lane_read`). `2`: per axis whether the run's
    /// bound is tested.
    ParamLane(ParamIx, Vec<TExpr>, Vec<bool>, u32),
    /// The f16 in the low 16 bits of a u32 operand, widened to f32 (exact): a packed scale
    /// read as `w.bitcast(F16).cast(F32)`, taken in one conversion rather than three.
    HalfBits(Box<TExpr>),
    /// Word `i` of a u8 or i8 parameter's bytes (zero past its end;
    /// [`crate::ir::Expr::LoadWord`]), and whether `i` is tested against the end: false where
    /// range analysis proves every word read lies wholly inside the parameter.
    Word(ParamIx, Box<TExpr>, bool),
    /// Word `first + lane` of a u8 or i8 parameter's bytes (fields: the parameter, `first`, the
    /// run's first word, a multiple of 4 proven inside with its run, and `lane` in `0..4`):
    /// lets reading the words of one run share one 16-byte load through the parameter's
    /// `vec4<u32>` view ([`crate::passes`]' `lane_read`).
    WordLane(ParamIx, Box<TExpr>, u32),
}

/// A tile element reference.
#[derive(Clone, Debug, PartialEq)]
pub struct TileElem {
    /// The tile.
    pub tile: TileIx,
    /// Stage of a multi-buffered tile.
    pub stage: Option<Box<TExpr>>,
    /// Coordinates.
    pub index: Vec<TExpr>,
    /// Bounds proof.
    pub bounds: Bounds,
}
