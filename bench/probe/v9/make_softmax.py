"""Hand-written softmax over 4096 rows of 32768 f16 (1024 threads per row, 32 elements per
thread as four 16-byte loads), to find why rows this long move ~70% of copy bandwidth while
4096-element rows move ~90%. Variants:
  whole  - the row held as 32 f32 registers per thread, exp(x - max) kept for the output
           (what tilecast generates; about 64 registers a thread: one threadgroup per SM);
  raw    - the row held as its 16 raw words, exp recomputed for the output (about 32
           registers: two threadgroups per SM can overlap one's reductions with the other's
           memory traffic);
  pipe   - raw, plus each threadgroup walks rows r, r + G, ... and issues the loads of its next
           row before reducing the current one (G = the launch's threadgroups).
Y is binding 0 so that PROBE_CHECKSUM=1 sums the output (the variants should agree exactly).
Usage: python3 make_softmax.py (writes sm_<variant>.wgsl)."""

HEAD = """// softmax probe: VARIANT
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
"""

WHOLE = """
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
"""

ROW = """
    {
    var m = -3.0e38;
    for (var k = 0u; k < 4u; k++) {
        for (var e = 0u; e < 8u; e++) { m = max(m, h(cur[k][e / 2u], (e & 1u) == 1u)); }
    }
    m = block_max(m, lane, sg, size);
    var s = 0.0;
    for (var k = 0u; k < 4u; k++) {
        for (var e = 0u; e < 8u; e++) { s += exp(h(cur[k][e / 2u], (e & 1u) == 1u) - m); }
    }
    s = block_sum(s, lane, sg, size);
    let inv = 1.0 / s;
    for (var k = 0u; k < 4u; k++) {
        var o: vec4<u32>;
        for (var q = 0u; q < 4u; q++) {
            let a = exp(h(cur[k][q], false) - m) * inv;
            let b = exp(h(cur[k][q], true) - m) * inv;
            o[q] = pack2x16float(vec2<f32>(a, b));
        }
        Y[base + t + k * 1024u] = o;
    }
    }
"""

RAW = """
@compute @workgroup_size(1024)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) t: u32,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32,
        @builtin(subgroup_size) size: u32) {
    let base = wg.x * ROW_U4;
    var cur: array<vec4<u32>, 4>;
    for (var k = 0u; k < 4u; k++) { cur[k] = X[base + t + k * 1024u]; }
""" + ROW + """}
"""

PIPE = """
@compute @workgroup_size(1024)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) t: u32,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32,
        @builtin(subgroup_size) size: u32) {
    let rows = arrayLength(&X) / ROW_U4;
    var r = wg.x;
    var cur: array<vec4<u32>, 4>;
    var nxt: array<vec4<u32>, 4>;
    for (var k = 0u; k < 4u; k++) { cur[k] = X[r * ROW_U4 + t + k * 1024u]; }
    loop {
        if (r >= rows) { break; }
        let rn = r + nwg.x;
        if (rn < rows) {
            for (var k = 0u; k < 4u; k++) { nxt[k] = X[rn * ROW_U4 + t + k * 1024u]; }
        }
        let base = r * ROW_U4;
""" + ROW + """
        cur = nxt;
        r = rn;
    }
}
"""

if __name__ == "__main__":
    for name, body in [("whole", WHOLE), ("raw", RAW), ("pipe", PIPE)]:
        with open(f"sm_{name}.wgsl", "w") as f:
            f.write(HEAD.replace("VARIANT", name) + body)
        print(f"sm_{name}.wgsl")
