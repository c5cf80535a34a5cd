//! DLPack 1.1: zero-copy exports of host-visible buffers that keep the GPU away, copies flagged
//! IS_COPIED for Private buffers, imports that copy and read any strides, deleters that run
//! exactly once from any thread, and wgpu buffers of another user wrapped without a copy.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{device, pattern};
use tilecast_runtime::dlpack::ffi::{
    DLDataType, DLDevice, DLManagedTensorVersioned, DLPACK_VERSION, DLTensor, FLAG_IS_COPIED,
    FLAG_READ_ONLY, device_type, type_code,
};
use tilecast_runtime::{
    Buffer, CopyPolicy, DType, DlpackTensor, Error, ExportOptions, StorageMode, Stream, SyncType,
};

fn shared_supported() -> bool {
    device().capabilities().features.mappable_primary_buffers
}

fn host_modes() -> Vec<StorageMode> {
    let mut m = vec![StorageMode::Managed];
    if shared_supported() {
        m.push(StorageMode::Shared);
    }
    m
}

/// The exported elements, read through the DLPack header as a consumer would (row-major order).
fn read_u32(t: &DLTensor) -> Vec<u32> {
    let shape: Vec<i64> = (0..t.ndim as usize).map(|i| unsafe { *t.shape.add(i) }).collect();
    let strides: Vec<i64> = (0..t.ndim as usize).map(|i| unsafe { *t.strides.add(i) }).collect();
    let base = unsafe { t.data.cast::<u8>().add(t.byte_offset as usize).cast::<u32>() };
    let n: i64 = shape.iter().product();
    (0..n)
        .map(|flat| {
            let (mut rem, mut off) = (flat, 0i64);
            for d in (0..shape.len()).rev() {
                off += (rem % shape[d]) * strides[d];
                rem /= shape[d];
            }
            unsafe { base.offset(off as isize).read_unaligned() }
        })
        .collect()
}

fn gpu_touch(b: &Buffer) -> tilecast_runtime::Result<()> {
    let mut s = Stream::new(b.device());
    s.fill_zero(b)?;
    s.synchronize(SyncType::CommitAndWait)
}

#[test]
fn host_visible_exports_are_zero_copy_in_both_directions() {
    for mode in host_modes() {
        let (m, n) = (7, 13); // ragged
        let data = pattern(m * n, 3);
        let buf = device().buffer_from_slice_in(mode, &data, &[m, n]).unwrap();
        let e = buf.export_dlpack(ExportOptions::default()).unwrap();
        assert_eq!(e.flags() & (FLAG_IS_COPIED | FLAG_READ_ONLY), 0, "{mode}");
        let t = *e.tensor();
        assert_eq!((t.device.device_type, t.ndim), (device_type::CPU, 2));
        assert_eq!(read_u32(&t), data, "{mode}");
        assert_eq!(buf.dlpack_exports(), 1);
        // The consumer writes through the pointer; the runtime keeps its hands off meanwhile.
        unsafe { t.data.cast::<u32>().add(5).write(0xDEAD) };
        let err = buf.host_view_mut::<u32>().unwrap_err();
        assert!(matches!(err, Error::HostViewConflict { .. } | Error::Exported { .. }), "{err}");
        drop(e);
        assert_eq!(buf.dlpack_exports(), 0);
        if mode == StorageMode::Managed {
            buf.did_modify_range(0..buf.byte_len()).unwrap();
        }
        let back = buf.download::<u32>().unwrap();
        assert_eq!(back[5], 0xDEAD, "{mode}: the consumer's write reached the buffer");
        assert_eq!((&back[..5], &back[6..]), (&data[..5], &data[6..]));
    }
}

#[test]
fn the_gpu_may_not_touch_an_exported_buffer_until_the_deleter_ran() {
    for mode in host_modes() {
        let buf = device().alloc_in(mode, DType::F32, &[33]).unwrap();
        let e = buf.export_dlpack(ExportOptions::default()).unwrap();
        let err = gpu_touch(&buf).unwrap_err();
        assert!(matches!(err, Error::Exported { exports: 1, .. }), "{mode}: {err}");
        assert!(err.to_string().contains("deleter"), "{err}");
        if mode == StorageMode::Managed {
            let up = buf.upload(&[1.0f32; 33]).unwrap_err();
            assert!(matches!(up, Error::Exported { .. }), "{up}");
        }
        drop(e);
        gpu_touch(&buf).unwrap();
    }
}

#[test]
fn uncommitted_stream_work_refuses_the_export_instead_of_committing_it() {
    for mode in host_modes() {
        let buf = device().alloc_in(mode, DType::F32, &[8]).unwrap();
        let mut s = Stream::new(device());
        s.fill_zero(&buf).unwrap();
        let err = buf.export_dlpack(ExportOptions::default()).unwrap_err();
        assert!(matches!(err, Error::PendingEncodedWork { .. }), "{mode}: {err}");
        s.synchronize(SyncType::Commit).unwrap();
        drop(buf.export_dlpack(ExportOptions::default()).unwrap());
    }
}

#[test]
fn private_exports_copy_and_say_so_or_refuse_when_copies_are_refused() {
    let data = pattern(37, 11);
    let buf = device().buffer_from_slice_in(StorageMode::Private, &data, &[37]).unwrap();
    let e = buf.export_dlpack(ExportOptions::default()).unwrap();
    assert!(e.is_copied());
    assert_eq!(read_u32(e.tensor()), data);
    unsafe { e.tensor().data.cast::<u32>().write(0) };
    assert_eq!(buf.download::<u32>().unwrap(), data, "a copy: the buffer is untouched");
    gpu_touch(&buf).unwrap(); // a copy does not hold the buffer
    let never = ExportOptions { copy: CopyPolicy::Never, ..Default::default() };
    let err = buf.export_dlpack(never).unwrap_err();
    assert!(matches!(err, Error::CopyRefused { .. }), "{err}");
    assert!(err.to_string().contains("copy=False") && err.to_string().contains("private"), "{err}");
    for mode in host_modes() {
        let b = device().buffer_from_slice_in(mode, &data, &[37]).unwrap();
        assert!(!b.export_dlpack(never).unwrap().is_copied(), "{mode}");
        let always = ExportOptions { copy: CopyPolicy::Always, ..Default::default() };
        let c = b.export_dlpack(always).unwrap();
        assert!(c.is_copied());
        assert_eq!(b.dlpack_exports(), 0, "a copy leaves the buffer free");
        assert_eq!(read_u32(c.tensor()), data);
    }
}

#[test]
fn read_only_exports_are_flagged_and_coexist_with_host_reads() {
    if !shared_supported() {
        return;
    }
    let buf = device().buffer_from_slice_in(StorageMode::Shared, &pattern(9, 1), &[9]).unwrap();
    let ro = ExportOptions { read_only: true, ..Default::default() };
    let e = buf.export_dlpack(ro).unwrap();
    assert_eq!(e.flags(), FLAG_READ_ONLY);
    assert_eq!(buf.download::<u32>().unwrap(), pattern(9, 1)); // a read mapping coexists
    let err = buf.upload(&[0u32; 9]).unwrap_err();
    assert!(matches!(err, Error::HostViewConflict { .. }), "{err}");
}

#[test]
fn views_and_strided_views_export_their_own_elements() {
    for mode in [StorageMode::Private, StorageMode::Managed] {
        let data = pattern(60, 2);
        let buf = device().buffer_from_slice_in(mode, &data, &[60]).unwrap();
        // A view at an offset: the export starts at its first element.
        let view = buf.slice_view(4 * 10, 20).unwrap().reshape(&[4, 5]).unwrap();
        let e = view.export_dlpack(ExportOptions::default()).unwrap();
        assert_eq!(read_u32(e.tensor()), &data[10..30]);
        drop(e);
        // A column-major 4x5 view of the first 20 elements.
        let cm = buf.strided(&[4, 5], &[1, 4]).unwrap();
        let e = cm.export_dlpack(ExportOptions::default()).unwrap();
        let strides = unsafe { std::slice::from_raw_parts(e.tensor().strides, 2) };
        assert_eq!(strides, &[1, 4]);
        let want: Vec<u32> = (0..20).map(|f| data[(f % 5) * 4 + f / 5]).collect();
        assert_eq!(read_u32(e.tensor()), want);
    }
    let buf = device().alloc_in(StorageMode::Private, DType::U32, &[10]).unwrap();
    let err = buf.strided(&[3, 4], &[4, 1]).unwrap_err().to_string();
    assert!(err.contains("reaches element 11") && err.contains("holds 10"), "{err}");
    assert!(buf.strided(&[2, 0], &[1, 1]).is_err());
    assert!(buf.strided(&[2], &[1, 1]).is_err());
}

#[test]
fn every_dtype_round_trips_through_import_and_export() {
    for dtype in DType::ALL {
        for mode in [StorageMode::Private, StorageMode::Managed] {
            let (rows, cols) = (3, 29); // ragged
            let n = rows * cols * dtype.size();
            let mut host = vec![0u64; n.div_ceil(8)];
            let bytes: Vec<u8> = (0..n).map(|i| (i * 37 + 5) as u8).collect();
            bytemuck::cast_slice_mut::<u64, u8>(&mut host)[..n].copy_from_slice(&bytes);
            let mut shape = [rows as i64, cols as i64];
            let mut strides = [cols as i64, 1];
            let dl = tilecast_runtime::dlpack::to_dl(dtype);
            let p = producer(
                host.as_mut_ptr().cast(),
                dl,
                &mut shape,
                Some(&mut strides),
                0,
                0,
                device_type::CPU,
            );
            // Not counted: another test counts the deletes of its own producers.
            unsafe { (*p).deleter = Some(plain_delete) };
            let t = unsafe { DlpackTensor::from_raw_versioned(p) }.unwrap();
            let b = device().import_dlpack(&t, mode).unwrap();
            drop(t);
            assert_eq!((b.dtype(), b.shape()), (dtype, &[rows, cols][..]));
            let e = b.export_dlpack(ExportOptions::default()).unwrap();
            assert_eq!(e.tensor().dtype, dl);
            assert_eq!(e.is_copied(), mode == StorageMode::Private);
            let got = unsafe { std::slice::from_raw_parts(e.tensor().data.cast::<u8>(), n) };
            assert_eq!(got, &bytes[..], "{dtype} via {mode}");
        }
    }
}

static PRODUCER_DELETES: AtomicUsize = AtomicUsize::new(0);

unsafe extern "C" fn count_delete(t: *mut DLManagedTensorVersioned) {
    PRODUCER_DELETES.fetch_add(1, Ordering::SeqCst);
    drop(unsafe { Box::from_raw(t) });
}

unsafe extern "C" fn plain_delete(t: *mut DLManagedTensorVersioned) {
    drop(unsafe { Box::from_raw(t) });
}

/// A producer tensor over `data` (kept alive by the caller) with the given layout, whose
/// deleter counts in `PRODUCER_DELETES`.
fn producer(
    data: *mut u8,
    dtype: DLDataType,
    shape: &mut [i64],
    strides: Option<&mut [i64]>,
    byte_offset: u64,
    flags: u64,
    dev: i32,
) -> *mut DLManagedTensorVersioned {
    Box::into_raw(Box::new(DLManagedTensorVersioned {
        version: DLPACK_VERSION,
        manager_ctx: std::ptr::null_mut(),
        deleter: Some(count_delete),
        flags,
        dl_tensor: DLTensor {
            data: data.cast(),
            device: DLDevice { device_type: dev, device_id: 0 },
            ndim: shape.len() as i32,
            dtype,
            shape: shape.as_mut_ptr(),
            strides: strides.map_or(std::ptr::null_mut(), |s| s.as_mut_ptr()),
            byte_offset,
        },
    }))
}

#[test]
fn imports_copy_any_strides_and_call_the_producers_deleter_once() {
    let f32t = DLDataType { code: type_code::FLOAT, bits: 32, lanes: 1 };
    let mut host: Vec<f32> = (0..40).map(|i| i as f32 * 0.5 - 3.0).collect();
    let before = PRODUCER_DELETES.load(Ordering::SeqCst);
    // A 3x4 view with rows in reverse, starting at element 20 (byte_offset 80): element (i, j)
    // is host[20 - 4 i + j].
    let (mut shape, mut strides) = ([3i64, 4], [-4i64, 1]);
    let p = producer(
        host.as_mut_ptr().cast(),
        f32t,
        &mut shape,
        Some(&mut strides),
        80,
        FLAG_READ_ONLY,
        device_type::CPU,
    );
    let t = unsafe { DlpackTensor::from_raw_versioned(p) }.unwrap();
    assert!(t.is_read_only());
    let snapshot = host.clone();
    for mode in [StorageMode::Private, StorageMode::Managed] {
        let b = device().import_dlpack(&t, mode).unwrap();
        let want: Vec<f32> = (0..3)
            .flat_map(|i| (0..4).map(move |j| (i, j)))
            .map(|(i, j)| snapshot[20 - 4 * i + j])
            .collect();
        assert_eq!(b.download::<f32>().unwrap(), want, "{mode}");
        assert_eq!(b.shape(), &[3, 4]);
    }
    assert_eq!(host, snapshot, "READ_ONLY: the producer's memory is never written");
    assert_eq!(PRODUCER_DELETES.load(Ordering::SeqCst), before);
    drop(t);
    assert_eq!(PRODUCER_DELETES.load(Ordering::SeqCst), before + 1);

    // Contiguous producers over `host`, imported into a Private buffer; each tensor is dropped
    // (its deleter called) before the result returns.
    let data = host.as_mut_ptr().cast::<u8>();
    let import = |dtype, shape: &mut [i64], dev| {
        let p = producer(data, dtype, shape, None, 0, 0, dev);
        let t = unsafe { DlpackTensor::from_raw_versioned(p) }.unwrap();
        device().import_dlpack(&t, StorageMode::Private)
    };
    // No strides (legal before DLPack 1.2) means row-major.
    let b = import(f32t, &mut [5, 8], device_type::CPU).unwrap();
    assert_eq!(b.download::<f32>().unwrap(), host);
    // Device memory of another framework is refused by name; the deleter still runs once.
    let err = import(f32t, &mut [4], device_type::CUDA).unwrap_err().to_string();
    assert!(err.contains("kDLCUDA") && err.contains("host memory only"), "{err}");
    // Unknown dtype and major-version mismatches are errors, never panics.
    let bool8 = DLDataType { code: type_code::BOOL, bits: 8, lanes: 1 };
    let e = import(bool8, &mut [4], device_type::CPU);
    assert!(matches!(e, Err(Error::DlpackDType { .. })), "{e:?}");
    // An empty tensor imports as an empty buffer.
    let e = import(f32t, &mut [0, 3], device_type::CPU).unwrap();
    assert!(e.is_empty() && e.shape() == [0, 3], "{e:?}");
    let mut shape = [4i64];
    let p = producer(host.as_mut_ptr().cast(), f32t, &mut shape, None, 0, 0, device_type::CPU);
    unsafe { (*p).version.major = 2 };
    let err = unsafe { DlpackTensor::from_raw_versioned(p) }.unwrap_err().to_string();
    assert!(err.contains("version 2.1"), "{err}");
    assert_eq!(PRODUCER_DELETES.load(Ordering::SeqCst), before + 6, "one deleter call per tensor");
}

#[test]
fn the_deleter_runs_once_from_another_thread_and_frees_the_buffer_for_the_gpu() {
    for mode in [StorageMode::Private, StorageMode::Managed, StorageMode::Shared] {
        if mode == StorageMode::Shared && !shared_supported() {
            continue;
        }
        let buf = device().buffer_from_slice_in(mode, &pattern(100, 4), &[100]).unwrap();
        let raw = buf.export_dlpack(ExportOptions::default()).unwrap().into_raw_versioned();
        struct SendPtr(*mut DLManagedTensorVersioned);
        unsafe impl Send for SendPtr {}
        let p = SendPtr(raw);
        let zero_copy = mode.is_host_visible();
        assert_eq!(buf.dlpack_exports(), zero_copy as usize);
        std::thread::spawn(move || {
            let p = p;
            let deleter = unsafe { (*p.0).deleter }.unwrap();
            unsafe { deleter(p.0) };
        })
        .join()
        .unwrap();
        assert_eq!(buf.dlpack_exports(), 0, "{mode}");
        gpu_touch(&buf).unwrap();
        // A legacy header frees the same way; an export dropped unconsumed frees itself.
        let legacy = buf.export_dlpack(ExportOptions::default()).unwrap().into_raw_legacy();
        let t = unsafe { DlpackTensor::from_raw_legacy(legacy) }.unwrap();
        assert_eq!(t.version().major, 0);
        std::thread::spawn(move || drop(t)).join().unwrap();
        assert_eq!(buf.dlpack_exports(), 0);
        let e = buf.export_dlpack(ExportOptions::default()).unwrap();
        std::thread::spawn(move || drop(e)).join().unwrap();
        assert_eq!(buf.dlpack_exports(), 0);
    }
}

#[test]
fn thousands_of_export_import_cycles_leave_nothing_behind() {
    // Process-wide counts (live allocations, live exports) are shared with the tests running
    // beside this one; the Python suite checks those single-threaded. Here: every cycle gives
    // the allocation back to the GPU.
    let d = device();
    let managed = d.buffer_from_slice_in(StorageMode::Managed, &pattern(257, 8), &[257]).unwrap();
    let private = d.buffer_from_slice_in(StorageMode::Private, &pattern(257, 8), &[257]).unwrap();
    for i in 0..2000 {
        let b = if i % 2 == 0 { &managed } else { &private };
        let e = b.export_dlpack(ExportOptions::default()).unwrap();
        let t = unsafe { DlpackTensor::from_raw_versioned(e.into_raw_versioned()) }.unwrap();
        let copy = d.import_dlpack(&t, StorageMode::Private).unwrap();
        drop(t);
        assert_eq!(b.dlpack_exports(), 0);
        drop(copy);
    }
    gpu_touch(&managed).unwrap();
    assert_eq!(managed.download::<u32>().unwrap(), vec![0; 257]);
}

#[test]
fn wgpu_buffers_of_another_user_are_wrapped_without_a_copy() {
    let d = device();
    let usage =
        wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST;
    let raw = d.wgpu_device().create_buffer(&wgpu::BufferDescriptor {
        label: Some("someone else's"),
        size: 64,
        usage,
        mapped_at_creation: false,
    });
    let b = d.buffer_from_wgpu(raw.clone(), DType::F32, &[3, 5]).unwrap();
    assert_eq!(
        (b.storage_mode(), b.dtype(), b.shape()),
        (StorageMode::Private, DType::F32, &[3usize, 5][..])
    );
    let data: Vec<f32> = (0..15).map(|i| i as f32).collect();
    b.upload(&data).unwrap();
    // The other user's handle sees the bytes: the same memory.
    let out = d.alloc_in(StorageMode::Private, DType::F32, &[16]).unwrap();
    let mut enc = d.wgpu_device().create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(&raw, 0, out.wgpu_buffer(), 0, 64);
    d.wgpu_queue().submit([enc.finish()]);
    assert_eq!(&out.download::<f32>().unwrap()[..15], &data[..]);
    drop(b);
    // Dropping the tilecast buffer leaves the other user's buffer alive.
    let again = d.buffer_from_wgpu(raw.clone(), DType::U8, &[60]).unwrap();
    assert_eq!(again.download::<u8>().unwrap()[4..8], 1.0f32.to_le_bytes());
    let small = d.buffer_from_wgpu(raw.clone(), DType::F32, &[17]).unwrap_err().to_string();
    assert!(small.contains("64 bytes") && small.contains("68 bytes"), "{small}");
    let no_storage = d.wgpu_device().create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: 16,
        usage: wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let err = d.buffer_from_wgpu(no_storage, DType::U32, &[4]).unwrap_err().to_string();
    assert!(err.contains("lacks STORAGE"), "{err}");
    assert!(d.take_uncaptured_errors().is_empty());
}
