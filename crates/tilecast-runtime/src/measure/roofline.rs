//! The device's own roofline, measured: copy bandwidth (both copy engines, see
//! [`Device::calibrate_copies`]), the f32 FMA rate of plain SIMT code, and the f16 -> f32 rate of
//! cooperative matrices where the device has them. Benchmarks report their throughput as a
//! fraction of these numbers. Measured once per device and cached on disk beside the pipeline
//! cache (`roofline-<device>.json`), since the measurement takes about a second.

use super::timing::{TimingPolicy, median, time_batches};
use crate::{CopyCalibration, DType, Device, Result, ShaderLibrary, StorageMode, Stream};
use std::path::{Path, PathBuf};

/// What the device reached.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Roofline {
    /// Device name and driver the numbers belong to.
    pub device: String,
    /// How it was measured ([`Roofline::METHOD`]); a cache written by another method is
    /// measured again.
    #[serde(default)]
    pub method: u32,
    /// Copy bandwidth (GB/s, bytes read plus written) of the faster copy engine.
    pub copy_gbps: f64,
    /// `copy_buffer_to_buffer` bandwidth.
    pub builtin_copy_gbps: f64,
    /// Copy-kernel bandwidth.
    pub kernel_copy_gbps: f64,
    /// Copies of at least this many bytes take the kernel (None: never).
    pub kernel_copy_min_bytes: Option<u64>,
    /// f32 FMA rate of SIMT code, TFLOP/s.
    pub simt_f32_tflops: f64,
    /// f16 x f16 -> f32 cooperative-matrix rate, TFLOP/s, where the device has 16x16 (or 8x8)
    /// matrices.
    pub matrix_f16_tflops: Option<f64>,
}

const FMA_WGSL: &str = r#"
struct P { iters: u32 }
var<immediate> p: P;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(256)
fn fma_loop(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let i = id.x + id.y * n.x * 256u;
    var a = vec4<f32>(f32(i) * 1e-9, 1.0, 2.0, 3.0);
    var b = vec4<f32>(0.5, f32(i & 7u) * 1e-3, 0.25, 0.125);
    var c = vec4<f32>(0.999);
    var d = vec4<f32>(1.001);
    for (var k = 0u; k < p.iters; k++) {
        a = fma(a, c, d);
        b = fma(b, d, c);
        c = fma(c, a, b);
        d = fma(d, b, a);
    }
    out[i] = a.x + b.y + c.z + d.w;
}
"#;

/// Four vec4 FMAs per iteration: 32 FLOPs.
const FMA_FLOPS_PER_ITER: f64 = 32.0;

fn matrix_wgsl(s: u32) -> String {
    format!(
        r#"
enable f16;
enable wgpu_cooperative_matrix;
struct P {{ iters: u32 }}
var<immediate> p: P;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
var<workgroup> ab: array<f16, {e}>;
var<workgroup> cs: array<f32, {c}>;
@compute @workgroup_size(256)
fn mma_loop(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_id) sg: u32) {{
    for (var e = tid; e < {e}u; e += 256u) {{ ab[e] = f16(f32(e % 7u) * 0.01); }}
    workgroupBarrier();
    let a = coopLoad<coop_mat{s}x{s}<f16, A>>(&ab[0], {s}u);
    let b = coopLoad<coop_mat{s}x{s}<f16, B>>(&ab[0], {s}u);
    var c0 = coop_mat{s}x{s}<f32, C>();
    var c1 = coop_mat{s}x{s}<f32, C>();
    var c2 = coop_mat{s}x{s}<f32, C>();
    var c3 = coop_mat{s}x{s}<f32, C>();
    for (var k = 0u; k < p.iters; k++) {{
        c0 = coopMultiplyAdd(a, b, c0);
        c1 = coopMultiplyAdd(a, b, c1);
        c2 = coopMultiplyAdd(a, b, c2);
        c3 = coopMultiplyAdd(a, b, c3);
    }}
    coopStore(c0, &cs[0], {s}u);
    coopStore(c1, &cs[0], {s}u);
    coopStore(c2, &cs[0], {s}u);
    coopStore(c3, &cs[0], {s}u);
    workgroupBarrier();
    if (tid == 0u) {{ out[wg.x * 8u + sg] = cs[0]; }}
}}
"#,
        e = s * s,
        c = s * s,
    )
}

/// Times `iters`-iteration launches of a one-buffer kernel over `groups` threadgroups; returns
/// the median seconds per launch.
fn time_kernel(
    device: &Device,
    wgsl: &str,
    entry: &str,
    groups: u32,
    out_len: usize,
    iters: u32,
) -> Result<f64> {
    let library = ShaderLibrary::with_cache_dir(device, None);
    let mut k = library.load(entry, wgsl)?.kernel(entry)?;
    let out = device.alloc_in(StorageMode::Private, DType::F32, &[out_len])?;
    k.set_buffer(0, &out)?.set_scalar(0, iters)?;
    let mut stream = Stream::new(device);
    let times = time_batches(&mut stream, TimingPolicy::for_device(device, 1, 5), |s| {
        k.dispatch_threadgroups(s, [groups, 1, 1])
    })?;
    Ok(median(&times.seconds))
}

impl Roofline {
    /// The measuring method: 2 settles the GPU's clocks before timing (method 1, without that,
    /// could time a cold GPU and under-report); 3 copies on an even grid of threadgroups
    /// (method 2's grid left a third of them idle for 512 MiB and under-reported the H200's
    /// copy bandwidth by 12%).
    pub const METHOD: u32 = 3;

    /// Measures the device (a few seconds on a GPU, most of it settling clocks; a CPU device gets small sizes).
    pub fn measure(device: &Device) -> Result<Roofline> {
        let caps = device.capabilities();
        let cpu = caps.device_type == "cpu";
        let copy_bytes: u64 = if cpu { 16 << 20 } else { 512 << 20 };
        let copy_bytes = copy_bytes.min(caps.limits.max_buffer_size / 2);
        let CopyCalibration { builtin_gbps, kernel_gbps, kernel_min_bytes, .. } =
            device.calibrate_copies(copy_bytes)?;
        // Enough threadgroups to fill any GPU several times over; few on a CPU.
        let (groups, iters) = if cpu { (16u32, 256u32) } else { (8192, 4096) };
        let t = time_kernel(device, FMA_WGSL, "fma_loop", groups, groups as usize * 256, iters)?;
        let simt_f32_tflops = groups as f64 * 256.0 * iters as f64 * FMA_FLOPS_PER_ITER / t / 1e12;
        let square = caps
            .matrix_configs
            .iter()
            .filter(|m| m.m == m.n && m.n == m.k && m.input == "f16" && m.accumulator == "f32")
            .map(|m| m.m)
            .max();
        let matrix_f16_tflops = match square {
            Some(s) if !cpu => {
                let (groups, iters) = (4096u32, 2048u32);
                let t = time_kernel(
                    device,
                    &matrix_wgsl(s),
                    "mma_loop",
                    groups,
                    groups as usize * 8,
                    iters,
                )?;
                // 8 subgroups per threadgroup, 4 matrix products of 2 s^3 FLOPs per iteration.
                let flops = groups as f64 * 8.0 * iters as f64 * 4.0 * 2.0 * (s as f64).powi(3);
                Some(flops / t / 1e12)
            }
            _ => None,
        };
        Ok(Roofline {
            device: format!("{} ({})", caps.name, caps.driver),
            method: Self::METHOD,
            copy_gbps: builtin_gbps.max(kernel_gbps),
            builtin_copy_gbps: builtin_gbps,
            kernel_copy_gbps: kernel_gbps,
            kernel_copy_min_bytes: kernel_min_bytes,
            simt_f32_tflops,
            matrix_f16_tflops,
        })
    }

    /// The cache file for `device` in `dir`.
    pub fn cache_path(device: &Device, dir: &Path) -> PathBuf {
        let caps = device.capabilities();
        let key: String = format!("{}-{}-{}", caps.backend, caps.name, caps.driver)
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
            .collect();
        dir.join(format!("roofline-{key}.json"))
    }

    /// The cached measurement for `device` from `dir` (re-measured when absent, unreadable,
    /// for another device, or `refresh`), applying its copy-engine choice to the device.
    /// Returns the roofline and whether it was measured now.
    pub fn load_or_measure(
        device: &Device,
        dir: Option<&Path>,
        refresh: bool,
    ) -> Result<(Roofline, bool)> {
        let path = dir.map(|d| Self::cache_path(device, d));
        let caps = device.capabilities();
        let this = format!("{} ({})", caps.name, caps.driver);
        if let (Some(p), false) = (&path, refresh)
            && let Ok(text) = std::fs::read_to_string(p)
            && let Ok(r) = serde_json::from_str::<Roofline>(&text)
            && r.device == this
            && r.method == Self::METHOD
        {
            device.set_copy_kernel_min_bytes(r.kernel_copy_min_bytes);
            return Ok((r, false));
        }
        let r = Self::measure(device)?;
        if let Some(p) = &path {
            let text = serde_json::to_string_pretty(&r).expect("plain data serializes");
            if let Some(parent) = p.parent() {
                let _ = std::fs::create_dir_all(parent);
            }
            // A cache that cannot be written costs a re-measurement next time, nothing more.
            if let Err(e) = std::fs::write(p, text) {
                crate::warn(&format!("cannot write the roofline cache {}: {e}", p.display()));
            }
        }
        Ok((r, true))
    }
}
