//! Issue 9 defects, each checked against an independent reference: what each thread wrote.

mod common;

use std::sync::{Arc, Barrier};

use common::device;
use half::f16;
use tilecast_runtime::{BufferPool, DType, Element, ShaderLibrary, StorageMode, Stream, SyncType};

/// `threads` threads share every 4-byte word of one allocation: thread t owns element t of each
/// word. Each uploads round numbers to its own one-element views and reads them back at once; a
/// read that does not return the thread's own latest write is a lost update.
fn lost_updates<T: Element>(mode: StorageMode, make: fn(u8) -> T, rounds: u8) -> Vec<String> {
    let per_word = 4 / std::mem::size_of::<T>();
    let words = 4;
    let d = device();
    let buf = d.alloc_in(mode, T::DTYPE, &[per_word * words]).unwrap();
    let barrier = Arc::new(Barrier::new(per_word));
    let handles: Vec<_> = (0..per_word)
        .map(|t| {
            let (buf, barrier) = (buf.clone(), barrier.clone());
            std::thread::spawn(move || {
                let size = std::mem::size_of::<T>() as u64;
                let views: Vec<_> = (0..words)
                    .map(|w| buf.slice_view((w * 4) as u64 + t as u64 * size, 1).unwrap())
                    .collect();
                barrier.wait();
                let mut failures = Vec::new();
                for r in 1..=rounds {
                    let value = make(r.wrapping_mul(7).wrapping_add(t as u8 * 50));
                    for v in &views {
                        if let Err(e) = v.upload(&[value]) {
                            failures.push(format!("thread {t} round {r}: upload failed: {e}"));
                        }
                    }
                    for (w, v) in views.iter().enumerate() {
                        match v.download::<T>() {
                            Ok(got)
                                if bytemuck::bytes_of(&got[0]) == bytemuck::bytes_of(&value) => {}
                            Ok(_) => failures.push(format!("thread {t} round {r} word {w}: lost")),
                            Err(e) => failures.push(format!("thread {t} round {r}: download: {e}")),
                        }
                    }
                }
                failures
            })
        })
        .collect();
    handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
}

#[test]
fn neighbouring_u8_views_of_a_private_buffer_lose_no_writes() {
    let f = lost_updates::<u8>(StorageMode::Private, |v| v, 60);
    assert!(f.is_empty(), "{} failures, first: {:?}", f.len(), &f[..f.len().min(5)]);
}

#[test]
fn neighbouring_f16_views_of_a_private_buffer_lose_no_writes() {
    let f = lost_updates::<f16>(StorageMode::Private, |v| f16::from_f32(v as f32), 60);
    assert!(f.is_empty(), "{} failures, first: {:?}", f.len(), &f[..f.len().min(5)]);
}

#[test]
fn neighbouring_i8_views_of_a_managed_buffer_lose_no_writes_and_never_refuse() {
    let f = lost_updates::<i8>(StorageMode::Managed, |v| v as i8, 60);
    assert!(f.is_empty(), "{} failures, first: {:?}", f.len(), &f[..f.len().min(5)]);
}

#[test]
fn a_forgotten_shared_view_never_hands_mapped_memory_out_again() {
    let d = device();
    if !d.capabilities().features.mappable_primary_buffers {
        eprintln!("skipped: the adapter has no mappable primary buffers");
        return;
    }
    let pool = BufferPool::new(d, StorageMode::Shared, 1 << 20);
    let a = pool.alloc(DType::U32, &[64]).unwrap();
    std::mem::forget(a.host_view_mut::<u32>().unwrap());
    drop(a);
    let b = pool.alloc(DType::U32, &[64]).unwrap();
    let want: Vec<u32> = (0..64).map(|i| i * 3 + 1).collect();
    b.upload(&want).unwrap();
    assert_eq!(b.download::<u32>().unwrap(), want);
    // and the GPU can use it
    let c = d.alloc_in(StorageMode::Private, DType::U32, &[64]).unwrap();
    let mut s = Stream::new(d);
    s.copy(&b, 0, &c, 0, 256).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    assert_eq!(c.download::<u32>().unwrap(), want);
}

#[test]
fn an_empty_commit_and_continue_submits_nothing() {
    let mut s = Stream::new(device());
    s.synchronize(SyncType::CommitAndContinue).unwrap();
    s.synchronize(SyncType::CommitAndContinue).unwrap();
    s.synchronize(SyncType::Commit).unwrap();
    assert_eq!(s.counters().submits, 0, "{:?}", s.counters());
}

#[test]
fn overflowing_shapes_are_named_not_printed_as_u64_max() {
    let d = device();
    let msg = d.buffer_from_slice::<f32>(&[1.0], &[usize::MAX, 3]).unwrap_err().to_string();
    assert!(!msg.contains("holds 1844") && !msg.contains("needs 1844"), "{msg}");
    assert!(msg.contains("overflow"), "{msg}");
    let b = d.alloc(DType::F32, &[4]).unwrap();
    let msg = b.reshape(&[usize::MAX, 2]).unwrap_err().to_string();
    assert!(!msg.contains("holds 1844") && !msg.contains("needs 1844"), "{msg}");
    assert!(msg.contains("overflow"), "{msg}");
    let msg = d.alloc(DType::F32, &[usize::MAX, 2]).unwrap_err().to_string();
    assert!(!msg.contains("holds 1844") && !msg.contains("needs 1844"), "{msg}");
    assert!(msg.contains("overflow"), "{msg}");
}

/// `pat` reads 64 floats through a fixed-size binding (minimum binding size 256 bytes); `copyk`
/// copies `src` to `dst`.
const PAT_WGSL: &str = r#"
struct Table { v: array<f32, 64> }
@group(0) @binding(0) var<storage, read> table: Table;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(64)
fn pat(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < arrayLength(&out)) { out[g.x] = table.v[g.x % 64u]; }
}
@group(0) @binding(2) var<storage, read> src: array<f32>;
@group(0) @binding(3) var<storage, read_write> dst: array<f32>;
@compute @workgroup_size(64)
fn copyk(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < arrayLength(&dst)) { dst[g.x] = src[g.x] + 1.0; }
}
"#;

#[test]
fn a_binding_below_the_shaders_minimum_size_names_that_kernel_and_spares_the_others() {
    let d = device();
    let lib = ShaderLibrary::with_cache_dir(d, None);
    let m = lib.load("pat", PAT_WGSL).unwrap();
    let (mut pat, mut copyk) = (m.kernel("pat").unwrap(), m.kernel("copyk").unwrap());
    let src = d.buffer_from_slice_in(StorageMode::Private, &[1.0f32, 2.0, 3.0, 4.0], &[4]).unwrap();
    let dst = d.alloc_in(StorageMode::Private, DType::F32, &[4]).unwrap();
    let small = d.alloc_in(StorageMode::Private, DType::F32, &[4]).unwrap();
    let out = d.alloc_in(StorageMode::Private, DType::F32, &[4]).unwrap();
    copyk.set_buffer(2, &src).unwrap().set_buffer(3, &dst).unwrap();
    let mut s = Stream::new(d);
    copyk.dispatch_threads(&mut s, [4, 1, 1]).unwrap();
    let bad = (|| -> tilecast_runtime::Result<()> {
        pat.set_buffer(0, &small)?.set_buffer(1, &out)?;
        pat.dispatch_threads(&mut s, [4, 1, 1])
    })();
    copyk.dispatch_threads(&mut s, [4, 1, 1]).unwrap();
    let synced = s.synchronize(SyncType::CommitAndWait);
    let err = bad.err().map(|e| e.to_string()).or(synced.err().map(|e| e.to_string()));
    let msg = err.expect("binding 16 bytes where the shader needs 256 must fail");
    assert!(msg.contains("\"pat\"") && !msg.contains("copyk"), "{msg}");
    assert!(msg.contains("256") && msg.contains("16"), "names the size and the minimum: {msg}");
    assert_eq!(dst.download::<f32>().unwrap(), vec![2.0, 3.0, 4.0, 5.0], "other kernels ran");
    s.synchronize(SyncType::CommitAndWait).unwrap();
}

#[test]
fn two_views_of_one_allocation_bound_read_and_write_name_the_kernel_at_dispatch() {
    let d = device();
    let lib = ShaderLibrary::with_cache_dir(d, None);
    let mut k = lib.load("axpy", common::AXPY_WGSL).unwrap().kernel("axpy").unwrap();
    let whole = d.alloc_in(StorageMode::Private, DType::F32, &[128]).unwrap();
    let align = d.capabilities().limits.min_storage_offset_alignment as u64;
    let x = whole.slice_view(0, 16).unwrap();
    let y = whole.slice_view(align.max(256), 16).unwrap();
    k.set_buffer(0, &x).unwrap().set_buffer(1, &y).unwrap().set_scalar(0, 16u32).unwrap();
    k.set_scalar(1, 1.0f32).unwrap();
    let mut s = Stream::new(d);
    let bad = k.dispatch_threads(&mut s, [16, 1, 1]);
    let synced = s.synchronize(SyncType::CommitAndWait);
    let msg = bad.err().map(|e| e.to_string()).or(synced.err().map(|e| e.to_string())).unwrap();
    assert!(msg.contains("\"axpy\""), "{msg}");
    s.synchronize(SyncType::CommitAndWait).unwrap();
}

/// Two writable bindings of one allocation are one usage to wgpu: a kernel writing its output
/// through a scalar and a vector view (as tilecast's fragment saves do) must launch, and every
/// write must land.
#[test]
fn two_writable_views_of_one_allocation_launch_and_both_writes_land() {
    const SRC: &str = "@group(0) @binding(0) var<storage, read_write> a: array<f32>;
@group(0) @binding(1) var<storage, read_write> b: array<vec4<f32>>;
@compute @workgroup_size(4)
fn both(@builtin(local_invocation_index) i: u32) {
    a[i] = f32(i) + 1.0;
    b[1u + i] = vec4<f32>(f32(i) * 10.0, f32(i) * 10.0 + 1.0, f32(i) * 10.0 + 2.0, f32(i) * 10.0 + 3.0);
}
";
    let d = device();
    let lib = ShaderLibrary::with_cache_dir(d, None);
    let mut k = lib.load("both", SRC).unwrap().kernel("both").unwrap();
    let y = d.alloc_in(StorageMode::Private, DType::F32, &[20]).unwrap();
    k.set_buffer(0, &y).unwrap().set_buffer(1, &y).unwrap();
    let mut s = Stream::new(d);
    k.dispatch_threads(&mut s, [4, 1, 1]).unwrap();
    s.synchronize(SyncType::CommitAndWait).unwrap();
    let mut want = vec![0.0f32; 20];
    for i in 0..4 {
        want[i] = i as f32 + 1.0;
        for l in 0..4 {
            want[4 + 4 * i + l] = i as f32 * 10.0 + l as f32;
        }
    }
    assert_eq!(y.download::<f32>().unwrap(), want);
}

#[test]
fn eight_threads_loading_one_source_compile_it_once() {
    for round in 0..3 {
        let lib = ShaderLibrary::with_cache_dir(device(), None);
        let src = format!("{}\n// round {round}\n{}", common::AXPY_WGSL, common::SPIN_WGSL);
        let barrier = Barrier::new(8);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    barrier.wait();
                    lib.load("many", &src).unwrap().kernel("axpy").unwrap();
                });
            }
        });
        let st = lib.stats();
        assert_eq!((st.modules_compiled, st.module_hits), (1, 7), "round {round}: {st:?}");
    }
}
