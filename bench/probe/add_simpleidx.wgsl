// tilecast kernel "add": 256 threads per threadgroup
enable f16;

struct Args {
    n0_N: u32,
}
var<immediate> args: Args;

@group(0) @binding(0) var<storage, read> g0_X: array<f16>;
@group(0) @binding(1) var<storage, read> g1_Y2: array<f16>;
@group(0) @binding(2) var<storage, read_write> g2_Y: array<f16>;

fn ld_g0_X(i0: u32) -> f16 {
    if (i0 < args.n0_N) { return g0_X[i0]; }
    return f16(0);
}
fn ld_g1_Y2(i0: u32) -> f16 {
    if (i0 < args.n0_N) { return g1_Y2[i0]; }
    return f16(0);
}
fn ld_g2_Y(i0: u32) -> f16 {
    if (i0 < args.n0_N) { return g2_Y[i0]; }
    return f16(0);
}
fn st_g2_Y(i0: u32, v: f16) {
    if (i0 < args.n0_N) { g2_Y[i0] = v; }
}

@compute @workgroup_size(256)
fn tc_add(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let bx = wg.x;
    let by = wg.y;
    let bz = wg.z;
    var f0_X_values: array<f32, 8>;
    var f1_Y2_values: array<f32, 8>;
    {
        let r = (tid / 256u) * 1u;
        let c = tid % 256u;
        f0_X_values[0] = f32(ld_g0_X(((by * 32768u + bx) * 2048u) + c + 0u));
        f0_X_values[1] = f32(ld_g0_X(((by * 32768u + bx) * 2048u) + c + 256u));
        f0_X_values[2] = f32(ld_g0_X(((by * 32768u + bx) * 2048u) + c + 512u));
        f0_X_values[3] = f32(ld_g0_X(((by * 32768u + bx) * 2048u) + c + 768u));
        f0_X_values[4] = f32(ld_g0_X(((by * 32768u + bx) * 2048u) + c + 1024u));
        f0_X_values[5] = f32(ld_g0_X(((by * 32768u + bx) * 2048u) + c + 1280u));
        f0_X_values[6] = f32(ld_g0_X(((by * 32768u + bx) * 2048u) + c + 1536u));
        f0_X_values[7] = f32(ld_g0_X(((by * 32768u + bx) * 2048u) + c + 1792u));
    }
    {
        let r = (tid / 256u) * 1u;
        let c = tid % 256u;
        f1_Y2_values[0] = f32(ld_g1_Y2(((by * 32768u + bx) * 2048u) + c + 0u));
        f1_Y2_values[1] = f32(ld_g1_Y2(((by * 32768u + bx) * 2048u) + c + 256u));
        f1_Y2_values[2] = f32(ld_g1_Y2(((by * 32768u + bx) * 2048u) + c + 512u));
        f1_Y2_values[3] = f32(ld_g1_Y2(((by * 32768u + bx) * 2048u) + c + 768u));
        f1_Y2_values[4] = f32(ld_g1_Y2(((by * 32768u + bx) * 2048u) + c + 1024u));
        f1_Y2_values[5] = f32(ld_g1_Y2(((by * 32768u + bx) * 2048u) + c + 1280u));
        f1_Y2_values[6] = f32(ld_g1_Y2(((by * 32768u + bx) * 2048u) + c + 1536u));
        f1_Y2_values[7] = f32(ld_g1_Y2(((by * 32768u + bx) * 2048u) + c + 1792u));
    }
    for (var _i1 = 0u; _i1 < 1u; _i1++) {
        for (var _j2 = 0u; _j2 < 8u; _j2++) {
            let p4 = tid % 256u + _j2 * 256u;
            f0_X_values[_i1 * 8u + _j2] = (f0_X_values[_i1 * 8u + _j2] + f1_Y2_values[_i1 * 8u + _j2]);
        }
    }
    {
        let r = (tid / 256u) * 1u;
        let c = tid % 256u;
        st_g2_Y(((by * 32768u + bx) * 2048u) + c + 0u, f16(f0_X_values[0]));
        st_g2_Y(((by * 32768u + bx) * 2048u) + c + 256u, f16(f0_X_values[1]));
        st_g2_Y(((by * 32768u + bx) * 2048u) + c + 512u, f16(f0_X_values[2]));
        st_g2_Y(((by * 32768u + bx) * 2048u) + c + 768u, f16(f0_X_values[3]));
        st_g2_Y(((by * 32768u + bx) * 2048u) + c + 1024u, f16(f0_X_values[4]));
        st_g2_Y(((by * 32768u + bx) * 2048u) + c + 1280u, f16(f0_X_values[5]));
        st_g2_Y(((by * 32768u + bx) * 2048u) + c + 1536u, f16(f0_X_values[6]));
        st_g2_Y(((by * 32768u + bx) * 2048u) + c + 1792u, f16(f0_X_values[7]));
    }
}
