//! Typed buffers: dtype + shape over one shared allocation.
//!
//! Invariants:
//! - Clones and [`Buffer::slice_view`]s share one [`Allocation`] through an `Arc`; the GPU memory
//!   goes back (to wgpu, or to the pool it came from) only when the last of them is dropped, and
//!   wgpu defers the free until no submitted command buffer uses it.
//! - A view's byte range always lies inside its allocation and starts at a multiple of its
//!   dtype's size: both are checked when the view is made, so later code never re-checks.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock, Weak};

use crate::{DType, Device, Element, Error, Result, StorageMode};

/// wgpu copies and writes move whole 4-byte words.
pub(crate) const WORD: u64 = wgpu::COPY_BUFFER_ALIGNMENT;

pub(crate) fn align_down(x: u64, a: u64) -> u64 {
    x / a * a
}

pub(crate) fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

/// Mapping state of a Shared allocation (host views live in `host.rs`).
#[derive(Debug, Default)]
pub(crate) struct MapState {
    pub(crate) mode: Option<wgpu::MapMode>,
    pub(crate) views: usize,
}

/// Where an allocation's memory goes when its last handle drops, instead of back to wgpu: the
/// [`BufferPool`](crate::BufferPool) it came from. The allocation holds it weakly (a dropped
/// pool frees what it lent), and knows no more of it than this.
pub(crate) trait Reclaim: Send + Sync {
    /// Takes memory back, stamped with the last submission that used it.
    fn give_back(&self, memory: Memory, last_use: u64);
    /// Forgets memory handed out that will not come back (it was left mapped).
    fn discard(&self, memory: &Memory);
}

/// GPU memory (plus, for Managed, its host copy); it outlives its [`Allocation`] when a pool
/// takes it back.
pub(crate) struct Memory {
    /// Unique for the life of the process and part of the wgpu label (`tilecast #id ...`), so a
    /// wgpu error that names the buffer can be traced to the dispatches that use it.
    pub(crate) id: u64,
    pub(crate) gpu: wgpu::Buffer,
    pub(crate) mirror: Option<RwLock<Vec<u64>>>,
    /// Byte ranges wgpu has initialized for certain, as far as direct recording needs to know.
    pub(crate) wgpu_init: WgpuInit,
}

/// Byte ranges of a wgpu buffer that wgpu has initialized: bound to a wgpu-recorded launch,
/// which zeroes what it had never written first. wgpu zeroes a range it believes uninitialized
/// at its next use, so a directly recorded launch, unknown to wgpu, may bind only ranges listed
/// here; the first launch over any other range is recorded through wgpu, which lists it.
#[derive(Debug, Default)]
pub(crate) struct WgpuInit {
    /// Disjoint, sorted (start, end) byte ranges.
    ranges: Vec<(u64, u64)>,
}

impl WgpuInit {
    /// True when `start..end` lies within one listed range.
    pub(crate) fn covers(&self, start: u64, end: u64) -> bool {
        self.ranges.iter().any(|&(a, b)| a <= start && end <= b)
    }

    /// Lists `start..end`, merged with the ranges it touches.
    pub(crate) fn add(&mut self, start: u64, end: u64) {
        let (mut lo, mut hi) = (start, end);
        self.ranges.retain(|&(a, b)| {
            let apart = b < lo || hi < a;
            if !apart {
                lo = lo.min(a);
                hi = hi.max(b);
            }
            apart
        });
        let at = self.ranges.partition_point(|&(a, _)| a < lo);
        self.ranges.insert(at, (lo, hi));
    }
}

/// One GPU allocation, shared by every clone and view of a buffer.
pub(crate) struct Allocation {
    pub(crate) device: Device,
    /// Unique for the life of the process: keys bind-group caches and residency sets.
    pub(crate) id: u64,
    pub(crate) gpu: wgpu::Buffer,
    /// [`Memory::id`] of `gpu`.
    pub(crate) memory_id: u64,
    pub(crate) mode: StorageMode,
    /// Bytes asked for; the wgpu buffer is this rounded up to a whole word.
    pub(crate) bytes: u64,
    /// The host copy of a Managed buffer, 8-byte aligned, covering the whole wgpu buffer.
    pub(crate) mirror: Option<RwLock<Vec<u64>>>,
    /// Mapping state of a Shared buffer.
    pub(crate) map: Mutex<MapState>,
    /// Serializes host writes that read back and rewrite a word other views may share (sub-word
    /// edges of Private and Managed uploads, mapped Shared uploads), so that concurrent uploads
    /// through disjoint views never lose each other's bytes.
    pub(crate) transfer: Mutex<()>,
    /// Live user host views of a Managed buffer's host copy. The host-copy lock is refused (an
    /// error) only while one exists; runtime-internal holders are short and are waited for.
    pub(crate) mirror_views: AtomicUsize,
    /// Commands that use this allocation, encoded in a stream and not yet submitted.
    pub(crate) encoded_uses: AtomicUsize,
    /// Device submission sequence number of the last submitted command buffer that used it.
    pub(crate) last_use: AtomicU64,
    /// The pool this memory returns to when the last handle drops.
    pub(crate) pool: Option<Weak<dyn Reclaim>>,
    /// Live DLPack exports of host memory (zero-copy). Changed under the `map` lock; while it is
    /// non-zero the GPU and the runtime's own host access leave the allocation alone.
    pub(crate) exports: AtomicUsize,
    /// Made by another wgpu user ([`Device::buffer_from_wgpu`]): dropped, never destroyed.
    pub(crate) external: bool,
    /// The memory's [`WgpuInit`], while this allocation holds it.
    pub(crate) wgpu_init: Mutex<WgpuInit>,
}

static NEXT_ALLOCATION_ID: AtomicU64 = AtomicU64::new(1);
static NEXT_MEMORY_ID: AtomicU64 = AtomicU64::new(1);

impl Memory {
    /// Wraps a wgpu buffer someone else created; it gets a fresh memory id.
    pub(crate) fn external(gpu: wgpu::Buffer) -> Memory {
        Memory {
            id: NEXT_MEMORY_ID.fetch_add(1, Ordering::Relaxed),
            gpu,
            mirror: None,
            wgpu_init: WgpuInit::default(),
        }
    }
}

impl Allocation {
    /// Wraps memory the device (or a pool) handed out, counting it as live.
    pub(crate) fn new(
        device: &Device,
        mode: StorageMode,
        bytes: u64,
        memory: Memory,
        pool: Option<Weak<dyn Reclaim>>,
    ) -> Allocation {
        let d = &device.inner;
        d.live_allocations.fetch_add(1, Ordering::AcqRel);
        d.live_bytes.fetch_add(memory.gpu.size(), Ordering::AcqRel);
        Allocation {
            device: device.clone(),
            id: NEXT_ALLOCATION_ID.fetch_add(1, Ordering::Relaxed),
            gpu: memory.gpu,
            memory_id: memory.id,
            mode,
            bytes,
            mirror: memory.mirror,
            map: Mutex::new(MapState::default()),
            transfer: Mutex::new(()),
            mirror_views: AtomicUsize::new(0),
            encoded_uses: AtomicUsize::new(0),
            last_use: AtomicU64::new(0),
            pool,
            exports: AtomicUsize::new(0),
            external: false,
            wgpu_init: Mutex::new(memory.wgpu_init),
        }
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        let d = &self.device.inner;
        d.live_allocations.fetch_sub(1, Ordering::AcqRel);
        d.live_bytes.fetch_sub(self.gpu.size(), Ordering::AcqRel);
        let memory = Memory {
            id: self.memory_id,
            gpu: self.gpu.clone(),
            mirror: self.mirror.take(),
            wgpu_init: std::mem::take(self.wgpu_init.get_mut().unwrap_or_else(|p| p.into_inner())),
        };
        let last_use = self.last_use.load(Ordering::Acquire);
        // A host view that was leaked (`mem::forget`) leaves the memory mapped, and wgpu cannot
        // unmap memory with a live view: such memory is destroyed, never handed out again.
        let still_mapped = self.map.get_mut().unwrap_or_else(|p| p.into_inner()).views > 0;
        if self.external {
            // Another wgpu user owns the memory: dropping our handle is all we may do.
            return;
        }
        match self.pool.as_ref().and_then(Weak::upgrade) {
            Some(pool) if !still_mapped => pool.give_back(memory, last_use),
            Some(pool) => {
                pool.discard(&memory);
                self.device.release_memory(memory.gpu, last_use);
            }
            // Destroyed once submitted work that uses it has finished (wgpu frees it even while
            // cached bind groups still name it).
            None => self.device.release_memory(memory.gpu, last_use),
        }
    }
}

/// A typed GPU buffer: an element dtype and a shape over (part of) one allocation.
/// Cloning is cheap and shares the allocation.
#[derive(Clone)]
pub struct Buffer {
    pub(crate) alloc: Arc<Allocation>,
    dtype: DType,
    /// Shared by clones: a launch clones the buffers it binds, and a clone costs no allocation.
    shape: Arc<[usize]>,
    /// Bytes from the start of the allocation to this view's first element.
    offset: u64,
}

impl std::fmt::Debug for Buffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Buffer")
            .field("dtype", &self.dtype)
            .field("shape", &self.shape)
            .field("byte_offset", &self.offset)
            .field("mode", &self.alloc.mode)
            .finish()
    }
}

pub(crate) fn element_count(shape: &[usize]) -> Option<usize> {
    shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
}

fn host_copy_oom(device: &Device, bytes: u64) -> Error {
    Error::OutOfMemory {
        device: device.name().to_string(),
        bytes,
        what: "the host copy of a Managed buffer",
    }
}

impl Device {
    /// Allocates a zero-filled buffer in the process default storage mode.
    pub fn alloc(&self, dtype: DType, shape: &[usize]) -> Result<Buffer> {
        self.alloc_in(self.default_storage_mode(), dtype, shape)
    }

    /// Allocates a zero-filled buffer in `mode`.
    pub fn alloc_in(&self, mode: StorageMode, dtype: DType, shape: &[usize]) -> Result<Buffer> {
        let (bytes, padded) = self.check_size(mode, dtype, shape)?;
        let memory = self.create_memory(mode, padded, &format!("{mode} {dtype}{shape:?}"))?;
        self.inner.total_allocations.fetch_add(1, Ordering::AcqRel);
        let alloc = Allocation::new(self, mode, bytes, memory, None);
        Ok(Buffer::whole(alloc, dtype, shape))
    }

    /// Checks `shape` of `dtype` against the device's limits; returns (exact, padded) bytes.
    pub(crate) fn check_size(
        &self,
        mode: StorageMode,
        dtype: DType,
        shape: &[usize],
    ) -> Result<(u64, u64)> {
        let caps = self.capabilities();
        let too_large = |bytes| Error::TooLarge {
            dtype,
            shape: shape.to_vec(),
            bytes,
            limit: caps.limits.max_buffer_size,
            device: caps.name.clone(),
        };
        let overflow = || Error::ShapeOverflow { what: "alloc", shape: shape.to_vec() };
        let count = element_count(shape).ok_or_else(overflow)?;
        let bytes = (count as u64).checked_mul(dtype.size() as u64).ok_or_else(overflow)?;
        // A shape with a zero extent holds no elements; its allocation is one word, so that
        // every buffer has GPU memory behind it.
        let padded = align_up(bytes, WORD).max(WORD);
        if padded > caps.limits.max_buffer_size {
            return Err(too_large(bytes));
        }
        if mode == StorageMode::Shared && !caps.features.mappable_primary_buffers {
            return Err(Error::SharedUnsupported { adapter: caps.name.clone() });
        }
        Ok((bytes, padded))
    }

    /// Checks, without allocating anything, that a buffer of `shape` of `dtype` fits the device:
    /// its allocation limit and, since kernels bind buffers whole, its storage-binding limit.
    /// Returns the buffer's bytes. Call it before building large inputs on the host.
    pub fn check_bindable(&self, dtype: DType, shape: &[usize]) -> Result<u64> {
        let (bytes, padded) = self.check_size(StorageMode::Private, dtype, shape)?;
        let limit = self.capabilities().limits.max_storage_binding_size;
        if padded > limit {
            return Err(Error::InvalidCommand {
                what: format!("a buffer of {dtype} with shape {shape:?}"),
                reason: format!(
                    "{bytes} bytes; device {:?} binds at most {limit} bytes per storage binding",
                    self.name()
                ),
            });
        }
        Ok(bytes)
    }

    /// Creates `padded` bytes of GPU memory for `mode`, plus a Managed buffer's host copy.
    pub(crate) fn create_memory(
        &self,
        mode: StorageMode,
        padded: u64,
        what: &str,
    ) -> Result<Memory> {
        let mut usage = wgpu::BufferUsages::STORAGE
            | wgpu::BufferUsages::COPY_SRC
            | wgpu::BufferUsages::COPY_DST;
        if mode == StorageMode::Shared {
            usage |= wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::MAP_WRITE;
        }
        let mirror = if mode == StorageMode::Managed {
            let words = usize::try_from(padded / 8 + 1).map_err(|_| host_copy_oom(self, padded))?;
            let mut v: Vec<u64> = Vec::new();
            v.try_reserve_exact(words).map_err(|_| host_copy_oom(self, padded))?;
            v.resize(words, 0);
            Some(RwLock::new(v))
        } else {
            None
        };
        let id = NEXT_MEMORY_ID.fetch_add(1, Ordering::Relaxed);
        let label = format!("tilecast #{id} {what}");
        let gpu = self.scoped("buffer allocation", Some((padded, "a buffer")), || {
            self.inner.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(&label),
                size: padded,
                usage,
                mapped_at_creation: false,
            })
        })?;
        Ok(Memory { id, gpu, mirror, wgpu_init: WgpuInit::default() })
    }

    /// Allocates a buffer of `shape` in the default storage mode and uploads `data` into it.
    pub fn buffer_from_slice<T: Element>(&self, data: &[T], shape: &[usize]) -> Result<Buffer> {
        self.buffer_from_slice_in(self.default_storage_mode(), data, shape)
    }

    /// Allocates a buffer of `shape` in `mode` and uploads `data` into it.
    pub fn buffer_from_slice_in<T: Element>(
        &self,
        mode: StorageMode,
        data: &[T],
        shape: &[usize],
    ) -> Result<Buffer> {
        let expected = element_count(shape).ok_or_else(|| Error::ShapeOverflow {
            what: "buffer_from_slice",
            shape: shape.to_vec(),
        })?;
        if data.len() != expected {
            return Err(Error::LengthMismatch {
                what: "buffer_from_slice",
                got: data.len(),
                expected,
                shape: shape.to_vec(),
            });
        }
        let buf = self.alloc_in(mode, T::DTYPE, shape)?;
        buf.upload(data)?;
        Ok(buf)
    }
}

impl Buffer {
    /// A buffer over a whole allocation.
    pub(crate) fn whole(alloc: Allocation, dtype: DType, shape: &[usize]) -> Buffer {
        Buffer::from_parts(Arc::new(alloc), dtype, shape)
    }

    /// A view from the start of a shared allocation.
    pub(crate) fn from_parts(alloc: Arc<Allocation>, dtype: DType, shape: &[usize]) -> Buffer {
        Buffer { alloc, dtype, shape: shape.into(), offset: 0 }
    }

    /// Element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// Shape (row-major).
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    /// Whether the shape has a zero extent: the buffer holds no elements (numpy's and torch's
    /// empty tensors). Transfers of it move nothing; kernels cannot bind it.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes this buffer (or view) covers.
    pub fn byte_len(&self) -> u64 {
        self.len() as u64 * self.dtype.size() as u64
    }

    /// Bytes from the start of the allocation to this view's first element.
    pub fn byte_offset(&self) -> u64 {
        self.offset
    }

    /// Bytes a storage binding of this view covers: whole words (the allocation is padded to a
    /// word, so the last one fits).
    pub(crate) fn bound_len(&self) -> u64 {
        align_up(self.byte_len(), WORD)
    }

    /// Bytes of the whole allocation this buffer views.
    pub fn allocation_byte_len(&self) -> u64 {
        self.alloc.bytes
    }

    /// The storage mode of the allocation.
    pub fn storage_mode(&self) -> StorageMode {
        self.alloc.mode
    }

    /// The device that owns the allocation.
    pub fn device(&self) -> &Device {
        &self.alloc.device
    }

    /// The wgpu buffer under this view (bind it at [`Buffer::byte_offset`]).
    pub fn wgpu_buffer(&self) -> &wgpu::Buffer {
        &self.alloc.gpu
    }

    /// Process-unique id of the allocation (clones and views share it).
    pub fn allocation_id(&self) -> u64 {
        self.alloc.id
    }

    /// True when both buffers view the same allocation.
    pub fn shares_allocation_with(&self, other: &Buffer) -> bool {
        Arc::ptr_eq(&self.alloc, &other.alloc)
    }

    /// True while a zero-copy host view of the allocation is alive; GPU work on a Shared buffer
    /// must wait until it is dropped.
    pub fn has_host_views(&self) -> bool {
        self.alloc.map.lock().unwrap_or_else(|p| p.into_inner()).views > 0
    }

    /// Live zero-copy DLPack exports of the allocation (every clone and view counts). While it
    /// is non-zero the GPU must not use the allocation and host access through the runtime is
    /// refused; it drops back when each consumer has called its deleter.
    pub fn dlpack_exports(&self) -> usize {
        self.alloc.exports.load(Ordering::Acquire)
    }

    /// A 1-D view of `len` elements starting `byte_offset` bytes into this buffer. It shares the
    /// allocation; the offset must be a multiple of the dtype's size and the range must fit.
    pub fn slice_view(&self, byte_offset: u64, len: usize) -> Result<Buffer> {
        let size = self.dtype.size();
        if len == 0 {
            return Err(Error::EmptyView { what: "slice_view" });
        }
        if !byte_offset.is_multiple_of(size as u64) {
            return Err(Error::Misaligned { byte_offset, align: size, dtype: self.dtype });
        }
        let end = (len as u64)
            .checked_mul(size as u64)
            .and_then(|b| b.checked_add(byte_offset))
            .unwrap_or(u64::MAX);
        if end > self.byte_len() {
            return Err(Error::ViewOutOfBounds {
                byte_offset,
                len,
                dtype: self.dtype,
                end,
                available: self.byte_len(),
            });
        }
        Ok(Buffer {
            alloc: self.alloc.clone(),
            dtype: self.dtype,
            shape: [len].into(),
            offset: self.offset + byte_offset,
        })
    }

    /// The same elements under another shape with the same element count.
    pub fn reshape(&self, shape: &[usize]) -> Result<Buffer> {
        let n = element_count(shape)
            .ok_or_else(|| Error::ShapeOverflow { what: "reshape", shape: shape.to_vec() })?;
        if n != self.len() {
            return Err(Error::ReshapeMismatch {
                from: self.shape.to_vec(),
                elements: self.len(),
                to: shape.to_vec(),
                to_elements: n,
            });
        }
        Ok(Buffer { shape: shape.into(), ..self.clone() })
    }

    pub(crate) fn check_dtype<T: Element>(&self, what: &'static str) -> Result<()> {
        if T::DTYPE != self.dtype {
            return Err(Error::DTypeMismatch { what, buffer: self.dtype, requested: T::DTYPE });
        }
        Ok(())
    }

    pub(crate) fn check_len(&self, what: &'static str, got: usize) -> Result<()> {
        if got != self.len() {
            return Err(Error::LengthMismatch {
                what,
                got,
                expected: self.len(),
                shape: self.shape.to_vec(),
            });
        }
        Ok(())
    }

    /// Byte range of this view inside the allocation.
    pub(crate) fn abs_range(&self) -> std::ops::Range<u64> {
        self.offset..self.offset + self.byte_len()
    }
}
