enable f16;
@group(0) @binding(0) var<storage, read> x: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let base = wg.x * 1024u;
    let v0 = x[base + tid];
    let v1 = x[base + tid + 256u];
    let v2 = x[base + tid + 512u];
    let v3 = x[base + tid + 768u];
    let s = v0 + v1 + v2 + v3;
    if (f32(s.x + s.y + s.z + s.w) == 12345.0) { y[wg.x] = 1.0; }
}
