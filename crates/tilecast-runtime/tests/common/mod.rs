//! Shared test helpers: one device per test binary, and a raw GPU copy to create in-flight work.
#![allow(dead_code)]

use std::sync::OnceLock;

use tilecast_runtime::{Buffer, Device};

/// The device every test in a binary shares (opening one per test is slow on lavapipe).
pub fn device() -> &'static Device {
    static D: OnceLock<Device> = OnceLock::new();
    D.get_or_init(|| Device::new().expect("a GPU or lavapipe adapter (mesa-vulkan-drivers)"))
}

/// Submits a GPU copy of `bytes` bytes from `src` to `dst` (at their view offsets) and returns
/// without waiting.
pub fn gpu_copy(src: &Buffer, dst: &Buffer, bytes: u64) {
    let d = src.device();
    let mut enc = d.wgpu_device().create_command_encoder(&Default::default());
    enc.copy_buffer_to_buffer(
        src.wgpu_buffer(),
        src.byte_offset(),
        dst.wgpu_buffer(),
        dst.byte_offset(),
        bytes,
    );
    d.wgpu_queue().submit([enc.finish()]);
}

/// A deterministic pattern that differs at every index.
pub fn pattern(n: usize, seed: u32) -> Vec<u32> {
    (0..n as u32).map(|i| i.wrapping_mul(2654435761).wrapping_add(seed)).collect()
}

/// `y[i] += x[i] + add` (`axpy`) or `y[i] += add` (`inc`) for i < n; scalars (n, add) as
/// immediates.
pub const AXPY_WGSL: &str = include_str!("axpy.wgsl");

/// Busy work: each thread runs `outer` x `inner` dependent integer steps and writes the result.
/// lavapipe caps one loop at 65535 iterations, hence two nested loops.
pub const SPIN_WGSL: &str = r#"
struct Spin { inner: u32, outer: u32 }
var<immediate> spin_args: Spin;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;

@compute @workgroup_size(64)
fn spin(@builtin(global_invocation_id) g: vec3<u32>) {
    var h = g.x;
    for (var o = 0u; o < spin_args.outer; o++) {
        for (var i = 0u; i < spin_args.inner; i++) {
            h = h * 1664525u + 1013904223u;
            h = h ^ (h >> 13u);
        }
    }
    out[g.x] = f32(h & 0xffffu);
}
"#;

/// Encodes a spin kernel with one thread per element of `out` and commits it without waiting.
/// Long enough to still run when the caller looks a moment later: a few hundred milliseconds
/// on lavapipe with 8192 threads x 65535 steps; a GPU runs 300 times as many steps per thread (about 0.4 s on an H200).
pub fn submit_spin(stream: &mut tilecast_runtime::Stream, out: &Buffer, iters: u32) {
    let outer: u32 = if out.device().capabilities().device_type == "cpu" { 1 } else { 300 };
    let lib = tilecast_runtime::ShaderLibrary::with_cache_dir(out.device(), None);
    let mut k = lib.load("spin", SPIN_WGSL).unwrap().kernel("spin").unwrap();
    k.set_buffer(0, out).unwrap().set_scalar(0, iters).unwrap().set_scalar(1, outer).unwrap();
    k.dispatch_threads(stream, [out.len() as u32, 1, 1]).unwrap();
    stream.synchronize(tilecast_runtime::SyncType::Commit).unwrap();
}

/// `src` (WGSL) as SPIR-V words, through naga, for loading as a native module.
pub fn spirv_of(src: &str) -> Vec<u32> {
    spirv_with(src, naga::back::spv::Options::default().flags)
}

/// [`spirv_of`] with naga's writer `flags` (`DEBUG` keeps names, as a caller's own writer
/// might).
pub fn spirv_with(src: &str, flags: naga::back::spv::WriterFlags) -> Vec<u32> {
    let module = naga::front::wgsl::parse_str(src).unwrap();
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .unwrap();
    let options = naga::back::spv::Options { lang_version: (1, 3), flags, ..Default::default() };
    naga::back::spv::write_vec(&module, &info, &options, None).unwrap()
}
