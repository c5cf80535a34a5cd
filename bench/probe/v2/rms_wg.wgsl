// rms_norm 4096-wide f16 rows, weight W[4096] f16: one row per workgroup, registers, vec4<f16>.
enable f16;
@group(0) @binding(0) var<storage, read> x: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read> w: array<vec4<f16>>;
@group(0) @binding(2) var<storage, read_write> o: array<vec4<f16>>;
var<workgroup> part: array<f32, 64>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32, @builtin(num_subgroups) nsg: u32) {
    let base = wg.x * 1024u + tid;
    var v: array<vec4<f32>, 4>;
    v[0] = vec4<f32>(x[base]); v[1] = vec4<f32>(x[base + 256u]); v[2] = vec4<f32>(x[base + 512u]); v[3] = vec4<f32>(x[base + 768u]);
    var s = dot(v[0], v[0]) + dot(v[1], v[1]) + dot(v[2], v[2]) + dot(v[3], v[3]);
    s = subgroupAdd(s);
    if (lane == 0u) { part[sg] = s; }
    workgroupBarrier();
    s = part[0];
    for (var i = 1u; i < nsg; i++) { s += part[i]; }
    let r = inverseSqrt(s / 4096.0 + 1e-5);
    for (var i = 0u; i < 4u; i++) { o[base + i * 256u] = vec4<f16>(v[i] * r * vec4<f32>(w[tid + i * 256u])); }
}
