//! Constant folding, in one place: the verifier (division by zero), the typing pass (literals
//! that must fit their type, so the WGSL compiler's own constant evaluation never sees an
//! overflow), range analysis ([`crate::ranges`]) and the launch (grids and shapes with symbols
//! bound) all fold through these functions.

use crate::ir::{BinOp, Expr, MathFn};

/// The value of an integer expression made only of integer literals, if it has one (no step
/// overflows i64, divides by zero or shifts past 31).
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

/// The value of `e` when it is built from integer constants alone in u32 arithmetic that does
/// not wrap (no step leaves `0..=u32::MAX`).
pub fn u32_value(e: &Expr) -> Option<u64> {
    let fits = |v: u64| (v <= u32::MAX as u64).then_some(v);
    match e {
        Expr::Int(v) => u64::try_from(*v).ok().and_then(fits),
        Expr::Bin(op, a, b) => {
            let (a, b) = (u32_value(a)?, u32_value(b)?);
            match op {
                BinOp::Add => fits(a + b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => fits(a.checked_mul(b)?),
                BinOp::Div => a.checked_div(b),
                BinOp::Rem => a.checked_rem(b),
                BinOp::Shr => (b < 32).then(|| a >> b),
                BinOp::Shl => (b < 32).then(|| a << b).and_then(fits),
                _ => None,
            }
        }
        _ => None,
    }
}

/// Literal-only value of `e`, folded in f64 (integers exact below 2^53), where it has one.
pub fn literal(e: &Expr) -> Option<f64> {
    if let Some(i) = int(e) {
        return Some(i as f64);
    }
    Some(match e {
        Expr::Int(v) => *v as f64,
        Expr::Float(v) => *v,
        Expr::Bin(op, a, b) => {
            let (a, b) = (literal(a)?, literal(b)?);
            match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
                BinOp::Rem => a % b,
                BinOp::Max => a.max(b),
                BinOp::Min => a.min(b),
                BinOp::Pow => a.powf(b),
                _ => return None,
            }
        }
        Expr::Math(f, a) => math(*f, literal(a)?)?,
        Expr::Fma(a, b, c) => literal(a)?.mul_add(literal(b)?, literal(c)?),
        _ => return None,
    })
}

/// `f` of a constant, where it folds (erf is left to the device).
pub fn math(f: MathFn, a: f64) -> Option<f64> {
    Some(match f {
        MathFn::Neg => -a,
        MathFn::Abs => a.abs(),
        MathFn::Exp => a.exp(),
        MathFn::Log => a.ln(),
        MathFn::Sqrt => a.sqrt(),
        MathFn::Rsqrt => 1.0 / a.sqrt(),
        MathFn::Tanh => a.tanh(),
        MathFn::Exp2 => a.exp2(),
        MathFn::Log2 => a.log2(),
        MathFn::Floor => a.floor(),
        MathFn::Round => a.round_ties_even(),
        MathFn::Sin => a.sin(),
        MathFn::Cos => a.cos(),
        MathFn::Erf => return None,
    })
}

/// The value of `op` on two constants (integers when `int`; comparisons give 0 or 1), or `None`
/// when it has none (an integer division by zero, a shift past the width).
pub fn binary(op: BinOp, a: f64, b: f64, int: bool) -> Option<f64> {
    let bits = |x: f64| x as i64;
    Some(match op {
        BinOp::Add => a + b,
        BinOp::Sub => a - b,
        BinOp::Mul => a * b,
        BinOp::Div if int => bits(a).checked_div(bits(b))? as f64,
        BinOp::Rem if int => bits(a).checked_rem(bits(b))? as f64,
        BinOp::Div => a / b,
        BinOp::Rem => a % b,
        BinOp::Max => a.max(b),
        BinOp::Min => a.min(b),
        BinOp::Pow => a.powf(b),
        BinOp::Lt => (a < b) as u8 as f64,
        BinOp::Le => (a <= b) as u8 as f64,
        BinOp::Gt => (a > b) as u8 as f64,
        BinOp::Ge => (a >= b) as u8 as f64,
        BinOp::Eq => (a == b) as u8 as f64,
        BinOp::Ne => (a != b) as u8 as f64,
        BinOp::And => ((a != 0.0) && (b != 0.0)) as u8 as f64,
        BinOp::Or => ((a != 0.0) || (b != 0.0)) as u8 as f64,
        BinOp::BitAnd => (bits(a) & bits(b)) as f64,
        BinOp::BitOr => (bits(a) | bits(b)) as f64,
        BinOp::BitXor => (bits(a) ^ bits(b)) as f64,
        BinOp::Shl if (0..32).contains(&bits(b)) => (bits(a) << bits(b)) as f64,
        BinOp::Shr if (0..32).contains(&bits(b)) => (bits(a) >> bits(b)) as f64,
        BinOp::Shl | BinOp::Shr => return None,
        BinOp::Dot4I8 => dot4_i8(bits(a) as u32, bits(b) as u32) as f64,
    })
}

/// Evaluates a uniform expression with symbol values bound (`symbols[i]` is `names[i]`): what a
/// launch does with a kernel's grid and parameter shapes. `None` where a step has no value
/// (a subtraction below zero, a division by zero, an unbound symbol).
pub fn eval(e: &Expr, names: &[String], symbols: &[u64]) -> Option<u64> {
    let ev = |x: &Expr| eval(x, names, symbols);
    Some(match e {
        Expr::Int(v) => u64::try_from(*v).ok()?,
        Expr::Sym(s) => *symbols.get(names.iter().position(|n| n == s)?)?,
        Expr::Bin(op, a, b) => {
            let (a, b) = (ev(a)?, ev(b)?);
            match op {
                BinOp::Add => a.checked_add(b)?,
                BinOp::Sub => a.checked_sub(b)?,
                BinOp::Mul => a.checked_mul(b)?,
                BinOp::Div => a.checked_div(b)?,
                BinOp::Rem => a.checked_rem(b)?,
                BinOp::Max => a.max(b),
                BinOp::Min => a.min(b),
                BinOp::BitAnd => a & b,
                BinOp::BitOr => a | b,
                BinOp::BitXor => a ^ b,
                BinOp::Shl => a.checked_shl(u32::try_from(b).ok()?)? & u32::MAX as u64,
                BinOp::Shr => a.checked_shr(u32::try_from(b).ok()?)?,
                _ => return None,
            }
        }
        Expr::Math(MathFn::Abs, a) => ev(a)?,
        _ => return None,
    })
}

/// The sum of the products of the four signed bytes of `a` and `b` ([`BinOp::Dot4I8`]).
pub fn dot4_i8(a: u32, b: u32) -> i32 {
    (0..4).map(|i| (a >> (8 * i)) as u8 as i8 as i32 * ((b >> (8 * i)) as u8 as i8 as i32)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Bin(op, Box::new(a), Box::new(b))
    }
    fn i(v: i64) -> Expr {
        Expr::Int(v)
    }

    #[test]
    fn packed_byte_dot_products_read_each_byte_signed() {
        // Bytes (lowest first) 2, 1, -1, -128 against 4, 3, 2, 127.
        assert_eq!(dot4_i8(0x80ff_0102, 0x7f02_0304), 8 + 3 - 2 - 128 * 127);
        assert_eq!(
            binary(BinOp::Dot4I8, 0x0101_0101 as f64, 0xffff_ffffu32 as f64, true),
            Some(-4.0)
        );
    }

    #[test]
    fn integer_literals_fold_unless_a_step_has_no_value() {
        assert_eq!(int(&bin(BinOp::Add, i(3), bin(BinOp::Mul, i(4), i(5)))), Some(23));
        assert_eq!(int(&Expr::Math(MathFn::Neg, Box::new(i(7)))), Some(-7));
        assert_eq!(int(&bin(BinOp::Div, i(1), i(0))), None, "division by zero");
        assert_eq!(int(&bin(BinOp::Shl, i(1), i(32))), None, "shift past the width");
        assert_eq!(int(&bin(BinOp::Mul, i(i64::MAX), i(2))), None, "i64 overflow");
        assert_eq!(int(&Expr::Sym("N".into())), None, "a symbol is no literal");
    }

    #[test]
    fn u32_values_refuse_what_would_wrap() {
        assert_eq!(u32_value(&bin(BinOp::Mul, i(65536), i(65535))), Some(4294901760));
        assert_eq!(u32_value(&bin(BinOp::Mul, i(65536), i(65536))), None);
        assert_eq!(u32_value(&bin(BinOp::Sub, i(3), i(4))), None);
        assert_eq!(u32_value(&i(-1)), None);
        assert_eq!(u32_value(&bin(BinOp::Shl, i(1), i(31))), Some(1 << 31));
        assert_eq!(u32_value(&bin(BinOp::Shl, i(2), i(31))), None);
    }

    #[test]
    fn literals_fold_in_f64_and_binary_ops_follow_the_type() {
        let e = Expr::Math(MathFn::Exp2, Box::new(bin(BinOp::Add, Expr::Float(0.5), i(2))));
        assert_eq!(literal(&e), Some(2f64.powf(2.5)));
        assert_eq!(literal(&Expr::Math(MathFn::Erf, Box::new(i(1)))), None);
        assert_eq!(literal(&Expr::Float(0.5).sin()), Some(0.5f64.sin()));
        assert_eq!(literal(&bin(BinOp::Pow, i(2), Expr::Float(0.5))), Some(2f64.sqrt()));
        assert_eq!(literal(&i(3).fma(i(4), Expr::Float(0.25))), Some(12.25));
        assert_eq!(binary(BinOp::Div, 7.0, 2.0, true), Some(3.0));
        assert_eq!(binary(BinOp::Div, 7.0, 2.0, false), Some(3.5));
        assert_eq!(binary(BinOp::Rem, 7.0, 0.0, true), None);
        assert_eq!(binary(BinOp::Ge, 2.0, 2.0, false), Some(1.0));
        assert_eq!(binary(BinOp::Shr, 8.0, 40.0, true), None);
    }

    #[test]
    fn launch_evaluation_binds_symbols() {
        let names = vec!["M".to_string(), "N".to_string()];
        let grid = bin(BinOp::Div, bin(BinOp::Add, Expr::Sym("N".into()), i(63)), i(64));
        assert_eq!(eval(&grid, &names, &[5, 1001]), Some(16));
        let below = bin(BinOp::Sub, Expr::Sym("M".into()), i(8));
        assert_eq!(eval(&below, &names, &[5, 1001]), None, "below zero");
        assert_eq!(eval(&Expr::Sym("K".into()), &names, &[5, 1001]), None, "unbound");
    }
}
