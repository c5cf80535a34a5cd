//! Graphs (`Stream::begin_capture`, `end_capture`, `replay`): launches captured once and
//! replayed compute what the same launches compute each time, over whatever memory holds at
//! the replay; what a capture cannot take is refused with a reason; memory and the graph
//! itself outlive the work that uses them.

mod common;

use common::{AXPY_WGSL, SPIN_WGSL, device, spirv_of};
use tilecast_runtime::{
    Buffer, DType, KernelFunction, ShaderLibrary, StorageMode, Stream, StreamConfig, SyncType,
};

/// The native axpy module's `axpy` and `inc`, or `None` without native SPIR-V (where capture
/// is refused: checked here).
fn kernels() -> Option<(KernelFunction, KernelFunction)> {
    if !device().capabilities().features.native_spirv {
        let e = Stream::new(device()).begin_capture().expect_err("refused without passthrough");
        assert!(e.to_string().contains("native SPIR-V"), "{e}");
        return None;
    }
    let l = ShaderLibrary::with_cache_dir(device(), None);
    // SAFETY: both entry points guard every access with `g.x < n`, n within the buffers.
    let m = unsafe { l.load_spirv("axpy graph", &spirv_of(AXPY_WGSL)) }.unwrap();
    Some((m.kernel("axpy").unwrap(), m.kernel("inc").unwrap()))
}

fn stream() -> Stream {
    Stream::with_config(device(), StreamConfig { max_ops: 1000, max_bytes: u64::MAX })
}

fn upload(data: &[f32]) -> Buffer {
    device().buffer_from_slice_in(StorageMode::Private, data, &[data.len()]).unwrap()
}

#[test]
fn replays_compute_what_their_launches_compute_over_what_memory_holds() {
    let Some((axpy, inc)) = kernels() else { return };
    let n = 777;
    let groups = [(n as u32).div_ceil(64), 1, 1];
    let nn = (n as u32).into();
    let x = upload(&vec![0.0; n]);
    let y = upload(&vec![1.0; n]);
    let a = upload(&vec![0.5; n]);
    let mut s = stream();
    // The step: y += x + 1; a += 3 (independent of y); a += y (after both).
    let step = |s: &mut Stream| {
        axpy.dispatch_threadgroups_with(s, &[&x, &y], &[nn, 1.0f32.into()], groups)?;
        inc.dispatch_threadgroups_with(s, &[&x, &a], &[nn, 3.0f32.into()], groups)?;
        axpy.dispatch_threadgroups_with(s, &[&y, &a], &[nn, 0.0f32.into()], groups)
    };
    // Once uncaptured (the ranges' first use), then captured: the capture runs nothing.
    step(&mut s).unwrap();
    s.begin_capture().unwrap();
    assert!(s.is_capturing());
    step(&mut s).unwrap();
    let graph = s.end_capture().unwrap();
    assert_eq!((graph.dispatches(), graph.barriers()), (3, 1), "{graph:?}");
    // Each replay over a new x, copied in before it.
    let xs: Vec<Vec<f32>> =
        (0..3).map(|r| (0..n).map(|i| ((i * 7 + r) % 23) as f32 - 11.0).collect()).collect();
    for xr in &xs {
        let fresh = upload(xr);
        s.copy(&fresh, 0, &x, 0, (n * 4) as u64).unwrap();
        s.replay(&graph).unwrap();
    }
    s.synchronize(SyncType::CommitAndWait).unwrap();
    let (got_y, got_a) = (y.download::<f32>().unwrap(), a.download::<f32>().unwrap());
    for i in 0..n {
        let (mut yi, mut ai) = (1.0f32, 0.5f32);
        for x in std::iter::once(0.0).chain(xs.iter().map(|xr| xr[i])) {
            yi = yi + x + 1.0;
            ai += 3.0;
            ai = ai + yi + 0.0;
        }
        assert_eq!((got_y[i], got_a[i]), (yi, ai), "element {i}");
    }
    let c = s.counters();
    assert_eq!(c.replays, 3);
    // The uncaptured step's three and three replays' three; the capture dispatched nothing.
    assert_eq!(c.dispatches, 12, "{c:?}");
}

#[test]
fn a_capture_refuses_what_it_cannot_replay_and_keeps_the_rest() {
    let Some((axpy, _)) = kernels() else { return };
    let x = upload(&vec![2.0; 100]);
    let y = upload(&vec![1.0; 100]);
    let args = [100u32.into(), 0.5f32.into()];
    let mut s = stream();
    axpy.dispatch_threadgroups_with(&mut s, &[&x, &y], &args, [2, 1, 1]).unwrap();
    s.begin_capture().unwrap();
    let again = s.begin_capture().unwrap_err();
    assert!(again.to_string().contains("already open"), "{again}");
    // Copies and fills are not captured.
    let e = s.fill(&y, 3.0f32).unwrap_err();
    assert!(e.to_string().contains("kernel launches only"), "{e}");
    let e = s.copy(&x, 0, &y, 0, 400).unwrap_err();
    assert!(e.to_string().contains("kernel launches only"), "{e}");
    // A checked WGSL kernel has no direct twin.
    let wgsl = ShaderLibrary::with_cache_dir(device(), None)
        .load("axpy wgsl graph", AXPY_WGSL)
        .unwrap()
        .kernel("inc")
        .unwrap();
    let e = wgsl.dispatch_threadgroups_with(&mut s, &[&y], &args, [2, 1, 1]).unwrap_err();
    assert!(e.to_string().contains("cannot be captured"), "{e}");
    // Memory no launch used yet: wgpu would zero it at its first use, after the graph's.
    let fresh = device().alloc_in(StorageMode::Private, DType::F32, &[100]).unwrap();
    let e = axpy.dispatch_threadgroups_with(&mut s, &[&x, &fresh], &args, [2, 1, 1]).unwrap_err();
    assert!(e.to_string().contains("never used by a launch"), "{e}");
    axpy.dispatch_threadgroups_with(&mut s, &[&x, &y], &args, [2, 1, 1]).unwrap();
    let graph = s.end_capture().unwrap();
    assert_eq!(graph.dispatches(), 1);
    let e = s.end_capture().unwrap_err();
    assert!(e.to_string().contains("no capture"), "{e}");
    s.replay(&graph).unwrap();
    s.replay(&graph).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    // 1 + 3 x 2.5: the uncaptured launch and two replays; nothing refused ran.
    assert_eq!(y.download::<f32>().unwrap(), vec![8.5; 100]);
}

#[test]
fn a_graph_and_its_memory_outlive_a_replay_they_are_dropped_during() {
    let Some((axpy, _)) = kernels() else { return };
    let l = ShaderLibrary::with_cache_dir(device(), None);
    // SAFETY: the spin kernel writes out[g.x] for each thread of a grid that fits `out`.
    let spin = unsafe { l.load_spirv("spin graph", &spirv_of(SPIN_WGSL)) }.unwrap();
    let spin = spin.kernel("spin").unwrap();
    let n = 8192;
    let outer: u32 = if device().capabilities().device_type == "cpu" { 1 } else { 300 };
    let x = upload(&vec![2.0; n]);
    let kept = upload(&vec![0.0; n]);
    let mut s = stream();
    {
        let out = upload(&vec![0.0; n]);
        let spin_args = [4096u32.into(), outer.into()];
        let groups = [(n as u32) / 64, 1, 1];
        spin.dispatch_threadgroups_with(&mut s, &[&out], &spin_args, groups).unwrap();
        let args = [(n as u32).into(), 0.0f32.into()];
        axpy.dispatch_threadgroups_with(&mut s, &[&x, &out], &args, groups).unwrap();
        s.begin_capture().unwrap();
        spin.dispatch_threadgroups_with(&mut s, &[&out], &spin_args, groups).unwrap();
        axpy.dispatch_threadgroups_with(&mut s, &[&x, &out], &args, groups).unwrap();
        let graph = s.end_capture().unwrap();
        s.replay(&graph).unwrap();
        s.copy(&out, 0, &kept, 0, (n * 4) as u64).unwrap();
        s.synchronize(SyncType::Commit).unwrap();
        // The graph and `out` drop here, while the GPU may still run the replay.
    }
    // A capture left open when its stream drops is freed with it.
    let mut t = stream();
    t.begin_capture().unwrap();
    drop(t);
    s.synchronize(SyncType::CommitAndWait).unwrap();
    let got = kept.download::<f32>().unwrap();
    // The spin's value plus x (2.0), at every element: the replay ran whole.
    let mut uncaptured = stream();
    let check = upload(&vec![0.0; n]);
    let spin_args = [4096u32.into(), outer.into()];
    spin.dispatch_threadgroups_with(
        &mut uncaptured,
        &[&check],
        &spin_args,
        [(n as u32) / 64, 1, 1],
    )
    .unwrap();
    uncaptured.synchronize(SyncType::CommitAndWait).unwrap();
    let want: Vec<f32> = check.download::<f32>().unwrap().iter().map(|v| v + 2.0).collect();
    assert_eq!(got, want);
}
