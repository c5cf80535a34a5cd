// softmax as softmax_wg but 8-byte vec4<f16> loads, 4 per thread.
enable f16;
@group(0) @binding(0) var<storage, read> x: array<vec4<f16>>;
@group(0) @binding(1) var<storage, read_write> o: array<vec4<f16>>;
var<workgroup> part: array<f32, 64>;
var<workgroup> part2: array<f32, 64>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32, @builtin(num_subgroups) nsg: u32) {
    let base = wg.x * 1024u + tid;
    var v: array<vec4<f32>, 4>;
    v[0] = vec4<f32>(x[base]); v[1] = vec4<f32>(x[base + 256u]); v[2] = vec4<f32>(x[base + 512u]); v[3] = vec4<f32>(x[base + 768u]);
    let m4 = max(max(v[0], v[1]), max(v[2], v[3]));
    var m = max(max(m4.x, m4.y), max(m4.z, m4.w));
    m = subgroupMax(m);
    if (lane == 0u) { part[sg] = m; }
    workgroupBarrier();
    m = part[0];
    for (var i = 1u; i < nsg; i++) { m = max(m, part[i]); }
    var s4 = vec4<f32>(0.0);
    for (var i = 0u; i < 4u; i++) { v[i] = exp(v[i] - m); s4 += v[i]; }
    var s = subgroupAdd(s4.x + s4.y + s4.z + s4.w);
    if (lane == 0u) { part2[sg] = s; }
    workgroupBarrier();
    s = part2[0];
    for (var i = 1u; i < nsg; i++) { s += part2[i]; }
    let inv = 1.0 / s;
    o[base] = vec4<f16>(v[0] * inv); o[base + 256u] = vec4<f16>(v[1] * inv);
    o[base + 512u] = vec4<f16>(v[2] * inv); o[base + 768u] = vec4<f16>(v[3] * inv);
}
