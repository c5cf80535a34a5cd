//! Times one f16 registry case several ways in one process, to find where the harness's
//! figure differs from a bare loop: before and after the CPU check, after an idle pause, and
//! with the harness's own `time`.
//!
//! Usage: time_probe KERNEL SHAPE
use std::time::{Duration, Instant};

use tilecast_kernels::harness::{Prepared, median};
use tilecast_lang::DType;
use tilecast_runtime::{Device, ShaderLibrary, Stream, SyncType};

fn bare(p: &Prepared, s: &mut Stream, iters: u32) -> Result<f64, Box<dyn std::error::Error>> {
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..iters {
            p.launch(s)?;
        }
        s.synchronize(SyncType::CommitAndWait)?;
        times.push(t.elapsed().as_secs_f64() * 1e3 / iters as f64);
    }
    times.sort_by(|a, b| a.total_cmp(b));
    Ok(times[2])
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().collect();
    let e = tilecast_kernels::lookup(&a[1])?;
    let p = e.problem(&a[2], DType::F16)?;
    let device = Device::new()?;
    let library = ShaderLibrary::with_cache_dir(&device, None);
    let prepared = Prepared::new(&device, &library, e, &p, tilecast_kernels::LoadAs::Auto)?;
    let mut s = Stream::new(&device);
    prepared.launch(&mut s)?;
    s.synchronize(SyncType::CommitAndWait)?;
    println!("{} {}: bare, fresh           {:.4} ms", a[1], a[2], bare(&prepared, &mut s, 20)?);
    let t = Instant::now();
    let c = prepared.check()?;
    println!("check: ok={} in {:.1} s", c.ok, t.elapsed().as_secs_f64());
    println!("bare, after check        {:.4} ms", bare(&prepared, &mut s, 20)?);
    std::thread::sleep(Duration::from_secs(2));
    println!("bare, after 2 s idle     {:.4} ms", bare(&prepared, &mut s, 20)?);
    let h = prepared.time(&mut s, 20, 5)?;
    println!("harness time(20, 5)      {:.4} ms", median(&h.seconds) * 1e3);
    let h = prepared.time(&mut s, 4, 5)?;
    println!("harness time(4, 5)       {:.4} ms", median(&h.seconds) * 1e3);
    // Host time to encode a launch (no wait inside the loop): what a step's host cost is made of.
    let mut enc = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..20 {
            prepared.launch(&mut s)?;
        }
        enc.push(t.elapsed().as_secs_f64() * 1e3 / 20.0);
        s.synchronize(SyncType::CommitAndWait)?;
    }
    println!("host encode per launch   {:.4} ms", median(&enc));
    let mut s2 = Stream::new(&device);
    println!("bare, new stream         {:.4} ms", bare(&prepared, &mut s2, 20)?);
    Ok(())
}
