//! Constant folding of literal subexpressions, shared by the verifier (division by zero) and
//! the typing pass (literals that must fit their type).

use crate::ir::{BinOp, Expr, MathFn};

/// The value of an integer expression made only of integer literals, if it has one.
pub fn int(e: &Expr) -> Option<i64> {
    match e {
        Expr::Int(v) => Some(*v),
        Expr::Bin(op, a, b) => {
            let (a, b) = (int(a)?, int(b)?);
            match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                BinOp::Div => a.checked_div(b),
                BinOp::Rem => a.checked_rem(b),
                BinOp::Max => Some(a.max(b)),
                BinOp::Min => Some(a.min(b)),
                BinOp::BitAnd => Some(a & b),
                BinOp::BitOr => Some(a | b),
                BinOp::BitXor => Some(a ^ b),
                BinOp::Shl => (0..32).contains(&b).then(|| a << b),
                BinOp::Shr => (0..32).contains(&b).then(|| a >> b),
                _ => None,
            }
        }
        Expr::Math(MathFn::Neg, a) => int(a)?.checked_neg(),
        Expr::Math(MathFn::Abs, a) => int(a)?.checked_abs(),
        _ => None,
    }
}
