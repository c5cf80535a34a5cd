//! tilecast-core: the vocabulary the compiler (`tilecast-lang`) and the runtime
//! (`tilecast-runtime`) share, as plain data: element types ([`DType`]), scalar argument values
//! ([`Scalar`]), storage modes ([`StorageMode`]) and a device's capability report
//! ([`Capabilities`]). It depends on no GPU API, so the compiler builds without one.

mod capabilities;
mod dtype;
mod scalar;
mod storage_mode;

pub use capabilities::{Capabilities, DeviceLimits, DriverMatrixConfig, FeatureSet, MatrixConfig};
pub use dtype::{DType, Element, F8E4M3, F8E5M2};
pub use scalar::Scalar;
pub use storage_mode::StorageMode;
