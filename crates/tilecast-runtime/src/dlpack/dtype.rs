//! tilecast dtypes <-> DLPack data types.

use super::ffi::{DLDataType, type_code};
use crate::{DType, Error, Result};

/// The DLPack data type of `dtype` (one lane). fp8 types use the DLPack 1.1 fp8 codes:
/// `kDLFloat8_e4m3fn` for [`DType::F8E4M3`] (OCP E4M3, no infinities) and `kDLFloat8_e5m2`.
pub fn to_dl(dtype: DType) -> DLDataType {
    let (code, bits) = match dtype {
        DType::F32 => (type_code::FLOAT, 32),
        DType::F16 => (type_code::FLOAT, 16),
        DType::BF16 => (type_code::BFLOAT, 16),
        DType::I32 => (type_code::INT, 32),
        DType::U32 => (type_code::UINT, 32),
        DType::I8 => (type_code::INT, 8),
        DType::U8 => (type_code::UINT, 8),
        DType::F8E4M3 => (type_code::FLOAT8_E4M3FN, 8),
        DType::F8E5M2 => (type_code::FLOAT8_E5M2, 8),
    };
    DLDataType { code, bits, lanes: 1 }
}

/// The tilecast dtype of a DLPack data type, or [`Error::DlpackDType`] naming it.
pub fn from_dl(t: DLDataType) -> Result<DType> {
    DType::ALL.into_iter().find(|&d| to_dl(d) == t).ok_or(Error::DlpackDType {
        code: t.code,
        bits: t.bits,
        lanes: t.lanes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_dtype_round_trips_and_sizes_agree() {
        for d in DType::ALL {
            let t = to_dl(d);
            assert_eq!(from_dl(t).unwrap(), d);
            assert_eq!(t.bits as usize, d.size() * 8, "{d}");
        }
    }

    #[test]
    fn unknown_types_are_named() {
        let bool8 = DLDataType { code: type_code::BOOL, bits: 8, lanes: 1 };
        let e = from_dl(bool8).unwrap_err().to_string();
        assert!(e.contains("code 6, 8 bits, 1 lanes"), "{e}");
        let f32x4 = DLDataType { code: type_code::FLOAT, bits: 32, lanes: 4 };
        assert!(from_dl(f32x4).is_err());
    }
}
