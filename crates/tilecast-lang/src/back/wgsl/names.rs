//! WGSL spellings of types, literals and fragment coordinates.

use crate::ir::DType;
use crate::lir::{ETy, RegisterBlocks};

/// The WGSL type of an element type (narrow types are widened on load).
pub(crate) fn ty(d: DType) -> &'static str {
    match d {
        DType::F32 | DType::BF16 | DType::F8E4M3 | DType::F8E5M2 => "f32",
        DType::F16 => "f16",
        DType::I32 | DType::I8 => "i32",
        _ => "u32",
    }
}

/// The WGSL type of a value type.
pub(crate) fn ety(t: ETy) -> &'static str {
    match t {
        ETy::Num(d) => ty(d),
        ETy::Bool => "bool",
    }
}

/// A constant of type `t` (the typing pass checked that it fits).
pub(crate) fn literal(v: f64, t: ETy) -> String {
    match t {
        ETy::Num(DType::U32) => format!("{}u", v as u64),
        ETy::Num(DType::I32) if v == i32::MIN as f64 => "(-2147483647i - 1i)".into(),
        ETy::Num(DType::I32) => format!("{}i", v as i64),
        ETy::Num(DType::F16) if v.is_infinite() => {
            format!("f16({})", literal(v, ETy::Num(DType::F32)))
        }
        ETy::Num(DType::F16) => format!("{:?}h", v as f32),
        ETy::Num(_) if v.is_infinite() => {
            // WGSL has no infinity literal, and constant expressions may not overflow; a bit
            // pattern read through a bitcast is neither.
            let bits = if v > 0.0 { "0x7f800000u" } else { "0xff800000u" };
            format!("bitcast<f32>({bits})")
        }
        ETy::Num(_) => format!("{:?}f", v as f32),
        ETy::Bool => if v != 0.0 { "true" } else { "false" }.into(),
    }
}

/// The first fragment row thread `tid` owns; it owns rows `row0 + i`, i < tm.
pub(crate) fn frag_row0(b: &RegisterBlocks) -> String {
    format!("(tid / {}u) * {}u", b.thread_cols(), b.tm)
}

/// The first fragment column thread `tid` owns; slot `j` of a block row is column
/// `col0 + b.col_step(j)`.
pub(crate) fn frag_col0(b: &RegisterBlocks) -> String {
    match b.run {
        1 => format!("tid % {}u", b.thread_cols()),
        r => format!("(tid % {}u) * {r}u", b.thread_cols()),
    }
}

/// The column of slot `j` (a WGSL u32 expression) of a block row, as
/// [`RegisterBlocks::col_step`] from `col0`.
pub(crate) fn frag_col(b: &RegisterBlocks, col0: &str, j: &str) -> String {
    let tc = b.thread_cols();
    match b.run {
        1 => format!("{col0} + {j} * {tc}u"),
        r => format!("{col0} + ({j} / {r}u) * {}u + {j} % {r}u", tc * r),
    }
}

/// `x * pitch + y`: the index of stored element `(x, y)` in rows `pitch` apart (`x` in
/// parentheses when it is a sum).
pub(crate) fn pitched<S: AsRef<str>>((x, y): (S, S), pitch: u32) -> String {
    let (x, y) = (x.as_ref(), y.as_ref());
    if x.contains(' ') {
        format!("({x}) * {pitch}u + {y}")
    } else {
        format!("{x} * {pitch}u + {y}")
    }
}
