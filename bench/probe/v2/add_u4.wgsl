// add, f16, 16-byte loads: each thread 2 x vec4<u32> (16 halves) per input.
enable f16;
@group(0) @binding(0) var<storage, read> x: array<vec4<u32>>;
@group(0) @binding(1) var<storage, read> y: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> o: array<vec4<u32>>;
fn add8(a: vec4<u32>, b: vec4<u32>) -> vec4<u32> {
    var r: vec4<u32>;
    for (var i = 0u; i < 4u; i++) {
        r[i] = bitcast<u32>(bitcast<vec2<f16>>(a[i]) + bitcast<vec2<f16>>(b[i]));
    }
    return r;
}
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let base = (wg.y * 32768u + wg.x) * 512u + tid;
    let a0 = x[base]; let a1 = x[base + 256u];
    let b0 = y[base]; let b1 = y[base + 256u];
    o[base] = add8(a0, b0);
    o[base + 256u] = add8(a1, b1);
}
