//! Faults on a real GPU, each scenario printed as PASS/FAIL with its figures; exits non-zero on
//! any FAIL.
//!
//! ```sh
//! cargo run --release -p tilecast-runtime --example gpu_faults            # full sizes
//! cargo run --release -p tilecast-runtime --example gpu_faults -- --quick # small (CI, lavapipe)
//! ```
//! Options: `--quick` (8 x 500 dispatches), `--oom-cap-gib N` (stop the out-of-memory search
//! after N GiB per storage mode; default 2 on a CPU device, whose "GPU memory" is this
//! machine's RAM, and 192 elsewhere), `--shared-cap-gib N` (the same for Shared, which on a
//! discrete GPU may be host RAM; default: the first cap), `--threads N`, `--dispatches N`.
//!
//! 1. Device memory exhausted, in Private and in Shared: allocate 1 GiB blocks (or the largest
//!    buffer the device allows, if smaller) until the device refuses; the refusal must be
//!    `Error::OutOfMemory`, no abort; then free, allocate again, run a kernel, check it.
//! 2. A kernel that fails validation in the middle of 1,000 batched dispatches: refused when
//!    encoded, with its name; every other dispatch runs; the stream stays usable. Then a fault
//!    that only wgpu sees when the command buffer is submitted (a buffer destroyed behind the
//!    runtime's back): the error at the next synchronize names the kernel and its dispatch.
//! 3. N threads x M dispatches of mixed kernels, each thread on its own stream, results checked
//!    exactly against a host model.

use std::time::Instant;

use tilecast_runtime::{
    Buffer, DType, Device, Error, KernelFunction, ShaderLibrary, StorageMode, Stream, StreamConfig,
    SyncType,
};

/// The tests' `axpy` and `inc`, and `pat`, which writes a pattern from a table.
const KERNELS: &str = concat!(
    include_str!("../tests/common/axpy.wgsl"),
    r#"
struct Table { v: array<f32, 64> }
@group(0) @binding(2) var<storage, read> table: Table;
@compute @workgroup_size(64)
fn pat(@builtin(global_invocation_id) g: vec3<u32>) {
    if (g.x < args.n) { y[g.x] = table.v[g.x % 64u]; }
}
"#
);

const N: usize = 256;

struct Opts {
    quick: bool,
    oom_cap_gib: Option<u64>,
    shared_cap_gib: Option<u64>,
    threads: usize,
    dispatches: usize,
}

fn opts() -> Result<Opts, String> {
    let mut o = Opts {
        quick: false,
        oom_cap_gib: None,
        shared_cap_gib: None,
        threads: 8,
        dispatches: 5000,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut num = |name: &str| -> Result<u64, String> {
            args.next()
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{name} needs a non-negative integer"))
        };
        match a.as_str() {
            "--quick" => o.quick = true,
            "--oom-cap-gib" => o.oom_cap_gib = Some(num("--oom-cap-gib")?),
            "--shared-cap-gib" => o.shared_cap_gib = Some(num("--shared-cap-gib")?),
            "--threads" => o.threads = num("--threads")? as usize,
            "--dispatches" => o.dispatches = num("--dispatches")? as usize,
            other => return Err(format!("unknown option {other:?}")),
        }
    }
    if o.quick {
        o.dispatches = o.dispatches.min(500);
    }
    Ok(o)
}

struct Report {
    failures: usize,
}

impl Report {
    fn check(&mut self, ok: bool, what: &str, detail: String) {
        println!("{} {what}: {detail}", if ok { "PASS" } else { "FAIL" });
        self.failures += !ok as usize;
    }
}

fn kernel(lib: &ShaderLibrary, name: &str) -> tilecast_runtime::Result<KernelFunction> {
    lib.load("gpu_faults", KERNELS)?.kernel(name)
}

/// `y[i] += add` once on a fresh buffer, checked: the device still works.
fn still_works(d: &Device, lib: &ShaderLibrary) -> Result<(), String> {
    let y = d
        .buffer_from_slice_in(StorageMode::Private, &vec![1.0f32; N], &[N])
        .map_err(|e| e.to_string())?;
    let mut k = kernel(lib, "inc").map_err(|e| e.to_string())?;
    let mut s = Stream::new(d);
    let mut run = || -> tilecast_runtime::Result<Vec<f32>> {
        k.set_buffer(1, &y)?.set_scalar(0, N as u32)?.set_scalar(1, 2.0f32)?;
        k.dispatch_threads(&mut s, [N as u32, 1, 1])?;
        s.synchronize(SyncType::CommitAndWait)?;
        y.download()
    };
    match run() {
        Ok(v) if v.iter().all(|&x| x == 3.0) => Ok(()),
        Ok(v) => Err(format!("kernel result wrong: {:?}", &v[..4])),
        Err(e) => Err(e.to_string()),
    }
}

fn out_of_memory(d: &Device, lib: &ShaderLibrary, mode: StorageMode, cap_gib: u64, r: &mut Report) {
    let what = format!("out of memory ({mode})");
    if mode == StorageMode::Shared && !d.capabilities().features.mappable_primary_buffers {
        println!("SKIP {what}: the adapter has no mappable primary buffers");
        return;
    }
    let block = (1u64 << 30).min(d.capabilities().limits.max_buffer_size) / 4 * 4;
    let cap = cap_gib << 30;
    let start = Instant::now();
    let mut held: Vec<Buffer> = Vec::new();
    let mut total = 0u64;
    let outcome = loop {
        if total + block > cap {
            break None;
        }
        match d.alloc_in(mode, DType::U32, &[(block / 4) as usize]) {
            Ok(b) => {
                total += block;
                held.push(b);
            }
            Err(e) => break Some(e),
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let gib = total as f64 / (1u64 << 30) as f64;
    drop(held);
    let after = still_works(d, lib);
    match outcome {
        None => println!(
            "INFO {what}: reached the cap of {cap_gib} GiB ({gib:.1} GiB in {secs:.1} s) without a \
             refusal; raise --oom-cap-gib to search further"
        ),
        Some(Error::OutOfMemory { bytes, .. }) => r.check(
            true,
            &what,
            format!("refused after {gib:.1} GiB in {} blocks of {block} bytes ({secs:.1} s), {bytes} bytes asked", total / block),
        ),
        Some(e) => r.check(false, &what, format!("after {gib:.1} GiB: not an out-of-memory error: {e}")),
    }
    r.check(
        after.is_ok(),
        &format!("{what}: device usable after freeing"),
        after.err().unwrap_or_else(|| "allocated, ran inc, result checked".into()),
    );
}

fn mid_batch_fault(
    d: &Device,
    lib: &ShaderLibrary,
    r: &mut Report,
) -> tilecast_runtime::Result<()> {
    let y = d.buffer_from_slice_in(StorageMode::Private, &vec![0.0f32; N], &[N])?;
    let small = d.alloc_in(StorageMode::Private, DType::F32, &[4])?;
    let (mut inc, mut pat) = (kernel(lib, "inc")?, kernel(lib, "pat")?);
    inc.set_buffer(1, &y)?.set_scalar(0, N as u32)?.set_scalar(1, 1.0f32)?;
    let mut s = Stream::new(d);
    let mut refused = None;
    for i in 0..1000 {
        if i == 500 {
            let bad = (|| {
                pat.set_buffer(1, &y)?.set_buffer(2, &small)?;
                pat.set_scalar(0, N as u32)?.set_scalar(1, 0.0f32)?;
                pat.dispatch_threads(&mut s, [N as u32, 1, 1])
            })();
            refused = bad.err();
            continue;
        }
        inc.dispatch_threads(&mut s, [N as u32, 1, 1])?;
    }
    let synced = s.synchronize(SyncType::CommitAndWait);
    let got: Vec<f32> = y.download()?;
    let msg = refused.map(|e| e.to_string()).unwrap_or_else(|| "not refused".into());
    r.check(
        msg.contains("\"pat\"") && !msg.contains("\"inc\""),
        "1,000 dispatches, #500 invalid: refused naming it",
        msg,
    );
    r.check(
        synced.is_ok() && got.iter().all(|&v| v == 999.0),
        "1,000 dispatches: every other dispatch completed",
        format!(
            "synchronize {:?}, y[0] = {} (want 999), {} command buffers",
            synced.err().map(|e| e.to_string()),
            got[0],
            s.counters().submits
        ),
    );
    inc.dispatch_threads(&mut s, [N as u32, 1, 1])?;
    s.synchronize(SyncType::CommitAndWait)?;
    let after = y.download::<f32>()?[0];
    r.check(
        after == 1000.0,
        "1,000 dispatches: stream usable after",
        format!("one more dispatch, y[0] = {after}"),
    );

    // A fault wgpu finds only when the command buffer is submitted.
    let x = d.buffer_from_slice_in(StorageMode::Private, &vec![1.0f32; N], &[N])?;
    let z = d.alloc_in(StorageMode::Private, DType::F32, &[N])?;
    let mut axpy = kernel(lib, "axpy")?;
    axpy.set_buffer(0, &x)?.set_buffer(1, &z)?.set_scalar(0, N as u32)?.set_scalar(1, 0.0f32)?;
    axpy.dispatch_threads(&mut s, [N as u32, 1, 1])?;
    s.synchronize(SyncType::CommitAndWait)?;
    z.wgpu_buffer().destroy();
    let mut big = Stream::with_config(d, StreamConfig { max_ops: 4096, max_bytes: u64::MAX });
    for i in 0..1000 {
        if i == 700 {
            axpy.dispatch_threads(&mut big, [N as u32, 1, 1])?;
        } else {
            inc.dispatch_threads(&mut big, [N as u32, 1, 1])?;
        }
    }
    let err =
        big.synchronize(SyncType::CommitAndWait).err().map(|e| e.to_string()).unwrap_or_default();
    r.check(
        err.contains("\"axpy\"") && err.contains("dispatch 701"),
        "submit-time fault at dispatch 701 of 1,000: the error names it",
        format!(
            "{err:?} (wgpu rejects the command buffer as a whole: its other dispatches did not run)"
        ),
    );
    let before = y.download::<f32>()?[0];
    inc.dispatch_threads(&mut big, [N as u32, 1, 1])?;
    let synced = big.synchronize(SyncType::CommitAndWait);
    let after = y.download::<f32>()?[0];
    r.check(
        synced.is_ok() && after == before + 1.0,
        "submit-time fault: stream usable after",
        format!("y[0] {before} -> {after}"),
    );
    Ok(())
}

fn threads(d: &Device, lib: &ShaderLibrary, threads: usize, dispatches: usize, r: &mut Report) {
    let start = Instant::now();
    let results: Vec<Result<(), String>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                sc.spawn(move || -> Result<(), String> {
                    let e = |e: Error| format!("thread {t}: {e}");
                    let xs: Vec<f32> = (0..N).map(|i| ((i + t) % 5) as f32).collect();
                    let x = d.buffer_from_slice_in(StorageMode::Private, &xs, &[N]).map_err(e)?;
                    let y = d
                        .buffer_from_slice_in(StorageMode::Private, &vec![0.0f32; N], &[N])
                        .map_err(e)?;
                    let (mut inc, mut axpy) =
                        (kernel(lib, "inc").map_err(e)?, kernel(lib, "axpy").map_err(e)?);
                    inc.set_buffer(1, &y).map_err(e)?.set_scalar(0, N as u32).map_err(e)?;
                    axpy.set_buffer(0, &x).map_err(e)?.set_buffer(1, &y).map_err(e)?;
                    axpy.set_scalar(0, N as u32).map_err(e)?;
                    let mut s = Stream::new(d);
                    let mut model = vec![0.0f32; N];
                    let mut rng = 0x9E37_79B9u32.wrapping_mul(t as u32 + 1);
                    for i in 0..dispatches {
                        rng = rng.wrapping_mul(1664525).wrapping_add(1013904223);
                        let add = ((rng >> 24) % 3 + 1) as f32;
                        if rng >> 31 == 0 {
                            inc.set_scalar(1, add).map_err(e)?;
                            inc.dispatch_threads(&mut s, [N as u32, 1, 1]).map_err(e)?;
                            model.iter_mut().for_each(|m| *m += add);
                        } else {
                            axpy.set_scalar(1, add).map_err(e)?;
                            axpy.dispatch_threads(&mut s, [N as u32, 1, 1]).map_err(e)?;
                            model.iter_mut().zip(&xs).for_each(|(m, x)| *m += x + add);
                        }
                        if i % 97 == 96 {
                            s.synchronize(SyncType::CommitAdaptive).map_err(e)?;
                        }
                    }
                    s.synchronize(SyncType::CommitAndWait).map_err(e)?;
                    let got: Vec<f32> = y.download().map_err(e)?;
                    match got.iter().zip(&model).position(|(g, m)| g != m) {
                        None => Ok(()),
                        Some(i) => Err(format!(
                            "thread {t}: y[{i}] = {} but the host model says {}",
                            got[i], model[i]
                        )),
                    }
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a thread panicked".into())))
            .collect()
    });
    let bad: Vec<_> = results.into_iter().filter_map(Result::err).collect();
    let secs = start.elapsed().as_secs_f64();
    let total = threads * dispatches;
    r.check(
        bad.is_empty(),
        &format!("{threads} threads x {dispatches} mixed dispatches"),
        if bad.is_empty() {
            format!(
                "{total} dispatches checked exactly in {secs:.2} s ({:.0} dispatches/s)",
                total as f64 / secs
            )
        } else {
            bad.join("; ")
        },
    );
}

fn main() -> std::process::ExitCode {
    let o = match opts() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("gpu_faults: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let d = match Device::new() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("gpu_faults: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let caps = d.capabilities();
    println!(
        "device {} ({}, {}), max buffer {} bytes",
        caps.name, caps.backend, caps.device_type, caps.limits.max_buffer_size
    );
    let lib = ShaderLibrary::with_cache_dir(&d, None);
    let mut r = Report { failures: 0 };
    let cap = o.oom_cap_gib.unwrap_or(if caps.device_type == "cpu" { 2 } else { 192 });
    // Shared memory of a discrete GPU may be host RAM: its search has its own cap, so it never
    // runs the host out of memory.
    let shared_cap = o.shared_cap_gib.unwrap_or(cap);
    out_of_memory(&d, &lib, StorageMode::Private, cap, &mut r);
    out_of_memory(&d, &lib, StorageMode::Shared, shared_cap, &mut r);
    if let Err(e) = mid_batch_fault(&d, &lib, &mut r) {
        r.check(false, "mid-batch fault", e.to_string());
    }
    threads(&d, &lib, o.threads, o.dispatches, &mut r);
    let leftover = d.take_uncaptured_errors();
    r.check(leftover.is_empty(), "no uncaptured GPU errors", format!("{leftover:?}"));
    println!("{} failure(s)", r.failures);
    if r.failures == 0 { std::process::ExitCode::SUCCESS } else { std::process::ExitCode::FAILURE }
}
