// softmax 4096-wide f16 rows: one row per 256-thread workgroup, 16 values per thread in
// registers (2 x 16-byte loads), subgroup reductions + 8 shared partials.
enable f16;
@group(0) @binding(0) var<storage, read> x: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> o: array<vec4<u32>>;
var<workgroup> part: array<f32, 64>;
var<workgroup> part2: array<f32, 64>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32, @builtin(num_subgroups) nsg: u32) {
    let base = wg.x * 512u + tid;
    let u0 = x[base]; let u1 = x[base + 256u];
    var v: array<f32, 16>;
    for (var i = 0u; i < 4u; i++) {
        let h0 = unpack2x16float(u0[i]); let h1 = unpack2x16float(u1[i]);
        v[2u*i] = h0.x; v[2u*i+1u] = h0.y; v[8u+2u*i] = h1.x; v[8u+2u*i+1u] = h1.y;
    }
    var m = v[0];
    for (var i = 1u; i < 16u; i++) { m = max(m, v[i]); }
    m = subgroupMax(m);
    if (lane == 0u) { part[sg] = m; }
    workgroupBarrier();
    m = part[0];
    for (var i = 1u; i < nsg; i++) { m = max(m, part[i]); }
    var s = 0.0;
    for (var i = 0u; i < 16u; i++) { v[i] = exp(v[i] - m); s += v[i]; }
    s = subgroupAdd(s);
    if (lane == 0u) { part2[sg] = s; }
    workgroupBarrier();
    s = part2[0];
    for (var i = 1u; i < nsg; i++) { s += part2[i]; }
    let inv = 1.0 / s;
    var r0: vec4<u32>; var r1: vec4<u32>;
    for (var i = 0u; i < 4u; i++) {
        r0[i] = pack2x16float(vec2<f32>(v[2u*i], v[2u*i+1u]) * inv);
        r1[i] = pack2x16float(vec2<f32>(v[8u+2u*i], v[8u+2u*i+1u]) * inv);
    }
    o[base] = r0; o[base + 256u] = r1;
}
