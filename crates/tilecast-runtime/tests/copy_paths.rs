//! Both device-to-device copy engines copy exactly: every aligned and misaligned offset and
//! size class, the bytes around the destination range untouched, and `Auto` following the
//! device's threshold.

use tilecast_runtime::{CopyPath, DType, Device, StorageMode, Stream, SyncType};

fn pattern(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32).map(|i| i.wrapping_mul(2654435761).wrapping_add(seed)).collect()
}

#[test]
fn kernel_and_builtin_copies_are_exact() {
    let device = Device::new().unwrap();
    let words = 70_001;
    let src_data = pattern(words, 7);
    let src = device.buffer_from_slice_in(StorageMode::Private, &src_data, &[words]).unwrap();
    // (source offset, destination offset, bytes): 16-byte aligned, 4-byte aligned, tails.
    let cases = [
        (0u64, 0u64, 16u64),
        (0, 0, 4 * words as u64),
        (16, 48, 160_000),
        (4, 20, 99_996),
        (32, 40, 4096),
        (64, 0, 100_004),
        (0, 16, 28),
    ];
    for path in [CopyPath::Builtin, CopyPath::Kernel, CopyPath::Auto] {
        for &(so, d_off, bytes) in &cases {
            let dst = device
                .buffer_from_slice_in(StorageMode::Private, &pattern(words, 99), &[words])
                .unwrap();
            let mut s = Stream::new(&device);
            s.copy_with(path, &src, so, &dst, d_off, bytes).unwrap();
            s.synchronize(SyncType::CommitAndWait).unwrap();
            let got = dst.download::<u32>().unwrap();
            let mut want = pattern(words, 99);
            let (sw, dw, n) = ((so / 4) as usize, (d_off / 4) as usize, (bytes / 4) as usize);
            want[dw..dw + n].copy_from_slice(&src_data[sw..sw + n]);
            assert!(got == want, "{path:?} copy {so}->{d_off} of {bytes} bytes differs");
            let kernel = s.counters().kernel_copies > 0;
            let aligned = so % 16 == 0 && d_off % 16 == 0;
            assert_eq!(kernel, path == CopyPath::Kernel && aligned, "{path:?} {so} {d_off}");
        }
    }
}

#[test]
fn auto_follows_the_device_threshold() {
    let device = Device::new().unwrap();
    assert_eq!(device.copy_kernel_min_bytes(), u64::MAX, "never, until measured or set");
    let src = device.alloc_in(StorageMode::Private, DType::U32, &[4096]).unwrap();
    let dst = device.alloc_in(StorageMode::Private, DType::U32, &[4096]).unwrap();
    let mut s = Stream::new(&device);
    s.copy(&src, 0, &dst, 0, 16384).unwrap();
    assert_eq!((s.counters().copies, s.counters().kernel_copies), (1, 0));
    device.set_copy_kernel_min_bytes(Some(8192));
    s.copy(&src, 0, &dst, 0, 16384).unwrap();
    s.copy(&src, 0, &dst, 0, 4096).unwrap();
    assert_eq!((s.counters().copies, s.counters().kernel_copies), (2, 1));
    s.synchronize(SyncType::CommitAndWait).unwrap();
}

#[test]
fn calibration_measures_both_paths_and_sets_a_choice() {
    let device = Device::new().unwrap();
    let c = device.calibrate_copies(1 << 20).unwrap();
    assert!(c.builtin_gbps > 0.0 && c.kernel_gbps > 0.0, "{c:?}");
    assert_eq!(device.copy_kernel_min_bytes(), c.kernel_min_bytes.unwrap_or(u64::MAX));
}

#[test]
fn roofline_is_measured_once_and_then_read_from_the_cache() {
    let device = Device::new().unwrap();
    let dir = std::env::temp_dir().join(format!("tilecast-roofline-{}", std::process::id()));
    let (r, measured) =
        tilecast_runtime::Roofline::load_or_measure(&device, Some(&dir), false).unwrap();
    assert!(measured);
    assert!(r.copy_gbps > 0.0 && r.simt_f32_tflops > 0.0, "{r:?}");
    assert_eq!(r.copy_gbps, r.builtin_copy_gbps.max(r.kernel_copy_gbps));
    let (again, measured) =
        tilecast_runtime::Roofline::load_or_measure(&device, Some(&dir), false).unwrap();
    assert!(!measured);
    assert_eq!(again, r);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn kernel_copies_and_fills_past_one_row_of_threadgroups_are_exact() {
    // More 16-byte vectors than one row of threadgroups holds (65535 x 256 where the limit is
    // 65535): the copy and fill kernels run on a grid of several rows.
    let device = Device::new().unwrap();
    let max = device.capabilities().limits.max_threadgroups_per_dimension as usize;
    let words = (max * 256 + 4099) * 4;
    let src_data = pattern(words, 3);
    let src = device.buffer_from_slice_in(StorageMode::Private, &src_data, &[words]).unwrap();
    let dst = device.alloc_in(StorageMode::Private, DType::U32, &[words]).unwrap();
    let mut s = Stream::new(&device);
    s.copy_with(CopyPath::Kernel, &src, 0, &dst, 0, 4 * words as u64).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert!(dst.download::<u32>().unwrap() == src_data, "kernel copy of {words} words differs");
    s.fill(&dst, 0x5eed_u32).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert!(dst.download::<u32>().unwrap().iter().all(|&w| w == 0x5eed), "fill differs");
}
