@group(0) @binding(0) var<storage, read> x: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> y: array<u32>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let base = wg.x * 512u;
    let v0 = x[base + tid];
    let v1 = x[base + tid + 256u];
    let s = v0 ^ v1;
    if ((s.x ^ s.y ^ s.z ^ s.w) == 12345u) { y[wg.x] = 1u; }
}
