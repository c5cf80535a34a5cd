//! The DLPack 1.1 C ABI (`dlpack.h`), written out as `repr(C)` types.
//!
//! Field order, sizes and alignments follow the header exactly; the tests below assert them for
//! 64-bit targets, the only ones tilecast builds for. Constants are the header's values
//! (DLPack 1.1 through 1.3 agree on every one used here).

use std::ffi::c_void;

/// The DLPack version this crate produces: 1.1.
pub const DLPACK_VERSION: DLPackVersion = DLPackVersion { major: 1, minor: 1 };

/// `DLPACK_FLAG_BITMASK_READ_ONLY`: the consumer must not write the data.
pub const FLAG_READ_ONLY: u64 = 1 << 0;
/// `DLPACK_FLAG_BITMASK_IS_COPIED`: the data is a copy the consumer owns alone.
pub const FLAG_IS_COPIED: u64 = 1 << 1;

/// `DLDeviceType` values tilecast produces or accepts.
pub mod device_type {
    /// `kDLCPU`: host memory.
    pub const CPU: i32 = 1;
    /// `kDLCUDA`: CUDA device memory (never host-readable).
    pub const CUDA: i32 = 2;
    /// `kDLCUDAHost`: pinned host memory from `cudaMallocHost`.
    pub const CUDA_HOST: i32 = 3;
    /// `kDLVulkan`.
    pub const VULKAN: i32 = 7;
    /// `kDLMetal`: `data` is an `MTLBuffer` (see the module docs of [`crate::dlpack`]).
    pub const METAL: i32 = 8;
    /// `kDLROCM`.
    pub const ROCM: i32 = 10;
    /// `kDLROCMHost`: pinned host memory from `hipMallocHost`.
    pub const ROCM_HOST: i32 = 11;
    /// `kDLCUDAManaged`: CUDA unified memory.
    pub const CUDA_MANAGED: i32 = 13;
    /// `kDLWebGPU`.
    pub const WEBGPU: i32 = 15;
}

/// `DLDataTypeCode` values.
pub mod type_code {
    /// `kDLInt`.
    pub const INT: u8 = 0;
    /// `kDLUInt`.
    pub const UINT: u8 = 1;
    /// `kDLFloat`.
    pub const FLOAT: u8 = 2;
    /// `kDLBfloat`.
    pub const BFLOAT: u8 = 4;
    /// `kDLBool`.
    pub const BOOL: u8 = 6;
    /// `kDLFloat8_e4m3fn` (OCP E4M3: no infinities, one NaN pattern).
    pub const FLOAT8_E4M3FN: u8 = 10;
    /// `kDLFloat8_e5m2` (OCP E5M2).
    pub const FLOAT8_E5M2: u8 = 12;
}

/// `DLPackVersion`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLPackVersion {
    /// Major version: a change means the ABI changed.
    pub major: u32,
    /// Minor version: new enum values only.
    pub minor: u32,
}

/// `DLDevice`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDevice {
    /// One of [`device_type`] (a C enum: 32 bits).
    pub device_type: i32,
    /// The device index; 0 for host memory.
    pub device_id: i32,
}

/// `DLDataType`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DLDataType {
    /// One of [`type_code`].
    pub code: u8,
    /// Bits per lane.
    pub bits: u8,
    /// Lanes per element (1 for scalars).
    pub lanes: u16,
}

/// `DLTensor`: a view of memory, owning nothing.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct DLTensor {
    /// Base pointer (host address for `kDLCPU`).
    pub data: *mut c_void,
    /// Where `data` lives.
    pub device: DLDevice,
    /// Number of dimensions.
    pub ndim: i32,
    /// Element type.
    pub dtype: DLDataType,
    /// `ndim` extents (may be null when `ndim == 0`).
    pub shape: *mut i64,
    /// `ndim` strides in elements (null means row-major before DLPack 1.2).
    pub strides: *mut i64,
    /// Bytes from `data` to the first element.
    pub byte_offset: u64,
}

/// `DLManagedTensor`: the legacy (pre-1.0, unversioned) managed tensor.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensor {
    /// The tensor.
    pub dl_tensor: DLTensor,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Frees `manager_ctx` and this struct; called once by the consumer.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensor)>,
}

/// `DLManagedTensorVersioned`: the DLPack 1.x managed tensor.
#[repr(C)]
#[derive(Debug)]
pub struct DLManagedTensorVersioned {
    /// The ABI version; a consumer must check `major` before reading further.
    pub version: DLPackVersion,
    /// The producer's context.
    pub manager_ctx: *mut c_void,
    /// Frees `manager_ctx` and this struct; called once by the consumer.
    pub deleter: Option<unsafe extern "C" fn(*mut DLManagedTensorVersioned)>,
    /// [`FLAG_READ_ONLY`], [`FLAG_IS_COPIED`].
    pub flags: u64,
    /// The tensor.
    pub dl_tensor: DLTensor,
}

#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn layouts_match_dlpack_h_on_64_bit_targets() {
        assert_eq!((size_of::<DLPackVersion>(), align_of::<DLPackVersion>()), (8, 4));
        assert_eq!(offset_of!(DLPackVersion, minor), 4);
        assert_eq!((size_of::<DLDevice>(), align_of::<DLDevice>()), (8, 4));
        assert_eq!(offset_of!(DLDevice, device_id), 4);
        assert_eq!((size_of::<DLDataType>(), align_of::<DLDataType>()), (4, 2));
        assert_eq!((offset_of!(DLDataType, bits), offset_of!(DLDataType, lanes)), (1, 2));
        assert_eq!((size_of::<DLTensor>(), align_of::<DLTensor>()), (48, 8));
        let t = [
            offset_of!(DLTensor, data),
            offset_of!(DLTensor, device),
            offset_of!(DLTensor, ndim),
            offset_of!(DLTensor, dtype),
            offset_of!(DLTensor, shape),
            offset_of!(DLTensor, strides),
            offset_of!(DLTensor, byte_offset),
        ];
        assert_eq!(t, [0, 8, 16, 20, 24, 32, 40]);
        assert_eq!((size_of::<DLManagedTensor>(), align_of::<DLManagedTensor>()), (64, 8));
        assert_eq!(
            [offset_of!(DLManagedTensor, manager_ctx), offset_of!(DLManagedTensor, deleter)],
            [48, 56]
        );
        let v = [
            offset_of!(DLManagedTensorVersioned, version),
            offset_of!(DLManagedTensorVersioned, manager_ctx),
            offset_of!(DLManagedTensorVersioned, deleter),
            offset_of!(DLManagedTensorVersioned, flags),
            offset_of!(DLManagedTensorVersioned, dl_tensor),
        ];
        assert_eq!(v, [0, 8, 16, 24, 32]);
        assert_eq!(size_of::<DLManagedTensorVersioned>(), 80);
        assert_eq!(align_of::<DLManagedTensorVersioned>(), 8);
        // A nullable function pointer is one pointer wide, as in C.
        assert_eq!(size_of::<Option<unsafe extern "C" fn(*mut DLManagedTensor)>>(), 8);
    }

    #[test]
    fn constants_match_dlpack_h() {
        assert_eq!((FLAG_READ_ONLY, FLAG_IS_COPIED), (1, 2));
        assert_eq!((device_type::CPU, device_type::CUDA, device_type::METAL), (1, 2, 8));
        assert_eq!(
            (type_code::BFLOAT, type_code::FLOAT8_E4M3FN, type_code::FLOAT8_E5M2),
            (4, 10, 12)
        );
    }
}
