//! Expression typing, shared by the verifier and the back end.

use crate::ir::{BinOp, DType, Expr, Kernel, MathFn};

/// The type of an expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A number of a concrete element type.
    Num(DType),
    /// A comparison result.
    Bool,
    /// An integer literal that adapts to the other operand (u32 alone).
    IntLit,
    /// A float literal that adapts to the other operand (f32 alone).
    FloatLit,
}

impl Ty {
    /// The concrete type a literal settles on when nothing else decides.
    pub fn settle(self) -> Ty {
        match self {
            Ty::IntLit => Ty::Num(DType::U32),
            Ty::FloatLit => Ty::Num(DType::F32),
            t => t,
        }
    }
}

/// Whether `d` is a float type.
pub fn is_float(d: DType) -> bool {
    matches!(d, DType::F32 | DType::F16)
}

/// Whether `t` is an integer type or literal.
fn is_int(t: Ty) -> bool {
    matches!(t, Ty::IntLit | Ty::Num(DType::U32 | DType::I32))
}

/// The type a load of a `dtype` element gives: bytes widen to 32-bit integers, bf16 and fp8
/// to f32 (exactly).
pub fn loaded(dtype: DType) -> DType {
    match dtype {
        DType::U8 => DType::U32,
        DType::I8 => DType::I32,
        DType::BF16 | DType::F8E4M3 | DType::F8E5M2 => DType::F32,
        d => d,
    }
}

fn unify(a: Ty, b: Ty) -> Result<Ty, String> {
    match (a, b) {
        (x, y) if x == y => Ok(x),
        (Ty::IntLit, Ty::FloatLit) | (Ty::FloatLit, Ty::IntLit) => Ok(Ty::FloatLit),
        (Ty::IntLit, Ty::Num(d)) | (Ty::Num(d), Ty::IntLit) => Ok(Ty::Num(d)),
        (Ty::FloatLit, Ty::Num(d)) | (Ty::Num(d), Ty::FloatLit) if is_float(d) => Ok(Ty::Num(d)),
        (x, y) => {
            Err(format!("operands of types {} and {} need an explicit cast", name(x), name(y)))
        }
    }
}

/// The type of a float-only operation `what` on operands of type `t` (integer literals become
/// float literals), or why `t` is not a float.
fn float_operand(what: &str, t: Ty) -> Result<Ty, String> {
    match t.settle() {
        Ty::Num(d) if is_float(d) => Ok(if t == Ty::IntLit { Ty::FloatLit } else { t }),
        _ if t == Ty::IntLit => Ok(Ty::FloatLit),
        other => Err(format!("{what} needs a float operand, not {}", name(other))),
    }
}

/// A type's name in messages.
pub fn name(t: Ty) -> String {
    match t {
        Ty::Num(d) => d.to_string(),
        Ty::Bool => "bool".into(),
        Ty::IntLit => "integer literal".into(),
        Ty::FloatLit => "float literal".into(),
    }
}

/// The type of `e`, or why it has none.
pub fn type_of(k: &Kernel, e: &Expr) -> Result<Ty, String> {
    Ok(match e {
        Expr::Int(_) => Ty::IntLit,
        Expr::Float(_) => Ty::FloatLit,
        Expr::Sym(_) | Expr::Var(_) => Ty::Num(DType::U32),
        // A let holds a value of one type: its value's, literals settled (u32, f32).
        Expr::Local(id) => match crate::ir::visit::let_def(k, *id) {
            Some((_, value)) => type_of(k, value)?.settle(),
            None => return Err(format!("let #{} does not belong to this kernel", id.0)),
        },
        Expr::Scalar(a) => match k.scalars.get(a.0) {
            Some(s) => Ty::Num(s.dtype),
            None => return Err(format!("scalar argument #{} does not belong to this kernel", a.0)),
        },
        Expr::Bin(op, a, b) => {
            let (ta, tb) = (type_of(k, a)?, type_of(k, b)?);
            match op {
                BinOp::And | BinOp::Or => {
                    if ta != Ty::Bool || tb != Ty::Bool {
                        return Err(format!("{op:?} needs bool operands"));
                    }
                    Ty::Bool
                }
                BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
                    unify(ta, tb)?;
                    Ty::Bool
                }
                BinOp::Shl | BinOp::Shr => {
                    if !is_int(ta) || !matches!(tb, Ty::IntLit | Ty::Num(DType::U32)) {
                        return Err(format!(
                            "{op:?} shifts an integer by a u32; got {} by {}",
                            name(ta),
                            name(tb)
                        ));
                    }
                    ta
                }
                BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                    let t = unify(ta, tb)?;
                    if !is_int(t) {
                        return Err(format!("{op:?} needs integers, not {}", name(t)));
                    }
                    t
                }
                BinOp::Pow => float_operand("Pow", unify(ta, tb)?)?,
                BinOp::Dot4I8 => {
                    let word = |t: Ty| matches!(t, Ty::IntLit | Ty::Num(DType::U32));
                    if !word(ta) || !word(tb) {
                        return Err(format!(
                            "dot4_i8 takes two u32 words of packed bytes; got {} and {}",
                            name(ta),
                            name(tb)
                        ));
                    }
                    Ty::Num(DType::I32)
                }
                _ => {
                    let t = unify(ta, tb)?;
                    if t == Ty::Bool {
                        return Err(format!("{op:?} needs numbers, not bools"));
                    }
                    t
                }
            }
        }
        Expr::Math(f, a) => {
            let t = type_of(k, a)?;
            match f {
                MathFn::Abs | MathFn::Neg => {
                    if t == Ty::Bool {
                        return Err(format!("{f:?} needs a number"));
                    }
                    if *f == MathFn::Neg && t == Ty::Num(DType::U32) {
                        return Err("Neg needs a signed operand, not u32 (cast it to i32)".into());
                    }
                    t
                }
                _ => float_operand(&format!("{f:?}"), t)?,
            }
        }
        Expr::Fma(a, b, c) => {
            let t = unify(unify(type_of(k, a)?, type_of(k, b)?)?, type_of(k, c)?)?;
            float_operand("Fma", t)?
        }
        Expr::Select(c, a, b) => {
            if type_of(k, c)? != Ty::Bool {
                return Err("select needs a bool condition".into());
            }
            unify(type_of(k, a)?, type_of(k, b)?)?
        }
        Expr::Bitcast(d, a) => {
            let t = type_of(k, a)?;
            let word = |t: &DType| matches!(t, DType::F32 | DType::U32 | DType::I32);
            match (t, d) {
                (Ty::Num(from), to) if word(&from) && word(to) => Ty::Num(*to),
                (Ty::Num(DType::U32), DType::F16) => Ty::Num(DType::F16),
                (from, to) => {
                    return Err(format!(
                        "cannot bitcast {} to {to}: bitcasts keep the width (f32, u32 and i32 \
                         between themselves; f16 from the low 16 bits of a u32)",
                        match from {
                            Ty::Num(d) => d.to_string(),
                            _ => "a bool".into(),
                        }
                    ));
                }
            }
        }
        Expr::Cast(d, a) => {
            let t = type_of(k, a)?;
            if t == Ty::Bool {
                return Err("cannot cast a bool".into());
            }
            if !matches!(
                d,
                DType::F32 | DType::F16 | DType::I32 | DType::U32 | DType::U8 | DType::I8
            ) {
                return Err(format!(
                    "cannot cast to {d}: casts go to f32, f16, i32, u32, u8 or i8"
                ));
            }
            // A u8 or i8 value is held in a u32 or i32.
            Ty::Num(loaded(*d))
        }
        Expr::LoadTile(t, _) => match k.tiles.get(t.0) {
            Some(t) => Ty::Num(loaded(t.dtype)),
            None => return Err(format!("tile #{} does not belong to this kernel", t.0)),
        },
        Expr::LoadParam(p, _) => match k.params.get(p.0) {
            Some(p) => Ty::Num(loaded(p.dtype)),
            None => return Err(format!("parameter #{} does not belong to this kernel", p.0)),
        },
        Expr::Invalid { op, message } => return Err(format!("{op}: {message}")),
        Expr::LoadWord(p, _) => match k.params.get(p.0) {
            Some(p) if matches!(p.dtype, DType::U8 | DType::I8) => Ty::Num(DType::U32),
            Some(p) => {
                return Err(format!(
                    "reads a word of {}, a {} parameter; words are read from u8 or i8 parameters (read {} elements with at)",
                    p.name, p.dtype, p.dtype
                ));
            }
            None => return Err(format!("parameter #{} does not belong to this kernel", p.0)),
        },
    })
}

/// Whether `e` may hold `target`'s type (literals adapt).
pub fn assignable(k: &Kernel, e: &Expr, target: DType) -> Result<(), String> {
    let t = type_of(k, e)?;
    let held = loaded(target);
    // u8 and i8 elements take u32 and i32 values (their low 8 bits).
    let via = if held == target { String::new() } else { format!(" (which takes {held} values)") };
    match t {
        Ty::Num(d) if d == held => Ok(()),
        Ty::IntLit => Ok(()),
        Ty::FloatLit if is_float(held) => Ok(()),
        other => Err(format!(
            "value of type {} stored into {target}{via} needs an explicit cast",
            name(other)
        )),
    }
}
