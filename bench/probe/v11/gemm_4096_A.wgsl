// tilecast kernel "gemm": 128 threads per threadgroup
enable f16;
enable wgpu_cooperative_matrix;

struct Args {
    n0_M: u32,
    n1_K: u32,
    n2_N: u32,
}
var<immediate> args: Args;

@group(0) @binding(0) var<storage, read> g0_A: array<f16>;
@group(0) @binding(1) var<storage, read> g1_B: array<f16>;
@group(0) @binding(2) var<storage, read_write> g2_C: array<f32>;
@group(0) @binding(3) var<storage, read> v_g0_A: array<vec4<f16>>;
@group(0) @binding(4) var<storage, read> v_g1_B: array<vec4<f16>>;
var<workgroup> s0_A_shared: array<f16, 5120>;
var<workgroup> s1_B_shared: array<f16, 4352>;
var<workgroup> s3_acc_matrix_scratch: array<f32, 1024>;

fn ld_g0_A(i0: u32, i1: u32) -> f16 {
    if (i0 < args.n0_M && i1 < args.n1_K) { return g0_A[(i0) * args.n1_K + i1]; }
    return f16(0);
}
fn ldv_g0_A(i0: u32, i1: u32) -> vec4<f16> {
    if (i0 < args.n0_M && i1 < args.n1_K) { return v_g0_A[((i0) * args.n1_K + i1) / 4u]; }
    return vec4<f16>(0);
}
fn ldvu_g0_A(i0: u32, i1: u32) -> vec4<f16> {
    return v_g0_A[((i0) * args.n1_K + i1) / 4u];
}
fn ld_g1_B(i0: u32, i1: u32) -> f16 {
    if (i0 < args.n1_K && i1 < args.n2_N) { return g1_B[(i0) * args.n2_N + i1]; }
    return f16(0);
}
fn ldv_g1_B(i0: u32, i1: u32) -> vec4<f16> {
    if (i0 < args.n1_K && i1 < args.n2_N) { return v_g1_B[((i0) * args.n2_N + i1) / 4u]; }
    return vec4<f16>(0);
}
fn ldvu_g1_B(i0: u32, i1: u32) -> vec4<f16> {
    return v_g1_B[((i0) * args.n2_N + i1) / 4u];
}
fn ld_g2_C(i0: u32, i1: u32) -> f32 {
    if (i0 < args.n0_M && i1 < args.n2_N) { return g2_C[(i0) * args.n2_N + i1]; }
    return f32(0);
}
fn st_g2_C(i0: u32, i1: u32, v: f32) {
    if (i0 < args.n0_M && i1 < args.n2_N) { g2_C[(i0) * args.n2_N + i1] = v; }
}

@compute @workgroup_size(128)
fn tc_gemm(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32) {
    let bx = wg.x;
    let by = wg.y;
    let bz = wg.z;
    var f2_acc_m0: coop_mat16x16<f32, C>;
    var f2_acc_m1: coop_mat16x16<f32, C>;
    var f2_acc_m2: coop_mat16x16<f32, C>;
    var f2_acc_m3: coop_mat16x16<f32, C>;
    var f2_acc_m4: coop_mat16x16<f32, C>;
    var f2_acc_m5: coop_mat16x16<f32, C>;
    var f2_acc_m6: coop_mat16x16<f32, C>;
    var f2_acc_m7: coop_mat16x16<f32, C>;
    var f2_acc_m8: coop_mat16x16<f32, C>;
    var f2_acc_m9: coop_mat16x16<f32, C>;
    var f2_acc_m10: coop_mat16x16<f32, C>;
    var f2_acc_m11: coop_mat16x16<f32, C>;
    var f2_acc_m12: coop_mat16x16<f32, C>;
    var f2_acc_m13: coop_mat16x16<f32, C>;
    var f2_acc_m14: coop_mat16x16<f32, C>;
    var f2_acc_m15: coop_mat16x16<f32, C>;
    f2_acc_m0 = coop_mat16x16<f32, C>();
    f2_acc_m1 = coop_mat16x16<f32, C>();
    f2_acc_m2 = coop_mat16x16<f32, C>();
    f2_acc_m3 = coop_mat16x16<f32, C>();
    f2_acc_m4 = coop_mat16x16<f32, C>();
    f2_acc_m5 = coop_mat16x16<f32, C>();
    f2_acc_m6 = coop_mat16x16<f32, C>();
    f2_acc_m7 = coop_mat16x16<f32, C>();
    f2_acc_m8 = coop_mat16x16<f32, C>();
    f2_acc_m9 = coop_mat16x16<f32, C>();
    f2_acc_m10 = coop_mat16x16<f32, C>();
    f2_acc_m11 = coop_mat16x16<f32, C>();
    f2_acc_m12 = coop_mat16x16<f32, C>();
    f2_acc_m13 = coop_mat16x16<f32, C>();
    f2_acc_m14 = coop_mat16x16<f32, C>();
    f2_acc_m15 = coop_mat16x16<f32, C>();
    for (var i4 = 0u; i4 < (((args.n1_K + 32u) - 1u) / 32u); i4++) {
        workgroupBarrier();
        if (args.n1_K % 4u == 0u && ((i4 * 32u)) % 4u == 0u && (by * 128u) < args.n0_M && args.n0_M - ((by * 128u)) >= 128u && (i4 * 32u) < args.n1_K && args.n1_K - ((i4 * 32u)) >= 32u && args.n2_N % 4u == 0u && ((bx * 128u)) % 4u == 0u && (i4 * 32u) < args.n1_K && args.n1_K - ((i4 * 32u)) >= 32u && (bx * 128u) < args.n2_N && args.n2_N - ((bx * 128u)) >= 128u) {
            let g0u0c0 = ((tid + 0u) * 4u / 32u) % 128u;
            let g0u0c1 = ((tid + 0u) * 4u / 1u) % 32u;
            let g0v0 = ldvu_g0_A((by * 128u) + g0u0c0, (i4 * 32u) + g0u0c1);
            let g0u1c0 = ((tid + 128u) * 4u / 32u) % 128u;
            let g0u1c1 = ((tid + 128u) * 4u / 1u) % 32u;
            let g0v1 = ldvu_g0_A((by * 128u) + g0u1c0, (i4 * 32u) + g0u1c1);
            let g0u2c0 = ((tid + 256u) * 4u / 32u) % 128u;
            let g0u2c1 = ((tid + 256u) * 4u / 1u) % 32u;
            let g0v2 = ldvu_g0_A((by * 128u) + g0u2c0, (i4 * 32u) + g0u2c1);
            let g0u3c0 = ((tid + 384u) * 4u / 32u) % 128u;
            let g0u3c1 = ((tid + 384u) * 4u / 1u) % 32u;
            let g0v3 = ldvu_g0_A((by * 128u) + g0u3c0, (i4 * 32u) + g0u3c1);
            let g0u4c0 = ((tid + 512u) * 4u / 32u) % 128u;
            let g0u4c1 = ((tid + 512u) * 4u / 1u) % 32u;
            let g0v4 = ldvu_g0_A((by * 128u) + g0u4c0, (i4 * 32u) + g0u4c1);
            let g0u5c0 = ((tid + 640u) * 4u / 32u) % 128u;
            let g0u5c1 = ((tid + 640u) * 4u / 1u) % 32u;
            let g0v5 = ldvu_g0_A((by * 128u) + g0u5c0, (i4 * 32u) + g0u5c1);
            let g0u6c0 = ((tid + 768u) * 4u / 32u) % 128u;
            let g0u6c1 = ((tid + 768u) * 4u / 1u) % 32u;
            let g0v6 = ldvu_g0_A((by * 128u) + g0u6c0, (i4 * 32u) + g0u6c1);
            let g0u7c0 = ((tid + 896u) * 4u / 32u) % 128u;
            let g0u7c1 = ((tid + 896u) * 4u / 1u) % 32u;
            let g0v7 = ldvu_g0_A((by * 128u) + g0u7c0, (i4 * 32u) + g0u7c1);
            let g1u0c0 = ((tid + 0u) * 4u / 128u) % 32u;
            let g1u0c1 = ((tid + 0u) * 4u / 1u) % 128u;
            let g1v0 = ldvu_g1_B((i4 * 32u) + g1u0c0, (bx * 128u) + g1u0c1);
            let g1u1c0 = ((tid + 128u) * 4u / 128u) % 32u;
            let g1u1c1 = ((tid + 128u) * 4u / 1u) % 128u;
            let g1v1 = ldvu_g1_B((i4 * 32u) + g1u1c0, (bx * 128u) + g1u1c1);
            let g1u2c0 = ((tid + 256u) * 4u / 128u) % 32u;
            let g1u2c1 = ((tid + 256u) * 4u / 1u) % 128u;
            let g1v2 = ldvu_g1_B((i4 * 32u) + g1u2c0, (bx * 128u) + g1u2c1);
            let g1u3c0 = ((tid + 384u) * 4u / 128u) % 32u;
            let g1u3c1 = ((tid + 384u) * 4u / 1u) % 128u;
            let g1v3 = ldvu_g1_B((i4 * 32u) + g1u3c0, (bx * 128u) + g1u3c1);
            let g1u4c0 = ((tid + 512u) * 4u / 128u) % 32u;
            let g1u4c1 = ((tid + 512u) * 4u / 1u) % 128u;
            let g1v4 = ldvu_g1_B((i4 * 32u) + g1u4c0, (bx * 128u) + g1u4c1);
            let g1u5c0 = ((tid + 640u) * 4u / 128u) % 32u;
            let g1u5c1 = ((tid + 640u) * 4u / 1u) % 128u;
            let g1v5 = ldvu_g1_B((i4 * 32u) + g1u5c0, (bx * 128u) + g1u5c1);
            let g1u6c0 = ((tid + 768u) * 4u / 128u) % 32u;
            let g1u6c1 = ((tid + 768u) * 4u / 1u) % 128u;
            let g1v6 = ldvu_g1_B((i4 * 32u) + g1u6c0, (bx * 128u) + g1u6c1);
            let g1u7c0 = ((tid + 896u) * 4u / 128u) % 32u;
            let g1u7c1 = ((tid + 896u) * 4u / 1u) % 128u;
            let g1v7 = ldvu_g1_B((i4 * 32u) + g1u7c0, (bx * 128u) + g1u7c1);
            s0_A_shared[(((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 0u] = f16(g0v0.x);
            s0_A_shared[(((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 1u] = f16(g0v0.y);
            s0_A_shared[(((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 2u] = f16(g0v0.z);
            s0_A_shared[(((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 3u] = f16(g0v0.w);
            s0_A_shared[(((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 0u] = f16(g0v1.x);
            s0_A_shared[(((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 1u] = f16(g0v1.y);
            s0_A_shared[(((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 2u] = f16(g0v1.z);
            s0_A_shared[(((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 3u] = f16(g0v1.w);
            s0_A_shared[(((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 0u] = f16(g0v2.x);
            s0_A_shared[(((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 1u] = f16(g0v2.y);
            s0_A_shared[(((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 2u] = f16(g0v2.z);
            s0_A_shared[(((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 3u] = f16(g0v2.w);
            s0_A_shared[(((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 0u] = f16(g0v3.x);
            s0_A_shared[(((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 1u] = f16(g0v3.y);
            s0_A_shared[(((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 2u] = f16(g0v3.z);
            s0_A_shared[(((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 3u] = f16(g0v3.w);
            s0_A_shared[(((tid + 512u) * 4u) / 32u) * 40u + ((tid + 512u) * 4u) % 32u + 0u] = f16(g0v4.x);
            s0_A_shared[(((tid + 512u) * 4u) / 32u) * 40u + ((tid + 512u) * 4u) % 32u + 1u] = f16(g0v4.y);
            s0_A_shared[(((tid + 512u) * 4u) / 32u) * 40u + ((tid + 512u) * 4u) % 32u + 2u] = f16(g0v4.z);
            s0_A_shared[(((tid + 512u) * 4u) / 32u) * 40u + ((tid + 512u) * 4u) % 32u + 3u] = f16(g0v4.w);
            s0_A_shared[(((tid + 640u) * 4u) / 32u) * 40u + ((tid + 640u) * 4u) % 32u + 0u] = f16(g0v5.x);
            s0_A_shared[(((tid + 640u) * 4u) / 32u) * 40u + ((tid + 640u) * 4u) % 32u + 1u] = f16(g0v5.y);
            s0_A_shared[(((tid + 640u) * 4u) / 32u) * 40u + ((tid + 640u) * 4u) % 32u + 2u] = f16(g0v5.z);
            s0_A_shared[(((tid + 640u) * 4u) / 32u) * 40u + ((tid + 640u) * 4u) % 32u + 3u] = f16(g0v5.w);
            s0_A_shared[(((tid + 768u) * 4u) / 32u) * 40u + ((tid + 768u) * 4u) % 32u + 0u] = f16(g0v6.x);
            s0_A_shared[(((tid + 768u) * 4u) / 32u) * 40u + ((tid + 768u) * 4u) % 32u + 1u] = f16(g0v6.y);
            s0_A_shared[(((tid + 768u) * 4u) / 32u) * 40u + ((tid + 768u) * 4u) % 32u + 2u] = f16(g0v6.z);
            s0_A_shared[(((tid + 768u) * 4u) / 32u) * 40u + ((tid + 768u) * 4u) % 32u + 3u] = f16(g0v6.w);
            s0_A_shared[(((tid + 896u) * 4u) / 32u) * 40u + ((tid + 896u) * 4u) % 32u + 0u] = f16(g0v7.x);
            s0_A_shared[(((tid + 896u) * 4u) / 32u) * 40u + ((tid + 896u) * 4u) % 32u + 1u] = f16(g0v7.y);
            s0_A_shared[(((tid + 896u) * 4u) / 32u) * 40u + ((tid + 896u) * 4u) % 32u + 2u] = f16(g0v7.z);
            s0_A_shared[(((tid + 896u) * 4u) / 32u) * 40u + ((tid + 896u) * 4u) % 32u + 3u] = f16(g0v7.w);
            s1_B_shared[(((tid + 0u) * 4u) / 128u) * 136u + ((tid + 0u) * 4u) % 128u + 0u] = f16(g1v0.x);
            s1_B_shared[(((tid + 0u) * 4u) / 128u) * 136u + ((tid + 0u) * 4u) % 128u + 1u] = f16(g1v0.y);
            s1_B_shared[(((tid + 0u) * 4u) / 128u) * 136u + ((tid + 0u) * 4u) % 128u + 2u] = f16(g1v0.z);
            s1_B_shared[(((tid + 0u) * 4u) / 128u) * 136u + ((tid + 0u) * 4u) % 128u + 3u] = f16(g1v0.w);
            s1_B_shared[(((tid + 128u) * 4u) / 128u) * 136u + ((tid + 128u) * 4u) % 128u + 0u] = f16(g1v1.x);
            s1_B_shared[(((tid + 128u) * 4u) / 128u) * 136u + ((tid + 128u) * 4u) % 128u + 1u] = f16(g1v1.y);
            s1_B_shared[(((tid + 128u) * 4u) / 128u) * 136u + ((tid + 128u) * 4u) % 128u + 2u] = f16(g1v1.z);
            s1_B_shared[(((tid + 128u) * 4u) / 128u) * 136u + ((tid + 128u) * 4u) % 128u + 3u] = f16(g1v1.w);
            s1_B_shared[(((tid + 256u) * 4u) / 128u) * 136u + ((tid + 256u) * 4u) % 128u + 0u] = f16(g1v2.x);
            s1_B_shared[(((tid + 256u) * 4u) / 128u) * 136u + ((tid + 256u) * 4u) % 128u + 1u] = f16(g1v2.y);
            s1_B_shared[(((tid + 256u) * 4u) / 128u) * 136u + ((tid + 256u) * 4u) % 128u + 2u] = f16(g1v2.z);
            s1_B_shared[(((tid + 256u) * 4u) / 128u) * 136u + ((tid + 256u) * 4u) % 128u + 3u] = f16(g1v2.w);
            s1_B_shared[(((tid + 384u) * 4u) / 128u) * 136u + ((tid + 384u) * 4u) % 128u + 0u] = f16(g1v3.x);
            s1_B_shared[(((tid + 384u) * 4u) / 128u) * 136u + ((tid + 384u) * 4u) % 128u + 1u] = f16(g1v3.y);
            s1_B_shared[(((tid + 384u) * 4u) / 128u) * 136u + ((tid + 384u) * 4u) % 128u + 2u] = f16(g1v3.z);
            s1_B_shared[(((tid + 384u) * 4u) / 128u) * 136u + ((tid + 384u) * 4u) % 128u + 3u] = f16(g1v3.w);
            s1_B_shared[(((tid + 512u) * 4u) / 128u) * 136u + ((tid + 512u) * 4u) % 128u + 0u] = f16(g1v4.x);
            s1_B_shared[(((tid + 512u) * 4u) / 128u) * 136u + ((tid + 512u) * 4u) % 128u + 1u] = f16(g1v4.y);
            s1_B_shared[(((tid + 512u) * 4u) / 128u) * 136u + ((tid + 512u) * 4u) % 128u + 2u] = f16(g1v4.z);
            s1_B_shared[(((tid + 512u) * 4u) / 128u) * 136u + ((tid + 512u) * 4u) % 128u + 3u] = f16(g1v4.w);
            s1_B_shared[(((tid + 640u) * 4u) / 128u) * 136u + ((tid + 640u) * 4u) % 128u + 0u] = f16(g1v5.x);
            s1_B_shared[(((tid + 640u) * 4u) / 128u) * 136u + ((tid + 640u) * 4u) % 128u + 1u] = f16(g1v5.y);
            s1_B_shared[(((tid + 640u) * 4u) / 128u) * 136u + ((tid + 640u) * 4u) % 128u + 2u] = f16(g1v5.z);
            s1_B_shared[(((tid + 640u) * 4u) / 128u) * 136u + ((tid + 640u) * 4u) % 128u + 3u] = f16(g1v5.w);
            s1_B_shared[(((tid + 768u) * 4u) / 128u) * 136u + ((tid + 768u) * 4u) % 128u + 0u] = f16(g1v6.x);
            s1_B_shared[(((tid + 768u) * 4u) / 128u) * 136u + ((tid + 768u) * 4u) % 128u + 1u] = f16(g1v6.y);
            s1_B_shared[(((tid + 768u) * 4u) / 128u) * 136u + ((tid + 768u) * 4u) % 128u + 2u] = f16(g1v6.z);
            s1_B_shared[(((tid + 768u) * 4u) / 128u) * 136u + ((tid + 768u) * 4u) % 128u + 3u] = f16(g1v6.w);
            s1_B_shared[(((tid + 896u) * 4u) / 128u) * 136u + ((tid + 896u) * 4u) % 128u + 0u] = f16(g1v7.x);
            s1_B_shared[(((tid + 896u) * 4u) / 128u) * 136u + ((tid + 896u) * 4u) % 128u + 1u] = f16(g1v7.y);
            s1_B_shared[(((tid + 896u) * 4u) / 128u) * 136u + ((tid + 896u) * 4u) % 128u + 2u] = f16(g1v7.z);
            s1_B_shared[(((tid + 896u) * 4u) / 128u) * 136u + ((tid + 896u) * 4u) % 128u + 3u] = f16(g1v7.w);
        }
        else {
            if (args.n1_K % 4u == 0u && ((i4 * 32u)) % 4u == 0u) {
                if ((by * 128u) < args.n0_M && args.n0_M - ((by * 128u)) >= 128u && (i4 * 32u) < args.n1_K && args.n1_K - ((i4 * 32u)) >= 32u) {
                    let u0c0 = ((tid + 0u) * 4u / 32u) % 128u;
                    let u0c1 = ((tid + 0u) * 4u / 1u) % 32u;
                    let v0 = ldvu_g0_A((by * 128u) + u0c0, (i4 * 32u) + u0c1);
                    let u1c0 = ((tid + 128u) * 4u / 32u) % 128u;
                    let u1c1 = ((tid + 128u) * 4u / 1u) % 32u;
                    let v1 = ldvu_g0_A((by * 128u) + u1c0, (i4 * 32u) + u1c1);
                    let u2c0 = ((tid + 256u) * 4u / 32u) % 128u;
                    let u2c1 = ((tid + 256u) * 4u / 1u) % 32u;
                    let v2 = ldvu_g0_A((by * 128u) + u2c0, (i4 * 32u) + u2c1);
                    let u3c0 = ((tid + 384u) * 4u / 32u) % 128u;
                    let u3c1 = ((tid + 384u) * 4u / 1u) % 32u;
                    let v3 = ldvu_g0_A((by * 128u) + u3c0, (i4 * 32u) + u3c1);
                    let u4c0 = ((tid + 512u) * 4u / 32u) % 128u;
                    let u4c1 = ((tid + 512u) * 4u / 1u) % 32u;
                    let v4 = ldvu_g0_A((by * 128u) + u4c0, (i4 * 32u) + u4c1);
                    let u5c0 = ((tid + 640u) * 4u / 32u) % 128u;
                    let u5c1 = ((tid + 640u) * 4u / 1u) % 32u;
                    let v5 = ldvu_g0_A((by * 128u) + u5c0, (i4 * 32u) + u5c1);
                    let u6c0 = ((tid + 768u) * 4u / 32u) % 128u;
                    let u6c1 = ((tid + 768u) * 4u / 1u) % 32u;
                    let v6 = ldvu_g0_A((by * 128u) + u6c0, (i4 * 32u) + u6c1);
                    let u7c0 = ((tid + 896u) * 4u / 32u) % 128u;
                    let u7c1 = ((tid + 896u) * 4u / 1u) % 32u;
                    let v7 = ldvu_g0_A((by * 128u) + u7c0, (i4 * 32u) + u7c1);
                    s0_A_shared[(((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 0u] = f16(v0.x);
                    s0_A_shared[(((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 1u] = f16(v0.y);
                    s0_A_shared[(((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 2u] = f16(v0.z);
                    s0_A_shared[(((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 3u] = f16(v0.w);
                    s0_A_shared[(((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 0u] = f16(v1.x);
                    s0_A_shared[(((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 1u] = f16(v1.y);
                    s0_A_shared[(((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 2u] = f16(v1.z);
                    s0_A_shared[(((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 3u] = f16(v1.w);
                    s0_A_shared[(((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 0u] = f16(v2.x);
                    s0_A_shared[(((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 1u] = f16(v2.y);
                    s0_A_shared[(((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 2u] = f16(v2.z);
                    s0_A_shared[(((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 3u] = f16(v2.w);
                    s0_A_shared[(((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 0u] = f16(v3.x);
                    s0_A_shared[(((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 1u] = f16(v3.y);
                    s0_A_shared[(((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 2u] = f16(v3.z);
                    s0_A_shared[(((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 3u] = f16(v3.w);
                    s0_A_shared[(((tid + 512u) * 4u) / 32u) * 40u + ((tid + 512u) * 4u) % 32u + 0u] = f16(v4.x);
                    s0_A_shared[(((tid + 512u) * 4u) / 32u) * 40u + ((tid + 512u) * 4u) % 32u + 1u] = f16(v4.y);
                    s0_A_shared[(((tid + 512u) * 4u) / 32u) * 40u + ((tid + 512u) * 4u) % 32u + 2u] = f16(v4.z);
                    s0_A_shared[(((tid + 512u) * 4u) / 32u) * 40u + ((tid + 512u) * 4u) % 32u + 3u] = f16(v4.w);
                    s0_A_shared[(((tid + 640u) * 4u) / 32u) * 40u + ((tid + 640u) * 4u) % 32u + 0u] = f16(v5.x);
                    s0_A_shared[(((tid + 640u) * 4u) / 32u) * 40u + ((tid + 640u) * 4u) % 32u + 1u] = f16(v5.y);
                    s0_A_shared[(((tid + 640u) * 4u) / 32u) * 40u + ((tid + 640u) * 4u) % 32u + 2u] = f16(v5.z);
                    s0_A_shared[(((tid + 640u) * 4u) / 32u) * 40u + ((tid + 640u) * 4u) % 32u + 3u] = f16(v5.w);
                    s0_A_shared[(((tid + 768u) * 4u) / 32u) * 40u + ((tid + 768u) * 4u) % 32u + 0u] = f16(v6.x);
                    s0_A_shared[(((tid + 768u) * 4u) / 32u) * 40u + ((tid + 768u) * 4u) % 32u + 1u] = f16(v6.y);
                    s0_A_shared[(((tid + 768u) * 4u) / 32u) * 40u + ((tid + 768u) * 4u) % 32u + 2u] = f16(v6.z);
                    s0_A_shared[(((tid + 768u) * 4u) / 32u) * 40u + ((tid + 768u) * 4u) % 32u + 3u] = f16(v6.w);
                    s0_A_shared[(((tid + 896u) * 4u) / 32u) * 40u + ((tid + 896u) * 4u) % 32u + 0u] = f16(v7.x);
                    s0_A_shared[(((tid + 896u) * 4u) / 32u) * 40u + ((tid + 896u) * 4u) % 32u + 1u] = f16(v7.y);
                    s0_A_shared[(((tid + 896u) * 4u) / 32u) * 40u + ((tid + 896u) * 4u) % 32u + 2u] = f16(v7.z);
                    s0_A_shared[(((tid + 896u) * 4u) / 32u) * 40u + ((tid + 896u) * 4u) % 32u + 3u] = f16(v7.w);
                }
                else {
                    let u0c0 = ((tid + 0u) * 4u / 32u) % 128u;
                    let u0c1 = ((tid + 0u) * 4u / 1u) % 32u;
                    let v0 = ldv_g0_A((by * 128u) + u0c0, (i4 * 32u) + u0c1);
                    let u1c0 = ((tid + 128u) * 4u / 32u) % 128u;
                    let u1c1 = ((tid + 128u) * 4u / 1u) % 32u;
                    let v1 = ldv_g0_A((by * 128u) + u1c0, (i4 * 32u) + u1c1);
                    let u2c0 = ((tid + 256u) * 4u / 32u) % 128u;
                    let u2c1 = ((tid + 256u) * 4u / 1u) % 32u;
                    let v2 = ldv_g0_A((by * 128u) + u2c0, (i4 * 32u) + u2c1);
                    let u3c0 = ((tid + 384u) * 4u / 32u) % 128u;
                    let u3c1 = ((tid + 384u) * 4u / 1u) % 32u;
                    let v3 = ldv_g0_A((by * 128u) + u3c0, (i4 * 32u) + u3c1);
                    let u4c0 = ((tid + 512u) * 4u / 32u) % 128u;
                    let u4c1 = ((tid + 512u) * 4u / 1u) % 32u;
                    let v4 = ldv_g0_A((by * 128u) + u4c0, (i4 * 32u) + u4c1);
                    let u5c0 = ((tid + 640u) * 4u / 32u) % 128u;
                    let u5c1 = ((tid + 640u) * 4u / 1u) % 32u;
                    let v5 = ldv_g0_A((by * 128u) + u5c0, (i4 * 32u) + u5c1);
                    let u6c0 = ((tid + 768u) * 4u / 32u) % 128u;
                    let u6c1 = ((tid + 768u) * 4u / 1u) % 32u;
                    let v6 = ldv_g0_A((by * 128u) + u6c0, (i4 * 32u) + u6c1);
                    let u7c0 = ((tid + 896u) * 4u / 32u) % 128u;
                    let u7c1 = ((tid + 896u) * 4u / 1u) % 32u;
                    let v7 = ldv_g0_A((by * 128u) + u7c0, (i4 * 32u) + u7c1);
                    s0_A_shared[(((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 0u] = f16(v0.x);
                    s0_A_shared[(((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 1u] = f16(v0.y);
                    s0_A_shared[(((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 2u] = f16(v0.z);
                    s0_A_shared[(((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 3u] = f16(v0.w);
                    s0_A_shared[(((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 0u] = f16(v1.x);
                    s0_A_shared[(((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 1u] = f16(v1.y);
                    s0_A_shared[(((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 2u] = f16(v1.z);
                    s0_A_shared[(((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 3u] = f16(v1.w);
                    s0_A_shared[(((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 0u] = f16(v2.x);
                    s0_A_shared[(((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 1u] = f16(v2.y);
                    s0_A_shared[(((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 2u] = f16(v2.z);
                    s0_A_shared[(((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 3u] = f16(v2.w);
                    s0_A_shared[(((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 0u] = f16(v3.x);
                    s0_A_shared[(((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 1u] = f16(v3.y);
                    s0_A_shared[(((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 2u] = f16(v3.z);
                    s0_A_shared[(((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 3u] = f16(v3.w);
                    s0_A_shared[(((tid + 512u) * 4u) / 32u) * 40u + ((tid + 512u) * 4u) % 32u + 0u] = f16(v4.x);
                    s0_A_shared[(((tid + 512u) * 4u) / 32u) * 40u + ((tid + 512u) * 4u) % 32u + 1u] = f16(v4.y);
                    s0_A_shared[(((tid + 512u) * 4u) / 32u) * 40u + ((tid + 512u) * 4u) % 32u + 2u] = f16(v4.z);
                    s0_A_shared[(((tid + 512u) * 4u) / 32u) * 40u + ((tid + 512u) * 4u) % 32u + 3u] = f16(v4.w);
                    s0_A_shared[(((tid + 640u) * 4u) / 32u) * 40u + ((tid + 640u) * 4u) % 32u + 0u] = f16(v5.x);
                    s0_A_shared[(((tid + 640u) * 4u) / 32u) * 40u + ((tid + 640u) * 4u) % 32u + 1u] = f16(v5.y);
                    s0_A_shared[(((tid + 640u) * 4u) / 32u) * 40u + ((tid + 640u) * 4u) % 32u + 2u] = f16(v5.z);
                    s0_A_shared[(((tid + 640u) * 4u) / 32u) * 40u + ((tid + 640u) * 4u) % 32u + 3u] = f16(v5.w);
                    s0_A_shared[(((tid + 768u) * 4u) / 32u) * 40u + ((tid + 768u) * 4u) % 32u + 0u] = f16(v6.x);
                    s0_A_shared[(((tid + 768u) * 4u) / 32u) * 40u + ((tid + 768u) * 4u) % 32u + 1u] = f16(v6.y);
                    s0_A_shared[(((tid + 768u) * 4u) / 32u) * 40u + ((tid + 768u) * 4u) % 32u + 2u] = f16(v6.z);
                    s0_A_shared[(((tid + 768u) * 4u) / 32u) * 40u + ((tid + 768u) * 4u) % 32u + 3u] = f16(v6.w);
                    s0_A_shared[(((tid + 896u) * 4u) / 32u) * 40u + ((tid + 896u) * 4u) % 32u + 0u] = f16(v7.x);
                    s0_A_shared[(((tid + 896u) * 4u) / 32u) * 40u + ((tid + 896u) * 4u) % 32u + 1u] = f16(v7.y);
                    s0_A_shared[(((tid + 896u) * 4u) / 32u) * 40u + ((tid + 896u) * 4u) % 32u + 2u] = f16(v7.z);
                    s0_A_shared[(((tid + 896u) * 4u) / 32u) * 40u + ((tid + 896u) * 4u) % 32u + 3u] = f16(v7.w);
                }
            }
            else {
                for (var _e1_k = 0u; _e1_k < 32u; _e1_k++) {
                    let _e1 = tid + _e1_k * 128u;
                    let c0 = (_e1 / 32u) % 128u;
                    let c1 = (_e1 / 1u) % 32u;
                    s0_A_shared[((_e1) / 32u) * 40u + (_e1) % 32u] = f16(ld_g0_A((by * 128u) + c0, (i4 * 32u) + c1));
                }
            }
            if (args.n2_N % 4u == 0u && ((bx * 128u)) % 4u == 0u) {
                if ((i4 * 32u) < args.n1_K && args.n1_K - ((i4 * 32u)) >= 32u && (bx * 128u) < args.n2_N && args.n2_N - ((bx * 128u)) >= 128u) {
                    let u0c0 = ((tid + 0u) * 4u / 128u) % 32u;
                    let u0c1 = ((tid + 0u) * 4u / 1u) % 128u;
                    let v0 = ldvu_g1_B((i4 * 32u) + u0c0, (bx * 128u) + u0c1);
                    let u1c0 = ((tid + 128u) * 4u / 128u) % 32u;
                    let u1c1 = ((tid + 128u) * 4u / 1u) % 128u;
                    let v1 = ldvu_g1_B((i4 * 32u) + u1c0, (bx * 128u) + u1c1);
                    let u2c0 = ((tid + 256u) * 4u / 128u) % 32u;
                    let u2c1 = ((tid + 256u) * 4u / 1u) % 128u;
                    let v2 = ldvu_g1_B((i4 * 32u) + u2c0, (bx * 128u) + u2c1);
                    let u3c0 = ((tid + 384u) * 4u / 128u) % 32u;
                    let u3c1 = ((tid + 384u) * 4u / 1u) % 128u;
                    let v3 = ldvu_g1_B((i4 * 32u) + u3c0, (bx * 128u) + u3c1);
                    let u4c0 = ((tid + 512u) * 4u / 128u) % 32u;
                    let u4c1 = ((tid + 512u) * 4u / 1u) % 128u;
                    let v4 = ldvu_g1_B((i4 * 32u) + u4c0, (bx * 128u) + u4c1);
                    let u5c0 = ((tid + 640u) * 4u / 128u) % 32u;
                    let u5c1 = ((tid + 640u) * 4u / 1u) % 128u;
                    let v5 = ldvu_g1_B((i4 * 32u) + u5c0, (bx * 128u) + u5c1);
                    let u6c0 = ((tid + 768u) * 4u / 128u) % 32u;
                    let u6c1 = ((tid + 768u) * 4u / 1u) % 128u;
                    let v6 = ldvu_g1_B((i4 * 32u) + u6c0, (bx * 128u) + u6c1);
                    let u7c0 = ((tid + 896u) * 4u / 128u) % 32u;
                    let u7c1 = ((tid + 896u) * 4u / 1u) % 128u;
                    let v7 = ldvu_g1_B((i4 * 32u) + u7c0, (bx * 128u) + u7c1);
                    s1_B_shared[(((tid + 0u) * 4u) / 128u) * 136u + ((tid + 0u) * 4u) % 128u + 0u] = f16(v0.x);
                    s1_B_shared[(((tid + 0u) * 4u) / 128u) * 136u + ((tid + 0u) * 4u) % 128u + 1u] = f16(v0.y);
                    s1_B_shared[(((tid + 0u) * 4u) / 128u) * 136u + ((tid + 0u) * 4u) % 128u + 2u] = f16(v0.z);
                    s1_B_shared[(((tid + 0u) * 4u) / 128u) * 136u + ((tid + 0u) * 4u) % 128u + 3u] = f16(v0.w);
                    s1_B_shared[(((tid + 128u) * 4u) / 128u) * 136u + ((tid + 128u) * 4u) % 128u + 0u] = f16(v1.x);
                    s1_B_shared[(((tid + 128u) * 4u) / 128u) * 136u + ((tid + 128u) * 4u) % 128u + 1u] = f16(v1.y);
                    s1_B_shared[(((tid + 128u) * 4u) / 128u) * 136u + ((tid + 128u) * 4u) % 128u + 2u] = f16(v1.z);
                    s1_B_shared[(((tid + 128u) * 4u) / 128u) * 136u + ((tid + 128u) * 4u) % 128u + 3u] = f16(v1.w);
                    s1_B_shared[(((tid + 256u) * 4u) / 128u) * 136u + ((tid + 256u) * 4u) % 128u + 0u] = f16(v2.x);
                    s1_B_shared[(((tid + 256u) * 4u) / 128u) * 136u + ((tid + 256u) * 4u) % 128u + 1u] = f16(v2.y);
                    s1_B_shared[(((tid + 256u) * 4u) / 128u) * 136u + ((tid + 256u) * 4u) % 128u + 2u] = f16(v2.z);
                    s1_B_shared[(((tid + 256u) * 4u) / 128u) * 136u + ((tid + 256u) * 4u) % 128u + 3u] = f16(v2.w);
                    s1_B_shared[(((tid + 384u) * 4u) / 128u) * 136u + ((tid + 384u) * 4u) % 128u + 0u] = f16(v3.x);
                    s1_B_shared[(((tid + 384u) * 4u) / 128u) * 136u + ((tid + 384u) * 4u) % 128u + 1u] = f16(v3.y);
                    s1_B_shared[(((tid + 384u) * 4u) / 128u) * 136u + ((tid + 384u) * 4u) % 128u + 2u] = f16(v3.z);
                    s1_B_shared[(((tid + 384u) * 4u) / 128u) * 136u + ((tid + 384u) * 4u) % 128u + 3u] = f16(v3.w);
                    s1_B_shared[(((tid + 512u) * 4u) / 128u) * 136u + ((tid + 512u) * 4u) % 128u + 0u] = f16(v4.x);
                    s1_B_shared[(((tid + 512u) * 4u) / 128u) * 136u + ((tid + 512u) * 4u) % 128u + 1u] = f16(v4.y);
                    s1_B_shared[(((tid + 512u) * 4u) / 128u) * 136u + ((tid + 512u) * 4u) % 128u + 2u] = f16(v4.z);
                    s1_B_shared[(((tid + 512u) * 4u) / 128u) * 136u + ((tid + 512u) * 4u) % 128u + 3u] = f16(v4.w);
                    s1_B_shared[(((tid + 640u) * 4u) / 128u) * 136u + ((tid + 640u) * 4u) % 128u + 0u] = f16(v5.x);
                    s1_B_shared[(((tid + 640u) * 4u) / 128u) * 136u + ((tid + 640u) * 4u) % 128u + 1u] = f16(v5.y);
                    s1_B_shared[(((tid + 640u) * 4u) / 128u) * 136u + ((tid + 640u) * 4u) % 128u + 2u] = f16(v5.z);
                    s1_B_shared[(((tid + 640u) * 4u) / 128u) * 136u + ((tid + 640u) * 4u) % 128u + 3u] = f16(v5.w);
                    s1_B_shared[(((tid + 768u) * 4u) / 128u) * 136u + ((tid + 768u) * 4u) % 128u + 0u] = f16(v6.x);
                    s1_B_shared[(((tid + 768u) * 4u) / 128u) * 136u + ((tid + 768u) * 4u) % 128u + 1u] = f16(v6.y);
                    s1_B_shared[(((tid + 768u) * 4u) / 128u) * 136u + ((tid + 768u) * 4u) % 128u + 2u] = f16(v6.z);
                    s1_B_shared[(((tid + 768u) * 4u) / 128u) * 136u + ((tid + 768u) * 4u) % 128u + 3u] = f16(v6.w);
                    s1_B_shared[(((tid + 896u) * 4u) / 128u) * 136u + ((tid + 896u) * 4u) % 128u + 0u] = f16(v7.x);
                    s1_B_shared[(((tid + 896u) * 4u) / 128u) * 136u + ((tid + 896u) * 4u) % 128u + 1u] = f16(v7.y);
                    s1_B_shared[(((tid + 896u) * 4u) / 128u) * 136u + ((tid + 896u) * 4u) % 128u + 2u] = f16(v7.z);
                    s1_B_shared[(((tid + 896u) * 4u) / 128u) * 136u + ((tid + 896u) * 4u) % 128u + 3u] = f16(v7.w);
                }
                else {
                    let u0c0 = ((tid + 0u) * 4u / 128u) % 32u;
                    let u0c1 = ((tid + 0u) * 4u / 1u) % 128u;
                    let v0 = ldv_g1_B((i4 * 32u) + u0c0, (bx * 128u) + u0c1);
                    let u1c0 = ((tid + 128u) * 4u / 128u) % 32u;
                    let u1c1 = ((tid + 128u) * 4u / 1u) % 128u;
                    let v1 = ldv_g1_B((i4 * 32u) + u1c0, (bx * 128u) + u1c1);
                    let u2c0 = ((tid + 256u) * 4u / 128u) % 32u;
                    let u2c1 = ((tid + 256u) * 4u / 1u) % 128u;
                    let v2 = ldv_g1_B((i4 * 32u) + u2c0, (bx * 128u) + u2c1);
                    let u3c0 = ((tid + 384u) * 4u / 128u) % 32u;
                    let u3c1 = ((tid + 384u) * 4u / 1u) % 128u;
                    let v3 = ldv_g1_B((i4 * 32u) + u3c0, (bx * 128u) + u3c1);
                    let u4c0 = ((tid + 512u) * 4u / 128u) % 32u;
                    let u4c1 = ((tid + 512u) * 4u / 1u) % 128u;
                    let v4 = ldv_g1_B((i4 * 32u) + u4c0, (bx * 128u) + u4c1);
                    let u5c0 = ((tid + 640u) * 4u / 128u) % 32u;
                    let u5c1 = ((tid + 640u) * 4u / 1u) % 128u;
                    let v5 = ldv_g1_B((i4 * 32u) + u5c0, (bx * 128u) + u5c1);
                    let u6c0 = ((tid + 768u) * 4u / 128u) % 32u;
                    let u6c1 = ((tid + 768u) * 4u / 1u) % 128u;
                    let v6 = ldv_g1_B((i4 * 32u) + u6c0, (bx * 128u) + u6c1);
                    let u7c0 = ((tid + 896u) * 4u / 128u) % 32u;
                    let u7c1 = ((tid + 896u) * 4u / 1u) % 128u;
                    let v7 = ldv_g1_B((i4 * 32u) + u7c0, (bx * 128u) + u7c1);
                    s1_B_shared[(((tid + 0u) * 4u) / 128u) * 136u + ((tid + 0u) * 4u) % 128u + 0u] = f16(v0.x);
                    s1_B_shared[(((tid + 0u) * 4u) / 128u) * 136u + ((tid + 0u) * 4u) % 128u + 1u] = f16(v0.y);
                    s1_B_shared[(((tid + 0u) * 4u) / 128u) * 136u + ((tid + 0u) * 4u) % 128u + 2u] = f16(v0.z);
                    s1_B_shared[(((tid + 0u) * 4u) / 128u) * 136u + ((tid + 0u) * 4u) % 128u + 3u] = f16(v0.w);
                    s1_B_shared[(((tid + 128u) * 4u) / 128u) * 136u + ((tid + 128u) * 4u) % 128u + 0u] = f16(v1.x);
                    s1_B_shared[(((tid + 128u) * 4u) / 128u) * 136u + ((tid + 128u) * 4u) % 128u + 1u] = f16(v1.y);
                    s1_B_shared[(((tid + 128u) * 4u) / 128u) * 136u + ((tid + 128u) * 4u) % 128u + 2u] = f16(v1.z);
                    s1_B_shared[(((tid + 128u) * 4u) / 128u) * 136u + ((tid + 128u) * 4u) % 128u + 3u] = f16(v1.w);
                    s1_B_shared[(((tid + 256u) * 4u) / 128u) * 136u + ((tid + 256u) * 4u) % 128u + 0u] = f16(v2.x);
                    s1_B_shared[(((tid + 256u) * 4u) / 128u) * 136u + ((tid + 256u) * 4u) % 128u + 1u] = f16(v2.y);
                    s1_B_shared[(((tid + 256u) * 4u) / 128u) * 136u + ((tid + 256u) * 4u) % 128u + 2u] = f16(v2.z);
                    s1_B_shared[(((tid + 256u) * 4u) / 128u) * 136u + ((tid + 256u) * 4u) % 128u + 3u] = f16(v2.w);
                    s1_B_shared[(((tid + 384u) * 4u) / 128u) * 136u + ((tid + 384u) * 4u) % 128u + 0u] = f16(v3.x);
                    s1_B_shared[(((tid + 384u) * 4u) / 128u) * 136u + ((tid + 384u) * 4u) % 128u + 1u] = f16(v3.y);
                    s1_B_shared[(((tid + 384u) * 4u) / 128u) * 136u + ((tid + 384u) * 4u) % 128u + 2u] = f16(v3.z);
                    s1_B_shared[(((tid + 384u) * 4u) / 128u) * 136u + ((tid + 384u) * 4u) % 128u + 3u] = f16(v3.w);
                    s1_B_shared[(((tid + 512u) * 4u) / 128u) * 136u + ((tid + 512u) * 4u) % 128u + 0u] = f16(v4.x);
                    s1_B_shared[(((tid + 512u) * 4u) / 128u) * 136u + ((tid + 512u) * 4u) % 128u + 1u] = f16(v4.y);
                    s1_B_shared[(((tid + 512u) * 4u) / 128u) * 136u + ((tid + 512u) * 4u) % 128u + 2u] = f16(v4.z);
                    s1_B_shared[(((tid + 512u) * 4u) / 128u) * 136u + ((tid + 512u) * 4u) % 128u + 3u] = f16(v4.w);
                    s1_B_shared[(((tid + 640u) * 4u) / 128u) * 136u + ((tid + 640u) * 4u) % 128u + 0u] = f16(v5.x);
                    s1_B_shared[(((tid + 640u) * 4u) / 128u) * 136u + ((tid + 640u) * 4u) % 128u + 1u] = f16(v5.y);
                    s1_B_shared[(((tid + 640u) * 4u) / 128u) * 136u + ((tid + 640u) * 4u) % 128u + 2u] = f16(v5.z);
                    s1_B_shared[(((tid + 640u) * 4u) / 128u) * 136u + ((tid + 640u) * 4u) % 128u + 3u] = f16(v5.w);
                    s1_B_shared[(((tid + 768u) * 4u) / 128u) * 136u + ((tid + 768u) * 4u) % 128u + 0u] = f16(v6.x);
                    s1_B_shared[(((tid + 768u) * 4u) / 128u) * 136u + ((tid + 768u) * 4u) % 128u + 1u] = f16(v6.y);
                    s1_B_shared[(((tid + 768u) * 4u) / 128u) * 136u + ((tid + 768u) * 4u) % 128u + 2u] = f16(v6.z);
                    s1_B_shared[(((tid + 768u) * 4u) / 128u) * 136u + ((tid + 768u) * 4u) % 128u + 3u] = f16(v6.w);
                    s1_B_shared[(((tid + 896u) * 4u) / 128u) * 136u + ((tid + 896u) * 4u) % 128u + 0u] = f16(v7.x);
                    s1_B_shared[(((tid + 896u) * 4u) / 128u) * 136u + ((tid + 896u) * 4u) % 128u + 1u] = f16(v7.y);
                    s1_B_shared[(((tid + 896u) * 4u) / 128u) * 136u + ((tid + 896u) * 4u) % 128u + 2u] = f16(v7.z);
                    s1_B_shared[(((tid + 896u) * 4u) / 128u) * 136u + ((tid + 896u) * 4u) % 128u + 3u] = f16(v7.w);
                }
            }
            else {
                for (var _e2_k = 0u; _e2_k < 32u; _e2_k++) {
                    let _e2 = tid + _e2_k * 128u;
                    let c0 = (_e2 / 128u) % 32u;
                    let c1 = (_e2 / 1u) % 128u;
                    s1_B_shared[((_e2) / 128u) * 136u + (_e2) % 128u] = f16(ld_g1_B((i4 * 32u) + c0, (bx * 128u) + c1));
                }
            }
        }
        workgroupBarrier();
        {
            let wr = (sg_id / 2u) * 64u;
            let wc = (sg_id % 2u) * 64u;
            for (var _kk3 = 0u; _kk3 < 32u; _kk3 += 16u) {
                let a0 = coopLoadT<coop_mat16x16<f16, A>>(&s0_A_shared[(wr + 0u) * 40u + _kk3], 40u);
                let a1 = coopLoadT<coop_mat16x16<f16, A>>(&s0_A_shared[(wr + 16u) * 40u + _kk3], 40u);
                let a2 = coopLoadT<coop_mat16x16<f16, A>>(&s0_A_shared[(wr + 32u) * 40u + _kk3], 40u);
                let a3 = coopLoadT<coop_mat16x16<f16, A>>(&s0_A_shared[(wr + 48u) * 40u + _kk3], 40u);
                let b0 = coopLoadT<coop_mat16x16<f16, B>>(&s1_B_shared[_kk3 * 136u + wc + 0u], 136u);
                let b1 = coopLoadT<coop_mat16x16<f16, B>>(&s1_B_shared[_kk3 * 136u + wc + 16u], 136u);
                let b2 = coopLoadT<coop_mat16x16<f16, B>>(&s1_B_shared[_kk3 * 136u + wc + 32u], 136u);
                let b3 = coopLoadT<coop_mat16x16<f16, B>>(&s1_B_shared[_kk3 * 136u + wc + 48u], 136u);
                f2_acc_m0 = coopMultiplyAdd(a0, b0, f2_acc_m0);
                f2_acc_m1 = coopMultiplyAdd(a0, b1, f2_acc_m1);
                f2_acc_m2 = coopMultiplyAdd(a0, b2, f2_acc_m2);
                f2_acc_m3 = coopMultiplyAdd(a0, b3, f2_acc_m3);
                f2_acc_m4 = coopMultiplyAdd(a1, b0, f2_acc_m4);
                f2_acc_m5 = coopMultiplyAdd(a1, b1, f2_acc_m5);
                f2_acc_m6 = coopMultiplyAdd(a1, b2, f2_acc_m6);
                f2_acc_m7 = coopMultiplyAdd(a1, b3, f2_acc_m7);
                f2_acc_m8 = coopMultiplyAdd(a2, b0, f2_acc_m8);
                f2_acc_m9 = coopMultiplyAdd(a2, b1, f2_acc_m9);
                f2_acc_m10 = coopMultiplyAdd(a2, b2, f2_acc_m10);
                f2_acc_m11 = coopMultiplyAdd(a2, b3, f2_acc_m11);
                f2_acc_m12 = coopMultiplyAdd(a3, b0, f2_acc_m12);
                f2_acc_m13 = coopMultiplyAdd(a3, b1, f2_acc_m13);
                f2_acc_m14 = coopMultiplyAdd(a3, b2, f2_acc_m14);
                f2_acc_m15 = coopMultiplyAdd(a3, b3, f2_acc_m15);
            }
        }
    }
    {
        let wr = (sg_id / 2u) * 64u;
        let wc = (sg_id % 2u) * 64u;
        let base = sg_id * 256u;
        workgroupBarrier();
        coopStoreT(f2_acc_m0, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e4 = sg_lane; _e4 < 256u; _e4 += sg_size) {
            st_g2_C((by * 128u) + wr + 0u + _e4 / 16u, (bx * 128u) + wc + 0u + _e4 % 16u, f32(s3_acc_matrix_scratch[base + _e4]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m1, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e5 = sg_lane; _e5 < 256u; _e5 += sg_size) {
            st_g2_C((by * 128u) + wr + 0u + _e5 / 16u, (bx * 128u) + wc + 16u + _e5 % 16u, f32(s3_acc_matrix_scratch[base + _e5]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m2, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e6 = sg_lane; _e6 < 256u; _e6 += sg_size) {
            st_g2_C((by * 128u) + wr + 0u + _e6 / 16u, (bx * 128u) + wc + 32u + _e6 % 16u, f32(s3_acc_matrix_scratch[base + _e6]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m3, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e7 = sg_lane; _e7 < 256u; _e7 += sg_size) {
            st_g2_C((by * 128u) + wr + 0u + _e7 / 16u, (bx * 128u) + wc + 48u + _e7 % 16u, f32(s3_acc_matrix_scratch[base + _e7]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m4, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e8 = sg_lane; _e8 < 256u; _e8 += sg_size) {
            st_g2_C((by * 128u) + wr + 16u + _e8 / 16u, (bx * 128u) + wc + 0u + _e8 % 16u, f32(s3_acc_matrix_scratch[base + _e8]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m5, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e9 = sg_lane; _e9 < 256u; _e9 += sg_size) {
            st_g2_C((by * 128u) + wr + 16u + _e9 / 16u, (bx * 128u) + wc + 16u + _e9 % 16u, f32(s3_acc_matrix_scratch[base + _e9]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m6, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e10 = sg_lane; _e10 < 256u; _e10 += sg_size) {
            st_g2_C((by * 128u) + wr + 16u + _e10 / 16u, (bx * 128u) + wc + 32u + _e10 % 16u, f32(s3_acc_matrix_scratch[base + _e10]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m7, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e11 = sg_lane; _e11 < 256u; _e11 += sg_size) {
            st_g2_C((by * 128u) + wr + 16u + _e11 / 16u, (bx * 128u) + wc + 48u + _e11 % 16u, f32(s3_acc_matrix_scratch[base + _e11]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m8, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e12 = sg_lane; _e12 < 256u; _e12 += sg_size) {
            st_g2_C((by * 128u) + wr + 32u + _e12 / 16u, (bx * 128u) + wc + 0u + _e12 % 16u, f32(s3_acc_matrix_scratch[base + _e12]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m9, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e13 = sg_lane; _e13 < 256u; _e13 += sg_size) {
            st_g2_C((by * 128u) + wr + 32u + _e13 / 16u, (bx * 128u) + wc + 16u + _e13 % 16u, f32(s3_acc_matrix_scratch[base + _e13]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m10, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e14 = sg_lane; _e14 < 256u; _e14 += sg_size) {
            st_g2_C((by * 128u) + wr + 32u + _e14 / 16u, (bx * 128u) + wc + 32u + _e14 % 16u, f32(s3_acc_matrix_scratch[base + _e14]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m11, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e15 = sg_lane; _e15 < 256u; _e15 += sg_size) {
            st_g2_C((by * 128u) + wr + 32u + _e15 / 16u, (bx * 128u) + wc + 48u + _e15 % 16u, f32(s3_acc_matrix_scratch[base + _e15]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m12, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e16 = sg_lane; _e16 < 256u; _e16 += sg_size) {
            st_g2_C((by * 128u) + wr + 48u + _e16 / 16u, (bx * 128u) + wc + 0u + _e16 % 16u, f32(s3_acc_matrix_scratch[base + _e16]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m13, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e17 = sg_lane; _e17 < 256u; _e17 += sg_size) {
            st_g2_C((by * 128u) + wr + 48u + _e17 / 16u, (bx * 128u) + wc + 16u + _e17 % 16u, f32(s3_acc_matrix_scratch[base + _e17]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m14, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e18 = sg_lane; _e18 < 256u; _e18 += sg_size) {
            st_g2_C((by * 128u) + wr + 48u + _e18 / 16u, (bx * 128u) + wc + 32u + _e18 % 16u, f32(s3_acc_matrix_scratch[base + _e18]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m15, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e19 = sg_lane; _e19 < 256u; _e19 += sg_size) {
            st_g2_C((by * 128u) + wr + 48u + _e19 / 16u, (bx * 128u) + wc + 48u + _e19 % 16u, f32(s3_acc_matrix_scratch[base + _e19]));
        }
        workgroupBarrier();
    }
}
