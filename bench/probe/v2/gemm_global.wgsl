// tilecast kernel "gemm": 256 threads per threadgroup
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
var<workgroup> s0_A_shared: array<f16, 4096>;
var<workgroup> s1_B_shared: array<f16, 4096>;
var<workgroup> s3_acc_matrix_scratch: array<f32, 2048>;

fn ld_g0_A(i0: u32, i1: u32) -> f16 {
    if (i0 < args.n0_M && i1 < args.n1_K) { return g0_A[(i0) * args.n1_K + i1]; }
    return f16(0);
}
fn ldv_g0_A(i0: u32, i1: u32) -> vec4<f16> {
    if (i0 < args.n0_M && i1 < args.n1_K) { return v_g0_A[((i0) * args.n1_K + i1) / 4u]; }
    return vec4<f16>(0);
}
fn ld_g1_B(i0: u32, i1: u32) -> f16 {
    if (i0 < args.n1_K && i1 < args.n2_N) { return g1_B[(i0) * args.n2_N + i1]; }
    return f16(0);
}
fn ldv_g1_B(i0: u32, i1: u32) -> vec4<f16> {
    if (i0 < args.n1_K && i1 < args.n2_N) { return v_g1_B[((i0) * args.n2_N + i1) / 4u]; }
    return vec4<f16>(0);
}
fn ld_g2_C(i0: u32, i1: u32) -> f32 {
    if (i0 < args.n0_M && i1 < args.n2_N) { return g2_C[(i0) * args.n2_N + i1]; }
    return f32(0);
}
fn st_g2_C(i0: u32, i1: u32, v: f32) {
    if (i0 < args.n0_M && i1 < args.n2_N) { g2_C[(i0) * args.n2_N + i1] = v; }
}

@compute @workgroup_size(256)
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
    f2_acc_m0 = coop_mat16x16<f32, C>();
    f2_acc_m1 = coop_mat16x16<f32, C>();
    f2_acc_m2 = coop_mat16x16<f32, C>();
    f2_acc_m3 = coop_mat16x16<f32, C>();
    f2_acc_m4 = coop_mat16x16<f32, C>();
    f2_acc_m5 = coop_mat16x16<f32, C>();
    f2_acc_m6 = coop_mat16x16<f32, C>();
    f2_acc_m7 = coop_mat16x16<f32, C>();
    // Probe: A and B matrices loaded by coopLoad straight from global memory (no staging).
    if (tid == 100000u) { g2_C[0] = f32(g0_A[0] + g1_B[0] + v_g0_A[0].x + v_g1_B[0].x); }
    for (var i4 = 0u; i4 < (((args.n1_K + 32u) - 1u) / 32u); i4++) {
        {
            let wr = (sg_id / 4u) * 64u;
            let wc = (sg_id % 4u) * 32u;
            for (var _kk3 = 0u; _kk3 < 32u; _kk3 += 16u) {
                let a0 = coopLoadT<coop_mat16x16<f16, A>>(&g0_A[((by * 128u) + wr + 0u) * args.n1_K + i4 * 32u + _kk3], args.n1_K);
                let a1 = coopLoadT<coop_mat16x16<f16, A>>(&g0_A[((by * 128u) + wr + 16u) * args.n1_K + i4 * 32u + _kk3], args.n1_K);
                let a2 = coopLoadT<coop_mat16x16<f16, A>>(&g0_A[((by * 128u) + wr + 32u) * args.n1_K + i4 * 32u + _kk3], args.n1_K);
                let a3 = coopLoadT<coop_mat16x16<f16, A>>(&g0_A[((by * 128u) + wr + 48u) * args.n1_K + i4 * 32u + _kk3], args.n1_K);
                let b0 = coopLoadT<coop_mat16x16<f16, B>>(&g1_B[(i4 * 32u + _kk3) * args.n2_N + (bx * 128u) + wc + 0u], args.n2_N);
                let b1 = coopLoadT<coop_mat16x16<f16, B>>(&g1_B[(i4 * 32u + _kk3) * args.n2_N + (bx * 128u) + wc + 16u], args.n2_N);
                f2_acc_m0 = coopMultiplyAdd(a0, b0, f2_acc_m0);
                f2_acc_m1 = coopMultiplyAdd(a0, b1, f2_acc_m1);
                f2_acc_m2 = coopMultiplyAdd(a1, b0, f2_acc_m2);
                f2_acc_m3 = coopMultiplyAdd(a1, b1, f2_acc_m3);
                f2_acc_m4 = coopMultiplyAdd(a2, b0, f2_acc_m4);
                f2_acc_m5 = coopMultiplyAdd(a2, b1, f2_acc_m5);
                f2_acc_m6 = coopMultiplyAdd(a3, b0, f2_acc_m6);
                f2_acc_m7 = coopMultiplyAdd(a3, b1, f2_acc_m7);
            }
        }
    }
    {
        let wr = (sg_id / 4u) * 64u;
        let wc = (sg_id % 4u) * 32u;
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
            st_g2_C((by * 128u) + wr + 16u + _e6 / 16u, (bx * 128u) + wc + 0u + _e6 % 16u, f32(s3_acc_matrix_scratch[base + _e6]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m3, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e7 = sg_lane; _e7 < 256u; _e7 += sg_size) {
            st_g2_C((by * 128u) + wr + 16u + _e7 / 16u, (bx * 128u) + wc + 16u + _e7 % 16u, f32(s3_acc_matrix_scratch[base + _e7]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m4, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e8 = sg_lane; _e8 < 256u; _e8 += sg_size) {
            st_g2_C((by * 128u) + wr + 32u + _e8 / 16u, (bx * 128u) + wc + 0u + _e8 % 16u, f32(s3_acc_matrix_scratch[base + _e8]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m5, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e9 = sg_lane; _e9 < 256u; _e9 += sg_size) {
            st_g2_C((by * 128u) + wr + 32u + _e9 / 16u, (bx * 128u) + wc + 16u + _e9 % 16u, f32(s3_acc_matrix_scratch[base + _e9]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m6, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e10 = sg_lane; _e10 < 256u; _e10 += sg_size) {
            st_g2_C((by * 128u) + wr + 48u + _e10 / 16u, (bx * 128u) + wc + 0u + _e10 % 16u, f32(s3_acc_matrix_scratch[base + _e10]));
        }
        workgroupBarrier();
        coopStoreT(f2_acc_m7, &s3_acc_matrix_scratch[base], 16u);
        workgroupBarrier();
        for (var _e11 = sg_lane; _e11 < 256u; _e11 += sg_size) {
            st_g2_C((by * 128u) + wr + 48u + _e11 / 16u, (bx * 128u) + wc + 16u + _e11 % 16u, f32(s3_acc_matrix_scratch[base + _e11]));
        }
        workgroupBarrier();
    }
}
