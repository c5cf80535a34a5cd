//! `tilecast bench`: one kernel on the device, timed, checked against its CPU reference.

use std::time::Instant;

use half::{bf16, f16};
use tilecast_kernels::gemm::{GemmConfig, gemm};
use tilecast_kernels::reference;
use tilecast_lang::{DType, Profile, TileKernel, compile};
use tilecast_runtime::{
    Buffer, DType as RtDType, Device, DiskCacheStatus, ShaderLibrary, StorageMode, Stream, SyncType,
};

/// Input element type.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
pub enum Dtype {
    /// f32 inputs.
    F32,
    /// f16 inputs.
    F16,
    /// bf16 inputs (decoded exactly to f32 on load, SIMT).
    Bf16,
}

fn parse_shape(s: &str) -> Result<[usize; 3], String> {
    let dims: Vec<usize> = s
        .split(['x', 'X'])
        .map(|d| d.trim().parse::<usize>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("shape {s:?} is not MxNxK"))?;
    match dims.as_slice() {
        [m, n, k] if *m > 0 && *n > 0 && *k > 0 => Ok([*m, *n, *k]),
        _ => Err(format!("shape {s:?} is not MxNxK with positive sizes")),
    }
}

/// `n` pseudo-random values in [-1, 1); host memory is reserved fallibly, so a size the host
/// cannot hold is an error, not an abort.
fn values(n: usize, seed: u64) -> Result<Vec<f32>, String> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| {
        format!("the host cannot allocate {n} f32 values ({} bytes) of input", n.saturating_mul(4))
    })?;
    let mut x = seed.wrapping_mul(0x9E3779B97F4A7C15) | 1;
    out.extend((0..n).map(|_| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        ((x >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }));
    Ok(out)
}

/// Refuses, before any host allocation, operands the device cannot hold or bind.
fn check_operands(
    device: &Device,
    shape: &str,
    input: RtDType,
    [m, n, kd]: [usize; 3],
) -> Result<(), String> {
    for (name, dtype, dims) in
        [("A", input, [m, kd]), ("B", input, [kd, n]), ("C", RtDType::F32, [m, n])]
    {
        device
            .check_bindable(dtype, &dims)
            .map_err(|e| format!("--shape {shape}: operand {name}: {e}"))?;
    }
    Ok(())
}

/// What `tilecast bench` was asked for.
pub struct Options {
    /// Kernel name.
    pub kernel: String,
    /// MxNxK.
    pub shape: String,
    /// Input type.
    pub dtype: Dtype,
    /// Pipeline stages (None: chosen with the tile).
    pub stages: Option<u32>,
    /// BMxBNxBK (None: chosen for the device).
    pub tile: Option<String>,
    /// Threads per threadgroup (None: chosen with the tile).
    pub threads: Option<u32>,
    /// Timed launches per batch.
    pub iters: u32,
    /// JSON output.
    pub json: bool,
    /// Load with naga's runtime bounds checks instead of as a trusted module.
    pub checked: bool,
}

/// Runs `tilecast bench`.
pub fn run(o: &Options) -> Result<(), Box<dyn std::error::Error>> {
    let (kernel, shape, dtype, iters, json) =
        (o.kernel.as_str(), o.shape.as_str(), o.dtype, o.iters, o.json);
    if iters == 0 {
        return Err("--iters must be at least 1".into());
    }
    if kernel != "gemm" {
        return Err(format!("tilecast bench runs gemm today; got {kernel:?}").into());
    }
    let [m, n, kd] = parse_shape(shape)?;
    let input = match dtype {
        Dtype::F32 => DType::F32,
        Dtype::F16 => DType::F16,
        Dtype::Bf16 => DType::BF16,
    };
    let device = Device::new()?;
    let rt_input = match dtype {
        Dtype::F16 => RtDType::F16,
        Dtype::F32 => RtDType::F32,
        Dtype::Bf16 => RtDType::BF16,
    };
    check_operands(&device, shape, rt_input, [m, n, kd])?;
    let profile = Profile::from_capabilities(device.capabilities());
    let auto = GemmConfig::for_problem(&profile, input, DType::F32, m);
    let [bm, bn, bk] = match &o.tile {
        Some(t) => parse_shape(t).map_err(|_| format!("tile {t:?} is not BMxBNxBK"))?,
        None => [auto.bm as usize, auto.bn as usize, auto.bk as usize],
    };
    let threads = o.threads.unwrap_or(auto.threads);
    let stages = o.stages.unwrap_or(auto.stages);
    let cfg = GemmConfig {
        bm: bm as u32,
        bn: bn as u32,
        bk: bk as u32,
        threads,
        input,
        stages,
        ..GemmConfig::default()
    };
    let compiled = compile(&gemm(&cfg), &profile)?;
    let library = ShaderLibrary::new(&device);
    let load_start = Instant::now();
    let k = if o.checked {
        TileKernel::load_checked(&library, &compiled)?
    } else {
        TileKernel::load(&library, &compiled)?
    };
    let bounds = if o.checked { "checked" } else { "trusted" };
    // What the selection pass chose for the accumulator, as `emit --target ir` shows it.
    let lowering =
        if compiled.wgsl().contains("coopMultiplyAdd") { "matrix units" } else { "SIMT" };
    let load_ms = load_start.elapsed().as_secs_f64() * 1e3;
    let lib_stats = library.stats();
    let cache = match &lib_stats.disk_cache {
        Some(DiskCacheStatus::Loaded { .. }) => "loaded",
        Some(DiskCacheStatus::Empty) => "empty",
        Some(DiskCacheStatus::Rejected(_)) => "rejected",
        _ => "unsupported",
    };

    let (a, b) = (values(m * kd, 1)?, values(kd * n, 2)?);
    // Inputs in their storage type, and the f32 values they hold, which the reference uses.
    let upload =
        |x: &[f32], shape: &[usize]| -> Result<(Vec<f32>, Buffer), Box<dyn std::error::Error>> {
            fn stored<T: tilecast_runtime::Element>(
                device: &Device,
                x: &[f32],
                shape: &[usize],
                to: fn(f32) -> T,
                back: fn(&T) -> f32,
            ) -> Result<(Vec<f32>, Buffer), Box<dyn std::error::Error>> {
                let v: Vec<T> = x.iter().map(|&f| to(f)).collect();
                Ok((
                    v.iter().map(back).collect(),
                    device.buffer_from_slice_in(StorageMode::Private, &v, shape)?,
                ))
            }
            match input {
                DType::F16 => stored(&device, x, shape, f16::from_f32, |v| v.to_f32()),
                DType::BF16 => stored(&device, x, shape, bf16::from_f32, |v| v.to_f32()),
                _ => stored(&device, x, shape, |f| f, |v| *v),
            }
        };
    let ((a_ref, ab), (b_ref, bb)) = (upload(&a, &[m, kd])?, upload(&b, &[kd, n])?);
    let c = device.alloc_in(StorageMode::Private, DType::F32, &[m, n])?;
    let mut stream = Stream::new(&device);
    k.launch(&mut stream, &[&ab, &bb, &c])?;
    stream.synchronize(SyncType::CommitAndWait)?;

    // Correctness: every element for small problems, 256 sampled elements otherwise.
    let got = c.download::<f32>()?;
    let full = (m as u64) * (n as u64) * (kd as u64) <= 64 << 20;
    let mut max_err = 0f32;
    let mut checked = 0usize;
    if full {
        let want = reference::gemm(&a_ref, &b_ref, m, n, kd);
        for (g, w) in got.iter().zip(&want) {
            max_err = max_err.max((g - w).abs());
        }
        checked = want.len();
    } else {
        let pick = values(512, 3)?;
        for p in pick.chunks(2) {
            let i = ((p[0] + 1.0) * 0.5 * m as f32) as usize % m;
            let j = ((p[1] + 1.0) * 0.5 * n as f32) as usize % n;
            let want: f64 =
                (0..kd).map(|q| a_ref[i * kd + q] as f64 * b_ref[q * n + j] as f64).sum();
            max_err = max_err.max((got[i * n + j] - want as f32).abs());
            checked += 1;
        }
    }
    let tolerance = 1e-5 * kd as f32 + 1e-6;

    // Timing: 5 batches of `iters` launches each; each batch waits for the GPU at its end.
    let mut times = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..iters {
            k.launch(&mut stream, &[&ab, &bb, &c])?;
        }
        stream.synchronize(SyncType::CommitAndWait)?;
        times.push(t.elapsed().as_secs_f64() / iters as f64);
    }
    times.sort_by(|x, y| x.total_cmp(y));
    let median = times[2];
    let tflops = 2.0 * m as f64 * n as f64 * kd as f64 / median / 1e12;
    let ok = max_err <= tolerance;
    if json {
        println!(
            "{{\"kernel\":\"gemm\",\"device\":{:?},\"shape\":[{m},{n},{kd}],\"dtype\":\"{input}\",\"stages\":{stages},\"tile\":[{bm},{bn},{bk}],\"threads\":{},\"median_ms\":{:.4},\"tflops\":{:.3},\"max_abs_error\":{max_err:e},\"checked\":{checked},\"tolerance\":{tolerance:e},\"ok\":{ok},\"pipeline_load_ms\":{load_ms:.2},\"pipeline_cache\":\"{cache}\",\"pipeline_cache_hits\":{},\"bounds_checks\":\"{bounds}\",\"lowering\":\"{lowering}\"}}",
            device.name(),
            threads,
            median * 1e3,
            tflops,
            lib_stats.disk_cache_hits
        );
    } else {
        println!("device      {}", device.name());
        println!(
            "kernel      gemm {m}x{n}x{kd}, {input} inputs, f32 accumulator, {stages} stages, \
             tile {bm}x{bn}x{bk}, {} threads, {lowering}, {bounds} module",
            threads
        );
        println!(
            "pipeline    {load_ms:.2} ms to compile and create (disk cache {cache}, {} hits)",
            lib_stats.disk_cache_hits
        );
        println!("time        {:.4} ms median of 5 batches x {iters} launches", median * 1e3);
        println!("throughput  {tflops:.4} TFLOP/s");
        println!(
            "max error   {max_err:e} over {checked} {} elements (tolerance {tolerance:e})",
            if full { "(all)" } else { "sampled" }
        );
        println!("result      {}", if ok { "PASS" } else { "FAIL" });
    }
    if !ok {
        return Err(format!(
            "gemm result differs from the CPU reference: max error {max_err:e} > {tolerance:e}"
        )
        .into());
    }
    Ok(())
}
