// add, f16, 8-byte loads (vec4<f16>), 4 per thread per input, computed in f32.
enable f16;
@group(0) @binding(0) var<storage, read> x: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> y: array<vec4<f16>>;
@group(0) @binding(2) var<storage, read_write> o: array<vec4<f16>>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let base = (wg.y * 32768u + wg.x) * 1024u + tid;
    var a: array<vec4<f32>, 4>;
    var b: array<vec4<f32>, 4>;
    a[0] = vec4<f32>(x[base]); a[1] = vec4<f32>(x[base + 256u]); a[2] = vec4<f32>(x[base + 512u]); a[3] = vec4<f32>(x[base + 768u]);
    b[0] = vec4<f32>(y[base]); b[1] = vec4<f32>(y[base + 256u]); b[2] = vec4<f32>(y[base + 512u]); b[3] = vec4<f32>(y[base + 768u]);
    o[base] = vec4<f16>(a[0] + b[0]); o[base + 256u] = vec4<f16>(a[1] + b[1]);
    o[base + 512u] = vec4<f16>(a[2] + b[2]); o[base + 768u] = vec4<f16>(a[3] + b[3]);
}
