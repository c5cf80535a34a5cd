// tilecast kernel "gemv": 256 threads per threadgroup
enable f16;

struct Args {
    n0_N: u32,
    n1_K: u32,
}
var<immediate> args: Args;

@group(0) @binding(0) var<storage, read> g0_W: array<f16>;
@group(0) @binding(1) var<storage, read> g1_X: array<f16>;
@group(0) @binding(2) var<storage, read_write> g2_Y: array<f16>;
@group(0) @binding(3) var<storage, read> v_g1_X: array<vec4<f16>>;
var<workgroup> s2_x: array<f32, 2048>;
var<workgroup> s3_acc: array<f32, 2>;
var<workgroup> s4_partials: array<f32, 16>;

fn ld_g0_W(i0: u32, i1: u32) -> f16 {
    if (i0 < args.n0_N && i1 < args.n1_K) { return g0_W[(i0) * args.n1_K + i1]; }
    return f16(0);
}
fn ld_g1_X(i0: u32) -> f16 {
    if (i0 < args.n1_K) { return g1_X[i0]; }
    return f16(0);
}
fn ldv_g1_X(i0: u32) -> vec4<f16> {
    if (i0 < args.n1_K) { return v_g1_X[(i0) / 4u]; }
    return vec4<f16>(0);
}
fn ld_g2_Y(i0: u32) -> f16 {
    if (i0 < args.n0_N) { return g2_Y[i0]; }
    return f16(0);
}
fn st_g2_Y(i0: u32, v: f16) {
    if (i0 < args.n0_N) { g2_Y[i0] = v; }
}

@compute @workgroup_size(256)
fn tc_gemv(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32) {
    let bx = wg.x;
    let by = wg.y;
    let bz = wg.z;
    var f0_w: array<f32, 16>;
    var f1_prod: array<f32, 16>;
    f1_prod[0] = 0.0f;
    f1_prod[1] = 0.0f;
    f1_prod[2] = 0.0f;
    f1_prod[3] = 0.0f;
    f1_prod[4] = 0.0f;
    f1_prod[5] = 0.0f;
    f1_prod[6] = 0.0f;
    f1_prod[7] = 0.0f;
    f1_prod[8] = 0.0f;
    f1_prod[9] = 0.0f;
    f1_prod[10] = 0.0f;
    f1_prod[11] = 0.0f;
    f1_prod[12] = 0.0f;
    f1_prod[13] = 0.0f;
    f1_prod[14] = 0.0f;
    f1_prod[15] = 0.0f;
    for (var i4 = 0u; i4 < (((args.n1_K + 2048u) - 1u) / 2048u); i4++) {
        {
            let r = (tid / 256u) * 2u;
            let c = tid % 256u;
            f0_w[0] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 0u));
            f0_w[1] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 256u));
            f0_w[2] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 512u));
            f0_w[3] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 768u));
            f0_w[4] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1024u));
            f0_w[5] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1280u));
            f0_w[6] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1536u));
            f0_w[7] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1792u));
            f0_w[8] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 0u));
            f0_w[9] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 256u));
            f0_w[10] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 512u));
            f0_w[11] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 768u));
            f0_w[12] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1024u));
            f0_w[13] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1280u));
            f0_w[14] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1536u));
            f0_w[15] = f32(ld_g0_W((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1792u));
        }
        workgroupBarrier();
        if (args.n1_K % 4u == 0u && ((i4 * 2048u)) % 4u == 0u) {
            let u0c0 = ((tid + 0u) * 4u / 1u) % 2048u;
            let v0 = ldv_g1_X((i4 * 2048u) + u0c0);
            let u1c0 = ((tid + 256u) * 4u / 1u) % 2048u;
            let v1 = ldv_g1_X((i4 * 2048u) + u1c0);
            s2_x[(tid + 0u) * 4u + 0u] = f32(v0.x);
            s2_x[(tid + 0u) * 4u + 1u] = f32(v0.y);
            s2_x[(tid + 0u) * 4u + 2u] = f32(v0.z);
            s2_x[(tid + 0u) * 4u + 3u] = f32(v0.w);
            s2_x[(tid + 256u) * 4u + 0u] = f32(v1.x);
            s2_x[(tid + 256u) * 4u + 1u] = f32(v1.y);
            s2_x[(tid + 256u) * 4u + 2u] = f32(v1.z);
            s2_x[(tid + 256u) * 4u + 3u] = f32(v1.w);
        }
        else {
            for (var _e1_k = 0u; _e1_k < 8u; _e1_k++) {
                let _e1 = tid + _e1_k * 256u;
                let c0 = (_e1 / 1u) % 2048u;
                s2_x[_e1] = f32(ld_g1_X((i4 * 2048u) + c0));
            }
        }
        workgroupBarrier();
        {
            let p5 = (tid / 256u) * 2u + 0u;
            let p6 = tid % 256u + 0u;
            f1_prod[0u] = (f1_prod[0u] + (f0_w[0u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 0u;
            let p6 = tid % 256u + 256u;
            f1_prod[1u] = (f1_prod[1u] + (f0_w[1u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 0u;
            let p6 = tid % 256u + 512u;
            f1_prod[2u] = (f1_prod[2u] + (f0_w[2u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 0u;
            let p6 = tid % 256u + 768u;
            f1_prod[3u] = (f1_prod[3u] + (f0_w[3u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 0u;
            let p6 = tid % 256u + 1024u;
            f1_prod[4u] = (f1_prod[4u] + (f0_w[4u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 0u;
            let p6 = tid % 256u + 1280u;
            f1_prod[5u] = (f1_prod[5u] + (f0_w[5u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 0u;
            let p6 = tid % 256u + 1536u;
            f1_prod[6u] = (f1_prod[6u] + (f0_w[6u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 0u;
            let p6 = tid % 256u + 1792u;
            f1_prod[7u] = (f1_prod[7u] + (f0_w[7u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 1u;
            let p6 = tid % 256u + 0u;
            f1_prod[8u] = (f1_prod[8u] + (f0_w[8u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 1u;
            let p6 = tid % 256u + 256u;
            f1_prod[9u] = (f1_prod[9u] + (f0_w[9u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 1u;
            let p6 = tid % 256u + 512u;
            f1_prod[10u] = (f1_prod[10u] + (f0_w[10u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 1u;
            let p6 = tid % 256u + 768u;
            f1_prod[11u] = (f1_prod[11u] + (f0_w[11u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 1u;
            let p6 = tid % 256u + 1024u;
            f1_prod[12u] = (f1_prod[12u] + (f0_w[12u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 1u;
            let p6 = tid % 256u + 1280u;
            f1_prod[13u] = (f1_prod[13u] + (f0_w[13u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 1u;
            let p6 = tid % 256u + 1536u;
            f1_prod[14u] = (f1_prod[14u] + (f0_w[14u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 256u) * 2u + 1u;
            let p6 = tid % 256u + 1792u;
            f1_prod[15u] = (f1_prod[15u] + (f0_w[15u] * s2_x[p6]));
        }
    }
    workgroupBarrier();
    {
        {
            var _p2 = 0.0f;
            _p2 = _p2 + f1_prod[0u * 8u + 0u];
            _p2 = _p2 + f1_prod[0u * 8u + 1u];
            _p2 = _p2 + f1_prod[0u * 8u + 2u];
            _p2 = _p2 + f1_prod[0u * 8u + 3u];
            _p2 = _p2 + f1_prod[0u * 8u + 4u];
            _p2 = _p2 + f1_prod[0u * 8u + 5u];
            _p2 = _p2 + f1_prod[0u * 8u + 6u];
            _p2 = _p2 + f1_prod[0u * 8u + 7u];
            _p2 = subgroupAdd(_p2);
            if (sg_lane == 0u) { s4_partials[(0u) * 8u + sg_id] = _p2; }
        }
        {
            var _p2 = 0.0f;
            _p2 = _p2 + f1_prod[1u * 8u + 0u];
            _p2 = _p2 + f1_prod[1u * 8u + 1u];
            _p2 = _p2 + f1_prod[1u * 8u + 2u];
            _p2 = _p2 + f1_prod[1u * 8u + 3u];
            _p2 = _p2 + f1_prod[1u * 8u + 4u];
            _p2 = _p2 + f1_prod[1u * 8u + 5u];
            _p2 = _p2 + f1_prod[1u * 8u + 6u];
            _p2 = _p2 + f1_prod[1u * 8u + 7u];
            _p2 = subgroupAdd(_p2);
            if (sg_lane == 0u) { s4_partials[(1u) * 8u + sg_id] = _p2; }
        }
        workgroupBarrier();
        for (var _o5 = tid; _o5 < 2u; _o5 += 256u) {
            var acc = 0.0f;
            for (var p = 0u; p < sg_count; p++) {
                acc = acc + s4_partials[_o5 * 8u + p];
            }
            s3_acc[_o5] = acc;
        }
    }
    workgroupBarrier();
    for (var _e6 = tid; _e6 < 2u; _e6 += 256u) {
        let c0 = (_e6 / 1u) % 2u;
        st_g2_Y((((by * ((((((args.n0_N + 2u) - 1u) / 2u) + ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 2u) - 1u) / 2u) + 32768u) - 1u) / 32768u))) + bx) * 2u) + c0, f16(s3_acc[_e6]));
    }
}
