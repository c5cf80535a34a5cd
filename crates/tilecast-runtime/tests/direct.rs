//! Direct recording (`Recording::Direct`): launches of native SPIR-V kernels recorded straight
//! into Vulkan command buffers compute what the same launches compute through wgpu, with
//! barriers only where a launch depends on an earlier one, mixed in order with wgpu-recorded
//! launches and copies, and memory dropped while such work runs outlives it.

mod common;

use common::{AXPY_WGSL, SPIN_WGSL, device, spirv_of};
use tilecast_runtime::{
    Buffer, KernelFunction, Recording, ShaderLibrary, StorageMode, Stream, StreamConfig, SyncType,
};

/// The native axpy module's `axpy` and `inc`, or `None` without native SPIR-V (where direct
/// recording is refused: checked here).
fn kernels() -> Option<(KernelFunction, KernelFunction)> {
    if !device().capabilities().features.native_spirv {
        let mut s = Stream::new(device());
        let e = s.set_recording(Recording::Direct).expect_err("refused without passthrough");
        assert!(e.to_string().contains("native SPIR-V"), "{e}");
        assert_eq!(s.recording(), Recording::Wgpu);
        return None;
    }
    let l = ShaderLibrary::with_cache_dir(device(), None);
    // SAFETY: both entry points guard every access with `g.x < n`, n within the buffers.
    let m = unsafe { l.load_spirv("axpy direct", &spirv_of(AXPY_WGSL)) }.unwrap();
    Some((m.kernel("axpy").unwrap(), m.kernel("inc").unwrap()))
}

fn stream(recording: Recording) -> Stream {
    let mut s = Stream::with_config(device(), StreamConfig { max_ops: 1000, max_bytes: u64::MAX });
    s.set_recording(recording).unwrap();
    s
}

fn upload(data: &[f32]) -> Buffer {
    device().buffer_from_slice_in(StorageMode::Private, data, &[data.len()]).unwrap()
}

/// A sequence of launches: a chain on `y`, independent launches on `a` and `b`, a copy, and a
/// WGSL kernel (recorded through wgpu) between direct ones. Returns y, a, b, c and the counters.
fn run(recording: Recording, n: usize) -> (Vec<Vec<f32>>, tilecast_runtime::StreamCounters) {
    let (axpy, inc) = kernels().unwrap();
    let wgsl = ShaderLibrary::with_cache_dir(device(), None)
        .load("axpy wgsl", AXPY_WGSL)
        .unwrap()
        .kernel("inc")
        .unwrap();
    let xs: Vec<f32> = (0..n).map(|i| (i % 17) as f32 - 3.0).collect();
    let x = upload(&xs);
    let y = upload(&vec![1.0; n]);
    let a = upload(&vec![0.5; n]);
    let b = upload(&vec![-2.0; n]);
    let c = upload(&vec![0.0; n]);
    let groups = [(n as u32).div_ceil(64), 1, 1];
    let nn = (n as u32).into();
    let mut s = stream(recording);
    // Twice: a range's first launch goes through wgpu (see `WgpuInit`), the second round's
    // launches (but the copy and the WGSL kernel) are recorded directly.
    for _round in 0..2 {
        for add in [0.25f32, 1.0, -0.5] {
            axpy.dispatch_threadgroups_with(&mut s, &[&x, &y], &[nn, add.into()], groups).unwrap();
        }
        // Independent of each other and of y: no barrier between them.
        inc.dispatch_threadgroups_with(&mut s, &[&x, &a], &[nn, 3.0f32.into()], groups).unwrap();
        inc.dispatch_threadgroups_with(&mut s, &[&x, &b], &[nn, 4.0f32.into()], groups).unwrap();
        s.copy(&y, 0, &c, 0, (n * 4) as u64).unwrap();
        wgsl.dispatch_threadgroups_with(&mut s, &[&c], &[nn, 10.0f32.into()], groups).unwrap();
        // Reads c, written through wgpu just before.
        axpy.dispatch_threadgroups_with(&mut s, &[&c, &a], &[nn, 0.0f32.into()], groups).unwrap();
    }
    s.synchronize(SyncType::CommitAndWait).unwrap();
    let out = [&y, &a, &b, &c].map(|v| v.download::<f32>().unwrap()).to_vec();
    (out, s.counters())
}

#[test]
fn direct_launches_compute_what_wgpu_launches_compute() {
    if kernels().is_none() {
        return;
    }
    let n = 1000;
    let (direct, counters) = run(Recording::Direct, n);
    let (wgpu, wgpu_counters) = run(Recording::Wgpu, n);
    assert_eq!(direct, wgpu);
    // The CPU's answer.
    #[allow(clippy::needless_range_loop)] // four outputs at each index
    for i in 0..n {
        let x = (i % 17) as f32 - 3.0;
        let (mut y, mut a, mut b, mut c) = (1.0f32, 0.5f32, -2.0f32, 0.0f32);
        for _ in 0..2 {
            for add in [0.25f32, 1.0, -0.5] {
                y = y + x + add;
            }
            a += 3.0;
            b += 4.0;
            c = y + 10.0;
            a = a + c + 0.0;
        }
        assert_eq!([direct[0][i], direct[1][i], direct[2][i], direct[3][i]], [y, a, b, c]);
    }
    assert_eq!(counters.dispatches, wgpu_counters.dispatches);
    assert_eq!(wgpu_counters.direct_dispatches, 0);
    // Round one: the 2nd and 3rd launches on y, a barrier between them, and the last (c and a
    // were bound through wgpu just before). Round two: all six kernels of native SPIR-V, with
    // barriers before the 2nd and 3rd launches on y only (the launches on a and b touch nothing
    // written since; the last one opens a new direct buffer, whose leading barrier is not
    // counted).
    assert_eq!(counters.direct_dispatches, 9, "{counters:?}");
    assert_eq!(counters.direct_barriers, 3, "{counters:?}");
    assert_eq!(counters.submits, 1);
}

#[test]
fn memory_dropped_while_direct_work_runs_outlives_it() {
    let Some((axpy, _)) = kernels() else { return };
    let l = ShaderLibrary::with_cache_dir(device(), None);
    // SAFETY: the spin kernel writes out[g.x] for each thread of a grid that fits `out`.
    let spin = unsafe { l.load_spirv("spin direct", &spirv_of(SPIN_WGSL)) }.unwrap();
    let mut spin = spin.kernel("spin").unwrap();
    let n = 8192;
    let mut s = stream(Recording::Direct);
    {
        let out =
            device().alloc_in(StorageMode::Private, tilecast_runtime::DType::F32, &[n]).unwrap();
        spin.set_buffer(0, &out).unwrap();
        spin.set_scalar(0, 4096u32).unwrap().set_scalar(1, 4u32).unwrap();
        spin.dispatch_threadgroups(&mut s, [(n as u32) / 64, 1, 1]).unwrap();
        spin.clear_buffers();
        s.synchronize(SyncType::Commit).unwrap();
        // `out` drops here, while the GPU may still be writing it.
    }
    // Work after it still computes the right thing, through fresh memory.
    let x = upload(&vec![2.0; 100]);
    let y = upload(&vec![1.0; 100]);
    axpy.dispatch_threadgroups_with(&mut s, &[&x, &y], &[100u32.into(), 0.5f32.into()], [2, 1, 1])
        .unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert_eq!(y.download::<f32>().unwrap(), vec![3.5; 100]);
}

#[test]
fn a_refused_launch_leaves_the_direct_buffer_usable() {
    let Some((axpy, inc)) = kernels() else { return };
    let x = upload(&vec![2.0; 100]);
    let y = upload(&vec![1.0; 100]);
    let mut s = stream(Recording::Direct);
    let args = [100u32.into(), 0.5f32.into()];
    axpy.dispatch_threadgroups_with(&mut s, &[&x, &y], &args, [2, 1, 1]).unwrap();
    let e = inc.dispatch_threadgroups_with(&mut s, &[&y], &args, [2, 1, 1]).unwrap_err();
    assert!(e.to_string().contains("takes 2 buffers"), "{e}");
    axpy.dispatch_threadgroups_with(&mut s, &[&x, &y], &args, [2, 1, 1]).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert_eq!(y.download::<f32>().unwrap(), vec![6.0; 100]);
    // Dropped with a launch recorded and not submitted: the drop submits it.
    axpy.dispatch_threadgroups_with(&mut s, &[&x, &y], &args, [2, 1, 1]).unwrap();
    drop(s);
    assert_eq!(y.download::<f32>().unwrap(), vec![8.5; 100]);
}

#[test]
fn memory_wgpu_never_initialized_is_first_bound_through_wgpu() {
    let Some((axpy, _)) = kernels() else { return };
    let n = 300;
    let x = upload(&vec![2.0; n]);
    // Never written: wgpu zeroes it at its first use, so that use must be wgpu's, or wgpu
    // would later zero what a direct launch wrote.
    let y = device().alloc_in(StorageMode::Private, tilecast_runtime::DType::F32, &[n]).unwrap();
    let head = y.slice_view(0, 100).unwrap();
    let mut s = stream(Recording::Direct);
    let args = |m: u32| [m.into(), 0.5f32.into()];
    let x100 = x.slice_view(0, 100).unwrap();
    for _ in 0..2 {
        axpy.dispatch_threadgroups_with(&mut s, &[&x100, &head], &args(100), [2, 1, 1]).unwrap();
    }
    // The whole buffer: its tail is new to wgpu again.
    for _ in 0..2 {
        axpy.dispatch_threadgroups_with(&mut s, &[&x, &y], &args(n as u32), [5, 1, 1]).unwrap();
    }
    s.synchronize(SyncType::CommitAndWait).unwrap();
    let got = y.download::<f32>().unwrap();
    let want: Vec<f32> = (0..n).map(|i| if i < 100 { 10.0 } else { 5.0 }).collect();
    assert_eq!(got, want);
    let c = s.counters();
    assert_eq!((c.dispatches, c.direct_dispatches), (4, 2), "{c:?}");
}
