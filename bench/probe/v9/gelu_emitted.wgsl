// tilecast kernel "gelu": 256 threads per threadgroup
enable f16;

struct Args {
    n0_N: u32,
}
var<immediate> args: Args;

@group(0) @binding(0) var<storage, read> g0_X: array<f16>;
@group(0) @binding(1) var<storage, read_write> g1_Y: array<f16>;
@group(0) @binding(2) var<storage, read> v_g0_X: array<vec4<f16>>;
@group(0) @binding(3) var<storage, read_write> v_g1_Y: array<vec4<f16>>;

fn ld_g0_X(i0: u32) -> f16 {
    if (i0 < args.n0_N) { return g0_X[i0]; }
    return f16(0);
}
fn ldu_g0_X(i0: u32) -> f16 {
    return g0_X[i0];
}
fn ldv_g0_X(i0: u32) -> vec4<f16> {
    if (i0 < args.n0_N) { return v_g0_X[(i0) / 4u]; }
    return vec4<f16>(0);
}
fn ldvu_g0_X(i0: u32) -> vec4<f16> {
    return v_g0_X[(i0) / 4u];
}
fn ld_g1_Y(i0: u32) -> f16 {
    if (i0 < args.n0_N) { return g1_Y[i0]; }
    return f16(0);
}
fn ldv_g1_Y(i0: u32) -> vec4<f16> {
    if (i0 < args.n0_N) { return v_g1_Y[(i0) / 4u]; }
    return vec4<f16>(0);
}
fn ldvu_g1_Y(i0: u32) -> vec4<f16> {
    return v_g1_Y[(i0) / 4u];
}
fn stvu_g1_Y(i0: u32, v: vec4<f16>) {
    v_g1_Y[(i0) / 4u] = v;
}
fn st_g1_Y(i0: u32, v: f16) {
    if (i0 < args.n0_N) { g1_Y[i0] = v; }
}
fn stu_g1_Y(i0: u32, v: f16) {
    g1_Y[i0] = v;
}
// erf by Abramowitz & Stegun 7.1.26 (max error 1.5e-7).
fn tc_erf(x: f32) -> f32 {
    let t = 1.0 / (1.0 + 0.3275911 * abs(x));
    let y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * exp(-x * x);
    return select(-y, y, x >= 0.0);
}

@compute @workgroup_size(256)
fn tc_gelu(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let bx = wg.x;
    let by = wg.y;
    let bz = wg.z;
    var f0_X_values: array<f32, 8>;
    if (args.n0_N % 4u == 0u && ((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u)) % 4u == 0u && (((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) < args.n0_N && args.n0_N - ((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u)) >= 2048u) {
        {
            let r = (tid / 256u) * 1u;
            let c = (tid % 256u) * 4u;
            let v0 = ldvu_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 0u);
            let v1 = ldvu_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1024u);
            f0_X_values[0] = f32(v0.x);
            f0_X_values[1] = f32(v0.y);
            f0_X_values[2] = f32(v0.z);
            f0_X_values[3] = f32(v0.w);
            f0_X_values[4] = f32(v1.x);
            f0_X_values[5] = f32(v1.y);
            f0_X_values[6] = f32(v1.z);
            f0_X_values[7] = f32(v1.w);
        }
    }
    else {
        if ((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) < args.n0_N && args.n0_N - ((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u)) >= 2048u) {
            {
                let r = (tid / 256u) * 1u;
                let c = (tid % 256u) * 4u;
                f0_X_values[0] = f32(ldu_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 0u));
                f0_X_values[1] = f32(ldu_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1u));
                f0_X_values[2] = f32(ldu_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 2u));
                f0_X_values[3] = f32(ldu_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 3u));
                f0_X_values[4] = f32(ldu_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1024u));
                f0_X_values[5] = f32(ldu_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1025u));
                f0_X_values[6] = f32(ldu_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1026u));
                f0_X_values[7] = f32(ldu_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1027u));
            }
        }
        else {
            {
                let r = (tid / 256u) * 1u;
                let c = (tid % 256u) * 4u;
                f0_X_values[0] = f32(ld_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 0u));
                f0_X_values[1] = f32(ld_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1u));
                f0_X_values[2] = f32(ld_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 2u));
                f0_X_values[3] = f32(ld_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 3u));
                f0_X_values[4] = f32(ld_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1024u));
                f0_X_values[5] = f32(ld_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1025u));
                f0_X_values[6] = f32(ld_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1026u));
                f0_X_values[7] = f32(ld_g0_X((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1027u));
            }
        }
    }
    {
        let p4 = (tid % 256u) * 4u + 0u;
        f0_X_values[0u] = ((f0_X_values[0u] * 0.5f) * (f32(tc_erf(f32((f0_X_values[0u] * 0.70710677f)))) + 1.0f));
    }
    {
        let p4 = (tid % 256u) * 4u + 1u;
        f0_X_values[1u] = ((f0_X_values[1u] * 0.5f) * (f32(tc_erf(f32((f0_X_values[1u] * 0.70710677f)))) + 1.0f));
    }
    {
        let p4 = (tid % 256u) * 4u + 2u;
        f0_X_values[2u] = ((f0_X_values[2u] * 0.5f) * (f32(tc_erf(f32((f0_X_values[2u] * 0.70710677f)))) + 1.0f));
    }
    {
        let p4 = (tid % 256u) * 4u + 3u;
        f0_X_values[3u] = ((f0_X_values[3u] * 0.5f) * (f32(tc_erf(f32((f0_X_values[3u] * 0.70710677f)))) + 1.0f));
    }
    {
        let p4 = (tid % 256u) * 4u + 1024u;
        f0_X_values[4u] = ((f0_X_values[4u] * 0.5f) * (f32(tc_erf(f32((f0_X_values[4u] * 0.70710677f)))) + 1.0f));
    }
    {
        let p4 = (tid % 256u) * 4u + 1025u;
        f0_X_values[5u] = ((f0_X_values[5u] * 0.5f) * (f32(tc_erf(f32((f0_X_values[5u] * 0.70710677f)))) + 1.0f));
    }
    {
        let p4 = (tid % 256u) * 4u + 1026u;
        f0_X_values[6u] = ((f0_X_values[6u] * 0.5f) * (f32(tc_erf(f32((f0_X_values[6u] * 0.70710677f)))) + 1.0f));
    }
    {
        let p4 = (tid % 256u) * 4u + 1027u;
        f0_X_values[7u] = ((f0_X_values[7u] * 0.5f) * (f32(tc_erf(f32((f0_X_values[7u] * 0.70710677f)))) + 1.0f));
    }
    if (args.n0_N % 4u == 0u && ((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u)) % 4u == 0u && (((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) < args.n0_N && args.n0_N - ((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u)) >= 2048u) {
        {
            let r = (tid / 256u) * 1u;
            let c = (tid % 256u) * 4u;
            stvu_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 0u, vec4<f16>(f16(f0_X_values[0]), f16(f0_X_values[1]), f16(f0_X_values[2]), f16(f0_X_values[3])));
            stvu_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1024u, vec4<f16>(f16(f0_X_values[4]), f16(f0_X_values[5]), f16(f0_X_values[6]), f16(f0_X_values[7])));
        }
    }
    else {
        if ((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) < args.n0_N && args.n0_N - ((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u)) >= 2048u) {
            {
                let r = (tid / 256u) * 1u;
                let c = (tid % 256u) * 4u;
                stu_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 0u, f16(f0_X_values[0]));
                stu_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1u, f16(f0_X_values[1]));
                stu_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 2u, f16(f0_X_values[2]));
                stu_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 3u, f16(f0_X_values[3]));
                stu_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1024u, f16(f0_X_values[4]));
                stu_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1025u, f16(f0_X_values[5]));
                stu_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1026u, f16(f0_X_values[6]));
                stu_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1027u, f16(f0_X_values[7]));
            }
        }
        else {
            {
                let r = (tid / 256u) * 1u;
                let c = (tid % 256u) * 4u;
                st_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 0u, f16(f0_X_values[0]));
                st_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1u, f16(f0_X_values[1]));
                st_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 2u, f16(f0_X_values[2]));
                st_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 3u, f16(f0_X_values[3]));
                st_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1024u, f16(f0_X_values[4]));
                st_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1025u, f16(f0_X_values[5]));
                st_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1026u, f16(f0_X_values[6]));
                st_g1_Y((((by * ((((((args.n0_N + 2048u) - 1u) / 2048u) + ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2048u) - 1u) / 2048u) + 32768u) - 1u) / 32768u))) + bx) * 2048u) + c + 1027u, f16(f0_X_values[7]));
            }
        }
    }
}
