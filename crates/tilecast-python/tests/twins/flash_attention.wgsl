// tilecast kernel "flash_attention": 128 threads per threadgroup
enable f16;

struct Args {
    n0_B: u32,
    n1_H: u32,
    n2_S: u32,
    n3_KV: u32,
    n4_T: u32,
    a0_scale: f32,
}
var<immediate> args: Args;

@group(0) @binding(0) var<storage, read> g0_Q: array<f16>;
@group(0) @binding(1) var<storage, read> g1_K: array<f16>;
@group(0) @binding(2) var<storage, read> g2_V: array<f16>;
@group(0) @binding(3) var<storage, read_write> g3_O: array<f16>;
@group(0) @binding(4) var<storage, read> v_g0_Q: array<vec4<f16>>;
@group(0) @binding(5) var<storage, read> v_g1_K: array<vec4<f16>>;
@group(0) @binding(6) var<storage, read> v_g2_V: array<vec4<f16>>;
var<workgroup> s0_q_s: array<f16, 2304>;
var<workgroup> s1_k_s: array<f16, 4608>;
var<workgroup> s2_v_s: array<f16, 4608>;
var<workgroup> s11_rescale: array<f32, 32>;
var<workgroup> s12_block_max_scratch: array<f32, 32>;
var<workgroup> s13_block_sum_scratch: array<f32, 32>;
var<workgroup> s14_probs_scratch: array<f16, 1280>;

fn ld_g0_Q(i0: u32, i1: u32, i2: u32, i3: u32) -> f16 {
    if (i0 < args.n0_B && i1 < args.n1_H && i2 < args.n2_S && i3 < 64u) { return g0_Q[(((i0) * args.n1_H + i1) * args.n2_S + i2) * 64u + i3]; }
    return f16(0);
}
fn ldv_g0_Q(i0: u32, i1: u32, i2: u32, i3: u32) -> vec4<f16> {
    if (i0 < args.n0_B && i1 < args.n1_H && i2 < args.n2_S && i3 < 64u) { return v_g0_Q[((((i0) * args.n1_H + i1) * args.n2_S + i2) * 64u + i3) / 4u]; }
    return vec4<f16>(0);
}
fn ldvu_g0_Q(i0: u32, i1: u32, i2: u32, i3: u32) -> vec4<f16> {
    return v_g0_Q[((((i0) * args.n1_H + i1) * args.n2_S + i2) * 64u + i3) / 4u];
}
fn ld_g1_K(i0: u32, i1: u32, i2: u32, i3: u32) -> f16 {
    if (i0 < args.n0_B && i1 < args.n3_KV && i2 < args.n4_T && i3 < 64u) { return g1_K[(((i0) * args.n3_KV + i1) * args.n4_T + i2) * 64u + i3]; }
    return f16(0);
}
fn ldv_g1_K(i0: u32, i1: u32, i2: u32, i3: u32) -> vec4<f16> {
    if (i0 < args.n0_B && i1 < args.n3_KV && i2 < args.n4_T && i3 < 64u) { return v_g1_K[((((i0) * args.n3_KV + i1) * args.n4_T + i2) * 64u + i3) / 4u]; }
    return vec4<f16>(0);
}
fn ldvu_g1_K(i0: u32, i1: u32, i2: u32, i3: u32) -> vec4<f16> {
    return v_g1_K[((((i0) * args.n3_KV + i1) * args.n4_T + i2) * 64u + i3) / 4u];
}
fn ld_g2_V(i0: u32, i1: u32, i2: u32, i3: u32) -> f16 {
    if (i0 < args.n0_B && i1 < args.n3_KV && i2 < args.n4_T && i3 < 64u) { return g2_V[(((i0) * args.n3_KV + i1) * args.n4_T + i2) * 64u + i3]; }
    return f16(0);
}
fn ldv_g2_V(i0: u32, i1: u32, i2: u32, i3: u32) -> vec4<f16> {
    if (i0 < args.n0_B && i1 < args.n3_KV && i2 < args.n4_T && i3 < 64u) { return v_g2_V[((((i0) * args.n3_KV + i1) * args.n4_T + i2) * 64u + i3) / 4u]; }
    return vec4<f16>(0);
}
fn ldvu_g2_V(i0: u32, i1: u32, i2: u32, i3: u32) -> vec4<f16> {
    return v_g2_V[((((i0) * args.n3_KV + i1) * args.n4_T + i2) * 64u + i3) / 4u];
}
fn ld_g3_O(i0: u32, i1: u32, i2: u32, i3: u32) -> f16 {
    if (i0 < args.n0_B && i1 < args.n1_H && i2 < args.n2_S && i3 < 64u) { return g3_O[(((i0) * args.n1_H + i1) * args.n2_S + i2) * 64u + i3]; }
    return f16(0);
}
fn st_g3_O(i0: u32, i1: u32, i2: u32, i3: u32, v: f16) {
    if (i0 < args.n0_B && i1 < args.n1_H && i2 < args.n2_S && i3 < 64u) { g3_O[(((i0) * args.n1_H + i1) * args.n2_S + i2) * 64u + i3] = v; }
}
fn stu_g3_O(i0: u32, i1: u32, i2: u32, i3: u32, v: f16) {
    g3_O[(((i0) * args.n1_H + i1) * args.n2_S + i2) * 64u + i3] = v;
}

@compute @workgroup_size(128)
fn tc_flash_attention(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32) {
    let bx = wg.x;
    let by = wg.y;
    let bz = wg.z;
    var f3_scores: array<f32, 8>;
    var f4_probs: array<f16, 8>;
    var f5_acc: array<f32, 16>;
    var f6_row_max: array<f32, 2>;
    var f7_row_sum: array<f32, 2>;
    var f8_block_max: array<f32, 2>;
    var f9_block_sum: array<f32, 2>;
    var f10_alpha: array<f32, 2>;
    if (64u % 4u == 0u && (0u) % 4u == 0u) {
        if (bz < args.n0_B && args.n0_B - (bz) >= 1u && by < args.n1_H && args.n1_H - (by) >= 1u && (bx * 32u) < args.n2_S && args.n2_S - ((bx * 32u)) >= 32u && 0u < 64u && 64u - (0u) >= 64u) {
            let u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
            let u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
            let u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
            let u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
            let v0 = ldvu_g0_Q(bz + u0c0, by + u0c1, (bx * 32u) + u0c2, 0u + u0c3);
            let u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
            let u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
            let u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
            let u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
            let v1 = ldvu_g0_Q(bz + u1c0, by + u1c1, (bx * 32u) + u1c2, 0u + u1c3);
            let u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
            let u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
            let u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
            let u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
            let v2 = ldvu_g0_Q(bz + u2c0, by + u2c1, (bx * 32u) + u2c2, 0u + u2c3);
            let u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
            let u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
            let u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
            let u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
            let v3 = ldvu_g0_Q(bz + u3c0, by + u3c1, (bx * 32u) + u3c2, 0u + u3c3);
            s0_q_s[(((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
            s0_q_s[(((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
            s0_q_s[(((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
            s0_q_s[(((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
            s0_q_s[(((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
            s0_q_s[(((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
            s0_q_s[(((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
            s0_q_s[(((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
            s0_q_s[(((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
            s0_q_s[(((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
            s0_q_s[(((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
            s0_q_s[(((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
            s0_q_s[(((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
            s0_q_s[(((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
            s0_q_s[(((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
            s0_q_s[(((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
        }
        else {
            let u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
            let u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
            let u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
            let u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
            let v0 = ldv_g0_Q(bz + u0c0, by + u0c1, (bx * 32u) + u0c2, 0u + u0c3);
            let u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
            let u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
            let u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
            let u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
            let v1 = ldv_g0_Q(bz + u1c0, by + u1c1, (bx * 32u) + u1c2, 0u + u1c3);
            let u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
            let u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
            let u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
            let u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
            let v2 = ldv_g0_Q(bz + u2c0, by + u2c1, (bx * 32u) + u2c2, 0u + u2c3);
            let u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
            let u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
            let u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
            let u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
            let v3 = ldv_g0_Q(bz + u3c0, by + u3c1, (bx * 32u) + u3c2, 0u + u3c3);
            s0_q_s[(((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
            s0_q_s[(((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
            s0_q_s[(((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
            s0_q_s[(((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
            s0_q_s[(((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
            s0_q_s[(((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
            s0_q_s[(((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
            s0_q_s[(((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
            s0_q_s[(((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
            s0_q_s[(((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
            s0_q_s[(((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
            s0_q_s[(((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
            s0_q_s[(((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
            s0_q_s[(((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
            s0_q_s[(((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
            s0_q_s[(((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
        }
    }
    else {
        for (var _e1_k = 0u; _e1_k < 16u; _e1_k++) {
            let _e1 = tid + _e1_k * 128u;
            let c0 = (_e1 / 2048u) % 1u;
            let c1 = (_e1 / 2048u) % 1u;
            let c2 = (_e1 / 64u) % 32u;
            let c3 = (_e1 / 1u) % 64u;
            s0_q_s[((_e1) / 64u) * 72u + (_e1) % 64u] = f16(ld_g0_Q(bz + c0, by + c1, (bx * 32u) + c2, 0u + c3));
        }
    }
    workgroupBarrier();
    for (var _e2_k = 0u; _e2_k < 16u; _e2_k++) {
        let _e2 = tid + _e2_k * 128u;
        let v0 = (_e2 / 64u) % 32u;
        let v1 = (_e2 / 1u) % 64u;
        let p4 = v0;
        let p5 = v1;
        s0_q_s[(p4) * 72u + p5] = f16((f32(s0_q_s[(p4) * 72u + p5]) * (args.a0_scale * 1.442695f)));
    }
    workgroupBarrier();
    f5_acc[0] = 0.0f;
    f5_acc[1] = 0.0f;
    f5_acc[2] = 0.0f;
    f5_acc[3] = 0.0f;
    f5_acc[4] = 0.0f;
    f5_acc[5] = 0.0f;
    f5_acc[6] = 0.0f;
    f5_acc[7] = 0.0f;
    f5_acc[8] = 0.0f;
    f5_acc[9] = 0.0f;
    f5_acc[10] = 0.0f;
    f5_acc[11] = 0.0f;
    f5_acc[12] = 0.0f;
    f5_acc[13] = 0.0f;
    f5_acc[14] = 0.0f;
    f5_acc[15] = 0.0f;
    f6_row_max[0] = bitcast<f32>(0xff800000u);
    f6_row_max[1] = bitcast<f32>(0xff800000u);
    f7_row_sum[0] = 0.0f;
    f7_row_sum[1] = 0.0f;
    workgroupBarrier();
    if ((0u < (((select(0u, min(((((bx * 32u) + 32u) + args.n4_T) - args.n2_S), args.n4_T), ((((bx * 32u) + 32u) + args.n4_T) > args.n2_S)) + 32u) - 1u) / 32u))) {
        if (64u % 4u == 0u && (0u) % 4u == 0u && bz < args.n0_B && args.n0_B - (bz) >= 1u && (by / (args.n1_H / args.n3_KV)) < args.n3_KV && args.n3_KV - ((by / (args.n1_H / args.n3_KV))) >= 1u && 0u < args.n4_T && args.n4_T - (0u) >= 32u && 0u < 64u && 64u - (0u) >= 64u && 64u % 4u == 0u && (0u) % 4u == 0u && bz < args.n0_B && args.n0_B - (bz) >= 1u && (by / (args.n1_H / args.n3_KV)) < args.n3_KV && args.n3_KV - ((by / (args.n1_H / args.n3_KV))) >= 1u && 0u < args.n4_T && args.n4_T - (0u) >= 32u && 0u < 64u && 64u - (0u) >= 64u) {
            let g0u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
            let g0u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
            let g0u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
            let g0u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
            let g0v0 = ldvu_g1_K(bz + g0u0c0, (by / (args.n1_H / args.n3_KV)) + g0u0c1, 0u + g0u0c2, 0u + g0u0c3);
            let g0u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
            let g0u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
            let g0u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
            let g0u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
            let g0v1 = ldvu_g1_K(bz + g0u1c0, (by / (args.n1_H / args.n3_KV)) + g0u1c1, 0u + g0u1c2, 0u + g0u1c3);
            let g0u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
            let g0u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
            let g0u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
            let g0u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
            let g0v2 = ldvu_g1_K(bz + g0u2c0, (by / (args.n1_H / args.n3_KV)) + g0u2c1, 0u + g0u2c2, 0u + g0u2c3);
            let g0u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
            let g0u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
            let g0u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
            let g0u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
            let g0v3 = ldvu_g1_K(bz + g0u3c0, (by / (args.n1_H / args.n3_KV)) + g0u3c1, 0u + g0u3c2, 0u + g0u3c3);
            let g1u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
            let g1u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
            let g1u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
            let g1u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
            let g1v0 = ldvu_g2_V(bz + g1u0c0, (by / (args.n1_H / args.n3_KV)) + g1u0c1, 0u + g1u0c2, 0u + g1u0c3);
            let g1u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
            let g1u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
            let g1u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
            let g1u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
            let g1v1 = ldvu_g2_V(bz + g1u1c0, (by / (args.n1_H / args.n3_KV)) + g1u1c1, 0u + g1u1c2, 0u + g1u1c3);
            let g1u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
            let g1u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
            let g1u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
            let g1u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
            let g1v2 = ldvu_g2_V(bz + g1u2c0, (by / (args.n1_H / args.n3_KV)) + g1u2c1, 0u + g1u2c2, 0u + g1u2c3);
            let g1u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
            let g1u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
            let g1u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
            let g1u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
            let g1v3 = ldvu_g2_V(bz + g1u3c0, (by / (args.n1_H / args.n3_KV)) + g1u3c1, 0u + g1u3c2, 0u + g1u3c3);
            s1_k_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(g0v0.x);
            s1_k_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(g0v0.y);
            s1_k_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(g0v0.z);
            s1_k_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(g0v0.w);
            s1_k_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(g0v1.x);
            s1_k_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(g0v1.y);
            s1_k_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(g0v1.z);
            s1_k_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(g0v1.w);
            s1_k_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(g0v2.x);
            s1_k_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(g0v2.y);
            s1_k_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(g0v2.z);
            s1_k_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(g0v2.w);
            s1_k_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(g0v3.x);
            s1_k_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(g0v3.y);
            s1_k_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(g0v3.z);
            s1_k_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(g0v3.w);
            s2_v_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(g1v0.x);
            s2_v_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(g1v0.y);
            s2_v_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(g1v0.z);
            s2_v_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(g1v0.w);
            s2_v_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(g1v1.x);
            s2_v_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(g1v1.y);
            s2_v_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(g1v1.z);
            s2_v_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(g1v1.w);
            s2_v_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(g1v2.x);
            s2_v_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(g1v2.y);
            s2_v_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(g1v2.z);
            s2_v_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(g1v2.w);
            s2_v_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(g1v3.x);
            s2_v_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(g1v3.y);
            s2_v_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(g1v3.z);
            s2_v_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(g1v3.w);
        }
        else {
            if (64u % 4u == 0u && (0u) % 4u == 0u) {
                if (bz < args.n0_B && args.n0_B - (bz) >= 1u && (by / (args.n1_H / args.n3_KV)) < args.n3_KV && args.n3_KV - ((by / (args.n1_H / args.n3_KV))) >= 1u && 0u < args.n4_T && args.n4_T - (0u) >= 32u && 0u < 64u && 64u - (0u) >= 64u) {
                    let u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
                    let u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
                    let u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
                    let u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
                    let v0 = ldvu_g1_K(bz + u0c0, (by / (args.n1_H / args.n3_KV)) + u0c1, 0u + u0c2, 0u + u0c3);
                    let u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
                    let u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
                    let u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
                    let u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
                    let v1 = ldvu_g1_K(bz + u1c0, (by / (args.n1_H / args.n3_KV)) + u1c1, 0u + u1c2, 0u + u1c3);
                    let u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
                    let u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
                    let u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
                    let u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
                    let v2 = ldvu_g1_K(bz + u2c0, (by / (args.n1_H / args.n3_KV)) + u2c1, 0u + u2c2, 0u + u2c3);
                    let u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
                    let u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
                    let u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
                    let u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
                    let v3 = ldvu_g1_K(bz + u3c0, (by / (args.n1_H / args.n3_KV)) + u3c1, 0u + u3c2, 0u + u3c3);
                    s1_k_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                    s1_k_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                    s1_k_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                    s1_k_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                    s1_k_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                    s1_k_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                    s1_k_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                    s1_k_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                    s1_k_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                    s1_k_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                    s1_k_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                    s1_k_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                    s1_k_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                    s1_k_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                    s1_k_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                    s1_k_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                }
                else {
                    let u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
                    let u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
                    let u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
                    let u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
                    let v0 = ldv_g1_K(bz + u0c0, (by / (args.n1_H / args.n3_KV)) + u0c1, 0u + u0c2, 0u + u0c3);
                    let u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
                    let u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
                    let u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
                    let u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
                    let v1 = ldv_g1_K(bz + u1c0, (by / (args.n1_H / args.n3_KV)) + u1c1, 0u + u1c2, 0u + u1c3);
                    let u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
                    let u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
                    let u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
                    let u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
                    let v2 = ldv_g1_K(bz + u2c0, (by / (args.n1_H / args.n3_KV)) + u2c1, 0u + u2c2, 0u + u2c3);
                    let u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
                    let u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
                    let u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
                    let u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
                    let v3 = ldv_g1_K(bz + u3c0, (by / (args.n1_H / args.n3_KV)) + u3c1, 0u + u3c2, 0u + u3c3);
                    s1_k_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                    s1_k_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                    s1_k_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                    s1_k_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                    s1_k_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                    s1_k_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                    s1_k_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                    s1_k_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                    s1_k_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                    s1_k_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                    s1_k_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                    s1_k_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                    s1_k_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                    s1_k_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                    s1_k_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                    s1_k_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                }
            }
            else {
                for (var _e3_k = 0u; _e3_k < 16u; _e3_k++) {
                    let _e3 = tid + _e3_k * 128u;
                    let c0 = (_e3 / 2048u) % 1u;
                    let c1 = (_e3 / 2048u) % 1u;
                    let c2 = (_e3 / 64u) % 32u;
                    let c3 = (_e3 / 1u) % 64u;
                    s1_k_s[(0u) * 2304u + ((_e3) / 64u) * 72u + (_e3) % 64u] = f16(ld_g1_K(bz + c0, (by / (args.n1_H / args.n3_KV)) + c1, 0u + c2, 0u + c3));
                }
            }
            if (64u % 4u == 0u && (0u) % 4u == 0u) {
                if (bz < args.n0_B && args.n0_B - (bz) >= 1u && (by / (args.n1_H / args.n3_KV)) < args.n3_KV && args.n3_KV - ((by / (args.n1_H / args.n3_KV))) >= 1u && 0u < args.n4_T && args.n4_T - (0u) >= 32u && 0u < 64u && 64u - (0u) >= 64u) {
                    let u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
                    let u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
                    let u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
                    let u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
                    let v0 = ldvu_g2_V(bz + u0c0, (by / (args.n1_H / args.n3_KV)) + u0c1, 0u + u0c2, 0u + u0c3);
                    let u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
                    let u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
                    let u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
                    let u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
                    let v1 = ldvu_g2_V(bz + u1c0, (by / (args.n1_H / args.n3_KV)) + u1c1, 0u + u1c2, 0u + u1c3);
                    let u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
                    let u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
                    let u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
                    let u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
                    let v2 = ldvu_g2_V(bz + u2c0, (by / (args.n1_H / args.n3_KV)) + u2c1, 0u + u2c2, 0u + u2c3);
                    let u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
                    let u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
                    let u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
                    let u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
                    let v3 = ldvu_g2_V(bz + u3c0, (by / (args.n1_H / args.n3_KV)) + u3c1, 0u + u3c2, 0u + u3c3);
                    s2_v_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                    s2_v_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                    s2_v_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                    s2_v_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                    s2_v_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                    s2_v_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                    s2_v_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                    s2_v_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                    s2_v_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                    s2_v_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                    s2_v_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                    s2_v_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                    s2_v_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                    s2_v_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                    s2_v_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                    s2_v_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                }
                else {
                    let u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
                    let u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
                    let u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
                    let u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
                    let v0 = ldv_g2_V(bz + u0c0, (by / (args.n1_H / args.n3_KV)) + u0c1, 0u + u0c2, 0u + u0c3);
                    let u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
                    let u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
                    let u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
                    let u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
                    let v1 = ldv_g2_V(bz + u1c0, (by / (args.n1_H / args.n3_KV)) + u1c1, 0u + u1c2, 0u + u1c3);
                    let u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
                    let u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
                    let u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
                    let u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
                    let v2 = ldv_g2_V(bz + u2c0, (by / (args.n1_H / args.n3_KV)) + u2c1, 0u + u2c2, 0u + u2c3);
                    let u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
                    let u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
                    let u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
                    let u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
                    let v3 = ldv_g2_V(bz + u3c0, (by / (args.n1_H / args.n3_KV)) + u3c1, 0u + u3c2, 0u + u3c3);
                    s2_v_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                    s2_v_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                    s2_v_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                    s2_v_s[(0u) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                    s2_v_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                    s2_v_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                    s2_v_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                    s2_v_s[(0u) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                    s2_v_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                    s2_v_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                    s2_v_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                    s2_v_s[(0u) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                    s2_v_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                    s2_v_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                    s2_v_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                    s2_v_s[(0u) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                }
            }
            else {
                for (var _e4_k = 0u; _e4_k < 16u; _e4_k++) {
                    let _e4 = tid + _e4_k * 128u;
                    let c0 = (_e4 / 2048u) % 1u;
                    let c1 = (_e4 / 2048u) % 1u;
                    let c2 = (_e4 / 64u) % 32u;
                    let c3 = (_e4 / 1u) % 64u;
                    s2_v_s[(0u) * 2304u + ((_e4) / 64u) * 72u + (_e4) % 64u] = f16(ld_g2_V(bz + c0, (by / (args.n1_H / args.n3_KV)) + c1, 0u + c2, 0u + c3));
                }
            }
        }
    }
    for (var i6 = 0u; i6 < (((select(0u, min(((((bx * 32u) + 32u) + args.n4_T) - args.n2_S), args.n4_T), ((((bx * 32u) + 32u) + args.n4_T) > args.n2_S)) + 32u) - 1u) / 32u); i6++) {
        workgroupBarrier();
        if (((i6 + 1u) < (((select(0u, min(((((bx * 32u) + 32u) + args.n4_T) - args.n2_S), args.n4_T), ((((bx * 32u) + 32u) + args.n4_T) > args.n2_S)) + 32u) - 1u) / 32u))) {
            if (64u % 4u == 0u && (0u) % 4u == 0u && bz < args.n0_B && args.n0_B - (bz) >= 1u && (by / (args.n1_H / args.n3_KV)) < args.n3_KV && args.n3_KV - ((by / (args.n1_H / args.n3_KV))) >= 1u && ((i6 + 1u) * 32u) < args.n4_T && args.n4_T - (((i6 + 1u) * 32u)) >= 32u && 0u < 64u && 64u - (0u) >= 64u && 64u % 4u == 0u && (0u) % 4u == 0u && bz < args.n0_B && args.n0_B - (bz) >= 1u && (by / (args.n1_H / args.n3_KV)) < args.n3_KV && args.n3_KV - ((by / (args.n1_H / args.n3_KV))) >= 1u && ((i6 + 1u) * 32u) < args.n4_T && args.n4_T - (((i6 + 1u) * 32u)) >= 32u && 0u < 64u && 64u - (0u) >= 64u) {
                let g0u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
                let g0u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
                let g0u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
                let g0u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
                let g0v0 = ldvu_g1_K(bz + g0u0c0, (by / (args.n1_H / args.n3_KV)) + g0u0c1, ((i6 + 1u) * 32u) + g0u0c2, 0u + g0u0c3);
                let g0u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
                let g0u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
                let g0u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
                let g0u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
                let g0v1 = ldvu_g1_K(bz + g0u1c0, (by / (args.n1_H / args.n3_KV)) + g0u1c1, ((i6 + 1u) * 32u) + g0u1c2, 0u + g0u1c3);
                let g0u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
                let g0u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
                let g0u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
                let g0u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
                let g0v2 = ldvu_g1_K(bz + g0u2c0, (by / (args.n1_H / args.n3_KV)) + g0u2c1, ((i6 + 1u) * 32u) + g0u2c2, 0u + g0u2c3);
                let g0u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
                let g0u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
                let g0u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
                let g0u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
                let g0v3 = ldvu_g1_K(bz + g0u3c0, (by / (args.n1_H / args.n3_KV)) + g0u3c1, ((i6 + 1u) * 32u) + g0u3c2, 0u + g0u3c3);
                let g1u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
                let g1u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
                let g1u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
                let g1u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
                let g1v0 = ldvu_g2_V(bz + g1u0c0, (by / (args.n1_H / args.n3_KV)) + g1u0c1, ((i6 + 1u) * 32u) + g1u0c2, 0u + g1u0c3);
                let g1u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
                let g1u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
                let g1u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
                let g1u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
                let g1v1 = ldvu_g2_V(bz + g1u1c0, (by / (args.n1_H / args.n3_KV)) + g1u1c1, ((i6 + 1u) * 32u) + g1u1c2, 0u + g1u1c3);
                let g1u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
                let g1u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
                let g1u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
                let g1u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
                let g1v2 = ldvu_g2_V(bz + g1u2c0, (by / (args.n1_H / args.n3_KV)) + g1u2c1, ((i6 + 1u) * 32u) + g1u2c2, 0u + g1u2c3);
                let g1u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
                let g1u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
                let g1u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
                let g1u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
                let g1v3 = ldvu_g2_V(bz + g1u3c0, (by / (args.n1_H / args.n3_KV)) + g1u3c1, ((i6 + 1u) * 32u) + g1u3c2, 0u + g1u3c3);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(g0v0.x);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(g0v0.y);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(g0v0.z);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(g0v0.w);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(g0v1.x);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(g0v1.y);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(g0v1.z);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(g0v1.w);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(g0v2.x);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(g0v2.y);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(g0v2.z);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(g0v2.w);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(g0v3.x);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(g0v3.y);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(g0v3.z);
                s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(g0v3.w);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(g1v0.x);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(g1v0.y);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(g1v0.z);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(g1v0.w);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(g1v1.x);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(g1v1.y);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(g1v1.z);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(g1v1.w);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(g1v2.x);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(g1v2.y);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(g1v2.z);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(g1v2.w);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(g1v3.x);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(g1v3.y);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(g1v3.z);
                s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(g1v3.w);
            }
            else {
                if (64u % 4u == 0u && (0u) % 4u == 0u) {
                    if (bz < args.n0_B && args.n0_B - (bz) >= 1u && (by / (args.n1_H / args.n3_KV)) < args.n3_KV && args.n3_KV - ((by / (args.n1_H / args.n3_KV))) >= 1u && ((i6 + 1u) * 32u) < args.n4_T && args.n4_T - (((i6 + 1u) * 32u)) >= 32u && 0u < 64u && 64u - (0u) >= 64u) {
                        let u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
                        let u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
                        let u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
                        let u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
                        let v0 = ldvu_g1_K(bz + u0c0, (by / (args.n1_H / args.n3_KV)) + u0c1, ((i6 + 1u) * 32u) + u0c2, 0u + u0c3);
                        let u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
                        let u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
                        let u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
                        let u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
                        let v1 = ldvu_g1_K(bz + u1c0, (by / (args.n1_H / args.n3_KV)) + u1c1, ((i6 + 1u) * 32u) + u1c2, 0u + u1c3);
                        let u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
                        let u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
                        let u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
                        let u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
                        let v2 = ldvu_g1_K(bz + u2c0, (by / (args.n1_H / args.n3_KV)) + u2c1, ((i6 + 1u) * 32u) + u2c2, 0u + u2c3);
                        let u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
                        let u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
                        let u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
                        let u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
                        let v3 = ldvu_g1_K(bz + u3c0, (by / (args.n1_H / args.n3_KV)) + u3c1, ((i6 + 1u) * 32u) + u3c2, 0u + u3c3);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                    }
                    else {
                        let u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
                        let u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
                        let u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
                        let u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
                        let v0 = ldv_g1_K(bz + u0c0, (by / (args.n1_H / args.n3_KV)) + u0c1, ((i6 + 1u) * 32u) + u0c2, 0u + u0c3);
                        let u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
                        let u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
                        let u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
                        let u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
                        let v1 = ldv_g1_K(bz + u1c0, (by / (args.n1_H / args.n3_KV)) + u1c1, ((i6 + 1u) * 32u) + u1c2, 0u + u1c3);
                        let u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
                        let u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
                        let u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
                        let u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
                        let v2 = ldv_g1_K(bz + u2c0, (by / (args.n1_H / args.n3_KV)) + u2c1, ((i6 + 1u) * 32u) + u2c2, 0u + u2c3);
                        let u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
                        let u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
                        let u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
                        let u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
                        let v3 = ldv_g1_K(bz + u3c0, (by / (args.n1_H / args.n3_KV)) + u3c1, ((i6 + 1u) * 32u) + u3c2, 0u + u3c3);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                    }
                }
                else {
                    for (var _e5_k = 0u; _e5_k < 16u; _e5_k++) {
                        let _e5 = tid + _e5_k * 128u;
                        let c0 = (_e5 / 2048u) % 1u;
                        let c1 = (_e5 / 2048u) % 1u;
                        let c2 = (_e5 / 64u) % 32u;
                        let c3 = (_e5 / 1u) % 64u;
                        s1_k_s[(((i6 + 1u) % 2u)) * 2304u + ((_e5) / 64u) * 72u + (_e5) % 64u] = f16(ld_g1_K(bz + c0, (by / (args.n1_H / args.n3_KV)) + c1, ((i6 + 1u) * 32u) + c2, 0u + c3));
                    }
                }
                if (64u % 4u == 0u && (0u) % 4u == 0u) {
                    if (bz < args.n0_B && args.n0_B - (bz) >= 1u && (by / (args.n1_H / args.n3_KV)) < args.n3_KV && args.n3_KV - ((by / (args.n1_H / args.n3_KV))) >= 1u && ((i6 + 1u) * 32u) < args.n4_T && args.n4_T - (((i6 + 1u) * 32u)) >= 32u && 0u < 64u && 64u - (0u) >= 64u) {
                        let u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
                        let u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
                        let u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
                        let u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
                        let v0 = ldvu_g2_V(bz + u0c0, (by / (args.n1_H / args.n3_KV)) + u0c1, ((i6 + 1u) * 32u) + u0c2, 0u + u0c3);
                        let u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
                        let u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
                        let u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
                        let u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
                        let v1 = ldvu_g2_V(bz + u1c0, (by / (args.n1_H / args.n3_KV)) + u1c1, ((i6 + 1u) * 32u) + u1c2, 0u + u1c3);
                        let u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
                        let u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
                        let u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
                        let u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
                        let v2 = ldvu_g2_V(bz + u2c0, (by / (args.n1_H / args.n3_KV)) + u2c1, ((i6 + 1u) * 32u) + u2c2, 0u + u2c3);
                        let u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
                        let u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
                        let u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
                        let u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
                        let v3 = ldvu_g2_V(bz + u3c0, (by / (args.n1_H / args.n3_KV)) + u3c1, ((i6 + 1u) * 32u) + u3c2, 0u + u3c3);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                    }
                    else {
                        let u0c0 = ((tid + 0u) * 4u / 2048u) % 1u;
                        let u0c1 = ((tid + 0u) * 4u / 2048u) % 1u;
                        let u0c2 = ((tid + 0u) * 4u / 64u) % 32u;
                        let u0c3 = ((tid + 0u) * 4u / 1u) % 64u;
                        let v0 = ldv_g2_V(bz + u0c0, (by / (args.n1_H / args.n3_KV)) + u0c1, ((i6 + 1u) * 32u) + u0c2, 0u + u0c3);
                        let u1c0 = ((tid + 128u) * 4u / 2048u) % 1u;
                        let u1c1 = ((tid + 128u) * 4u / 2048u) % 1u;
                        let u1c2 = ((tid + 128u) * 4u / 64u) % 32u;
                        let u1c3 = ((tid + 128u) * 4u / 1u) % 64u;
                        let v1 = ldv_g2_V(bz + u1c0, (by / (args.n1_H / args.n3_KV)) + u1c1, ((i6 + 1u) * 32u) + u1c2, 0u + u1c3);
                        let u2c0 = ((tid + 256u) * 4u / 2048u) % 1u;
                        let u2c1 = ((tid + 256u) * 4u / 2048u) % 1u;
                        let u2c2 = ((tid + 256u) * 4u / 64u) % 32u;
                        let u2c3 = ((tid + 256u) * 4u / 1u) % 64u;
                        let v2 = ldv_g2_V(bz + u2c0, (by / (args.n1_H / args.n3_KV)) + u2c1, ((i6 + 1u) * 32u) + u2c2, 0u + u2c3);
                        let u3c0 = ((tid + 384u) * 4u / 2048u) % 1u;
                        let u3c1 = ((tid + 384u) * 4u / 2048u) % 1u;
                        let u3c2 = ((tid + 384u) * 4u / 64u) % 32u;
                        let u3c3 = ((tid + 384u) * 4u / 1u) % 64u;
                        let v3 = ldv_g2_V(bz + u3c0, (by / (args.n1_H / args.n3_KV)) + u3c1, ((i6 + 1u) * 32u) + u3c2, 0u + u3c3);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 0u] = f16(v0.x);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 1u] = f16(v0.y);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 2u] = f16(v0.z);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 0u) * 4u) / 64u) * 72u + ((tid + 0u) * 4u) % 64u + 3u] = f16(v0.w);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 0u] = f16(v1.x);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 1u] = f16(v1.y);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 2u] = f16(v1.z);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 128u) * 4u) / 64u) * 72u + ((tid + 128u) * 4u) % 64u + 3u] = f16(v1.w);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 0u] = f16(v2.x);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 1u] = f16(v2.y);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 2u] = f16(v2.z);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 256u) * 4u) / 64u) * 72u + ((tid + 256u) * 4u) % 64u + 3u] = f16(v2.w);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 0u] = f16(v3.x);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 1u] = f16(v3.y);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 2u] = f16(v3.z);
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + (((tid + 384u) * 4u) / 64u) * 72u + ((tid + 384u) * 4u) % 64u + 3u] = f16(v3.w);
                    }
                }
                else {
                    for (var _e6_k = 0u; _e6_k < 16u; _e6_k++) {
                        let _e6 = tid + _e6_k * 128u;
                        let c0 = (_e6 / 2048u) % 1u;
                        let c1 = (_e6 / 2048u) % 1u;
                        let c2 = (_e6 / 64u) % 32u;
                        let c3 = (_e6 / 1u) % 64u;
                        s2_v_s[(((i6 + 1u) % 2u)) * 2304u + ((_e6) / 64u) * 72u + (_e6) % 64u] = f16(ld_g2_V(bz + c0, (by / (args.n1_H / args.n3_KV)) + c1, ((i6 + 1u) * 32u) + c2, 0u + c3));
                    }
                }
            }
        }
        f3_scores[0] = 0.0f;
        f3_scores[1] = 0.0f;
        f3_scores[2] = 0.0f;
        f3_scores[3] = 0.0f;
        f3_scores[4] = 0.0f;
        f3_scores[5] = 0.0f;
        f3_scores[6] = 0.0f;
        f3_scores[7] = 0.0f;
        {
            let tr = (tid / 8u) * 2u;
            let tcol = tid % 8u;
            for (var _kk7 = 0u; _kk7 < 64u; _kk7++) {
                let a0 = f32(s0_q_s[(tr + 0u) * 72u + _kk7]);
                let a1 = f32(s0_q_s[(tr + 1u) * 72u + _kk7]);
                let b0 = f32(s1_k_s[((i6 % 2u)) * 2304u + (tcol + 0u) * 72u + _kk7]);
                let b1 = f32(s1_k_s[((i6 % 2u)) * 2304u + (tcol + 8u) * 72u + _kk7]);
                let b2 = f32(s1_k_s[((i6 % 2u)) * 2304u + (tcol + 16u) * 72u + _kk7]);
                let b3 = f32(s1_k_s[((i6 % 2u)) * 2304u + (tcol + 24u) * 72u + _kk7]);
                f3_scores[0] = fma(a0, b0, f3_scores[0]);
                f3_scores[1] = fma(a0, b1, f3_scores[1]);
                f3_scores[2] = fma(a0, b2, f3_scores[2]);
                f3_scores[3] = fma(a0, b3, f3_scores[3]);
                f3_scores[4] = fma(a1, b0, f3_scores[4]);
                f3_scores[5] = fma(a1, b1, f3_scores[5]);
                f3_scores[6] = fma(a1, b2, f3_scores[6]);
                f3_scores[7] = fma(a1, b3, f3_scores[7]);
            }
        }
        {
            let p7 = (tid / 8u) * 2u + 0u;
            let p8 = tid % 8u + 0u;
            f3_scores[0u] = select(bitcast<f32>(0xff800000u), f3_scores[0u], ((((i6 * 32u) + p8) < args.n4_T) && ((((i6 * 32u) + p8) + args.n2_S) <= (((bx * 32u) + p7) + args.n4_T))));
        }
        {
            let p7 = (tid / 8u) * 2u + 0u;
            let p8 = tid % 8u + 8u;
            f3_scores[1u] = select(bitcast<f32>(0xff800000u), f3_scores[1u], ((((i6 * 32u) + p8) < args.n4_T) && ((((i6 * 32u) + p8) + args.n2_S) <= (((bx * 32u) + p7) + args.n4_T))));
        }
        {
            let p7 = (tid / 8u) * 2u + 0u;
            let p8 = tid % 8u + 16u;
            f3_scores[2u] = select(bitcast<f32>(0xff800000u), f3_scores[2u], ((((i6 * 32u) + p8) < args.n4_T) && ((((i6 * 32u) + p8) + args.n2_S) <= (((bx * 32u) + p7) + args.n4_T))));
        }
        {
            let p7 = (tid / 8u) * 2u + 0u;
            let p8 = tid % 8u + 24u;
            f3_scores[3u] = select(bitcast<f32>(0xff800000u), f3_scores[3u], ((((i6 * 32u) + p8) < args.n4_T) && ((((i6 * 32u) + p8) + args.n2_S) <= (((bx * 32u) + p7) + args.n4_T))));
        }
        {
            let p7 = (tid / 8u) * 2u + 1u;
            let p8 = tid % 8u + 0u;
            f3_scores[4u] = select(bitcast<f32>(0xff800000u), f3_scores[4u], ((((i6 * 32u) + p8) < args.n4_T) && ((((i6 * 32u) + p8) + args.n2_S) <= (((bx * 32u) + p7) + args.n4_T))));
        }
        {
            let p7 = (tid / 8u) * 2u + 1u;
            let p8 = tid % 8u + 8u;
            f3_scores[5u] = select(bitcast<f32>(0xff800000u), f3_scores[5u], ((((i6 * 32u) + p8) < args.n4_T) && ((((i6 * 32u) + p8) + args.n2_S) <= (((bx * 32u) + p7) + args.n4_T))));
        }
        {
            let p7 = (tid / 8u) * 2u + 1u;
            let p8 = tid % 8u + 16u;
            f3_scores[6u] = select(bitcast<f32>(0xff800000u), f3_scores[6u], ((((i6 * 32u) + p8) < args.n4_T) && ((((i6 * 32u) + p8) + args.n2_S) <= (((bx * 32u) + p7) + args.n4_T))));
        }
        {
            let p7 = (tid / 8u) * 2u + 1u;
            let p8 = tid % 8u + 24u;
            f3_scores[7u] = select(bitcast<f32>(0xff800000u), f3_scores[7u], ((((i6 * 32u) + p8) < args.n4_T) && ((((i6 * 32u) + p8) + args.n2_S) <= (((bx * 32u) + p7) + args.n4_T))));
        }
        {
            {
                var _p8 = bitcast<f32>(0xff800000u);
                _p8 = max(_p8, f3_scores[0u * 4u + 0u]);
                _p8 = max(_p8, f3_scores[0u * 4u + 1u]);
                _p8 = max(_p8, f3_scores[0u * 4u + 2u]);
                _p8 = max(_p8, f3_scores[0u * 4u + 3u]);
                _p8 = max(_p8, subgroupShuffleXor(_p8, 4u));
                _p8 = max(_p8, subgroupShuffleXor(_p8, 2u));
                _p8 = max(_p8, subgroupShuffleXor(_p8, 1u));
                f8_block_max[0u] = _p8;
            }
            {
                var _p8 = bitcast<f32>(0xff800000u);
                _p8 = max(_p8, f3_scores[1u * 4u + 0u]);
                _p8 = max(_p8, f3_scores[1u * 4u + 1u]);
                _p8 = max(_p8, f3_scores[1u * 4u + 2u]);
                _p8 = max(_p8, f3_scores[1u * 4u + 3u]);
                _p8 = max(_p8, subgroupShuffleXor(_p8, 4u));
                _p8 = max(_p8, subgroupShuffleXor(_p8, 2u));
                _p8 = max(_p8, subgroupShuffleXor(_p8, 1u));
                f8_block_max[1u] = _p8;
            }
        }
        {
            let p9 = (tid / 8u) * 2u + 0u;
            let let0_new_max = max(f6_row_max[0u], f8_block_max[0u]);
            let let1_alpha = select(exp2((f6_row_max[0u] - let0_new_max)), 1.0f, (let0_new_max == bitcast<f32>(0xff800000u)));
            f10_alpha[0u] = let1_alpha;
            if ((tid % 8u) == 0u) {
                s11_rescale[p9] = let1_alpha;
            }
            f6_row_max[0u] = let0_new_max;
        }
        {
            let p9 = (tid / 8u) * 2u + 1u;
            let let0_new_max = max(f6_row_max[1u], f8_block_max[1u]);
            let let1_alpha = select(exp2((f6_row_max[1u] - let0_new_max)), 1.0f, (let0_new_max == bitcast<f32>(0xff800000u)));
            f10_alpha[1u] = let1_alpha;
            if ((tid % 8u) == 0u) {
                s11_rescale[p9] = let1_alpha;
            }
            f6_row_max[1u] = let0_new_max;
        }
        workgroupBarrier();
        {
            let p10 = (tid / 8u) * 2u + 0u;
            let p11 = tid % 8u + 0u;
            let let2_p = select(exp2((f3_scores[0u] - f6_row_max[0u])), 0.0f, (f6_row_max[0u] == bitcast<f32>(0xff800000u)));
            f3_scores[0u] = let2_p;
            f4_probs[0u] = f16(let2_p);
        }
        {
            let p10 = (tid / 8u) * 2u + 0u;
            let p11 = tid % 8u + 8u;
            let let2_p = select(exp2((f3_scores[1u] - f6_row_max[0u])), 0.0f, (f6_row_max[0u] == bitcast<f32>(0xff800000u)));
            f3_scores[1u] = let2_p;
            f4_probs[1u] = f16(let2_p);
        }
        {
            let p10 = (tid / 8u) * 2u + 0u;
            let p11 = tid % 8u + 16u;
            let let2_p = select(exp2((f3_scores[2u] - f6_row_max[0u])), 0.0f, (f6_row_max[0u] == bitcast<f32>(0xff800000u)));
            f3_scores[2u] = let2_p;
            f4_probs[2u] = f16(let2_p);
        }
        {
            let p10 = (tid / 8u) * 2u + 0u;
            let p11 = tid % 8u + 24u;
            let let2_p = select(exp2((f3_scores[3u] - f6_row_max[0u])), 0.0f, (f6_row_max[0u] == bitcast<f32>(0xff800000u)));
            f3_scores[3u] = let2_p;
            f4_probs[3u] = f16(let2_p);
        }
        {
            let p10 = (tid / 8u) * 2u + 1u;
            let p11 = tid % 8u + 0u;
            let let2_p = select(exp2((f3_scores[4u] - f6_row_max[1u])), 0.0f, (f6_row_max[1u] == bitcast<f32>(0xff800000u)));
            f3_scores[4u] = let2_p;
            f4_probs[4u] = f16(let2_p);
        }
        {
            let p10 = (tid / 8u) * 2u + 1u;
            let p11 = tid % 8u + 8u;
            let let2_p = select(exp2((f3_scores[5u] - f6_row_max[1u])), 0.0f, (f6_row_max[1u] == bitcast<f32>(0xff800000u)));
            f3_scores[5u] = let2_p;
            f4_probs[5u] = f16(let2_p);
        }
        {
            let p10 = (tid / 8u) * 2u + 1u;
            let p11 = tid % 8u + 16u;
            let let2_p = select(exp2((f3_scores[6u] - f6_row_max[1u])), 0.0f, (f6_row_max[1u] == bitcast<f32>(0xff800000u)));
            f3_scores[6u] = let2_p;
            f4_probs[6u] = f16(let2_p);
        }
        {
            let p10 = (tid / 8u) * 2u + 1u;
            let p11 = tid % 8u + 24u;
            let let2_p = select(exp2((f3_scores[7u] - f6_row_max[1u])), 0.0f, (f6_row_max[1u] == bitcast<f32>(0xff800000u)));
            f3_scores[7u] = let2_p;
            f4_probs[7u] = f16(let2_p);
        }
        {
            {
                var _p11 = 0.0f;
                _p11 = _p11 + f3_scores[0u * 4u + 0u];
                _p11 = _p11 + f3_scores[0u * 4u + 1u];
                _p11 = _p11 + f3_scores[0u * 4u + 2u];
                _p11 = _p11 + f3_scores[0u * 4u + 3u];
                _p11 = _p11 + subgroupShuffleXor(_p11, 4u);
                _p11 = _p11 + subgroupShuffleXor(_p11, 2u);
                _p11 = _p11 + subgroupShuffleXor(_p11, 1u);
                f9_block_sum[0u] = _p11;
            }
            {
                var _p11 = 0.0f;
                _p11 = _p11 + f3_scores[1u * 4u + 0u];
                _p11 = _p11 + f3_scores[1u * 4u + 1u];
                _p11 = _p11 + f3_scores[1u * 4u + 2u];
                _p11 = _p11 + f3_scores[1u * 4u + 3u];
                _p11 = _p11 + subgroupShuffleXor(_p11, 4u);
                _p11 = _p11 + subgroupShuffleXor(_p11, 2u);
                _p11 = _p11 + subgroupShuffleXor(_p11, 1u);
                f9_block_sum[1u] = _p11;
            }
        }
        {
            let p12 = (tid / 8u) * 2u + 0u;
            f7_row_sum[0u] = ((f7_row_sum[0u] * f10_alpha[0u]) + f9_block_sum[0u]);
        }
        {
            let p12 = (tid / 8u) * 2u + 1u;
            f7_row_sum[1u] = ((f7_row_sum[1u] * f10_alpha[1u]) + f9_block_sum[1u]);
        }
        {
            let p13 = (tid / 16u) * 4u + 0u;
            let p14 = tid % 16u + 0u;
            f5_acc[0u] = (f5_acc[0u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 0u;
            let p14 = tid % 16u + 16u;
            f5_acc[1u] = (f5_acc[1u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 0u;
            let p14 = tid % 16u + 32u;
            f5_acc[2u] = (f5_acc[2u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 0u;
            let p14 = tid % 16u + 48u;
            f5_acc[3u] = (f5_acc[3u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 1u;
            let p14 = tid % 16u + 0u;
            f5_acc[4u] = (f5_acc[4u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 1u;
            let p14 = tid % 16u + 16u;
            f5_acc[5u] = (f5_acc[5u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 1u;
            let p14 = tid % 16u + 32u;
            f5_acc[6u] = (f5_acc[6u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 1u;
            let p14 = tid % 16u + 48u;
            f5_acc[7u] = (f5_acc[7u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 2u;
            let p14 = tid % 16u + 0u;
            f5_acc[8u] = (f5_acc[8u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 2u;
            let p14 = tid % 16u + 16u;
            f5_acc[9u] = (f5_acc[9u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 2u;
            let p14 = tid % 16u + 32u;
            f5_acc[10u] = (f5_acc[10u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 2u;
            let p14 = tid % 16u + 48u;
            f5_acc[11u] = (f5_acc[11u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 3u;
            let p14 = tid % 16u + 0u;
            f5_acc[12u] = (f5_acc[12u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 3u;
            let p14 = tid % 16u + 16u;
            f5_acc[13u] = (f5_acc[13u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 3u;
            let p14 = tid % 16u + 32u;
            f5_acc[14u] = (f5_acc[14u] * s11_rescale[p13]);
        }
        {
            let p13 = (tid / 16u) * 4u + 3u;
            let p14 = tid % 16u + 48u;
            f5_acc[15u] = (f5_acc[15u] * s11_rescale[p13]);
        }
        {
            let r = (tid / 8u) * 2u;
            let c = tid % 8u;
            s14_probs_scratch[(r + 0u) * 40u + c + 0u] = f16(f4_probs[0u]);
            s14_probs_scratch[(r + 0u) * 40u + c + 8u] = f16(f4_probs[1u]);
            s14_probs_scratch[(r + 0u) * 40u + c + 16u] = f16(f4_probs[2u]);
            s14_probs_scratch[(r + 0u) * 40u + c + 24u] = f16(f4_probs[3u]);
            s14_probs_scratch[(r + 1u) * 40u + c + 0u] = f16(f4_probs[4u]);
            s14_probs_scratch[(r + 1u) * 40u + c + 8u] = f16(f4_probs[5u]);
            s14_probs_scratch[(r + 1u) * 40u + c + 16u] = f16(f4_probs[6u]);
            s14_probs_scratch[(r + 1u) * 40u + c + 24u] = f16(f4_probs[7u]);
        }
        workgroupBarrier();
        {
            let tr = (tid / 16u) * 4u;
            let tcol = tid % 16u;
            for (var _kk14 = 0u; _kk14 < 32u; _kk14++) {
                let a0 = f32(s14_probs_scratch[(tr + 0u) * 40u + _kk14]);
                let a1 = f32(s14_probs_scratch[(tr + 1u) * 40u + _kk14]);
                let a2 = f32(s14_probs_scratch[(tr + 2u) * 40u + _kk14]);
                let a3 = f32(s14_probs_scratch[(tr + 3u) * 40u + _kk14]);
                let b0 = f32(s2_v_s[((i6 % 2u)) * 2304u + _kk14 * 72u + tcol + 0u]);
                let b1 = f32(s2_v_s[((i6 % 2u)) * 2304u + _kk14 * 72u + tcol + 16u]);
                let b2 = f32(s2_v_s[((i6 % 2u)) * 2304u + _kk14 * 72u + tcol + 32u]);
                let b3 = f32(s2_v_s[((i6 % 2u)) * 2304u + _kk14 * 72u + tcol + 48u]);
                f5_acc[0] = fma(a0, b0, f5_acc[0]);
                f5_acc[1] = fma(a0, b1, f5_acc[1]);
                f5_acc[2] = fma(a0, b2, f5_acc[2]);
                f5_acc[3] = fma(a0, b3, f5_acc[3]);
                f5_acc[4] = fma(a1, b0, f5_acc[4]);
                f5_acc[5] = fma(a1, b1, f5_acc[5]);
                f5_acc[6] = fma(a1, b2, f5_acc[6]);
                f5_acc[7] = fma(a1, b3, f5_acc[7]);
                f5_acc[8] = fma(a2, b0, f5_acc[8]);
                f5_acc[9] = fma(a2, b1, f5_acc[9]);
                f5_acc[10] = fma(a2, b2, f5_acc[10]);
                f5_acc[11] = fma(a2, b3, f5_acc[11]);
                f5_acc[12] = fma(a3, b0, f5_acc[12]);
                f5_acc[13] = fma(a3, b1, f5_acc[13]);
                f5_acc[14] = fma(a3, b2, f5_acc[14]);
                f5_acc[15] = fma(a3, b3, f5_acc[15]);
            }
        }
    }
    workgroupBarrier();
    {
        let r = (tid / 8u) * 2u;
        if ((tid % 8u) == 0u) {
            s11_rescale[r + 0u] = f32(f7_row_sum[0u]);
            s11_rescale[r + 1u] = f32(f7_row_sum[1u]);
        }
    }
    workgroupBarrier();
    {
        let p15 = (tid / 16u) * 4u + 0u;
        let p16 = tid % 16u + 0u;
        f5_acc[0u] = select(0.0f, (f5_acc[0u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 0u;
        let p16 = tid % 16u + 16u;
        f5_acc[1u] = select(0.0f, (f5_acc[1u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 0u;
        let p16 = tid % 16u + 32u;
        f5_acc[2u] = select(0.0f, (f5_acc[2u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 0u;
        let p16 = tid % 16u + 48u;
        f5_acc[3u] = select(0.0f, (f5_acc[3u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 1u;
        let p16 = tid % 16u + 0u;
        f5_acc[4u] = select(0.0f, (f5_acc[4u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 1u;
        let p16 = tid % 16u + 16u;
        f5_acc[5u] = select(0.0f, (f5_acc[5u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 1u;
        let p16 = tid % 16u + 32u;
        f5_acc[6u] = select(0.0f, (f5_acc[6u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 1u;
        let p16 = tid % 16u + 48u;
        f5_acc[7u] = select(0.0f, (f5_acc[7u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 2u;
        let p16 = tid % 16u + 0u;
        f5_acc[8u] = select(0.0f, (f5_acc[8u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 2u;
        let p16 = tid % 16u + 16u;
        f5_acc[9u] = select(0.0f, (f5_acc[9u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 2u;
        let p16 = tid % 16u + 32u;
        f5_acc[10u] = select(0.0f, (f5_acc[10u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 2u;
        let p16 = tid % 16u + 48u;
        f5_acc[11u] = select(0.0f, (f5_acc[11u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 3u;
        let p16 = tid % 16u + 0u;
        f5_acc[12u] = select(0.0f, (f5_acc[12u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 3u;
        let p16 = tid % 16u + 16u;
        f5_acc[13u] = select(0.0f, (f5_acc[13u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 3u;
        let p16 = tid % 16u + 32u;
        f5_acc[14u] = select(0.0f, (f5_acc[14u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    {
        let p15 = (tid / 16u) * 4u + 3u;
        let p16 = tid % 16u + 48u;
        f5_acc[15u] = select(0.0f, (f5_acc[15u] / s11_rescale[p15]), (s11_rescale[p15] > 0.0f));
    }
    if (bz < args.n0_B && args.n0_B - (bz) >= 1u && by < args.n1_H && args.n1_H - (by) >= 1u && (bx * 32u) < args.n2_S && args.n2_S - ((bx * 32u)) >= 32u && 0u < 64u && 64u - (0u) >= 64u) {
        {
            let r = (tid / 16u) * 4u;
            let c = tid % 16u;
            stu_g3_O(bz, by, (bx * 32u) + r + 0u, 0u + c + 0u, f16(f5_acc[0]));
            stu_g3_O(bz, by, (bx * 32u) + r + 0u, 0u + c + 16u, f16(f5_acc[1]));
            stu_g3_O(bz, by, (bx * 32u) + r + 0u, 0u + c + 32u, f16(f5_acc[2]));
            stu_g3_O(bz, by, (bx * 32u) + r + 0u, 0u + c + 48u, f16(f5_acc[3]));
            stu_g3_O(bz, by, (bx * 32u) + r + 1u, 0u + c + 0u, f16(f5_acc[4]));
            stu_g3_O(bz, by, (bx * 32u) + r + 1u, 0u + c + 16u, f16(f5_acc[5]));
            stu_g3_O(bz, by, (bx * 32u) + r + 1u, 0u + c + 32u, f16(f5_acc[6]));
            stu_g3_O(bz, by, (bx * 32u) + r + 1u, 0u + c + 48u, f16(f5_acc[7]));
            stu_g3_O(bz, by, (bx * 32u) + r + 2u, 0u + c + 0u, f16(f5_acc[8]));
            stu_g3_O(bz, by, (bx * 32u) + r + 2u, 0u + c + 16u, f16(f5_acc[9]));
            stu_g3_O(bz, by, (bx * 32u) + r + 2u, 0u + c + 32u, f16(f5_acc[10]));
            stu_g3_O(bz, by, (bx * 32u) + r + 2u, 0u + c + 48u, f16(f5_acc[11]));
            stu_g3_O(bz, by, (bx * 32u) + r + 3u, 0u + c + 0u, f16(f5_acc[12]));
            stu_g3_O(bz, by, (bx * 32u) + r + 3u, 0u + c + 16u, f16(f5_acc[13]));
            stu_g3_O(bz, by, (bx * 32u) + r + 3u, 0u + c + 32u, f16(f5_acc[14]));
            stu_g3_O(bz, by, (bx * 32u) + r + 3u, 0u + c + 48u, f16(f5_acc[15]));
        }
    }
    else {
        {
            let r = (tid / 16u) * 4u;
            let c = tid % 16u;
            st_g3_O(bz, by, (bx * 32u) + r + 0u, 0u + c + 0u, f16(f5_acc[0]));
            st_g3_O(bz, by, (bx * 32u) + r + 0u, 0u + c + 16u, f16(f5_acc[1]));
            st_g3_O(bz, by, (bx * 32u) + r + 0u, 0u + c + 32u, f16(f5_acc[2]));
            st_g3_O(bz, by, (bx * 32u) + r + 0u, 0u + c + 48u, f16(f5_acc[3]));
            st_g3_O(bz, by, (bx * 32u) + r + 1u, 0u + c + 0u, f16(f5_acc[4]));
            st_g3_O(bz, by, (bx * 32u) + r + 1u, 0u + c + 16u, f16(f5_acc[5]));
            st_g3_O(bz, by, (bx * 32u) + r + 1u, 0u + c + 32u, f16(f5_acc[6]));
            st_g3_O(bz, by, (bx * 32u) + r + 1u, 0u + c + 48u, f16(f5_acc[7]));
            st_g3_O(bz, by, (bx * 32u) + r + 2u, 0u + c + 0u, f16(f5_acc[8]));
            st_g3_O(bz, by, (bx * 32u) + r + 2u, 0u + c + 16u, f16(f5_acc[9]));
            st_g3_O(bz, by, (bx * 32u) + r + 2u, 0u + c + 32u, f16(f5_acc[10]));
            st_g3_O(bz, by, (bx * 32u) + r + 2u, 0u + c + 48u, f16(f5_acc[11]));
            st_g3_O(bz, by, (bx * 32u) + r + 3u, 0u + c + 0u, f16(f5_acc[12]));
            st_g3_O(bz, by, (bx * 32u) + r + 3u, 0u + c + 16u, f16(f5_acc[13]));
            st_g3_O(bz, by, (bx * 32u) + r + 3u, 0u + c + 32u, f16(f5_acc[14]));
            st_g3_O(bz, by, (bx * 32u) + r + 3u, 0u + c + 48u, f16(f5_acc[15]));
        }
    }
}
