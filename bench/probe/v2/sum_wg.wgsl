// sum of 4096-wide f16 rows into f32: one row per workgroup, vec4<f16> loads.
enable f16;
@group(0) @binding(0) var<storage, read> x: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read_write> o: array<f32>;
var<workgroup> part: array<f32, 64>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32, @builtin(num_subgroups) nsg: u32) {
    let base = wg.x * 1024u + tid;
    let v = vec4<f32>(x[base]) + vec4<f32>(x[base + 256u]) + vec4<f32>(x[base + 512u]) + vec4<f32>(x[base + 768u]);
    var s = subgroupAdd(v.x + v.y + v.z + v.w);
    if (lane == 0u) { part[sg] = s; }
    workgroupBarrier();
    if (tid == 0u) {
        for (var i = 1u; i < nsg; i++) { s += part[i]; }
        o[wg.x] = s;
    }
}
