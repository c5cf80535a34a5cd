//! Helpers shared by the integration tests that run kernels on the local device (lavapipe in
//! CI): loading, launching, deterministic inputs, buffers and error measures.
#![allow(dead_code)] // each test crate uses its own subset

use std::sync::OnceLock;

use tilecast_kernels::TileKernel;
use tilecast_lang::ir::Kernel as Ir;
use tilecast_lang::{Profile, compile};
use tilecast_runtime::{Buffer, Device, ShaderLibrary, StorageMode, Stream, SyncType};

/// The process's device (lavapipe in CI), opened once.
pub fn device() -> &'static Device {
    static D: OnceLock<Device> = OnceLock::new();
    D.get_or_init(|| Device::new().expect("a GPU or lavapipe"))
}

/// `kernel` compiled for the device's profile and loaded (no pipeline cache on disk).
pub fn load(kernel: &Ir) -> TileKernel {
    let profile = Profile::from_capabilities(device().capabilities());
    let compiled = compile(kernel, &profile).unwrap_or_else(|e| panic!("{e}"));
    TileKernel::load(&ShaderLibrary::with_cache_dir(device(), None), &compiled).unwrap()
}

/// `kernel` compiled for every named profile (it must compile everywhere), then loaded for
/// the device's.
pub fn load_everywhere(kernel: &Ir) -> TileKernel {
    for name in Profile::NAMES {
        compile(kernel, &Profile::named(name).unwrap()).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    load(kernel)
}

/// One launch of `kernel` on `args` with `scalars`, waited for.
pub fn run_with(kernel: &TileKernel, args: &[&Buffer], scalars: &[tilecast_runtime::Scalar]) {
    let mut s = Stream::new(device());
    kernel.launch_with(&mut s, args, scalars).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
}

/// `data` of any element type uploaded as a buffer of `shape`.
pub fn upload<T: tilecast_runtime::Element>(data: &[T], shape: &[usize]) -> Buffer {
    device().buffer_from_slice(data, shape).unwrap()
}

/// One launch of `kernel` on `args`, waited for.
pub fn run(kernel: &mut TileKernel, args: &[&Buffer]) {
    let mut s = Stream::new(device());
    kernel.launch(&mut s, args).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
}

/// Deterministic values in [-1, 1).
pub fn values(n: usize, seed: u64) -> Vec<f32> {
    let mut x = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        })
        .collect()
}

/// `data` uploaded as an f32 buffer of `shape` in private storage.
pub fn buf(data: &[f32], shape: &[usize]) -> Buffer {
    device().buffer_from_slice_in(StorageMode::Private, data, shape).unwrap()
}

/// The largest absolute difference between `a` and `b` (equal lengths).
pub fn max_err(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

/// `each(entry)` for every registry entry, spread over the machine's cores (the compiler's work
/// for one entry is independent of another's), the results in registry order. A panic in
/// `each` is re-raised with its own message.
pub fn over_entries<T: Send>(each: impl Fn(&tilecast_kernels::Entry) -> Vec<T> + Sync) -> Vec<T> {
    let all = tilecast_kernels::entries();
    let n = std::thread::available_parallelism().map_or(1, |n| n.get()).clamp(1, all.len().max(1));
    let each = &each;
    let mut parts: Vec<(usize, Vec<T>)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..n)
            .map(|t| {
                s.spawn(move || {
                    all.iter().enumerate().skip(t).step_by(n).map(|(i, e)| (i, each(e))).collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h: std::thread::ScopedJoinHandle<'_, Vec<(usize, Vec<T>)>>| {
                h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
            })
            .collect()
    });
    parts.sort_by_key(|(i, _)| *i);
    parts.into_iter().flat_map(|(_, v)| v).collect()
}
