enable f16;
@group(0) @binding(0) var<storage, read> x: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;
var<workgroup> rows: array<f32, 4096>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let base = wg.x * 1024u;
    let v0 = x[base + tid];
    let v1 = x[base + tid + 256u];
    let v2 = x[base + tid + 512u];
    let v3 = x[base + tid + 768u];
    rows[tid * 4u] = f32(v0.x); rows[tid * 4u + 1u] = f32(v0.y); rows[tid * 4u + 2u] = f32(v0.z); rows[tid * 4u + 3u] = f32(v0.w);
    rows[(tid + 256u) * 4u] = f32(v1.x); rows[(tid + 256u) * 4u + 1u] = f32(v1.y); rows[(tid + 256u) * 4u + 2u] = f32(v1.z); rows[(tid + 256u) * 4u + 3u] = f32(v1.w);
    rows[(tid + 512u) * 4u] = f32(v2.x); rows[(tid + 512u) * 4u + 1u] = f32(v2.y); rows[(tid + 512u) * 4u + 2u] = f32(v2.z); rows[(tid + 512u) * 4u + 3u] = f32(v2.w);
    rows[(tid + 768u) * 4u] = f32(v3.x); rows[(tid + 768u) * 4u + 1u] = f32(v3.y); rows[(tid + 768u) * 4u + 2u] = f32(v3.z); rows[(tid + 768u) * 4u + 3u] = f32(v3.w);
    workgroupBarrier();
    if (tid == 0u) { y[wg.x] = rows[7]; }
}
