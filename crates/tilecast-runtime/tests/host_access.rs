//! Host access semantics: Shared maps wait for GPU work and never race, Managed follows the
//! did_modify_range / synchronize protocol, and memory outlives every view and every submission.

mod common;

use common::{device, gpu_copy, pattern};
use tilecast_runtime::{Buffer, DType, Device, Error, StorageMode};

fn shared_supported() -> bool {
    device().capabilities().features.mappable_primary_buffers
}

#[test]
fn shared_views_are_zero_copy_and_see_gpu_writes_after_waiting() {
    if !shared_supported() {
        return;
    }
    let n = 1 << 20; // 4 MiB: a copy lavapipe takes a while to run
    let src = device().buffer_from_slice_in(StorageMode::Private, &pattern(n, 5), &[n]).unwrap();
    let dst = device().alloc_in(StorageMode::Shared, DType::U32, &[n]).unwrap();
    gpu_copy(&src, &dst, (n * 4) as u64);
    // No explicit wait: taking the view must wait for the copy.
    let view = dst.host_view::<u32>().unwrap();
    assert_eq!(&view[..], &pattern(n, 5)[..]);
    assert!(dst.has_host_views());
    drop(view);
    assert!(!dst.has_host_views());

    // Host writes through a write view are what the GPU reads next.
    {
        let mut w = dst.host_view_mut::<u32>().unwrap();
        w.fill(9).unwrap();
        w.write(n - 2, &[1, 2]).unwrap();
    }
    let back = device().alloc_in(StorageMode::Private, DType::U32, &[n]).unwrap();
    gpu_copy(&dst, &back, (n * 4) as u64);
    let got = back.download::<u32>().unwrap();
    assert!(got[..n - 2].iter().all(|&x| x == 9));
    assert_eq!(&got[n - 2..], &[1, 2]);
    assert!(device().take_uncaptured_errors().is_empty());
}

#[test]
fn shared_views_conflict_clearly_instead_of_racing() {
    if !shared_supported() {
        return;
    }
    let b =
        device().buffer_from_slice_in(StorageMode::Shared, &[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let r1 = b.host_view::<f32>().unwrap();
    let r2 = b.slice_view(8, 2).unwrap();
    let r2 = r2.host_view::<f32>().unwrap();
    assert_eq!((&r1[..], &r2[..]), (&[1.0, 2.0, 3.0, 4.0][..], &[3.0, 4.0][..]));
    let e = b.host_view_mut::<f32>().expect_err("write view while read views live");
    assert!(matches!(e, Error::HostViewConflict { .. }), "{e}");
    assert!(e.to_string().contains("read view is alive"), "{e}");
    assert!(matches!(b.upload(&[0.0f32; 4]), Err(Error::HostViewConflict { .. })));
    drop((r1, r2));
    b.upload(&[5.0f32; 4]).unwrap();
    assert_eq!(b.download::<f32>().unwrap(), vec![5.0; 4]);
}

#[test]
fn managed_follows_did_modify_range_and_synchronize() {
    let d = device();
    let b = d.alloc_in(StorageMode::Managed, DType::U32, &[64]).unwrap();
    let gpu_side = |b: &Buffer| {
        let out = d.alloc_in(StorageMode::Private, DType::U32, &[64]).unwrap();
        gpu_copy(b, &out, 256);
        out.download::<u32>().unwrap()
    };
    // A host write the runtime is not told about stays on the host side.
    b.host_view_mut::<u32>().unwrap().fill(7).unwrap();
    assert!(b.host_view::<u32>().unwrap().iter().all(|&x| x == 7));
    assert!(gpu_side(&b).iter().all(|&x| x == 0));
    // Declaring part of it sends exactly that part.
    b.did_modify_range(16..32).unwrap();
    let g = gpu_side(&b);
    assert_eq!((&g[..4], &g[4..8], &g[8..]), (&[0u32; 4][..], &[7u32; 4][..], &[0u32; 56][..]));
    // GPU writes reach the host copy only at synchronize.
    let src = d.buffer_from_slice_in(StorageMode::Private, &pattern(64, 1), &[64]).unwrap();
    gpu_copy(&src, &b, 256);
    assert!(b.host_view::<u32>().unwrap().iter().all(|&x| x == 7));
    b.synchronize().unwrap();
    assert_eq!(&b.host_view::<u32>().unwrap()[..], &pattern(64, 1)[..]);
    // Ranges are checked against the view.
    let v = b.slice_view(8, 4).unwrap();
    assert!(matches!(v.did_modify_range(0..17), Err(Error::RangeOutOfBounds { len: 16, .. })));
    #[allow(clippy::reversed_empty_ranges)]
    let reversed = 9..3;
    assert!(matches!(v.did_modify_range(reversed), Err(Error::RangeOutOfBounds { .. })));
    v.did_modify_range(4..4).unwrap();
}

#[test]
fn memory_outlives_views_and_submitted_work() {
    let d = Device::new().unwrap(); // own device: exact allocation counts
    let before = d.allocation_stats();
    assert_eq!(before.live_allocations, 0);
    let n = 1 << 18;
    let src = d.buffer_from_slice_in(StorageMode::Private, &pattern(n, 9), &[n]).unwrap();
    let view = src.slice_view(4, 10).unwrap();
    let clone = src.clone();
    assert_eq!(d.allocation_stats().live_allocations, 1);
    assert_eq!(d.allocation_stats().live_bytes, (n * 4) as u64);
    let dst = d.alloc_in(StorageMode::Private, DType::U32, &[n]).unwrap();
    gpu_copy(&src, &dst, (n * 4) as u64);
    drop((src, clone));
    assert_eq!(d.allocation_stats().live_allocations, 2, "a live view keeps the allocation");
    drop(view); // last handle gone while the copy may still run
    assert_eq!(d.allocation_stats().live_allocations, 1);
    assert_eq!(dst.download::<u32>().unwrap(), pattern(n, 9));
    assert!(d.take_uncaptured_errors().is_empty());
    drop(dst);
    let after = d.allocation_stats();
    assert_eq!((after.live_allocations, after.live_bytes, after.total_allocations), (0, 0, 2));
}

#[test]
fn device_and_buffers_cross_threads() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Device>();
    send_sync::<Buffer>();
    let d = device();
    let modes = d.capabilities().storage_modes.clone();
    std::thread::scope(|s| {
        for t in 0..4u32 {
            let mode = modes[t as usize % modes.len()];
            s.spawn(move || {
                for i in 0..5u32 {
                    let data = pattern(100 + t as usize, t * 10 + i);
                    let b = d.buffer_from_slice_in(mode, &data, &[data.len()]).unwrap();
                    assert_eq!(b.download::<u32>().unwrap(), data);
                }
            });
        }
    });
    // One buffer, many readers.
    let shared = d.buffer_from_slice_in(StorageMode::Private, &pattern(300, 2), &[300]).unwrap();
    std::thread::scope(|s| {
        for k in 0..3usize {
            let b = shared.clone();
            s.spawn(move || {
                let v = b.slice_view((k * 100 * 4) as u64, 100).unwrap();
                assert_eq!(v.download::<u32>().unwrap(), &pattern(300, 2)[k * 100..(k + 1) * 100]);
            });
        }
    });
}

#[test]
fn managed_views_conflict_instead_of_deadlocking() {
    let b = device().alloc_in(StorageMode::Managed, DType::F32, &[8]).unwrap();
    let mut w = b.host_view_mut::<f32>().unwrap();
    w.fill(2.0).unwrap();
    let e = b.did_modify_range(0..32).unwrap_err();
    assert!(matches!(e, Error::HostViewConflict { .. }), "{e}");
    assert!(e.to_string().contains("drop the view first"), "{e}");
    drop(w);
    b.did_modify_range(0..32).unwrap();
    let r = b.host_view::<f32>().unwrap();
    assert!(matches!(b.download::<f32>(), Err(Error::HostViewConflict { .. })));
    assert!(matches!(b.synchronize(), Err(Error::HostViewConflict { .. })));
    let r2 = b.host_view::<f32>().unwrap(); // readers share
    assert_eq!(&r[..], &r2[..]);
    drop((r, r2));
    assert_eq!(b.download::<f32>().unwrap(), vec![2.0; 8]);
    let mut w = b.host_view_mut::<f32>().unwrap();
    assert!(matches!(w.write(usize::MAX, &[1.0]), Err(Error::RangeOutOfBounds { .. })));
}
