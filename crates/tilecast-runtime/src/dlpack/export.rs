//! Export: a buffer or strided view as a DLPack 1.1 `DLManagedTensorVersioned` (or, for old
//! consumers, a legacy `DLManagedTensor`).
//!
//! Invariants:
//! - One heap context per export holds both C headers, the shape and strides arrays and the
//!   owner of the data (a [`HostMapping`] or a copy). Whichever header is handed out, its
//!   deleter frees the context exactly once; an [`ExportedTensor`] that was never handed out
//!   frees it on drop. The deleter may run on any thread.
//! - Host-visible buffers export zero-copy; Private buffers only through a copy, flagged
//!   `IS_COPIED`. Exports never commit stream work nor synchronize a Managed host copy: the
//!   producer synchronizes first (a Shared mapping still waits for submitted work, as every wgpu
//!   mapping does, so a consumer never sees memory the GPU is writing).

use std::ffi::c_void;
use std::ptr::{NonNull, null_mut};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::dtype::to_dl;
use super::ffi::{
    DLDevice, DLManagedTensor, DLManagedTensorVersioned, DLPACK_VERSION, DLTensor, FLAG_IS_COPIED,
    FLAG_READ_ONLY, device_type,
};
use super::mapping::HostMapping;
use super::view::StridedView;
use crate::memory::{Allocation, read_gpu};
use crate::{Buffer, Error, Result, StorageMode};

/// Whether an exchange may copy: the Python protocol's `copy=False | None | True`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CopyPolicy {
    /// Never copy; an exchange that needs a copy is [`Error::CopyRefused`].
    Never,
    /// Copy only when zero-copy is impossible.
    #[default]
    IfNeeded,
    /// Always copy.
    Always,
}

/// How to export.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// When a copy is allowed or forced.
    pub copy: CopyPolicy,
    /// Flag the tensor `READ_ONLY`; a zero-copy Shared export then maps for reading only.
    pub read_only: bool,
}

/// Contexts alive right now (exported and not yet deleted), process-wide.
static LIVE: AtomicUsize = AtomicUsize::new(0);

/// DLPack exports whose deleter has not run yet, process-wide: a leak check.
pub fn live_exports() -> usize {
    LIVE.load(Ordering::Acquire)
}

enum Owner {
    Mapping(#[allow(dead_code)] HostMapping),
    Copy(#[allow(dead_code)] Vec<u64>),
}

/// Everything one export owns. Boxed, so the headers' pointers into it stay valid.
struct Context {
    versioned: DLManagedTensorVersioned,
    legacy: DLManagedTensor,
    _shape: Vec<i64>,
    _strides: Vec<i64>,
    _owner: Owner,
}

impl Drop for Context {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Frees a context from its `manager_ctx`, never unwinding into C.
///
/// # Safety
/// `ctx` must come from `Box::into_raw` of a [`Context`] not freed yet.
unsafe fn free_context(ctx: *mut c_void) {
    if ctx.is_null() {
        return;
    }
    // SAFETY: the caller guarantees `ctx` is a live boxed `Context`; it is freed once here.
    let boxed = unsafe { Box::from_raw(ctx.cast::<Context>()) };
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| drop(boxed))).is_err() {
        log::error!("a panic while releasing a DLPack export was contained");
    }
}

unsafe extern "C" fn delete_versioned(t: *mut DLManagedTensorVersioned) {
    if !t.is_null() {
        // SAFETY: `t` is the versioned header of a live context (the DLPack contract: the
        // consumer passes the pointer it was given, once); its `manager_ctx` is that context.
        unsafe { free_context((*t).manager_ctx) }
    }
}

unsafe extern "C" fn delete_legacy(t: *mut DLManagedTensor) {
    if !t.is_null() {
        // SAFETY: as in `delete_versioned`, for the legacy header.
        unsafe { free_context((*t).manager_ctx) }
    }
}

/// An export not yet handed to a consumer. Dropping it runs the deleter; the `into_raw_*`
/// methods hand ownership (and the duty to call the deleter once) to the consumer.
#[derive(Debug)]
pub struct ExportedTensor {
    ctx: NonNull<Context>,
}

// SAFETY: the context owns only `Send` data (a `HostMapping`, vectors) plus pointers into
// itself; freeing it from another thread is allowed (the deleter's contract).
unsafe impl Send for ExportedTensor {}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DLPack export (flags {:#x})", self.versioned.flags)
    }
}

impl ExportedTensor {
    fn ctx(&self) -> &Context {
        // SAFETY: `ctx` is live until `self` is consumed or dropped.
        unsafe { self.ctx.as_ref() }
    }

    /// The tensor as the consumer will see it.
    pub fn tensor(&self) -> &DLTensor {
        &self.ctx().versioned.dl_tensor
    }

    /// `FLAG_READ_ONLY` and `FLAG_IS_COPIED` as set.
    pub fn flags(&self) -> u64 {
        self.ctx().versioned.flags
    }

    /// True when the data is a copy (`IS_COPIED`).
    pub fn is_copied(&self) -> bool {
        self.flags() & FLAG_IS_COPIED != 0
    }

    /// Hands the versioned header to a consumer, who must call its deleter exactly once.
    pub fn into_raw_versioned(self) -> *mut DLManagedTensorVersioned {
        let ctx = std::mem::ManuallyDrop::new(self).ctx.as_ptr();
        // SAFETY: `ctx` is live and now owned by the returned header's deleter.
        unsafe { &raw mut (*ctx).versioned }
    }

    /// Hands the legacy header (for consumers older than DLPack 1.0, which have no flags: use
    /// it only for writable or copied data) to a consumer, who must call its deleter once.
    pub fn into_raw_legacy(self) -> *mut DLManagedTensor {
        let ctx = std::mem::ManuallyDrop::new(self).ctx.as_ptr();
        // SAFETY: as in `into_raw_versioned`.
        unsafe { &raw mut (*ctx).legacy }
    }
}

impl Drop for ExportedTensor {
    fn drop(&mut self) {
        // SAFETY: never handed out, so this is the one release of the context.
        unsafe { free_context(self.ctx.as_ptr().cast()) }
    }
}

fn to_i64(v: usize, what: &str) -> Result<i64> {
    i64::try_from(v).map_err(|_| Error::Dlpack {
        what: "export",
        reason: format!("{what} {v} does not fit DLPack's int64"),
    })
}

/// Bytes of a buffer view, copied through the runtime (Private and Shared: a staged GPU copy;
/// Managed: the host copy as it is), into 8-byte-aligned storage.
fn copy_bytes(buffer: &Buffer) -> Result<Vec<u64>> {
    buffer.check_no_encoded_work("DLPack export (copy)")?;
    let range = buffer.abs_range();
    let bytes = match buffer.storage_mode() {
        StorageMode::Private | StorageMode::Shared => read_gpu(&buffer.alloc, range)?,
        StorageMode::Managed => {
            Allocation::read_mirror(&buffer.alloc, "DLPack export (copy)", range)?
        }
    };
    let mut words = vec![0u64; bytes.len().div_ceil(8)];
    bytemuck::cast_slice_mut::<u64, u8>(&mut words)[..bytes.len()].copy_from_slice(&bytes);
    Ok(words)
}

impl Buffer {
    /// Exports the whole buffer, row-major. See [`StridedView::export_dlpack`].
    pub fn export_dlpack(&self, options: ExportOptions) -> Result<ExportedTensor> {
        self.as_strided().export_dlpack(options)
    }
}

impl StridedView {
    /// Exports the view as host memory (`kDLCPU`): zero-copy for Shared and Managed buffers
    /// (the GPU must not use the buffer until the deleter runs), a copy flagged `IS_COPIED` for
    /// Private buffers or when `options.copy` is [`CopyPolicy::Always`]. A needed copy under
    /// [`CopyPolicy::Never`] is [`Error::CopyRefused`]. No implicit synchronization: commit
    /// stream work (and `synchronize` a Managed buffer) before exporting.
    pub fn export_dlpack(&self, options: ExportOptions) -> Result<ExportedTensor> {
        let buffer = self.buffer();
        let zero_copy =
            buffer.storage_mode().is_host_visible() && options.copy != CopyPolicy::Always;
        if !zero_copy && options.copy == CopyPolicy::Never {
            return Err(Error::CopyRefused {
                what: "export",
                reason: format!("a {} buffer has no host memory to share", buffer.storage_mode()),
            });
        }
        let mut flags = if options.read_only { FLAG_READ_ONLY } else { 0 };
        let (data, owner) = if self.shape().contains(&0) {
            // No elements: nothing to map or copy. An empty vector's pointer is dangling but
            // aligned and non-null, which DLPack allows for a tensor of no elements.
            let mut words = Vec::<u64>::new();
            (words.as_mut_ptr().cast::<u8>(), Owner::Copy(words))
        } else if zero_copy {
            let covered = buffer.slice_view(0, self.reach())?;
            let mapping = covered.map_host(!options.read_only)?;
            (mapping.as_ptr(), Owner::Mapping(mapping))
        } else {
            flags |= FLAG_IS_COPIED;
            let covered = buffer.slice_view(0, self.reach())?;
            let mut words = copy_bytes(&covered)?;
            (words.as_mut_ptr().cast::<u8>(), Owner::Copy(words))
        };
        let mut shape =
            self.shape().iter().map(|&e| to_i64(e, "extent")).collect::<Result<Vec<_>>>()?;
        let mut strides =
            self.strides().iter().map(|&s| to_i64(s, "stride")).collect::<Result<Vec<_>>>()?;
        let ndim = shape.len() as i32; // at most MAX_DIMS for strided views, and for buffers
        let (shape_ptr, strides_ptr) = if ndim == 0 {
            (null_mut(), null_mut())
        } else {
            (shape.as_mut_ptr(), strides.as_mut_ptr())
        };
        let dl_tensor = DLTensor {
            data: data.cast(),
            device: DLDevice { device_type: device_type::CPU, device_id: 0 },
            ndim,
            dtype: to_dl(buffer.dtype()),
            shape: shape_ptr,
            strides: strides_ptr,
            byte_offset: 0,
        };
        let ctx = Box::new(Context {
            versioned: DLManagedTensorVersioned {
                version: DLPACK_VERSION,
                manager_ctx: null_mut(),
                deleter: Some(delete_versioned),
                flags,
                dl_tensor,
            },
            legacy: DLManagedTensor {
                dl_tensor,
                manager_ctx: null_mut(),
                deleter: Some(delete_legacy),
            },
            _shape: shape,
            _strides: strides,
            _owner: owner,
        });
        LIVE.fetch_add(1, Ordering::AcqRel);
        let raw = Box::into_raw(ctx);
        // SAFETY: `raw` is the box just leaked; both headers point back at it.
        unsafe {
            (*raw).versioned.manager_ctx = raw.cast();
            (*raw).legacy.manager_ctx = raw.cast();
        }
        // SAFETY: `Box::into_raw` never returns null.
        Ok(ExportedTensor { ctx: unsafe { NonNull::new_unchecked(raw) } })
    }
}
