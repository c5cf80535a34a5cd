//! GPU timestamps and settled batch timing on the local device (lavapipe in CI writes
//! timestamps too): slots fill in order, a full timer refuses more, more work takes longer
//! on the GPU's clock, and `time_batches` reports which clock it used.

use tilecast_runtime::{
    Clock, CopyPath, Device, GpuTimer, StorageMode, Stream, SyncType, TimingPolicy, time_batches,
};

fn device() -> Device {
    Device::new().unwrap()
}

#[test]
fn timestamps_bracket_work_in_order_and_longer_work_reads_longer() {
    let d = device();
    let Some(mut timer) = GpuTimer::new(&d, 4).unwrap() else {
        eprintln!("device writes no timestamps between commands; nothing to check");
        return;
    };
    let words = 1 << 22;
    let src = d.buffer_from_slice_in(StorageMode::Private, &vec![7u32; words], &[words]).unwrap();
    let dst = d.alloc_in(StorageMode::Private, tilecast_runtime::DType::U32, &[words]).unwrap();
    let mut s = Stream::new(&d);
    assert_eq!(s.write_timestamp(&mut timer).unwrap(), 0);
    s.copy_with(CopyPath::Kernel, &src, 0, &dst, 0, 1024).unwrap();
    assert_eq!(s.write_timestamp(&mut timer).unwrap(), 1);
    for _ in 0..8 {
        s.copy_with(CopyPath::Kernel, &src, 0, &dst, 0, 4 * words as u64).unwrap();
    }
    assert_eq!(s.write_timestamp(&mut timer).unwrap(), 2);
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert_eq!(timer.used(), 3);
    let t = timer.read().unwrap();
    assert_eq!(t.len(), 3);
    assert_eq!(t[0], 0.0);
    assert!(t[1] >= 0.0 && t[2] >= t[1], "timestamps out of order: {t:?}");
    assert!(t[2] - t[1] > t[1] - t[0], "8 x 16 MiB copies read no longer than 1 KiB: {t:?}");
    assert_eq!(timer.used(), 0, "reading frees the slots");
    // A full timer refuses another timestamp with a message naming the limit.
    for _ in 0..4 {
        s.write_timestamp(&mut timer).unwrap();
    }
    let err = s.write_timestamp(&mut timer).unwrap_err().to_string();
    assert!(err.contains("4 slots"), "{err}");
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert_eq!(timer.read().unwrap().len(), 4);
    assert!(GpuTimer::new(&d, 0).is_err() && GpuTimer::new(&d, GpuTimer::MAX_SLOTS + 1).is_err());
}

#[test]
fn time_batches_settles_then_times_on_the_clock_it_names() {
    let d = device();
    let words = 1 << 20;
    let src = d.buffer_from_slice_in(StorageMode::Private, &vec![1u32; words], &[words]).unwrap();
    let dst = d.alloc_in(StorageMode::Private, tilecast_runtime::DType::U32, &[words]).unwrap();
    let mut s = Stream::new(&d);
    let bytes = 4 * words as u64;
    let mut launches = 0u32;
    let policy = TimingPolicy::for_device(&d, 3, 5);
    let times = time_batches(&mut s, policy, |s| {
        launches += 1;
        s.copy_with(CopyPath::Kernel, &src, 0, &dst, 0, bytes).map(|_| ())
    })
    .unwrap();
    assert_eq!(times.seconds.len(), 5);
    assert!(times.seconds.windows(2).all(|w| w[0] <= w[1]), "sorted");
    assert!(times.seconds.iter().all(|t| *t > 0.0 && t.is_finite()));
    // At least three settling batches and the five timed ones, three launches each.
    assert!(launches >= 3 * 8, "{launches} launches");
    let want =
        if GpuTimer::new(&d, 2).unwrap().is_some() { Clock::GpuTimestamps } else { Clock::Wall };
    assert_eq!(times.clock, want);
    let wall = time_batches(&mut s, TimingPolicy { gpu_timestamps: false, ..policy }, |s| {
        s.copy_with(CopyPath::Kernel, &src, 0, &dst, 0, bytes).map(|_| ())
    })
    .unwrap();
    assert_eq!(wall.clock, Clock::Wall);
    assert_eq!(dst.download::<u32>().unwrap()[words - 1], 1);
}
