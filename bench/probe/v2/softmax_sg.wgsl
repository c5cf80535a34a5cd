// softmax 4096-wide f16 rows: one row per 32-lane subgroup (8 rows per workgroup), 128 values
// per lane in registers, subgroup reductions only, no barriers. Assumes subgroup size 32.
enable f16;
@group(0) @binding(0) var<storage, read> x: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read_write> o: array<vec4<u32>>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32) {
    let row = wg.x * 8u + tid / 32u;
    let base = row * 512u + lane;
    var v: array<f32, 128>;
    for (var j = 0u; j < 16u; j++) {
        let u = x[base + j * 32u];
        for (var i = 0u; i < 4u; i++) {
            let h = unpack2x16float(u[i]);
            v[j * 8u + 2u*i] = h.x; v[j * 8u + 2u*i + 1u] = h.y;
        }
    }
    var m = v[0];
    for (var i = 1u; i < 128u; i++) { m = max(m, v[i]); }
    m = subgroupMax(m);
    var s = 0.0;
    for (var i = 0u; i < 128u; i++) { v[i] = exp(v[i] - m); s += v[i]; }
    s = subgroupAdd(s);
    let inv = 1.0 / s;
    for (var j = 0u; j < 16u; j++) {
        var r: vec4<u32>;
        for (var i = 0u; i < 4u; i++) {
            r[i] = pack2x16float(vec2<f32>(v[j*8u+2u*i], v[j*8u+2u*i+1u]) * inv);
        }
        o[base + j * 32u] = r;
    }
}
