//! [`HostMapping`]: an owned, reference-counted host mapping of a host-visible buffer.
//!
//! [`HostView`](crate::HostView) borrows its buffer, so it cannot outlive a stack frame; a DLPack
//! capsule can live anywhere, for any time, and die on any thread. A `HostMapping` owns what it
//! needs (the allocation, the wgpu mapped range) and gives a raw pointer.
//!
//! Invariants, while any clone of a mapping lives:
//! - the allocation's export count is raised, so every GPU command that touches it is refused
//!   ([`Error::Exported`]) and, for Managed buffers, so is the runtime's own access to the host
//!   copy (upload, download, host views, `synchronize`, `did_modify_range`);
//! - a Shared allocation stays mapped (it counts as a host view in the mapping's map mode);
//! - the pointer stays valid: the mapped range, or the Managed host copy, which is never resized.

use std::ptr::NonNull;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use crate::memory::Allocation;
use crate::{Buffer, Error, Result, StorageMode};

enum Held {
    /// A Shared buffer's mapped range (read or write mode).
    Read(Option<wgpu::BufferView>),
    Write(Option<wgpu::BufferViewMut>),
    /// A Managed buffer's host copy: nothing to hold beyond the allocation.
    Mirror,
}

struct Inner {
    alloc: Arc<Allocation>,
    held: Held,
    /// First byte of the buffer view the mapping was made for.
    ptr: NonNull<u8>,
    len: usize,
    writable: bool,
}

// SAFETY: `ptr` points into memory owned by `alloc` (a mapped wgpu range or the Managed host
// copy), which the `Arc` keeps alive; neither has thread affinity, and wgpu's mapped ranges are
// `Send + Sync` on native targets (asserted below). Access through the pointer is the consumer's
// business, as for any DLPack producer.
unsafe impl Send for Inner {}
// SAFETY: as for `Send`: `Inner` offers no interior mutability of its own.
unsafe impl Sync for Inner {}

const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<wgpu::BufferView>();
    send_sync::<wgpu::BufferViewMut>();
    send_sync::<Arc<Allocation>>();
};

impl Drop for Inner {
    fn drop(&mut self) {
        let mapped = match &mut self.held {
            Held::Read(v) => v.take().is_some(),
            Held::Write(v) => v.take().is_some(),
            Held::Mirror => false,
        };
        {
            let _st = self.alloc.map.lock().unwrap_or_else(|p| p.into_inner());
            self.alloc.exports.fetch_sub(1, Ordering::AcqRel);
        }
        if mapped {
            self.alloc.release_map();
        }
    }
}

/// An owned host mapping of a Shared or Managed buffer (or view); clones share it. The memory
/// is the buffer's own (zero-copy). See the module docs for what it excludes while it lives.
#[derive(Clone)]
pub struct HostMapping {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for HostMapping {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostMapping")
            .field("len", &self.inner.len)
            .field("writable", &self.inner.writable)
            .field("mode", &self.inner.alloc.mode)
            .finish()
    }
}

impl HostMapping {
    /// The first byte of the mapped buffer view.
    pub fn as_ptr(&self) -> *mut u8 {
        self.inner.ptr.as_ptr()
    }

    /// Bytes mapped (the buffer view's length).
    pub fn len(&self) -> usize {
        self.inner.len
    }

    /// Always false: buffers hold at least one element.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// False for a read-only mapping: writing through it is not allowed.
    pub fn is_writable(&self) -> bool {
        self.inner.writable
    }
}

impl Buffer {
    /// Maps this buffer's bytes for the host until the last clone of the mapping drops. Shared:
    /// maps the GPU memory (read-only or writable), waiting for submitted GPU work that uses it
    /// as every wgpu mapping does; Managed: the host copy, as it is (call
    /// [`synchronize`](Buffer::synchronize) first for GPU results). Never commits stream work:
    /// encoded, uncommitted work on the buffer is [`Error::PendingEncodedWork`].
    pub fn map_host(&self, writable: bool) -> Result<HostMapping> {
        const WHAT: &str = "DLPack export (host mapping)";
        if self.is_empty() {
            return Err(Error::EmptyView { what: WHAT });
        }
        let alloc = self.alloc.clone();
        let range = self.abs_range();
        let len = self.byte_len() as usize;
        let (held, ptr) = match self.storage_mode() {
            StorageMode::Private => {
                return Err(Error::NotHostVisible { what: WHAT, mode: StorageMode::Private });
            }
            StorageMode::Shared if writable => {
                let (mut view, lo) =
                    alloc.map_view(wgpu::MapMode::Write, WHAT, &range, |b, w| {
                        b.get_mapped_range_mut(w)
                    })?;
                let base = view.slice(..).as_raw_element_ptr();
                // SAFETY: `lo` + `len` lies inside the mapped window (`map_view` widens the range
                // to wgpu's alignment), so the offset stays in the same allocation.
                let ptr = unsafe { base.add(lo) };
                (Held::Write(Some(view)), ptr)
            }
            StorageMode::Shared => {
                let (view, lo) = alloc
                    .map_view(wgpu::MapMode::Read, WHAT, &range, |b, w| b.get_mapped_range(w))?;
                let ptr = NonNull::from(&view[lo]);
                (Held::Read(Some(view)), ptr)
            }
            StorageMode::Managed => {
                let st = alloc.map.lock().unwrap_or_else(|p| p.into_inner());
                let uses = alloc.encoded_uses.load(Ordering::Acquire);
                if uses > 0 {
                    return Err(Error::PendingEncodedWork { what: WHAT, uses });
                }
                let mirror = alloc.mirror.as_ref().expect("Managed buffers have a host copy");
                let mut guard = mirror.try_write().map_err(|_| Error::HostViewConflict {
                    mode: StorageMode::Managed,
                    reason: format!("{WHAT} needs the host copy, which a live host view holds"),
                })?;
                let base = NonNull::from(bytemuck::cast_slice_mut::<u64, u8>(&mut guard));
                // SAFETY: the range was checked against the allocation when the view was made,
                // and the host copy covers the whole allocation.
                let ptr = unsafe { base.cast::<u8>().add(range.start as usize) };
                alloc.exports.fetch_add(1, Ordering::AcqRel);
                drop((guard, st));
                return Ok(HostMapping {
                    inner: Arc::new(Inner { alloc, held: Held::Mirror, ptr, len, writable }),
                });
            }
        };
        {
            let _st = alloc.map.lock().unwrap_or_else(|p| p.into_inner());
            alloc.exports.fetch_add(1, Ordering::AcqRel);
        }
        Ok(HostMapping { inner: Arc::new(Inner { alloc, held, ptr, len, writable }) })
    }
}
