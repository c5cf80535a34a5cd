//! Questions about index expressions: which variables they mention, and whether they walk a
//! parameter's last axis with unit stride.

use crate::ir::{BinOp, Expr, Var};

/// Only the last coordinate mentions `col`, as `col` (times 1) plus terms without it, or not
/// at all. `col ^ m` and `col / d` (constants) count too: over a subgroup's runs they still
/// cover whole cache lines (a permutation of the same columns; each element read by `d`
/// neighbours), as rope's partner `X[c ^ 1]` and its table `Cos[c / 2]` do.
pub(crate) fn unit_stride(idx: &[Expr], col: Var) -> bool {
    fn last(e: &Expr, col: Var) -> bool {
        match e {
            Expr::Var(v) => *v == col || !mentions(e, col),
            Expr::Bin(BinOp::Add, a, b) => {
                (last(a, col) && !mentions(b, col)) || (last(b, col) && !mentions(a, col))
            }
            Expr::Bin(BinOp::Mul, a, one) | Expr::Bin(BinOp::Mul, one, a)
                if matches!(**one, Expr::Int(1)) =>
            {
                last(a, col)
            }
            Expr::Bin(BinOp::BitXor | BinOp::Div, a, c) if matches!(**c, Expr::Int(n) if n > 0) => {
                last(a, col)
            }
            _ => !mentions(e, col),
        }
    }
    match idx.split_last() {
        Some((l, rest)) => last(l, col) && !rest.iter().any(|i| mentions(i, col)),
        None => true,
    }
}

/// Whether `e` mentions loop variable `v`.
pub(crate) fn mentions(e: &Expr, v: Var) -> bool {
    matches!(e, Expr::Var(x) if *x == v) || e.children().into_iter().any(|c| mentions(c, v))
}
