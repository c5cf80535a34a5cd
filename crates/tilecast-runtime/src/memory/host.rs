//! Host access to buffers: zero-copy views (Shared, Managed), staged copies (Private), and the
//! Managed protocol (`did_modify_range` after host writes, `synchronize` before host reads).
//!
//! Invariant: a Shared allocation is mapped exactly while at least one host view of it lives, in
//! one map mode; the last view to drop unmaps it. Taking a view waits for submitted GPU work that
//! uses the buffer (wgpu completes the map only then), so a view never races the GPU.

use std::marker::PhantomData;
use std::ops::{Deref, Range};
use std::sync::atomic::Ordering;
use std::sync::{
    LockResult, RwLock, RwLockReadGuard, RwLockWriteGuard, TryLockError, TryLockResult,
};

use super::buffer::{Allocation, WORD, align_down, align_up};
use super::transfer::{map_and_wait, read_gpu, write_gpu};
use crate::{Buffer, Element, Error, Result, StorageMode};

/// wgpu maps from 8-byte-aligned offsets.
const MAP_ALIGN: u64 = wgpu::MAP_ALIGNMENT;

fn mode_name(m: wgpu::MapMode) -> &'static str {
    match m {
        wgpu::MapMode::Read => "read",
        wgpu::MapMode::Write => "write",
    }
}

type Mirror = RwLock<Vec<u64>>;

impl Allocation {
    /// Shared access to a Managed buffer's host copy; never waits on a user's host view.
    fn mirror_read(&self, what: &str) -> Result<RwLockReadGuard<'_, Vec<u64>>> {
        self.lock_mirror(what, Mirror::try_read, Mirror::read)
    }

    /// Exclusive access to a Managed buffer's host copy; never waits on a user's host view.
    fn mirror_write(&self, what: &str) -> Result<RwLockWriteGuard<'_, Vec<u64>>> {
        self.lock_mirror(what, Mirror::try_write, Mirror::write)
    }

    /// Takes a host-copy lock with `try_lock`. When it is busy, it is refused only if a user's
    /// host view holds it (waiting could deadlock on this thread's own view); a runtime-internal
    /// holder (an upload, `did_modify_range`, `synchronize`) finishes without waiting on the user,
    /// so it is waited for with `lock`.
    fn lock_mirror<'a, G>(
        &'a self,
        what: &str,
        try_lock: impl FnOnce(&'a Mirror) -> TryLockResult<G>,
        lock: impl FnOnce(&'a Mirror) -> LockResult<G>,
    ) -> Result<G> {
        self.check_not_exported(what)?;
        let m = self.mirror.as_ref().expect("Managed buffers have a host copy");
        match try_lock(m) {
            Ok(g) => Ok(g),
            Err(TryLockError::Poisoned(p)) => Ok(p.into_inner()),
            Err(TryLockError::WouldBlock) if self.mirror_views.load(Ordering::Acquire) > 0 => {
                Err(Error::HostViewConflict {
                    mode: self.mode,
                    reason: format!(
                        "{what} needs the host copy, which a live host view holds; drop the view \
                         first"
                    ),
                })
            }
            Err(TryLockError::WouldBlock) => Ok(lock(m).unwrap_or_else(|p| p.into_inner())),
        }
    }

    /// Marks the allocation as used by an encoded command, unless a host view maps it. Both
    /// checks run under the map lock, so a view and an encode can never both succeed.
    pub(crate) fn mark_encoded(&self, what: &dyn Fn() -> String) -> Result<()> {
        let st = self.map.lock().unwrap_or_else(|p| p.into_inner());
        let exports = self.exports.load(Ordering::Acquire);
        if exports > 0 {
            return Err(Error::Exported { what: what(), exports });
        }
        if st.views > 0 {
            return Err(Error::MappedOnGpu { what: what() });
        }
        self.encoded_uses.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
        Ok(())
    }

    /// Copies bytes `range` of a Managed buffer's host copy, as it is (no synchronize).
    pub(crate) fn read_mirror(&self, what: &str, range: Range<u64>) -> Result<Vec<u8>> {
        let guard = self.mirror_read(what)?;
        Ok(Allocation::mirror_bytes(&guard, range).to_vec())
    }

    /// A Managed buffer's host copy belongs to the DLPack consumers while it is exported.
    fn check_not_exported(&self, what: &str) -> Result<()> {
        match self.exports.load(Ordering::Acquire) {
            0 => Ok(()),
            exports => Err(Error::Exported { what: what.to_string(), exports }),
        }
    }

    fn acquire_map(&self, mode: wgpu::MapMode, what: &'static str) -> Result<()> {
        let mut st = self.map.lock().unwrap_or_else(|p| p.into_inner());
        match self.encoded_uses.load(std::sync::atomic::Ordering::Acquire) {
            0 => {}
            uses => return Err(Error::PendingEncodedWork { what, uses }),
        }
        if st.views > 0 {
            if st.mode == Some(mode) {
                st.views += 1;
                return Ok(());
            }
            return Err(Error::HostViewConflict {
                mode: self.mode,
                reason: format!(
                    "a {} view is alive; drop it before taking a {} view",
                    mode_name(st.mode.unwrap_or(mode)),
                    mode_name(mode)
                ),
            });
        }
        map_and_wait(self, &self.gpu, mode)?;
        st.mode = Some(mode);
        st.views = 1;
        Ok(())
    }

    pub(crate) fn release_map(&self) {
        let mut st = self.map.lock().unwrap_or_else(|p| p.into_inner());
        st.views -= 1;
        if st.views == 0 {
            self.gpu.unmap();
            st.mode = None;
        }
    }

    /// Maps the allocation for `mode` and takes a view of the window around `range`; returns the
    /// view and where `range` starts in it. The mapping is released again if the view fails.
    pub(crate) fn map_view<V>(
        &self,
        mode: wgpu::MapMode,
        what: &'static str,
        range: &Range<u64>,
        get: impl FnOnce(&wgpu::Buffer, Range<u64>) -> std::result::Result<V, wgpu::MapRangeError>,
    ) -> Result<(V, usize)> {
        let (window, lo) = map_window(range);
        self.acquire_map(mode, what)?;
        get(&self.gpu, window).map(|v| (v, lo)).map_err(|e| {
            self.release_map();
            Error::HostViewConflict { mode: self.mode, reason: e.to_string() }
        })
    }

    fn mirror_bytes(g: &[u64], range: Range<u64>) -> &[u8] {
        &bytemuck::cast_slice::<u64, u8>(g)[range.start as usize..range.end as usize]
    }
}

/// The mapped range wgpu accepts that covers `range`, and where `range` starts inside it.
fn map_window(range: &Range<u64>) -> (Range<u64>, usize) {
    let start = align_down(range.start, MAP_ALIGN);
    (start..align_up(range.end, WORD), (range.start - start) as usize)
}

/// What a host view holds: the mapped GPU memory (Shared) or the locked host copy (Managed),
/// through a read or a write view `V` and guard `G`. Dropping it gives the mapping or the lock
/// back.
enum Held<'a, V, G> {
    Mapped {
        view: Option<V>,
        alloc: &'a Allocation,
        lo: usize,
    },
    /// Counted in `alloc.mirror_views` while it lives.
    Mirror {
        guard: G,
        alloc: &'a Allocation,
        range: Range<u64>,
    },
}

type ReadInner<'a> = Held<'a, wgpu::BufferView, RwLockReadGuard<'a, Vec<u64>>>;
type WriteInner<'a> = Held<'a, wgpu::BufferViewMut, RwLockWriteGuard<'a, Vec<u64>>>;

impl<'a, V, G> Held<'a, V, G> {
    /// Takes hold of bytes `range` of `alloc` for `what`: of its host copy through `lock`
    /// (Managed; counted as a user's view), else of its GPU memory, mapped for `mode` and viewed
    /// through `get` (Shared).
    fn take(
        alloc: &'a Allocation,
        range: Range<u64>,
        what: &'static str,
        lock: impl FnOnce(&'a Allocation, &str) -> Result<G>,
        mode: wgpu::MapMode,
        get: impl FnOnce(&wgpu::Buffer, Range<u64>) -> std::result::Result<V, wgpu::MapRangeError>,
    ) -> Result<Self> {
        if alloc.mirror.is_some() {
            let guard = lock(alloc, what)?;
            alloc.mirror_views.fetch_add(1, Ordering::AcqRel);
            Ok(Held::Mirror { guard, alloc, range })
        } else {
            let (view, lo) = alloc.map_view(mode, what, &range, get)?;
            Ok(Held::Mapped { view: Some(view), alloc, lo })
        }
    }
}

impl<V, G> Drop for Held<'_, V, G> {
    fn drop(&mut self) {
        match self {
            Held::Mapped { view, alloc, .. } => {
                drop(view.take());
                alloc.release_map();
            }
            // The guard drops just after: the count never claims a view that is gone.
            Held::Mirror { alloc, .. } => {
                alloc.mirror_views.fetch_sub(1, Ordering::AcqRel);
            }
        }
    }
}

/// A zero-copy, read-only typed view of a Shared or Managed buffer. Derefs to `&[T]`.
pub struct HostView<'a, T: Element> {
    inner: ReadInner<'a>,
    bytes: usize,
    _t: PhantomData<T>,
}

impl<T: Element> HostView<'_, T> {
    fn bytes(&self) -> &[u8] {
        match &self.inner {
            Held::Mapped { view, lo, .. } => {
                &view.as_ref().expect("view lives until drop")[*lo..*lo + self.bytes]
            }
            Held::Mirror { guard, range, .. } => Allocation::mirror_bytes(guard, range.clone()),
        }
    }
}

impl<T: Element> std::fmt::Debug for HostView<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostView<{}>[{}]", T::DTYPE, self.bytes / std::mem::size_of::<T>())
    }
}

impl<T: Element> Deref for HostView<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // Alignment was checked with try_cast_slice when the view was made.
        bytemuck::cast_slice(self.bytes())
    }
}

/// A zero-copy, write-only typed view of a Shared or Managed buffer. Mapped GPU memory may be
/// write-combined, so it offers writes, not reads. For a Managed buffer, drop the view and then
/// call [`Buffer::did_modify_range`] so the GPU copy receives the bytes (while a view lives, the
/// host copy is locked and that call returns [`Error::HostViewConflict`]).
pub struct HostViewMut<'a, T: Element> {
    inner: WriteInner<'a>,
    len: usize,
    _t: PhantomData<T>,
}

impl<T: Element> HostViewMut<'_, T> {
    /// Elements the view covers.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: views hold at least one element.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Writes `src` starting at element `index`; the range must fit in the view.
    pub fn write(&mut self, index: usize, src: &[T]) -> Result<()> {
        let size = std::mem::size_of::<T>();
        let end = index.saturating_add(src.len());
        if end > self.len {
            return Err(Error::RangeOutOfBounds {
                what: "HostViewMut::write",
                start: index.saturating_mul(size) as u64,
                end: end.saturating_mul(size) as u64,
                len: (self.len * size) as u64,
            });
        }
        let src: &[u8] = bytemuck::cast_slice(src);
        let at = index * size;
        match &mut self.inner {
            Held::Mapped { view, lo, .. } => {
                let v = view.as_mut().expect("view lives until drop");
                v.slice(*lo + at..*lo + at + src.len()).copy_from_slice(src);
            }
            Held::Mirror { guard, range, .. } => {
                let bytes = bytemuck::cast_slice_mut::<u64, u8>(guard);
                let s = range.start as usize + at;
                bytes[s..s + src.len()].copy_from_slice(src);
            }
        }
        Ok(())
    }

    /// Overwrites the whole view; `src` must have exactly [`len`](Self::len) elements.
    pub fn copy_from_slice(&mut self, src: &[T]) -> Result<()> {
        if src.len() != self.len {
            return Err(Error::LengthMismatch {
                what: "HostViewMut::copy_from_slice",
                got: src.len(),
                expected: self.len,
                shape: vec![self.len],
            });
        }
        self.write(0, src)
    }

    /// Sets every element to `value`.
    pub fn fill(&mut self, value: T) -> Result<()> {
        self.copy_from_slice(&vec![value; self.len])
    }
}

impl<T: Element> std::fmt::Debug for HostViewMut<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HostViewMut<{}>[{}]", T::DTYPE, self.len)
    }
}

impl Buffer {
    /// Host access must not overtake stream work that is encoded but not yet submitted.
    pub(crate) fn check_no_encoded_work(&self, what: &'static str) -> Result<()> {
        match self.alloc.encoded_uses.load(std::sync::atomic::Ordering::Acquire) {
            0 => Ok(()),
            uses => Err(Error::PendingEncodedWork { what, uses }),
        }
    }

    fn check_view<T: Element>(&self, what: &'static str) -> Result<()> {
        self.check_dtype::<T>(what)?;
        if !self.storage_mode().is_host_visible() {
            return Err(Error::NotHostVisible { what, mode: self.storage_mode() });
        }
        // An empty buffer has no bytes to map (download() gives its empty contents).
        if self.is_empty() {
            return Err(Error::EmptyView { what });
        }
        Ok(())
    }

    /// A zero-copy read view. Shared: maps the GPU memory, waiting for submitted work that uses
    /// it. Managed: views the host copy, which holds GPU results only after [`synchronize`].
    /// Private buffers have no host memory: use [`download`](Buffer::download).
    ///
    /// [`synchronize`]: Buffer::synchronize
    pub fn host_view<T: Element>(&self) -> Result<HostView<'_, T>> {
        self.check_view::<T>("host_view")?;
        let inner = Held::take(
            &self.alloc,
            self.abs_range(),
            "host_view",
            Allocation::mirror_read,
            wgpu::MapMode::Read,
            |b, w| b.get_mapped_range(w),
        )?;
        let view = HostView { inner, bytes: self.byte_len() as usize, _t: PhantomData };
        bytemuck::try_cast_slice::<u8, T>(view.bytes()).map_err(|e| Error::Map {
            bytes: self.byte_len(),
            reason: format!("mapped memory is not aligned for {}: {e}", self.dtype()),
        })?;
        Ok(view)
    }

    /// A zero-copy write view. Shared: maps the GPU memory for writing, waiting for submitted
    /// work that uses it. Managed: writes the host copy; follow with [`did_modify_range`].
    ///
    /// [`did_modify_range`]: Buffer::did_modify_range
    pub fn host_view_mut<T: Element>(&self) -> Result<HostViewMut<'_, T>> {
        self.check_view::<T>("host_view_mut")?;
        let inner = Held::take(
            &self.alloc,
            self.abs_range(),
            "host_view_mut",
            Allocation::mirror_write,
            wgpu::MapMode::Write,
            |b, w| b.get_mapped_range_mut(w),
        )?;
        Ok(HostViewMut { inner, len: self.len(), _t: PhantomData })
    }

    /// Copies `data` into the buffer; it must have exactly `len()` elements of the buffer's dtype.
    /// Works in every storage mode; on a Managed buffer it also updates the GPU copy.
    pub fn upload<T: Element>(&self, data: &[T]) -> Result<()> {
        self.check_dtype::<T>("upload")?;
        self.check_len("upload", data.len())?;
        self.check_no_encoded_work("upload")?;
        if data.is_empty() {
            return Ok(());
        }
        let bytes: &[u8] = bytemuck::cast_slice(data);
        match self.storage_mode() {
            StorageMode::Private => write_gpu(&self.alloc, self.byte_offset(), bytes),
            // Serialized with other uploads of the allocation: their mapped windows (widened to
            // wgpu's map alignment) may overlap, which wgpu refuses.
            StorageMode::Shared => {
                let _t = self.alloc.transfer.lock().unwrap_or_else(|p| p.into_inner());
                self.host_view_mut::<T>()?.copy_from_slice(data)
            }
            // Written under the host-copy lock as an internal holder, not as a user's host view,
            // so a concurrent upload waits instead of being refused.
            StorageMode::Managed => {
                let range = self.abs_range();
                let mut guard = self.alloc.mirror_write("upload")?;
                bytemuck::cast_slice_mut::<u64, u8>(&mut guard)
                    [range.start as usize..range.end as usize]
                    .copy_from_slice(bytes);
                write_gpu(&self.alloc, range.start, Allocation::mirror_bytes(&guard, range))
            }
        }
    }

    /// Copies the buffer's elements to a new `Vec`, after all submitted GPU work that uses it.
    /// On a Managed buffer this synchronizes the host copy first.
    pub fn download<T: Element>(&self) -> Result<Vec<T>> {
        self.check_dtype::<T>("download")?;
        self.check_no_encoded_work("download")?;
        if self.is_empty() {
            return Ok(Vec::new());
        }
        match self.storage_mode() {
            StorageMode::Private => {
                let bytes = read_gpu(&self.alloc, self.abs_range())?;
                Ok(bytemuck::pod_collect_to_vec(&bytes))
            }
            // Serialized with uploads of the allocation: a read mapping and a write mapping of
            // one buffer cannot coexist.
            StorageMode::Shared => {
                let _t = self.alloc.transfer.lock().unwrap_or_else(|p| p.into_inner());
                Ok(self.host_view::<T>()?.to_vec())
            }
            // Read as an internal holder of the host copy, not as a user's host view.
            StorageMode::Managed => {
                self.synchronize()?;
                let guard = self.alloc.mirror_read("download")?;
                Ok(bytemuck::pod_collect_to_vec(Allocation::mirror_bytes(&guard, self.abs_range())))
            }
        }
    }

    /// Managed buffers: tells the runtime that the host wrote bytes `range` (relative to this
    /// view) of the host copy; they are copied to the GPU copy before any later GPU work.
    pub fn did_modify_range(&self, range: Range<u64>) -> Result<()> {
        if self.alloc.mirror.is_none() {
            return Err(Error::NotManaged { what: "did_modify_range", mode: self.storage_mode() });
        }
        if range.start > range.end || range.end > self.byte_len() {
            return Err(Error::RangeOutOfBounds {
                what: "did_modify_range",
                start: range.start,
                end: range.end,
                len: self.byte_len(),
            });
        }
        if range.is_empty() {
            return Ok(());
        }
        self.check_no_encoded_work("did_modify_range")?;
        let abs = self.byte_offset() + range.start..self.byte_offset() + range.end;
        let guard = self.alloc.mirror_read("did_modify_range")?;
        write_gpu(&self.alloc, abs.start, Allocation::mirror_bytes(&guard, abs))
    }

    /// Managed buffers: waits for submitted GPU work and copies this view's bytes from the GPU
    /// copy into the host copy. Shared and Private buffers have no second copy: a no-op.
    pub fn synchronize(&self) -> Result<()> {
        if self.alloc.mirror.is_none() || self.is_empty() {
            return Ok(());
        }
        self.check_no_encoded_work("synchronize")?;
        let mut guard = self.alloc.mirror_write("synchronize")?;
        let range = self.abs_range();
        let bytes = read_gpu(&self.alloc, range.clone())?;
        bytemuck::cast_slice_mut::<u64, u8>(&mut guard)[range.start as usize..range.end as usize]
            .copy_from_slice(&bytes);
        Ok(())
    }
}
