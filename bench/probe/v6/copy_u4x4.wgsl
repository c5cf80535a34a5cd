// Copy with four 16-byte vectors per thread, a threadgroup's 1024 vectors contiguous (all four
// loads issued before the stores): does the roofline's one-vector-per-thread copy under-report?
@group(0) @binding(0) var<storage, read> x: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> y: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) n: vec3<u32>) {
    let i = (wg.x + wg.y * n.x) * 1024u + t;
    let a = x[i];
    let b = x[i + 256u];
    let c = x[i + 512u];
    let d = x[i + 768u];
    y[i] = a;
    y[i + 256u] = b;
    y[i + 512u] = c;
    y[i + 768u] = d;
}
