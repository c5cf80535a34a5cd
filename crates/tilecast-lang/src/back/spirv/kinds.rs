//! The plain types the SPIR-V printer's parts share: the scalar kinds values are computed in,
//! and what the module knows of each parameter's buffer.

use rspirv::spirv::{GlslStd450Op as GLOp, Word};

use crate::ir::DType;
use crate::lir::ETy;

/// How a value is represented: the scalar kinds the back end computes in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    F32,
    F16,
    /// bf16 as it is: only workgroup-matrix operands and the buffers they load from.
    BF16,
    U32,
    I32,
    Bool,
}

impl Kind {
    /// The kind element type `d` computes in (narrow types widen on load).
    pub(crate) fn of(d: DType) -> Kind {
        match d {
            DType::F32 | DType::BF16 | DType::F8E4M3 | DType::F8E5M2 => Kind::F32,
            DType::F16 => Kind::F16,
            DType::I32 | DType::I8 => Kind::I32,
            _ => Kind::U32,
        }
    }
    /// The kind of a matrix operand of element type `d`: bf16 matrices keep bf16.
    pub(crate) fn of_matrix(d: DType) -> Kind {
        if d == DType::BF16 { Kind::BF16 } else { Kind::of(d) }
    }
    pub(crate) fn of_ety(t: ETy) -> Kind {
        match t {
            ETy::Num(d) => Kind::of(d),
            ETy::Bool => Kind::Bool,
        }
    }
    pub(crate) fn is_float(self) -> bool {
        matches!(self, Kind::F32 | Kind::F16 | Kind::BF16)
    }
    /// Bytes of one element in memory.
    pub(crate) fn bytes(self) -> u32 {
        if matches!(self, Kind::F16 | Kind::BF16) { 2 } else { 4 }
    }
}

/// A parameter's buffer: the variable, the kind its elements compute in, and for narrow
/// types the element type packed in its u32 words.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Buffer {
    pub(crate) var: Word,
    pub(crate) kind: Kind,
    /// Elements narrower than 32 bits packed in words ([`ParamAccess::Packed`](crate::lir::ParamAccess::Packed)).
    pub(crate) packed: Option<DType>,
    /// The words are written, so every access to them is atomic.
    pub(crate) atomic_words: bool,
    /// The kernel adds to it atomically, so every access to its elements is atomic
    /// ([`ParamAccess::Atomic`](crate::lir::ParamAccess::Atomic)).
    pub(crate) atomic: bool,
}

/// GLSL.std.450's max (`max`) or min of floats (`float`), signed or unsigned integers.
pub(crate) fn extremum(max: bool, float: bool, signed: bool) -> GLOp {
    match (max, float, signed) {
        (true, true, _) => GLOp::FMax,
        (true, _, true) => GLOp::SMax,
        (true, ..) => GLOp::UMax,
        (_, true, _) => GLOp::FMin,
        (_, _, true) => GLOp::SMin,
        _ => GLOp::UMin,
    }
}
