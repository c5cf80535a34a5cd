// softmax probe: whole
@group(0) @binding(0) var<storage, read_write> Y: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> X: array<vec4<u32>>;
var<workgroup> red: array<f32, 256>;
const ROW_U4: u32 = 4096u;

// Partials of 32 subgroups (NVIDIA) combine by one more subgroup reduction; other subgroup
// sizes (lavapipe's, for checking) by a serial loop.
fn block_max(v: f32, lane: u32, sg: u32, size: u32) -> f32 {
    let s = subgroupMax(v);
    if (lane == 0u) { red[sg] = s; }
    workgroupBarrier();
    var r: f32;
    if (size == 32u) {
        r = subgroupMax(red[lane]);
    } else {
        r = red[0];
        for (var i = 1u; i < 1024u / size; i++) { r = max(r, red[i]); }
    }
    workgroupBarrier();
    return r;
}
fn block_sum(v: f32, lane: u32, sg: u32, size: u32) -> f32 {
    let s = subgroupAdd(v);
    if (lane == 0u) { red[sg] = s; }
    workgroupBarrier();
    var r: f32;
    if (size == 32u) {
        r = subgroupAdd(red[lane]);
    } else {
        r = red[0];
        for (var i = 1u; i < 1024u / size; i++) { r += red[i]; }
    }
    workgroupBarrier();
    return r;
}
fn h(w: u32, hi: bool) -> f32 {
    let v = unpack2x16float(w);
    return select(v.x, v.y, hi);
}
fn word(v: vec4<u32>, i: u32) -> u32 {
    return v[i / 2u];
}

@compute @workgroup_size(1024)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32,
        @builtin(subgroup_size) size: u32) {
    let base = wg.x * ROW_U4;
    var v: array<f32, 32>;
    for (var k = 0u; k < 4u; k++) {
        let w = X[base + t + k * 1024u];
        for (var e = 0u; e < 8u; e++) { v[k * 8u + e] = h(w[e / 2u], (e & 1u) == 1u); }
    }
    var m = v[0];
    for (var i = 1u; i < 32u; i++) { m = max(m, v[i]); }
    m = block_max(m, lane, sg, size);
    var s = 0.0;
    for (var i = 0u; i < 32u; i++) { v[i] = exp(v[i] - m); s += v[i]; }
    s = block_sum(s, lane, sg, size);
    let inv = 1.0 / s;
    for (var k = 0u; k < 4u; k++) {
        var o: vec4<u32>;
        for (var q = 0u; q < 4u; q++) {
            o[q] = pack2x16float(vec2<f32>(v[k * 8u + q * 2u] * inv, v[k * 8u + q * 2u + 1u] * inv));
        }
        Y[base + t + k * 1024u] = o;
    }
}
