//! Import: a DLPack tensor of host memory into a new buffer (always a copy).
//!
//! Invariants:
//! - A [`DlpackTensor`] owns one producer tensor and calls its deleter exactly once, when it is
//!   dropped, on whatever thread drops it; nothing else ever calls it.
//! - Import reads the producer's memory and never writes it, so `READ_ONLY` tensors are honoured
//!   by construction; the new buffer is the importer's own (a GPU buffer cannot wrap host
//!   memory), which is why import always copies.

use std::ptr::NonNull;

use super::dtype::from_dl;
use super::ffi::{
    DLManagedTensor, DLManagedTensorVersioned, DLPackVersion, DLTensor, FLAG_IS_COPIED,
    FLAG_READ_ONLY, device_type,
};
use super::view::{MAX_DIMS, row_major_strides};
use crate::{Buffer, DType, Device, Error, Result, StorageMode};

enum Raw {
    Versioned(NonNull<DLManagedTensorVersioned>),
    Legacy(NonNull<DLManagedTensor>),
}

/// A DLPack tensor received from a producer; dropping it calls the producer's deleter once.
pub struct DlpackTensor {
    raw: Raw,
}

// SAFETY: DLPack lets the consumer release a tensor from any thread; the struct only reads the
// producer's header, and only through `&self`.
unsafe impl Send for DlpackTensor {}

impl std::fmt::Debug for DlpackTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DlpackTensor")
            .field("version", &self.version())
            .field("flags", &self.flags())
            .field("device", &self.tensor().device)
            .field("dtype", &self.tensor().dtype)
            .finish()
    }
}

impl Drop for DlpackTensor {
    fn drop(&mut self) {
        // SAFETY: the pointers were valid when handed over (the `from_raw_*` contract) and the
        // deleter has not run: this is the one place that runs it.
        unsafe {
            match self.raw {
                Raw::Versioned(p) => {
                    if let Some(d) = (*p.as_ptr()).deleter {
                        d(p.as_ptr())
                    }
                }
                Raw::Legacy(p) => {
                    if let Some(d) = (*p.as_ptr()).deleter {
                        d(p.as_ptr())
                    }
                }
            }
        }
    }
}

fn bad(reason: String) -> Error {
    Error::Dlpack { what: "import", reason }
}

fn device_name(t: i32) -> &'static str {
    match t {
        device_type::CPU => "kDLCPU",
        device_type::CUDA => "kDLCUDA",
        device_type::CUDA_HOST => "kDLCUDAHost",
        device_type::VULKAN => "kDLVulkan",
        device_type::METAL => "kDLMetal",
        device_type::ROCM => "kDLROCM",
        device_type::ROCM_HOST => "kDLROCMHost",
        device_type::CUDA_MANAGED => "kDLCUDAManaged",
        device_type::WEBGPU => "kDLWebGPU",
        _ => "another device type",
    }
}

impl DlpackTensor {
    /// Takes ownership of a versioned tensor. A major version other than 1 is an error; the
    /// deleter still runs (the header guarantees it is safe to call).
    ///
    /// # Safety
    /// `ptr` must be null or a `DLManagedTensorVersioned` whose deleter has not run, with valid
    /// `shape`, `strides` and data for its device, all alive until the deleter runs.
    pub unsafe fn from_raw_versioned(ptr: *mut DLManagedTensorVersioned) -> Result<DlpackTensor> {
        let p =
            NonNull::new(ptr).ok_or_else(|| bad("the managed tensor pointer is null".into()))?;
        let t = DlpackTensor { raw: Raw::Versioned(p) };
        let v = t.version();
        if v.major != 1 {
            return Err(bad(format!(
                "DLPack version {}.{}; tilecast reads major version 1",
                v.major, v.minor
            )));
        }
        Ok(t)
    }

    /// Takes ownership of a legacy (pre-1.0) tensor.
    ///
    /// # Safety
    /// As for [`from_raw_versioned`](Self::from_raw_versioned), for a `DLManagedTensor`.
    pub unsafe fn from_raw_legacy(ptr: *mut DLManagedTensor) -> Result<DlpackTensor> {
        let p =
            NonNull::new(ptr).ok_or_else(|| bad("the managed tensor pointer is null".into()))?;
        Ok(DlpackTensor { raw: Raw::Legacy(p) })
    }

    /// The producer's tensor.
    pub fn tensor(&self) -> &DLTensor {
        // SAFETY: valid until the deleter runs, which only `drop` does.
        unsafe {
            match self.raw {
                Raw::Versioned(p) => &(*p.as_ptr()).dl_tensor,
                Raw::Legacy(p) => &(*p.as_ptr()).dl_tensor,
            }
        }
    }

    /// The version (0.0 for a legacy tensor).
    pub fn version(&self) -> DLPackVersion {
        match self.raw {
            // SAFETY: as in `tensor`.
            Raw::Versioned(p) => unsafe { (*p.as_ptr()).version },
            Raw::Legacy(_) => DLPackVersion { major: 0, minor: 0 },
        }
    }

    /// The flags (0 for a legacy tensor).
    pub fn flags(&self) -> u64 {
        match self.raw {
            // SAFETY: as in `tensor`.
            Raw::Versioned(p) => unsafe { (*p.as_ptr()).flags },
            Raw::Legacy(_) => 0,
        }
    }

    /// True when the producer forbids writes.
    pub fn is_read_only(&self) -> bool {
        self.flags() & FLAG_READ_ONLY != 0
    }

    /// True when the producer made a copy for this exchange.
    pub fn is_copied(&self) -> bool {
        self.flags() & FLAG_IS_COPIED != 0
    }

    /// The tilecast dtype, shape and element strides, checked.
    pub fn layout(&self) -> Result<(DType, Vec<usize>, Vec<i64>)> {
        let t = self.tensor();
        let dtype = from_dl(t.dtype)?;
        let ndim = usize::try_from(t.ndim)
            .ok()
            .filter(|&n| n <= MAX_DIMS)
            .ok_or_else(|| bad(format!("ndim {} is outside 0..={MAX_DIMS}", t.ndim)))?;
        // SAFETY: the producer guarantees `ndim` valid extents (and strides when non-null).
        let extents: &[i64] =
            if ndim == 0 { &[] } else { unsafe { std::slice::from_raw_parts(t.shape, ndim) } };
        let shape = extents
            .iter()
            .map(|&e| usize::try_from(e).map_err(|_| bad(format!("negative extent {e}"))))
            .collect::<Result<Vec<_>>>()?;
        let strides = if ndim == 0 || t.strides.is_null() {
            row_major_strides(&shape).into_iter().map(|s| s as i64).collect()
        } else {
            // SAFETY: as above.
            unsafe { std::slice::from_raw_parts(t.strides, ndim) }.to_vec()
        };
        Ok((dtype, shape, strides))
    }
}

/// Copies the elements of a host tensor, in row-major order, into 8-byte-aligned storage.
///
/// # Safety
/// `base` must address every element that `shape` and `strides` reach.
unsafe fn gather(base: *const u8, size: usize, shape: &[usize], strides: &[i64]) -> Vec<u64> {
    let count: usize = shape.iter().product();
    let mut out = vec![0u64; (count * size).div_ceil(8)];
    let dst = bytemuck::cast_slice_mut::<u64, u8>(&mut out);
    let contiguous = strides.iter().map(|&s| s as usize).eq(row_major_strides(shape));
    if contiguous {
        // SAFETY: a contiguous tensor's elements are `count * size` bytes from `base`.
        dst[..count * size]
            .copy_from_slice(unsafe { std::slice::from_raw_parts(base, count * size) });
        return out;
    }
    let mut index = vec![0usize; shape.len()];
    for e in 0..count {
        let off: i64 = index.iter().zip(strides).map(|(&i, &s)| i as i64 * s).sum();
        // SAFETY: the caller guarantees every reached element is addressable.
        let src = unsafe { base.offset(off as isize * size as isize) };
        // SAFETY: one element of `size` bytes at `src`, per the caller.
        dst[e * size..(e + 1) * size]
            .copy_from_slice(unsafe { std::slice::from_raw_parts(src, size) });
        for d in (0..shape.len()).rev() {
            index[d] += 1;
            if index[d] < shape[d] {
                break;
            }
            index[d] = 0;
        }
    }
    out
}

/// Uploads row-major bytes into a new buffer of `dtype` and `shape` in `mode`.
fn upload_words(
    device: &Device,
    mode: StorageMode,
    dtype: DType,
    shape: &[usize],
    words: &[u64],
) -> Result<Buffer> {
    let buf = device.alloc_in(mode, dtype, shape)?;
    let n = buf.len();
    macro_rules! up {
        ($t:ty) => {
            buf.upload::<$t>(&bytemuck::cast_slice::<u64, $t>(words)[..n])
        };
    }
    match dtype {
        DType::F32 => up!(f32),
        DType::F16 => up!(half::f16),
        DType::BF16 => up!(half::bf16),
        DType::I32 => up!(i32),
        DType::U32 => up!(u32),
        DType::I8 => up!(i8),
        DType::U8 => up!(u8),
        DType::F8E4M3 => up!(crate::F8E4M3),
        DType::F8E5M2 => up!(crate::F8E5M2),
    }?;
    Ok(buf)
}

impl Device {
    /// Copies a DLPack tensor of host memory (`kDLCPU`, `kDLCUDAHost`, `kDLROCMHost`) into a new
    /// row-major buffer in `mode`. Always a copy: the producer's memory is read, never written
    /// (so `READ_ONLY` is honoured), and the tensor can be dropped right after. Device memory
    /// of another framework (e.g. `kDLCUDA`) is refused with an error naming it: copy it to the
    /// host first.
    pub fn import_dlpack(&self, tensor: &DlpackTensor, mode: StorageMode) -> Result<Buffer> {
        let t = tensor.tensor();
        match t.device.device_type {
            device_type::CPU | device_type::CUDA_HOST | device_type::ROCM_HOST => {}
            other => {
                return Err(bad(format!(
                    "the data lives on {} (device type {other}, id {}); tilecast imports host \
                     memory only (kDLCPU, kDLCUDAHost, kDLROCMHost): copy it to the host first",
                    device_name(other),
                    t.device.device_id
                )));
            }
        }
        let (dtype, shape, strides) = tensor.layout()?;
        // Checks the shape against the device (empty, overflow, too large) before reading.
        self.check_size(mode, dtype, &shape)?;
        if t.data.is_null() {
            return Err(bad("the data pointer is null".into()));
        }
        let offset = isize::try_from(t.byte_offset)
            .map_err(|_| bad(format!("byte_offset {} does not fit a pointer", t.byte_offset)))?;
        // SAFETY: the `from_raw_*` contract: data + byte_offset addresses every element.
        let base = unsafe { t.data.cast::<u8>().cast_const().offset(offset) };
        // SAFETY: as above, for every element the shape and strides reach.
        let words = unsafe { gather(base, dtype.size(), &shape, &strides) };
        upload_words(self, mode, dtype, &shape, &words)
    }
}
