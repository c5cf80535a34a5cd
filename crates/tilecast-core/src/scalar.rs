//! Scalar kernel arguments.

/// A scalar argument value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// `u32`
    U32(u32),
    /// `i32`
    I32(i32),
    /// `f32`
    F32(f32),
    /// `f16`
    F16(half::f16),
}
impl From<u32> for Scalar {
    fn from(v: u32) -> Scalar {
        Scalar::U32(v)
    }
}
impl From<i32> for Scalar {
    fn from(v: i32) -> Scalar {
        Scalar::I32(v)
    }
}
impl From<f32> for Scalar {
    fn from(v: f32) -> Scalar {
        Scalar::F32(v)
    }
}
impl From<half::f16> for Scalar {
    fn from(v: half::f16) -> Scalar {
        Scalar::F16(v)
    }
}
