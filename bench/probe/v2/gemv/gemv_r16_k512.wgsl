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
var<workgroup> s2_x: array<f32, 512>;
var<workgroup> s3_acc: array<f32, 16>;
var<workgroup> s4_partials: array<f32, 1024>;

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
    var f0_w: array<f32, 32>;
    var f1_prod: array<f32, 32>;
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
    f1_prod[16] = 0.0f;
    f1_prod[17] = 0.0f;
    f1_prod[18] = 0.0f;
    f1_prod[19] = 0.0f;
    f1_prod[20] = 0.0f;
    f1_prod[21] = 0.0f;
    f1_prod[22] = 0.0f;
    f1_prod[23] = 0.0f;
    f1_prod[24] = 0.0f;
    f1_prod[25] = 0.0f;
    f1_prod[26] = 0.0f;
    f1_prod[27] = 0.0f;
    f1_prod[28] = 0.0f;
    f1_prod[29] = 0.0f;
    f1_prod[30] = 0.0f;
    f1_prod[31] = 0.0f;
    for (var i4 = 0u; i4 < (((args.n1_K + 512u) - 1u) / 512u); i4++) {
        {
            let r = (tid / 64u) * 4u;
            let c = tid % 64u;
            f0_w[0] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 0u, (i4 * 512u) + c + 0u));
            f0_w[1] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 0u, (i4 * 512u) + c + 64u));
            f0_w[2] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 0u, (i4 * 512u) + c + 128u));
            f0_w[3] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 0u, (i4 * 512u) + c + 192u));
            f0_w[4] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 0u, (i4 * 512u) + c + 256u));
            f0_w[5] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 0u, (i4 * 512u) + c + 320u));
            f0_w[6] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 0u, (i4 * 512u) + c + 384u));
            f0_w[7] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 0u, (i4 * 512u) + c + 448u));
            f0_w[8] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 1u, (i4 * 512u) + c + 0u));
            f0_w[9] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 1u, (i4 * 512u) + c + 64u));
            f0_w[10] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 1u, (i4 * 512u) + c + 128u));
            f0_w[11] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 1u, (i4 * 512u) + c + 192u));
            f0_w[12] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 1u, (i4 * 512u) + c + 256u));
            f0_w[13] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 1u, (i4 * 512u) + c + 320u));
            f0_w[14] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 1u, (i4 * 512u) + c + 384u));
            f0_w[15] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 1u, (i4 * 512u) + c + 448u));
            f0_w[16] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 2u, (i4 * 512u) + c + 0u));
            f0_w[17] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 2u, (i4 * 512u) + c + 64u));
            f0_w[18] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 2u, (i4 * 512u) + c + 128u));
            f0_w[19] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 2u, (i4 * 512u) + c + 192u));
            f0_w[20] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 2u, (i4 * 512u) + c + 256u));
            f0_w[21] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 2u, (i4 * 512u) + c + 320u));
            f0_w[22] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 2u, (i4 * 512u) + c + 384u));
            f0_w[23] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 2u, (i4 * 512u) + c + 448u));
            f0_w[24] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 3u, (i4 * 512u) + c + 0u));
            f0_w[25] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 3u, (i4 * 512u) + c + 64u));
            f0_w[26] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 3u, (i4 * 512u) + c + 128u));
            f0_w[27] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 3u, (i4 * 512u) + c + 192u));
            f0_w[28] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 3u, (i4 * 512u) + c + 256u));
            f0_w[29] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 3u, (i4 * 512u) + c + 320u));
            f0_w[30] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 3u, (i4 * 512u) + c + 384u));
            f0_w[31] = f32(ld_g0_W((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + r + 3u, (i4 * 512u) + c + 448u));
        }
        workgroupBarrier();
        if (args.n1_K % 4u == 0u && ((i4 * 512u)) % 4u == 0u) {
            for (var _e1 = tid; _e1 < 128u; _e1 += 256u) {
                let c0 = (_e1 * 4u / 1u) % 512u;
                let v = ldv_g1_X((i4 * 512u) + c0);
                s2_x[_e1 * 4u + 0u] = f32(v.x);
                s2_x[_e1 * 4u + 1u] = f32(v.y);
                s2_x[_e1 * 4u + 2u] = f32(v.z);
                s2_x[_e1 * 4u + 3u] = f32(v.w);
            }
        }
        else {
            for (var _e2_k = 0u; _e2_k < 2u; _e2_k++) {
                let _e2 = tid + _e2_k * 256u;
                let c0 = (_e2 / 1u) % 512u;
                s2_x[_e2] = f32(ld_g1_X((i4 * 512u) + c0));
            }
        }
        workgroupBarrier();
        {
            let p5 = (tid / 64u) * 4u + 0u;
            let p6 = tid % 64u + 0u;
            f1_prod[0u] = (f1_prod[0u] + (f0_w[0u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 0u;
            let p6 = tid % 64u + 64u;
            f1_prod[1u] = (f1_prod[1u] + (f0_w[1u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 0u;
            let p6 = tid % 64u + 128u;
            f1_prod[2u] = (f1_prod[2u] + (f0_w[2u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 0u;
            let p6 = tid % 64u + 192u;
            f1_prod[3u] = (f1_prod[3u] + (f0_w[3u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 0u;
            let p6 = tid % 64u + 256u;
            f1_prod[4u] = (f1_prod[4u] + (f0_w[4u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 0u;
            let p6 = tid % 64u + 320u;
            f1_prod[5u] = (f1_prod[5u] + (f0_w[5u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 0u;
            let p6 = tid % 64u + 384u;
            f1_prod[6u] = (f1_prod[6u] + (f0_w[6u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 0u;
            let p6 = tid % 64u + 448u;
            f1_prod[7u] = (f1_prod[7u] + (f0_w[7u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 1u;
            let p6 = tid % 64u + 0u;
            f1_prod[8u] = (f1_prod[8u] + (f0_w[8u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 1u;
            let p6 = tid % 64u + 64u;
            f1_prod[9u] = (f1_prod[9u] + (f0_w[9u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 1u;
            let p6 = tid % 64u + 128u;
            f1_prod[10u] = (f1_prod[10u] + (f0_w[10u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 1u;
            let p6 = tid % 64u + 192u;
            f1_prod[11u] = (f1_prod[11u] + (f0_w[11u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 1u;
            let p6 = tid % 64u + 256u;
            f1_prod[12u] = (f1_prod[12u] + (f0_w[12u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 1u;
            let p6 = tid % 64u + 320u;
            f1_prod[13u] = (f1_prod[13u] + (f0_w[13u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 1u;
            let p6 = tid % 64u + 384u;
            f1_prod[14u] = (f1_prod[14u] + (f0_w[14u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 1u;
            let p6 = tid % 64u + 448u;
            f1_prod[15u] = (f1_prod[15u] + (f0_w[15u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 2u;
            let p6 = tid % 64u + 0u;
            f1_prod[16u] = (f1_prod[16u] + (f0_w[16u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 2u;
            let p6 = tid % 64u + 64u;
            f1_prod[17u] = (f1_prod[17u] + (f0_w[17u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 2u;
            let p6 = tid % 64u + 128u;
            f1_prod[18u] = (f1_prod[18u] + (f0_w[18u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 2u;
            let p6 = tid % 64u + 192u;
            f1_prod[19u] = (f1_prod[19u] + (f0_w[19u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 2u;
            let p6 = tid % 64u + 256u;
            f1_prod[20u] = (f1_prod[20u] + (f0_w[20u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 2u;
            let p6 = tid % 64u + 320u;
            f1_prod[21u] = (f1_prod[21u] + (f0_w[21u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 2u;
            let p6 = tid % 64u + 384u;
            f1_prod[22u] = (f1_prod[22u] + (f0_w[22u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 2u;
            let p6 = tid % 64u + 448u;
            f1_prod[23u] = (f1_prod[23u] + (f0_w[23u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 3u;
            let p6 = tid % 64u + 0u;
            f1_prod[24u] = (f1_prod[24u] + (f0_w[24u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 3u;
            let p6 = tid % 64u + 64u;
            f1_prod[25u] = (f1_prod[25u] + (f0_w[25u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 3u;
            let p6 = tid % 64u + 128u;
            f1_prod[26u] = (f1_prod[26u] + (f0_w[26u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 3u;
            let p6 = tid % 64u + 192u;
            f1_prod[27u] = (f1_prod[27u] + (f0_w[27u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 3u;
            let p6 = tid % 64u + 256u;
            f1_prod[28u] = (f1_prod[28u] + (f0_w[28u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 3u;
            let p6 = tid % 64u + 320u;
            f1_prod[29u] = (f1_prod[29u] + (f0_w[29u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 3u;
            let p6 = tid % 64u + 384u;
            f1_prod[30u] = (f1_prod[30u] + (f0_w[30u] * s2_x[p6]));
        }
        {
            let p5 = (tid / 64u) * 4u + 3u;
            let p6 = tid % 64u + 448u;
            f1_prod[31u] = (f1_prod[31u] + (f0_w[31u] * s2_x[p6]));
        }
    }
    workgroupBarrier();
    {
        {
            var _p3 = 0.0f;
            _p3 = _p3 + f1_prod[0u * 8u + 0u];
            _p3 = _p3 + f1_prod[0u * 8u + 1u];
            _p3 = _p3 + f1_prod[0u * 8u + 2u];
            _p3 = _p3 + f1_prod[0u * 8u + 3u];
            _p3 = _p3 + f1_prod[0u * 8u + 4u];
            _p3 = _p3 + f1_prod[0u * 8u + 5u];
            _p3 = _p3 + f1_prod[0u * 8u + 6u];
            _p3 = _p3 + f1_prod[0u * 8u + 7u];
            s4_partials[((tid / 64u) * 4u + 0u) * 64u + tid % 64u] = _p3;
        }
        {
            var _p3 = 0.0f;
            _p3 = _p3 + f1_prod[1u * 8u + 0u];
            _p3 = _p3 + f1_prod[1u * 8u + 1u];
            _p3 = _p3 + f1_prod[1u * 8u + 2u];
            _p3 = _p3 + f1_prod[1u * 8u + 3u];
            _p3 = _p3 + f1_prod[1u * 8u + 4u];
            _p3 = _p3 + f1_prod[1u * 8u + 5u];
            _p3 = _p3 + f1_prod[1u * 8u + 6u];
            _p3 = _p3 + f1_prod[1u * 8u + 7u];
            s4_partials[((tid / 64u) * 4u + 1u) * 64u + tid % 64u] = _p3;
        }
        {
            var _p3 = 0.0f;
            _p3 = _p3 + f1_prod[2u * 8u + 0u];
            _p3 = _p3 + f1_prod[2u * 8u + 1u];
            _p3 = _p3 + f1_prod[2u * 8u + 2u];
            _p3 = _p3 + f1_prod[2u * 8u + 3u];
            _p3 = _p3 + f1_prod[2u * 8u + 4u];
            _p3 = _p3 + f1_prod[2u * 8u + 5u];
            _p3 = _p3 + f1_prod[2u * 8u + 6u];
            _p3 = _p3 + f1_prod[2u * 8u + 7u];
            s4_partials[((tid / 64u) * 4u + 2u) * 64u + tid % 64u] = _p3;
        }
        {
            var _p3 = 0.0f;
            _p3 = _p3 + f1_prod[3u * 8u + 0u];
            _p3 = _p3 + f1_prod[3u * 8u + 1u];
            _p3 = _p3 + f1_prod[3u * 8u + 2u];
            _p3 = _p3 + f1_prod[3u * 8u + 3u];
            _p3 = _p3 + f1_prod[3u * 8u + 4u];
            _p3 = _p3 + f1_prod[3u * 8u + 5u];
            _p3 = _p3 + f1_prod[3u * 8u + 6u];
            _p3 = _p3 + f1_prod[3u * 8u + 7u];
            s4_partials[((tid / 64u) * 4u + 3u) * 64u + tid % 64u] = _p3;
        }
        workgroupBarrier();
        for (var _o6 = sg_id; _o6 < 16u; _o6 += sg_count) {
            let q0 = (_o6 / 1u) % 16u;
            var acc = 0.0f;
            for (var _r7 = sg_lane; _r7 < 64u; _r7 += sg_size) {
                acc = acc + s4_partials[(q0) * 64u + _r7];
            }
            acc = subgroupAdd(acc);
            if (sg_lane == 0u) {
                s3_acc[_o6] = acc;
            }
        }
    }
    workgroupBarrier();
    for (var _e8 = tid; _e8 < 16u; _e8 += 256u) {
        let c0 = (_e8 / 1u) % 16u;
        st_g2_Y((((by * ((((((args.n0_N + 16u) - 1u) / 16u) + ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_N + 16u) - 1u) / 16u) + 32768u) - 1u) / 32768u))) + bx) * 16u) + c0, f16(s3_acc[_e8]));
    }
}
