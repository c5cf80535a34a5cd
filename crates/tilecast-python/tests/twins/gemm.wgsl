// tilecast kernel "gemm": 128 threads per threadgroup
enable f16;

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
var<workgroup> s0_A_shared: array<f16, 7680>;
var<workgroup> s1_B_shared: array<f16, 6912>;

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
fn stu_g2_C(i0: u32, i1: u32, v: f32) {
    g2_C[(i0) * args.n2_N + i1] = v;
}

@compute @workgroup_size(128)
fn tc_gemm(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let bx = wg.x;
    let by = wg.y;
    let bz = wg.z;
    var f2_acc: array<f32, 32>;
    f2_acc[0] = 0.0f;
    f2_acc[1] = 0.0f;
    f2_acc[2] = 0.0f;
    f2_acc[3] = 0.0f;
    f2_acc[4] = 0.0f;
    f2_acc[5] = 0.0f;
    f2_acc[6] = 0.0f;
    f2_acc[7] = 0.0f;
    f2_acc[8] = 0.0f;
    f2_acc[9] = 0.0f;
    f2_acc[10] = 0.0f;
    f2_acc[11] = 0.0f;
    f2_acc[12] = 0.0f;
    f2_acc[13] = 0.0f;
    f2_acc[14] = 0.0f;
    f2_acc[15] = 0.0f;
    f2_acc[16] = 0.0f;
    f2_acc[17] = 0.0f;
    f2_acc[18] = 0.0f;
    f2_acc[19] = 0.0f;
    f2_acc[20] = 0.0f;
    f2_acc[21] = 0.0f;
    f2_acc[22] = 0.0f;
    f2_acc[23] = 0.0f;
    f2_acc[24] = 0.0f;
    f2_acc[25] = 0.0f;
    f2_acc[26] = 0.0f;
    f2_acc[27] = 0.0f;
    f2_acc[28] = 0.0f;
    f2_acc[29] = 0.0f;
    f2_acc[30] = 0.0f;
    f2_acc[31] = 0.0f;
    workgroupBarrier();
    if ((0u < (((args.n1_K + 32u) - 1u) / 32u))) {
        if (args.n1_K % 4u == 0u && (0u) % 4u == 0u && (by * 64u) < args.n0_M && args.n0_M - ((by * 64u)) >= 64u && 0u < args.n1_K && args.n1_K - (0u) >= 32u && args.n2_N % 4u == 0u && ((bx * 64u)) % 4u == 0u && 0u < args.n1_K && args.n1_K - (0u) >= 32u && (bx * 64u) < args.n2_N && args.n2_N - ((bx * 64u)) >= 64u) {
            let g0u0c0 = ((tid + 0u) * 4u / 32u) % 64u;
            let g0u0c1 = ((tid + 0u) * 4u / 1u) % 32u;
            let g0v0 = ldvu_g0_A((by * 64u) + g0u0c0, 0u + g0u0c1);
            let g0u1c0 = ((tid + 128u) * 4u / 32u) % 64u;
            let g0u1c1 = ((tid + 128u) * 4u / 1u) % 32u;
            let g0v1 = ldvu_g0_A((by * 64u) + g0u1c0, 0u + g0u1c1);
            let g0u2c0 = ((tid + 256u) * 4u / 32u) % 64u;
            let g0u2c1 = ((tid + 256u) * 4u / 1u) % 32u;
            let g0v2 = ldvu_g0_A((by * 64u) + g0u2c0, 0u + g0u2c1);
            let g0u3c0 = ((tid + 384u) * 4u / 32u) % 64u;
            let g0u3c1 = ((tid + 384u) * 4u / 1u) % 32u;
            let g0v3 = ldvu_g0_A((by * 64u) + g0u3c0, 0u + g0u3c1);
            let g1u0c0 = ((tid + 0u) * 4u / 64u) % 32u;
            let g1u0c1 = ((tid + 0u) * 4u / 1u) % 64u;
            let g1v0 = ldvu_g1_B(0u + g1u0c0, (bx * 64u) + g1u0c1);
            let g1u1c0 = ((tid + 128u) * 4u / 64u) % 32u;
            let g1u1c1 = ((tid + 128u) * 4u / 1u) % 64u;
            let g1v1 = ldvu_g1_B(0u + g1u1c0, (bx * 64u) + g1u1c1);
            let g1u2c0 = ((tid + 256u) * 4u / 64u) % 32u;
            let g1u2c1 = ((tid + 256u) * 4u / 1u) % 64u;
            let g1v2 = ldvu_g1_B(0u + g1u2c0, (bx * 64u) + g1u2c1);
            let g1u3c0 = ((tid + 384u) * 4u / 64u) % 32u;
            let g1u3c1 = ((tid + 384u) * 4u / 1u) % 64u;
            let g1v3 = ldvu_g1_B(0u + g1u3c0, (bx * 64u) + g1u3c1);
            s0_A_shared[(0u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 0u] = f16(g0v0.x);
            s0_A_shared[(0u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 1u] = f16(g0v0.y);
            s0_A_shared[(0u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 2u] = f16(g0v0.z);
            s0_A_shared[(0u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 3u] = f16(g0v0.w);
            s0_A_shared[(0u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 0u] = f16(g0v1.x);
            s0_A_shared[(0u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 1u] = f16(g0v1.y);
            s0_A_shared[(0u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 2u] = f16(g0v1.z);
            s0_A_shared[(0u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 3u] = f16(g0v1.w);
            s0_A_shared[(0u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 0u] = f16(g0v2.x);
            s0_A_shared[(0u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 1u] = f16(g0v2.y);
            s0_A_shared[(0u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 2u] = f16(g0v2.z);
            s0_A_shared[(0u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 3u] = f16(g0v2.w);
            s0_A_shared[(0u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 0u] = f16(g0v3.x);
            s0_A_shared[(0u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 1u] = f16(g0v3.y);
            s0_A_shared[(0u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 2u] = f16(g0v3.z);
            s0_A_shared[(0u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 3u] = f16(g0v3.w);
            s1_B_shared[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(g1v0.x);
            s1_B_shared[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(g1v0.y);
            s1_B_shared[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(g1v0.z);
            s1_B_shared[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(g1v0.w);
            s1_B_shared[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(g1v1.x);
            s1_B_shared[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(g1v1.y);
            s1_B_shared[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(g1v1.z);
            s1_B_shared[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(g1v1.w);
            s1_B_shared[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(g1v2.x);
            s1_B_shared[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(g1v2.y);
            s1_B_shared[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(g1v2.z);
            s1_B_shared[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(g1v2.w);
            s1_B_shared[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(g1v3.x);
            s1_B_shared[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(g1v3.y);
            s1_B_shared[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(g1v3.z);
            s1_B_shared[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(g1v3.w);
        }
        else {
            if (args.n1_K % 4u == 0u && (0u) % 4u == 0u) {
                if ((by * 64u) < args.n0_M && args.n0_M - ((by * 64u)) >= 64u && 0u < args.n1_K && args.n1_K - (0u) >= 32u) {
                    let u0c0 = ((tid + 0u) * 4u / 32u) % 64u;
                    let u0c1 = ((tid + 0u) * 4u / 1u) % 32u;
                    let v0 = ldvu_g0_A((by * 64u) + u0c0, 0u + u0c1);
                    let u1c0 = ((tid + 128u) * 4u / 32u) % 64u;
                    let u1c1 = ((tid + 128u) * 4u / 1u) % 32u;
                    let v1 = ldvu_g0_A((by * 64u) + u1c0, 0u + u1c1);
                    let u2c0 = ((tid + 256u) * 4u / 32u) % 64u;
                    let u2c1 = ((tid + 256u) * 4u / 1u) % 32u;
                    let v2 = ldvu_g0_A((by * 64u) + u2c0, 0u + u2c1);
                    let u3c0 = ((tid + 384u) * 4u / 32u) % 64u;
                    let u3c1 = ((tid + 384u) * 4u / 1u) % 32u;
                    let v3 = ldvu_g0_A((by * 64u) + u3c0, 0u + u3c1);
                    s0_A_shared[(0u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 0u] = f16(v0.x);
                    s0_A_shared[(0u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 1u] = f16(v0.y);
                    s0_A_shared[(0u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 2u] = f16(v0.z);
                    s0_A_shared[(0u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 3u] = f16(v0.w);
                    s0_A_shared[(0u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 0u] = f16(v1.x);
                    s0_A_shared[(0u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 1u] = f16(v1.y);
                    s0_A_shared[(0u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 2u] = f16(v1.z);
                    s0_A_shared[(0u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 3u] = f16(v1.w);
                    s0_A_shared[(0u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 0u] = f16(v2.x);
                    s0_A_shared[(0u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 1u] = f16(v2.y);
                    s0_A_shared[(0u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 2u] = f16(v2.z);
                    s0_A_shared[(0u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 3u] = f16(v2.w);
                    s0_A_shared[(0u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 0u] = f16(v3.x);
                    s0_A_shared[(0u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 1u] = f16(v3.y);
                    s0_A_shared[(0u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 2u] = f16(v3.z);
                    s0_A_shared[(0u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 3u] = f16(v3.w);
                }
                else {
                    let u0c0 = ((tid + 0u) * 4u / 32u) % 64u;
                    let u0c1 = ((tid + 0u) * 4u / 1u) % 32u;
                    let v0 = ldv_g0_A((by * 64u) + u0c0, 0u + u0c1);
                    let u1c0 = ((tid + 128u) * 4u / 32u) % 64u;
                    let u1c1 = ((tid + 128u) * 4u / 1u) % 32u;
                    let v1 = ldv_g0_A((by * 64u) + u1c0, 0u + u1c1);
                    let u2c0 = ((tid + 256u) * 4u / 32u) % 64u;
                    let u2c1 = ((tid + 256u) * 4u / 1u) % 32u;
                    let v2 = ldv_g0_A((by * 64u) + u2c0, 0u + u2c1);
                    let u3c0 = ((tid + 384u) * 4u / 32u) % 64u;
                    let u3c1 = ((tid + 384u) * 4u / 1u) % 32u;
                    let v3 = ldv_g0_A((by * 64u) + u3c0, 0u + u3c1);
                    s0_A_shared[(0u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 0u] = f16(v0.x);
                    s0_A_shared[(0u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 1u] = f16(v0.y);
                    s0_A_shared[(0u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 2u] = f16(v0.z);
                    s0_A_shared[(0u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 3u] = f16(v0.w);
                    s0_A_shared[(0u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 0u] = f16(v1.x);
                    s0_A_shared[(0u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 1u] = f16(v1.y);
                    s0_A_shared[(0u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 2u] = f16(v1.z);
                    s0_A_shared[(0u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 3u] = f16(v1.w);
                    s0_A_shared[(0u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 0u] = f16(v2.x);
                    s0_A_shared[(0u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 1u] = f16(v2.y);
                    s0_A_shared[(0u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 2u] = f16(v2.z);
                    s0_A_shared[(0u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 3u] = f16(v2.w);
                    s0_A_shared[(0u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 0u] = f16(v3.x);
                    s0_A_shared[(0u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 1u] = f16(v3.y);
                    s0_A_shared[(0u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 2u] = f16(v3.z);
                    s0_A_shared[(0u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 3u] = f16(v3.w);
                }
            }
            else {
                for (var _e1_k = 0u; _e1_k < 16u; _e1_k++) {
                    let _e1 = tid + _e1_k * 128u;
                    let c0 = (_e1 / 32u) % 64u;
                    let c1 = (_e1 / 1u) % 32u;
                    s0_A_shared[(0u) * 2560u + ((_e1) / 32u) * 40u + (_e1) % 32u] = f16(ld_g0_A((by * 64u) + c0, 0u + c1));
                }
            }
            if (args.n2_N % 4u == 0u && ((bx * 64u)) % 4u == 0u) {
                if (0u < args.n1_K && args.n1_K - (0u) >= 32u && (bx * 64u) < args.n2_N && args.n2_N - ((bx * 64u)) >= 64u) {
                    let u0c0 = ((tid + 0u) * 4u / 64u) % 32u;
                    let u0c1 = ((tid + 0u) * 4u / 1u) % 64u;
                    let v0 = ldvu_g1_B(0u + u0c0, (bx * 64u) + u0c1);
                    let u1c0 = ((tid + 128u) * 4u / 64u) % 32u;
                    let u1c1 = ((tid + 128u) * 4u / 1u) % 64u;
                    let v1 = ldvu_g1_B(0u + u1c0, (bx * 64u) + u1c1);
                    let u2c0 = ((tid + 256u) * 4u / 64u) % 32u;
                    let u2c1 = ((tid + 256u) * 4u / 1u) % 64u;
                    let v2 = ldvu_g1_B(0u + u2c0, (bx * 64u) + u2c1);
                    let u3c0 = ((tid + 384u) * 4u / 64u) % 32u;
                    let u3c1 = ((tid + 384u) * 4u / 1u) % 64u;
                    let v3 = ldvu_g1_B(0u + u3c0, (bx * 64u) + u3c1);
                    s1_B_shared[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                    s1_B_shared[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                    s1_B_shared[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                    s1_B_shared[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                    s1_B_shared[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                    s1_B_shared[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                    s1_B_shared[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                    s1_B_shared[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                    s1_B_shared[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                    s1_B_shared[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                    s1_B_shared[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                    s1_B_shared[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                    s1_B_shared[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                    s1_B_shared[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                    s1_B_shared[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                    s1_B_shared[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                }
                else {
                    let u0c0 = ((tid + 0u) * 4u / 64u) % 32u;
                    let u0c1 = ((tid + 0u) * 4u / 1u) % 64u;
                    let v0 = ldv_g1_B(0u + u0c0, (bx * 64u) + u0c1);
                    let u1c0 = ((tid + 128u) * 4u / 64u) % 32u;
                    let u1c1 = ((tid + 128u) * 4u / 1u) % 64u;
                    let v1 = ldv_g1_B(0u + u1c0, (bx * 64u) + u1c1);
                    let u2c0 = ((tid + 256u) * 4u / 64u) % 32u;
                    let u2c1 = ((tid + 256u) * 4u / 1u) % 64u;
                    let v2 = ldv_g1_B(0u + u2c0, (bx * 64u) + u2c1);
                    let u3c0 = ((tid + 384u) * 4u / 64u) % 32u;
                    let u3c1 = ((tid + 384u) * 4u / 1u) % 64u;
                    let v3 = ldv_g1_B(0u + u3c0, (bx * 64u) + u3c1);
                    s1_B_shared[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                    s1_B_shared[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                    s1_B_shared[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                    s1_B_shared[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                    s1_B_shared[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                    s1_B_shared[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                    s1_B_shared[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                    s1_B_shared[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                    s1_B_shared[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                    s1_B_shared[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                    s1_B_shared[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                    s1_B_shared[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                    s1_B_shared[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                    s1_B_shared[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                    s1_B_shared[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                    s1_B_shared[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                }
            }
            else {
                for (var _e2_k = 0u; _e2_k < 16u; _e2_k++) {
                    let _e2 = tid + _e2_k * 128u;
                    let c0 = (_e2 / 64u) % 32u;
                    let c1 = (_e2 / 1u) % 64u;
                    s1_B_shared[(0u) * 2304u + ((_e2) / 64u) * 72u + (_e2) % 64u] = f16(ld_g1_B(0u + c0, (bx * 64u) + c1));
                }
            }
        }
    }
    if ((1u < (((args.n1_K + 32u) - 1u) / 32u))) {
        if (args.n1_K % 4u == 0u && (32u) % 4u == 0u && (by * 64u) < args.n0_M && args.n0_M - ((by * 64u)) >= 64u && 32u < args.n1_K && args.n1_K - (32u) >= 32u && args.n2_N % 4u == 0u && ((bx * 64u)) % 4u == 0u && 32u < args.n1_K && args.n1_K - (32u) >= 32u && (bx * 64u) < args.n2_N && args.n2_N - ((bx * 64u)) >= 64u) {
            let g0u0c0 = ((tid + 0u) * 4u / 32u) % 64u;
            let g0u0c1 = ((tid + 0u) * 4u / 1u) % 32u;
            let g0v0 = ldvu_g0_A((by * 64u) + g0u0c0, 32u + g0u0c1);
            let g0u1c0 = ((tid + 128u) * 4u / 32u) % 64u;
            let g0u1c1 = ((tid + 128u) * 4u / 1u) % 32u;
            let g0v1 = ldvu_g0_A((by * 64u) + g0u1c0, 32u + g0u1c1);
            let g0u2c0 = ((tid + 256u) * 4u / 32u) % 64u;
            let g0u2c1 = ((tid + 256u) * 4u / 1u) % 32u;
            let g0v2 = ldvu_g0_A((by * 64u) + g0u2c0, 32u + g0u2c1);
            let g0u3c0 = ((tid + 384u) * 4u / 32u) % 64u;
            let g0u3c1 = ((tid + 384u) * 4u / 1u) % 32u;
            let g0v3 = ldvu_g0_A((by * 64u) + g0u3c0, 32u + g0u3c1);
            let g1u0c0 = ((tid + 0u) * 4u / 64u) % 32u;
            let g1u0c1 = ((tid + 0u) * 4u / 1u) % 64u;
            let g1v0 = ldvu_g1_B(32u + g1u0c0, (bx * 64u) + g1u0c1);
            let g1u1c0 = ((tid + 128u) * 4u / 64u) % 32u;
            let g1u1c1 = ((tid + 128u) * 4u / 1u) % 64u;
            let g1v1 = ldvu_g1_B(32u + g1u1c0, (bx * 64u) + g1u1c1);
            let g1u2c0 = ((tid + 256u) * 4u / 64u) % 32u;
            let g1u2c1 = ((tid + 256u) * 4u / 1u) % 64u;
            let g1v2 = ldvu_g1_B(32u + g1u2c0, (bx * 64u) + g1u2c1);
            let g1u3c0 = ((tid + 384u) * 4u / 64u) % 32u;
            let g1u3c1 = ((tid + 384u) * 4u / 1u) % 64u;
            let g1v3 = ldvu_g1_B(32u + g1u3c0, (bx * 64u) + g1u3c1);
            s0_A_shared[(1u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 0u] = f16(g0v0.x);
            s0_A_shared[(1u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 1u] = f16(g0v0.y);
            s0_A_shared[(1u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 2u] = f16(g0v0.z);
            s0_A_shared[(1u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 3u] = f16(g0v0.w);
            s0_A_shared[(1u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 0u] = f16(g0v1.x);
            s0_A_shared[(1u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 1u] = f16(g0v1.y);
            s0_A_shared[(1u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 2u] = f16(g0v1.z);
            s0_A_shared[(1u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 3u] = f16(g0v1.w);
            s0_A_shared[(1u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 0u] = f16(g0v2.x);
            s0_A_shared[(1u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 1u] = f16(g0v2.y);
            s0_A_shared[(1u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 2u] = f16(g0v2.z);
            s0_A_shared[(1u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 3u] = f16(g0v2.w);
            s0_A_shared[(1u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 0u] = f16(g0v3.x);
            s0_A_shared[(1u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 1u] = f16(g0v3.y);
            s0_A_shared[(1u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 2u] = f16(g0v3.z);
            s0_A_shared[(1u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 3u] = f16(g0v3.w);
            s1_B_shared[(1u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(g1v0.x);
            s1_B_shared[(1u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(g1v0.y);
            s1_B_shared[(1u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(g1v0.z);
            s1_B_shared[(1u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(g1v0.w);
            s1_B_shared[(1u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(g1v1.x);
            s1_B_shared[(1u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(g1v1.y);
            s1_B_shared[(1u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(g1v1.z);
            s1_B_shared[(1u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(g1v1.w);
            s1_B_shared[(1u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(g1v2.x);
            s1_B_shared[(1u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(g1v2.y);
            s1_B_shared[(1u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(g1v2.z);
            s1_B_shared[(1u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(g1v2.w);
            s1_B_shared[(1u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(g1v3.x);
            s1_B_shared[(1u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(g1v3.y);
            s1_B_shared[(1u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(g1v3.z);
            s1_B_shared[(1u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(g1v3.w);
        }
        else {
            if (args.n1_K % 4u == 0u && (32u) % 4u == 0u) {
                if ((by * 64u) < args.n0_M && args.n0_M - ((by * 64u)) >= 64u && 32u < args.n1_K && args.n1_K - (32u) >= 32u) {
                    let u0c0 = ((tid + 0u) * 4u / 32u) % 64u;
                    let u0c1 = ((tid + 0u) * 4u / 1u) % 32u;
                    let v0 = ldvu_g0_A((by * 64u) + u0c0, 32u + u0c1);
                    let u1c0 = ((tid + 128u) * 4u / 32u) % 64u;
                    let u1c1 = ((tid + 128u) * 4u / 1u) % 32u;
                    let v1 = ldvu_g0_A((by * 64u) + u1c0, 32u + u1c1);
                    let u2c0 = ((tid + 256u) * 4u / 32u) % 64u;
                    let u2c1 = ((tid + 256u) * 4u / 1u) % 32u;
                    let v2 = ldvu_g0_A((by * 64u) + u2c0, 32u + u2c1);
                    let u3c0 = ((tid + 384u) * 4u / 32u) % 64u;
                    let u3c1 = ((tid + 384u) * 4u / 1u) % 32u;
                    let v3 = ldvu_g0_A((by * 64u) + u3c0, 32u + u3c1);
                    s0_A_shared[(1u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 0u] = f16(v0.x);
                    s0_A_shared[(1u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 1u] = f16(v0.y);
                    s0_A_shared[(1u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 2u] = f16(v0.z);
                    s0_A_shared[(1u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 3u] = f16(v0.w);
                    s0_A_shared[(1u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 0u] = f16(v1.x);
                    s0_A_shared[(1u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 1u] = f16(v1.y);
                    s0_A_shared[(1u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 2u] = f16(v1.z);
                    s0_A_shared[(1u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 3u] = f16(v1.w);
                    s0_A_shared[(1u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 0u] = f16(v2.x);
                    s0_A_shared[(1u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 1u] = f16(v2.y);
                    s0_A_shared[(1u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 2u] = f16(v2.z);
                    s0_A_shared[(1u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 3u] = f16(v2.w);
                    s0_A_shared[(1u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 0u] = f16(v3.x);
                    s0_A_shared[(1u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 1u] = f16(v3.y);
                    s0_A_shared[(1u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 2u] = f16(v3.z);
                    s0_A_shared[(1u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 3u] = f16(v3.w);
                }
                else {
                    let u0c0 = ((tid + 0u) * 4u / 32u) % 64u;
                    let u0c1 = ((tid + 0u) * 4u / 1u) % 32u;
                    let v0 = ldv_g0_A((by * 64u) + u0c0, 32u + u0c1);
                    let u1c0 = ((tid + 128u) * 4u / 32u) % 64u;
                    let u1c1 = ((tid + 128u) * 4u / 1u) % 32u;
                    let v1 = ldv_g0_A((by * 64u) + u1c0, 32u + u1c1);
                    let u2c0 = ((tid + 256u) * 4u / 32u) % 64u;
                    let u2c1 = ((tid + 256u) * 4u / 1u) % 32u;
                    let v2 = ldv_g0_A((by * 64u) + u2c0, 32u + u2c1);
                    let u3c0 = ((tid + 384u) * 4u / 32u) % 64u;
                    let u3c1 = ((tid + 384u) * 4u / 1u) % 32u;
                    let v3 = ldv_g0_A((by * 64u) + u3c0, 32u + u3c1);
                    s0_A_shared[(1u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 0u] = f16(v0.x);
                    s0_A_shared[(1u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 1u] = f16(v0.y);
                    s0_A_shared[(1u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 2u] = f16(v0.z);
                    s0_A_shared[(1u) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 3u] = f16(v0.w);
                    s0_A_shared[(1u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 0u] = f16(v1.x);
                    s0_A_shared[(1u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 1u] = f16(v1.y);
                    s0_A_shared[(1u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 2u] = f16(v1.z);
                    s0_A_shared[(1u) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 3u] = f16(v1.w);
                    s0_A_shared[(1u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 0u] = f16(v2.x);
                    s0_A_shared[(1u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 1u] = f16(v2.y);
                    s0_A_shared[(1u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 2u] = f16(v2.z);
                    s0_A_shared[(1u) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 3u] = f16(v2.w);
                    s0_A_shared[(1u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 0u] = f16(v3.x);
                    s0_A_shared[(1u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 1u] = f16(v3.y);
                    s0_A_shared[(1u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 2u] = f16(v3.z);
                    s0_A_shared[(1u) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 3u] = f16(v3.w);
                }
            }
            else {
                for (var _e3_k = 0u; _e3_k < 16u; _e3_k++) {
                    let _e3 = tid + _e3_k * 128u;
                    let c0 = (_e3 / 32u) % 64u;
                    let c1 = (_e3 / 1u) % 32u;
                    s0_A_shared[(1u) * 2560u + ((_e3) / 32u) * 40u + (_e3) % 32u] = f16(ld_g0_A((by * 64u) + c0, 32u + c1));
                }
            }
            if (args.n2_N % 4u == 0u && ((bx * 64u)) % 4u == 0u) {
                if (32u < args.n1_K && args.n1_K - (32u) >= 32u && (bx * 64u) < args.n2_N && args.n2_N - ((bx * 64u)) >= 64u) {
                    let u0c0 = ((tid + 0u) * 4u / 64u) % 32u;
                    let u0c1 = ((tid + 0u) * 4u / 1u) % 64u;
                    let v0 = ldvu_g1_B(32u + u0c0, (bx * 64u) + u0c1);
                    let u1c0 = ((tid + 128u) * 4u / 64u) % 32u;
                    let u1c1 = ((tid + 128u) * 4u / 1u) % 64u;
                    let v1 = ldvu_g1_B(32u + u1c0, (bx * 64u) + u1c1);
                    let u2c0 = ((tid + 256u) * 4u / 64u) % 32u;
                    let u2c1 = ((tid + 256u) * 4u / 1u) % 64u;
                    let v2 = ldvu_g1_B(32u + u2c0, (bx * 64u) + u2c1);
                    let u3c0 = ((tid + 384u) * 4u / 64u) % 32u;
                    let u3c1 = ((tid + 384u) * 4u / 1u) % 64u;
                    let v3 = ldvu_g1_B(32u + u3c0, (bx * 64u) + u3c1);
                    s1_B_shared[(1u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                    s1_B_shared[(1u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                    s1_B_shared[(1u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                    s1_B_shared[(1u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                    s1_B_shared[(1u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                    s1_B_shared[(1u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                    s1_B_shared[(1u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                    s1_B_shared[(1u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                    s1_B_shared[(1u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                    s1_B_shared[(1u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                    s1_B_shared[(1u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                    s1_B_shared[(1u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                    s1_B_shared[(1u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                    s1_B_shared[(1u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                    s1_B_shared[(1u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                    s1_B_shared[(1u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                }
                else {
                    let u0c0 = ((tid + 0u) * 4u / 64u) % 32u;
                    let u0c1 = ((tid + 0u) * 4u / 1u) % 64u;
                    let v0 = ldv_g1_B(32u + u0c0, (bx * 64u) + u0c1);
                    let u1c0 = ((tid + 128u) * 4u / 64u) % 32u;
                    let u1c1 = ((tid + 128u) * 4u / 1u) % 64u;
                    let v1 = ldv_g1_B(32u + u1c0, (bx * 64u) + u1c1);
                    let u2c0 = ((tid + 256u) * 4u / 64u) % 32u;
                    let u2c1 = ((tid + 256u) * 4u / 1u) % 64u;
                    let v2 = ldv_g1_B(32u + u2c0, (bx * 64u) + u2c1);
                    let u3c0 = ((tid + 384u) * 4u / 64u) % 32u;
                    let u3c1 = ((tid + 384u) * 4u / 1u) % 64u;
                    let v3 = ldv_g1_B(32u + u3c0, (bx * 64u) + u3c1);
                    s1_B_shared[(1u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                    s1_B_shared[(1u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                    s1_B_shared[(1u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                    s1_B_shared[(1u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                    s1_B_shared[(1u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                    s1_B_shared[(1u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                    s1_B_shared[(1u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                    s1_B_shared[(1u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                    s1_B_shared[(1u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                    s1_B_shared[(1u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                    s1_B_shared[(1u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                    s1_B_shared[(1u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                    s1_B_shared[(1u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                    s1_B_shared[(1u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                    s1_B_shared[(1u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                    s1_B_shared[(1u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                }
            }
            else {
                for (var _e4_k = 0u; _e4_k < 16u; _e4_k++) {
                    let _e4 = tid + _e4_k * 128u;
                    let c0 = (_e4 / 64u) % 32u;
                    let c1 = (_e4 / 1u) % 64u;
                    s1_B_shared[(1u) * 2304u + ((_e4) / 64u) * 72u + (_e4) % 64u] = f16(ld_g1_B(32u + c0, (bx * 64u) + c1));
                }
            }
        }
    }
    for (var i4 = 0u; i4 < (((args.n1_K + 32u) - 1u) / 32u); i4++) {
        workgroupBarrier();
        if (((i4 + 2u) < (((args.n1_K + 32u) - 1u) / 32u))) {
            if (args.n1_K % 4u == 0u && (((i4 + 2u) * 32u)) % 4u == 0u && (by * 64u) < args.n0_M && args.n0_M - ((by * 64u)) >= 64u && ((i4 + 2u) * 32u) < args.n1_K && args.n1_K - (((i4 + 2u) * 32u)) >= 32u && args.n2_N % 4u == 0u && ((bx * 64u)) % 4u == 0u && ((i4 + 2u) * 32u) < args.n1_K && args.n1_K - (((i4 + 2u) * 32u)) >= 32u && (bx * 64u) < args.n2_N && args.n2_N - ((bx * 64u)) >= 64u) {
                let g0u0c0 = ((tid + 0u) * 4u / 32u) % 64u;
                let g0u0c1 = ((tid + 0u) * 4u / 1u) % 32u;
                let g0v0 = ldvu_g0_A((by * 64u) + g0u0c0, ((i4 + 2u) * 32u) + g0u0c1);
                let g0u1c0 = ((tid + 128u) * 4u / 32u) % 64u;
                let g0u1c1 = ((tid + 128u) * 4u / 1u) % 32u;
                let g0v1 = ldvu_g0_A((by * 64u) + g0u1c0, ((i4 + 2u) * 32u) + g0u1c1);
                let g0u2c0 = ((tid + 256u) * 4u / 32u) % 64u;
                let g0u2c1 = ((tid + 256u) * 4u / 1u) % 32u;
                let g0v2 = ldvu_g0_A((by * 64u) + g0u2c0, ((i4 + 2u) * 32u) + g0u2c1);
                let g0u3c0 = ((tid + 384u) * 4u / 32u) % 64u;
                let g0u3c1 = ((tid + 384u) * 4u / 1u) % 32u;
                let g0v3 = ldvu_g0_A((by * 64u) + g0u3c0, ((i4 + 2u) * 32u) + g0u3c1);
                let g1u0c0 = ((tid + 0u) * 4u / 64u) % 32u;
                let g1u0c1 = ((tid + 0u) * 4u / 1u) % 64u;
                let g1v0 = ldvu_g1_B(((i4 + 2u) * 32u) + g1u0c0, (bx * 64u) + g1u0c1);
                let g1u1c0 = ((tid + 128u) * 4u / 64u) % 32u;
                let g1u1c1 = ((tid + 128u) * 4u / 1u) % 64u;
                let g1v1 = ldvu_g1_B(((i4 + 2u) * 32u) + g1u1c0, (bx * 64u) + g1u1c1);
                let g1u2c0 = ((tid + 256u) * 4u / 64u) % 32u;
                let g1u2c1 = ((tid + 256u) * 4u / 1u) % 64u;
                let g1v2 = ldvu_g1_B(((i4 + 2u) * 32u) + g1u2c0, (bx * 64u) + g1u2c1);
                let g1u3c0 = ((tid + 384u) * 4u / 64u) % 32u;
                let g1u3c1 = ((tid + 384u) * 4u / 1u) % 64u;
                let g1v3 = ldvu_g1_B(((i4 + 2u) * 32u) + g1u3c0, (bx * 64u) + g1u3c1);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 0u] = f16(g0v0.x);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 1u] = f16(g0v0.y);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 2u] = f16(g0v0.z);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 3u] = f16(g0v0.w);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 0u] = f16(g0v1.x);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 1u] = f16(g0v1.y);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 2u] = f16(g0v1.z);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 3u] = f16(g0v1.w);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 0u] = f16(g0v2.x);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 1u] = f16(g0v2.y);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 2u] = f16(g0v2.z);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 3u] = f16(g0v2.w);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 0u] = f16(g0v3.x);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 1u] = f16(g0v3.y);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 2u] = f16(g0v3.z);
                s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 3u] = f16(g0v3.w);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(g1v0.x);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(g1v0.y);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(g1v0.z);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(g1v0.w);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(g1v1.x);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(g1v1.y);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(g1v1.z);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(g1v1.w);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(g1v2.x);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(g1v2.y);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(g1v2.z);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(g1v2.w);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(g1v3.x);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(g1v3.y);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(g1v3.z);
                s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(g1v3.w);
            }
            else {
                if (args.n1_K % 4u == 0u && (((i4 + 2u) * 32u)) % 4u == 0u) {
                    if ((by * 64u) < args.n0_M && args.n0_M - ((by * 64u)) >= 64u && ((i4 + 2u) * 32u) < args.n1_K && args.n1_K - (((i4 + 2u) * 32u)) >= 32u) {
                        let u0c0 = ((tid + 0u) * 4u / 32u) % 64u;
                        let u0c1 = ((tid + 0u) * 4u / 1u) % 32u;
                        let v0 = ldvu_g0_A((by * 64u) + u0c0, ((i4 + 2u) * 32u) + u0c1);
                        let u1c0 = ((tid + 128u) * 4u / 32u) % 64u;
                        let u1c1 = ((tid + 128u) * 4u / 1u) % 32u;
                        let v1 = ldvu_g0_A((by * 64u) + u1c0, ((i4 + 2u) * 32u) + u1c1);
                        let u2c0 = ((tid + 256u) * 4u / 32u) % 64u;
                        let u2c1 = ((tid + 256u) * 4u / 1u) % 32u;
                        let v2 = ldvu_g0_A((by * 64u) + u2c0, ((i4 + 2u) * 32u) + u2c1);
                        let u3c0 = ((tid + 384u) * 4u / 32u) % 64u;
                        let u3c1 = ((tid + 384u) * 4u / 1u) % 32u;
                        let v3 = ldvu_g0_A((by * 64u) + u3c0, ((i4 + 2u) * 32u) + u3c1);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 0u] = f16(v0.x);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 1u] = f16(v0.y);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 2u] = f16(v0.z);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 3u] = f16(v0.w);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 0u] = f16(v1.x);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 1u] = f16(v1.y);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 2u] = f16(v1.z);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 3u] = f16(v1.w);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 0u] = f16(v2.x);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 1u] = f16(v2.y);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 2u] = f16(v2.z);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 3u] = f16(v2.w);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 0u] = f16(v3.x);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 1u] = f16(v3.y);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 2u] = f16(v3.z);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 3u] = f16(v3.w);
                    }
                    else {
                        let u0c0 = ((tid + 0u) * 4u / 32u) % 64u;
                        let u0c1 = ((tid + 0u) * 4u / 1u) % 32u;
                        let v0 = ldv_g0_A((by * 64u) + u0c0, ((i4 + 2u) * 32u) + u0c1);
                        let u1c0 = ((tid + 128u) * 4u / 32u) % 64u;
                        let u1c1 = ((tid + 128u) * 4u / 1u) % 32u;
                        let v1 = ldv_g0_A((by * 64u) + u1c0, ((i4 + 2u) * 32u) + u1c1);
                        let u2c0 = ((tid + 256u) * 4u / 32u) % 64u;
                        let u2c1 = ((tid + 256u) * 4u / 1u) % 32u;
                        let v2 = ldv_g0_A((by * 64u) + u2c0, ((i4 + 2u) * 32u) + u2c1);
                        let u3c0 = ((tid + 384u) * 4u / 32u) % 64u;
                        let u3c1 = ((tid + 384u) * 4u / 1u) % 32u;
                        let v3 = ldv_g0_A((by * 64u) + u3c0, ((i4 + 2u) * 32u) + u3c1);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 0u] = f16(v0.x);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 1u] = f16(v0.y);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 2u] = f16(v0.z);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 0u) * 4u) / 32u) * 40u + ((tid + 0u) * 4u) % 32u + 3u] = f16(v0.w);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 0u] = f16(v1.x);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 1u] = f16(v1.y);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 2u] = f16(v1.z);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 128u) * 4u) / 32u) * 40u + ((tid + 128u) * 4u) % 32u + 3u] = f16(v1.w);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 0u] = f16(v2.x);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 1u] = f16(v2.y);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 2u] = f16(v2.z);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 256u) * 4u) / 32u) * 40u + ((tid + 256u) * 4u) % 32u + 3u] = f16(v2.w);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 0u] = f16(v3.x);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 1u] = f16(v3.y);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 2u] = f16(v3.z);
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + (((tid + 384u) * 4u) / 32u) * 40u + ((tid + 384u) * 4u) % 32u + 3u] = f16(v3.w);
                    }
                }
                else {
                    for (var _e5_k = 0u; _e5_k < 16u; _e5_k++) {
                        let _e5 = tid + _e5_k * 128u;
                        let c0 = (_e5 / 32u) % 64u;
                        let c1 = (_e5 / 1u) % 32u;
                        s0_A_shared[(((i4 + 2u) % 3u)) * 2560u + ((_e5) / 32u) * 40u + (_e5) % 32u] = f16(ld_g0_A((by * 64u) + c0, ((i4 + 2u) * 32u) + c1));
                    }
                }
                if (args.n2_N % 4u == 0u && ((bx * 64u)) % 4u == 0u) {
                    if (((i4 + 2u) * 32u) < args.n1_K && args.n1_K - (((i4 + 2u) * 32u)) >= 32u && (bx * 64u) < args.n2_N && args.n2_N - ((bx * 64u)) >= 64u) {
                        let u0c0 = ((tid + 0u) * 4u / 64u) % 32u;
                        let u0c1 = ((tid + 0u) * 4u / 1u) % 64u;
                        let v0 = ldvu_g1_B(((i4 + 2u) * 32u) + u0c0, (bx * 64u) + u0c1);
                        let u1c0 = ((tid + 128u) * 4u / 64u) % 32u;
                        let u1c1 = ((tid + 128u) * 4u / 1u) % 64u;
                        let v1 = ldvu_g1_B(((i4 + 2u) * 32u) + u1c0, (bx * 64u) + u1c1);
                        let u2c0 = ((tid + 256u) * 4u / 64u) % 32u;
                        let u2c1 = ((tid + 256u) * 4u / 1u) % 64u;
                        let v2 = ldvu_g1_B(((i4 + 2u) * 32u) + u2c0, (bx * 64u) + u2c1);
                        let u3c0 = ((tid + 384u) * 4u / 64u) % 32u;
                        let u3c1 = ((tid + 384u) * 4u / 1u) % 64u;
                        let v3 = ldvu_g1_B(((i4 + 2u) * 32u) + u3c0, (bx * 64u) + u3c1);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                    }
                    else {
                        let u0c0 = ((tid + 0u) * 4u / 64u) % 32u;
                        let u0c1 = ((tid + 0u) * 4u / 1u) % 64u;
                        let v0 = ldv_g1_B(((i4 + 2u) * 32u) + u0c0, (bx * 64u) + u0c1);
                        let u1c0 = ((tid + 128u) * 4u / 64u) % 32u;
                        let u1c1 = ((tid + 128u) * 4u / 1u) % 64u;
                        let v1 = ldv_g1_B(((i4 + 2u) * 32u) + u1c0, (bx * 64u) + u1c1);
                        let u2c0 = ((tid + 256u) * 4u / 64u) % 32u;
                        let u2c1 = ((tid + 256u) * 4u / 1u) % 64u;
                        let v2 = ldv_g1_B(((i4 + 2u) * 32u) + u2c0, (bx * 64u) + u2c1);
                        let u3c0 = ((tid + 384u) * 4u / 64u) % 32u;
                        let u3c1 = ((tid + 384u) * 4u / 1u) % 64u;
                        let v3 = ldv_g1_B(((i4 + 2u) * 32u) + u3c0, (bx * 64u) + u3c1);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                    }
                }
                else {
                    for (var _e6_k = 0u; _e6_k < 16u; _e6_k++) {
                        let _e6 = tid + _e6_k * 128u;
                        let c0 = (_e6 / 64u) % 32u;
                        let c1 = (_e6 / 1u) % 64u;
                        s1_B_shared[(((i4 + 2u) % 3u)) * 2304u + ((_e6) / 64u) * 72u + (_e6) % 64u] = f16(ld_g1_B(((i4 + 2u) * 32u) + c0, (bx * 64u) + c1));
                    }
                }
            }
        }
        {
            let tr = (tid / 8u) * 4u;
            let tcol = tid % 8u;
            for (var _kk7 = 0u; _kk7 < 32u; _kk7++) {
                let a0 = f32(s0_A_shared[((i4 % 3u)) * 2560u + (tr + 0u) * 40u + _kk7]);
                let a1 = f32(s0_A_shared[((i4 % 3u)) * 2560u + (tr + 1u) * 40u + _kk7]);
                let a2 = f32(s0_A_shared[((i4 % 3u)) * 2560u + (tr + 2u) * 40u + _kk7]);
                let a3 = f32(s0_A_shared[((i4 % 3u)) * 2560u + (tr + 3u) * 40u + _kk7]);
                let b0 = f32(s1_B_shared[((i4 % 3u)) * 2304u + _kk7 * 72u + tcol + 0u]);
                let b1 = f32(s1_B_shared[((i4 % 3u)) * 2304u + _kk7 * 72u + tcol + 8u]);
                let b2 = f32(s1_B_shared[((i4 % 3u)) * 2304u + _kk7 * 72u + tcol + 16u]);
                let b3 = f32(s1_B_shared[((i4 % 3u)) * 2304u + _kk7 * 72u + tcol + 24u]);
                let b4 = f32(s1_B_shared[((i4 % 3u)) * 2304u + _kk7 * 72u + tcol + 32u]);
                let b5 = f32(s1_B_shared[((i4 % 3u)) * 2304u + _kk7 * 72u + tcol + 40u]);
                let b6 = f32(s1_B_shared[((i4 % 3u)) * 2304u + _kk7 * 72u + tcol + 48u]);
                let b7 = f32(s1_B_shared[((i4 % 3u)) * 2304u + _kk7 * 72u + tcol + 56u]);
                f2_acc[0] = fma(a0, b0, f2_acc[0]);
                f2_acc[1] = fma(a0, b1, f2_acc[1]);
                f2_acc[2] = fma(a0, b2, f2_acc[2]);
                f2_acc[3] = fma(a0, b3, f2_acc[3]);
                f2_acc[4] = fma(a0, b4, f2_acc[4]);
                f2_acc[5] = fma(a0, b5, f2_acc[5]);
                f2_acc[6] = fma(a0, b6, f2_acc[6]);
                f2_acc[7] = fma(a0, b7, f2_acc[7]);
                f2_acc[8] = fma(a1, b0, f2_acc[8]);
                f2_acc[9] = fma(a1, b1, f2_acc[9]);
                f2_acc[10] = fma(a1, b2, f2_acc[10]);
                f2_acc[11] = fma(a1, b3, f2_acc[11]);
                f2_acc[12] = fma(a1, b4, f2_acc[12]);
                f2_acc[13] = fma(a1, b5, f2_acc[13]);
                f2_acc[14] = fma(a1, b6, f2_acc[14]);
                f2_acc[15] = fma(a1, b7, f2_acc[15]);
                f2_acc[16] = fma(a2, b0, f2_acc[16]);
                f2_acc[17] = fma(a2, b1, f2_acc[17]);
                f2_acc[18] = fma(a2, b2, f2_acc[18]);
                f2_acc[19] = fma(a2, b3, f2_acc[19]);
                f2_acc[20] = fma(a2, b4, f2_acc[20]);
                f2_acc[21] = fma(a2, b5, f2_acc[21]);
                f2_acc[22] = fma(a2, b6, f2_acc[22]);
                f2_acc[23] = fma(a2, b7, f2_acc[23]);
                f2_acc[24] = fma(a3, b0, f2_acc[24]);
                f2_acc[25] = fma(a3, b1, f2_acc[25]);
                f2_acc[26] = fma(a3, b2, f2_acc[26]);
                f2_acc[27] = fma(a3, b3, f2_acc[27]);
                f2_acc[28] = fma(a3, b4, f2_acc[28]);
                f2_acc[29] = fma(a3, b5, f2_acc[29]);
                f2_acc[30] = fma(a3, b6, f2_acc[30]);
                f2_acc[31] = fma(a3, b7, f2_acc[31]);
            }
        }
    }
    workgroupBarrier();
    if ((by * 64u) < args.n0_M && args.n0_M - ((by * 64u)) >= 64u && (bx * 64u) < args.n2_N && args.n2_N - ((bx * 64u)) >= 64u) {
        {
            let r = (tid / 8u) * 4u;
            let c = tid % 8u;
            stu_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 0u, f32(f2_acc[0]));
            stu_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 8u, f32(f2_acc[1]));
            stu_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 16u, f32(f2_acc[2]));
            stu_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 24u, f32(f2_acc[3]));
            stu_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 32u, f32(f2_acc[4]));
            stu_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 40u, f32(f2_acc[5]));
            stu_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 48u, f32(f2_acc[6]));
            stu_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 56u, f32(f2_acc[7]));
            stu_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 0u, f32(f2_acc[8]));
            stu_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 8u, f32(f2_acc[9]));
            stu_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 16u, f32(f2_acc[10]));
            stu_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 24u, f32(f2_acc[11]));
            stu_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 32u, f32(f2_acc[12]));
            stu_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 40u, f32(f2_acc[13]));
            stu_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 48u, f32(f2_acc[14]));
            stu_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 56u, f32(f2_acc[15]));
            stu_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 0u, f32(f2_acc[16]));
            stu_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 8u, f32(f2_acc[17]));
            stu_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 16u, f32(f2_acc[18]));
            stu_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 24u, f32(f2_acc[19]));
            stu_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 32u, f32(f2_acc[20]));
            stu_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 40u, f32(f2_acc[21]));
            stu_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 48u, f32(f2_acc[22]));
            stu_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 56u, f32(f2_acc[23]));
            stu_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 0u, f32(f2_acc[24]));
            stu_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 8u, f32(f2_acc[25]));
            stu_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 16u, f32(f2_acc[26]));
            stu_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 24u, f32(f2_acc[27]));
            stu_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 32u, f32(f2_acc[28]));
            stu_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 40u, f32(f2_acc[29]));
            stu_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 48u, f32(f2_acc[30]));
            stu_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 56u, f32(f2_acc[31]));
        }
    }
    else {
        {
            let r = (tid / 8u) * 4u;
            let c = tid % 8u;
            st_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 0u, f32(f2_acc[0]));
            st_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 8u, f32(f2_acc[1]));
            st_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 16u, f32(f2_acc[2]));
            st_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 24u, f32(f2_acc[3]));
            st_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 32u, f32(f2_acc[4]));
            st_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 40u, f32(f2_acc[5]));
            st_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 48u, f32(f2_acc[6]));
            st_g2_C((by * 64u) + r + 0u, (bx * 64u) + c + 56u, f32(f2_acc[7]));
            st_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 0u, f32(f2_acc[8]));
            st_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 8u, f32(f2_acc[9]));
            st_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 16u, f32(f2_acc[10]));
            st_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 24u, f32(f2_acc[11]));
            st_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 32u, f32(f2_acc[12]));
            st_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 40u, f32(f2_acc[13]));
            st_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 48u, f32(f2_acc[14]));
            st_g2_C((by * 64u) + r + 1u, (bx * 64u) + c + 56u, f32(f2_acc[15]));
            st_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 0u, f32(f2_acc[16]));
            st_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 8u, f32(f2_acc[17]));
            st_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 16u, f32(f2_acc[18]));
            st_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 24u, f32(f2_acc[19]));
            st_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 32u, f32(f2_acc[20]));
            st_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 40u, f32(f2_acc[21]));
            st_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 48u, f32(f2_acc[22]));
            st_g2_C((by * 64u) + r + 2u, (bx * 64u) + c + 56u, f32(f2_acc[23]));
            st_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 0u, f32(f2_acc[24]));
            st_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 8u, f32(f2_acc[25]));
            st_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 16u, f32(f2_acc[26]));
            st_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 24u, f32(f2_acc[27]));
            st_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 32u, f32(f2_acc[28]));
            st_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 40u, f32(f2_acc[29]));
            st_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 48u, f32(f2_acc[30]));
            st_g2_C((by * 64u) + r + 3u, (bx * 64u) + c + 56u, f32(f2_acc[31]));
        }
    }
}
