//! Times one WGSL kernel on the device: a tool for finding out why a generated kernel is slow,
//! by timing hand-edited variants of it beside the original in one run.
//!
//! Usage: `wgsl_probe FILE.wgsl ENTRY GX,GY BUFFERS [SCALARS] [ITERS]`
//!   BUFFERS: comma-separated byte sizes, one per binding in order, or `=N`
//!   to bind buffer N again (a buffer for a binding the kernel lacks is skipped);
//!   SCALARS: comma-separated immediates (or `-`): u32, or f32 when written with a `.`.
//! Prints one line: file, median milliseconds per launch over 5 batches, and the clock. With
//! `PROBE_CHECKSUM=1` in the environment it also reads binding 0 back as f32 and prints the sum
//! of its values and of their magnitudes, so variants of one kernel on the same (seeded) inputs
//! can be compared for the same result. With `PROBE_ROLES=1` the module is loaded with
//! `load_subgroup_roles` (subgroups that branch on their id around cooperative matrices).

use tilecast_runtime::{
    Device, Scalar, ShaderLibrary, StorageMode, Stream, TimingPolicy, median, time_batches,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().collect();
    if a.len() < 5 {
        return Err("usage: wgsl_probe FILE.wgsl ENTRY GX,GY BUFFERS [SCALARS] [ITERS]".into());
    }
    let wgsl = std::fs::read_to_string(&a[1])?;
    let grid: Vec<u32> = a[3].split(',').map(|x| x.parse()).collect::<Result<_, _>>()?;
    let specs: Vec<&str> = a[4].split(',').collect();
    let scalars: Vec<Scalar> = match a.get(5).map(String::as_str) {
        None | Some("-") => Vec::new(),
        Some(s) => s
            .split(',')
            .map(|x| -> Result<Scalar, Box<dyn std::error::Error>> {
                Ok(if x.contains('.') { Scalar::F32(x.parse()?) } else { Scalar::U32(x.parse()?) })
            })
            .collect::<Result<_, _>>()?,
    };
    let iters: u32 = a.get(6).map(|s| s.parse()).transpose()?.unwrap_or(20);
    let device = Device::new()?;
    let library = ShaderLibrary::with_cache_dir(&device, None);
    // SAFETY: a measuring tool for hand-checked kernels; they index within the buffers given.
    let module = unsafe {
        if std::env::var_os("PROBE_ROLES").is_some() {
            library.load_subgroup_roles(&a[1], &wgsl)?
        } else {
            library.load_trusted(&a[1], &wgsl)?
        }
    };
    let mut k = module.kernel(&a[2])?;
    let mut bufs = Vec::new();
    for spec in &specs {
        let b = match spec.strip_prefix('=') {
            Some(n) => bufs.get(n.parse::<usize>()?).cloned().ok_or("=N names a later buffer")?,
            // Pseudo-random contents: constant data compresses on some GPUs and reads faster.
            None => {
                let n = spec.parse::<usize>()? / 4;
                let mut x: u32 = 0x2545_F491 ^ bufs.len() as u32;
                let data: Vec<u32> = (0..n)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        x & 0x3bff_3bff // finite f16 and f32 bit patterns of moderate size
                    })
                    .collect();
                device.buffer_from_slice_in(StorageMode::Private, &data, &[n])?
            }
        };
        bufs.push(b);
    }
    let mut s = Stream::new(&device);
    // A binding the kernel never reads (a parameter read only through its vector view) is
    // dropped from the module, so a buffer given for it is skipped; one it needs and lacks
    // fails at the dispatch.
    for (i, b) in bufs.iter().enumerate() {
        if let Err(e) = k.set_buffer(i as u32, b) {
            eprintln!("binding {i} skipped: {e}");
        }
    }
    for (i, v) in scalars.iter().enumerate() {
        k.set_scalar(i, *v)?;
    }
    let groups = [grid[0], grid.get(1).copied().unwrap_or(1), 1];
    // Settled clocks, then GPU timestamps where the device has them (see tilecast_runtime::time_batches).
    let times = time_batches(&mut s, TimingPolicy::for_device(&device, iters, 5), |s| {
        k.dispatch_threadgroups(s, groups)
    })?;
    print!("{:<40} {:.4} ms ({})", a[1], median(&times.seconds) * 1e3, times.clock.name());
    if std::env::var_os("PROBE_CHECKSUM").is_some() {
        let out: Vec<u32> = bufs[0].download()?;
        let sum: f64 = out.iter().map(|&v| f32::from_bits(v) as f64).sum();
        let abs: f64 = out.iter().map(|&v| (f32::from_bits(v) as f64).abs()).sum();
        print!("  checksum {sum:.6e} abs {abs:.6e}");
    }
    println!();
    Ok(())
}
