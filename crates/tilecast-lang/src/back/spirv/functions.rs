//! The functions workgroup-scope matrix operations call (per-element operations and the
//! combine functions of reductions), collected while the entry point is printed and printed
//! after it.

use std::collections::HashMap;

use rspirv::spirv::Word;

use super::kinds::Kind;
use crate::ir::Var;
use crate::lir::{Op as LOp, TileIx};

/// The combine function of a matrix reduction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Combine {
    Max,
    Sum,
    /// The first operand: spreads a value every element of a row already holds.
    First,
}

/// A per-element operation whose function is printed after the entry point.
#[derive(Clone, Debug)]
pub(crate) struct PerElement {
    pub(crate) func: Word,
    /// The matrix the operation runs on (and stores).
    pub(crate) tile: TileIx,
    /// The loop's variables: row, then column (a loop over a row statistic has only the row).
    pub(crate) vars: Vec<Var>,
    pub(crate) body: Vec<LOp>,
    /// Other matrices of the same type whose elements the body reads, passed element by
    /// element after the element itself.
    pub(crate) matrices: Vec<TileIx>,
    /// Loop counters of enclosing loops the body reads, passed as values.
    pub(crate) counters: Vec<Var>,
}

/// Functions the workgroup-scope operations call, printed after the entry point.
#[derive(Default)]
pub(crate) struct WorkgroupFunctions {
    pub(crate) per_element: Vec<PerElement>,
    /// Combine functions of reductions by element type and operator.
    pub(crate) combines: HashMap<(Kind, Combine), Word>,
}
