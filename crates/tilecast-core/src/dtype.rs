//! Element types a buffer can hold, and the Rust types that match them.

use std::fmt;

/// The element type of a buffer. fp8 types are storage-only: the runtime moves their bytes, the
/// kernels decode them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    /// IEEE binary32.
    F32,
    /// IEEE binary16.
    F16,
    /// bfloat16.
    BF16,
    /// Signed 32-bit integer.
    I32,
    /// Unsigned 32-bit integer.
    U32,
    /// Signed 8-bit integer.
    I8,
    /// Unsigned 8-bit integer.
    U8,
    /// fp8 with 4 exponent and 3 mantissa bits (OCP E4M3FN), stored as bytes.
    F8E4M3,
    /// fp8 with 5 exponent and 2 mantissa bits (OCP E5M2), stored as bytes.
    F8E5M2,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 9] = [
        DType::F32,
        DType::F16,
        DType::BF16,
        DType::I32,
        DType::U32,
        DType::I8,
        DType::U8,
        DType::F8E4M3,
        DType::F8E5M2,
    ];

    /// Bytes per element; also the alignment a view of this dtype needs.
    pub const fn size(self) -> usize {
        match self {
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F16 | DType::BF16 => 2,
            DType::I8 | DType::U8 | DType::F8E4M3 | DType::F8E5M2 => 1,
        }
    }

    /// The lowercase name used in messages, the CLI and DLPack-style type strings.
    pub const fn name(self) -> &'static str {
        match self {
            DType::F32 => "f32",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::I8 => "i8",
            DType::U8 => "u8",
            DType::F8E4M3 => "f8e4m3",
            DType::F8E5M2 => "f8e5m2",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Rust type whose bytes are one element of a [`DType`].
pub trait Element: bytemuck::Pod {
    /// The dtype this Rust type stands for.
    const DTYPE: DType;
}

macro_rules! element {
    ($($t:ty => $d:ident),* $(,)?) => { $(impl Element for $t { const DTYPE: DType = DType::$d; })* };
}
element!(f32 => F32, half::f16 => F16, half::bf16 => BF16, i32 => I32, u32 => U32, i8 => I8, u8 => U8,
    F8E4M3 => F8E4M3, F8E5M2 => F8E5M2);

/// One fp8 E4M3 value as raw bits. The runtime never does arithmetic on it.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct F8E4M3(pub u8);

/// One fp8 E5M2 value as raw bits. The runtime never does arithmetic on it.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct F8E5M2(pub u8);
