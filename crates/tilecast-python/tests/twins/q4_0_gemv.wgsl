// tilecast kernel "q4_0_gemv": 128 threads per threadgroup
enable f16;

struct Args {
    n0_N: u32,
    n1_RB: u32,
    n2_K: u32,
}
var<immediate> args: Args;

@group(0) @binding(0) var<storage, read> g0_W: array<u32>;
@group(0) @binding(1) var<storage, read> g1_X: array<f32>;
@group(0) @binding(2) var<storage, read_write> g2_Y: array<f32>;
var<workgroup> s1_total: array<f32, 32>;
var<workgroup> s2_partials: array<f32, 128>;

fn ld_g0_W(i0: u32, i1: u32) -> u32 {
    if (i0 < args.n0_N && i1 < args.n1_RB) { return extractBits(g0_W[((i0) * args.n1_RB + i1) / 4u], (((i0) * args.n1_RB + i1) % 4u) * 8u, 8u); }
    return u32(0);
}
fn wd_g0_W(i: u32) -> u32 {
    let n = (args.n0_N) * (args.n1_RB);
    if (i >= (n + 3u) / 4u) { return 0u; }
    let w = g0_W[i];
    if (n - i * 4u >= 4u) { return w; }
    return w & ((1u << ((n - i * 4u) * 8u)) - 1u);
}
fn ld_g1_X(i0: u32) -> f32 {
    if (i0 < args.n2_K) { return g1_X[i0]; }
    return f32(0);
}
fn ld_g2_Y(i0: u32) -> f32 {
    if (i0 < args.n0_N) { return g2_Y[i0]; }
    return f32(0);
}
fn st_g2_Y(i0: u32, v: f32) {
    if (i0 < args.n0_N) { g2_Y[i0] = v; }
}

@compute @workgroup_size(128)
fn tc_q4_0_gemv(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>) {
    let bx = wg.x;
    let by = wg.y;
    let bz = wg.z;
    var f0_part: array<f32, 2>;
    for (var _e1 = tid; _e1 < 32u; _e1 += 128u) {
        s1_total[_e1] = 0.0f;
    }
    workgroupBarrier();
    for (var i4 = 0u; i4 < ((((args.n2_K / 32u) + 8u) - 1u) / 8u); i4++) {
        {
            let p5 = (tid / 4u) * 1u + 0u;
            let p6 = tid % 4u + 0u;
            let let0_start = ((((bx * 32u) + p5) * args.n1_RB) + (((i4 * 8u) + p6) * 18u));
            let let1_d = unpack2x16float(((wd_g0_W((let0_start / 4u)) >> ((let0_start % 4u) * 8u)) & 65535u)).x;
            let let2_q0 = select(((wd_g0_W((((let0_start + 2u) + 0u) / 4u)) >> 16u) | (wd_g0_W(((((let0_start + 2u) + 0u) / 4u) + 1u)) << 16u)), wd_g0_W((((let0_start + 2u) + 0u) / 4u)), ((((let0_start + 2u) + 0u) % 4u) == 0u));
            let let3_q1 = select(((wd_g0_W((((let0_start + 2u) + 4u) / 4u)) >> 16u) | (wd_g0_W(((((let0_start + 2u) + 4u) / 4u) + 1u)) << 16u)), wd_g0_W((((let0_start + 2u) + 4u) / 4u)), ((((let0_start + 2u) + 4u) % 4u) == 0u));
            let let4_q2 = select(((wd_g0_W((((let0_start + 2u) + 8u) / 4u)) >> 16u) | (wd_g0_W(((((let0_start + 2u) + 8u) / 4u) + 1u)) << 16u)), wd_g0_W((((let0_start + 2u) + 8u) / 4u)), ((((let0_start + 2u) + 8u) % 4u) == 0u));
            let let5_q3 = select(((wd_g0_W((((let0_start + 2u) + 12u) / 4u)) >> 16u) | (wd_g0_W(((((let0_start + 2u) + 12u) / 4u) + 1u)) << 16u)), wd_g0_W((((let0_start + 2u) + 12u) / 4u)), ((((let0_start + 2u) + 12u) % 4u) == 0u));
            f0_part[0u] = select(0.0f, (((((((((((((((((((((((((((((((((0.0f + ((bitcast<f32>(((let2_q0 & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 0u) + 0u)))) + ((bitcast<f32>((((let2_q0 >> 4u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 0u) + 0u)))) + ((bitcast<f32>((((let2_q0 >> 8u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 0u) + 1u)))) + ((bitcast<f32>((((let2_q0 >> 12u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 0u) + 1u)))) + ((bitcast<f32>((((let2_q0 >> 16u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 0u) + 2u)))) + ((bitcast<f32>((((let2_q0 >> 20u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 0u) + 2u)))) + ((bitcast<f32>((((let2_q0 >> 24u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 0u) + 3u)))) + ((bitcast<f32>(((let2_q0 >> 28u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 0u) + 3u)))) + ((bitcast<f32>(((let3_q1 & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 4u) + 0u)))) + ((bitcast<f32>((((let3_q1 >> 4u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 4u) + 0u)))) + ((bitcast<f32>((((let3_q1 >> 8u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 4u) + 1u)))) + ((bitcast<f32>((((let3_q1 >> 12u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 4u) + 1u)))) + ((bitcast<f32>((((let3_q1 >> 16u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 4u) + 2u)))) + ((bitcast<f32>((((let3_q1 >> 20u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 4u) + 2u)))) + ((bitcast<f32>((((let3_q1 >> 24u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 4u) + 3u)))) + ((bitcast<f32>(((let3_q1 >> 28u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 4u) + 3u)))) + ((bitcast<f32>(((let4_q2 & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 8u) + 0u)))) + ((bitcast<f32>((((let4_q2 >> 4u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 8u) + 0u)))) + ((bitcast<f32>((((let4_q2 >> 8u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 8u) + 1u)))) + ((bitcast<f32>((((let4_q2 >> 12u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 8u) + 1u)))) + ((bitcast<f32>((((let4_q2 >> 16u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 8u) + 2u)))) + ((bitcast<f32>((((let4_q2 >> 20u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 8u) + 2u)))) + ((bitcast<f32>((((let4_q2 >> 24u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 8u) + 3u)))) + ((bitcast<f32>(((let4_q2 >> 28u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 8u) + 3u)))) + ((bitcast<f32>(((let5_q3 & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 12u) + 0u)))) + ((bitcast<f32>((((let5_q3 >> 4u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 12u) + 0u)))) + ((bitcast<f32>((((let5_q3 >> 8u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 12u) + 1u)))) + ((bitcast<f32>((((let5_q3 >> 12u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 12u) + 1u)))) + ((bitcast<f32>((((let5_q3 >> 16u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 12u) + 2u)))) + ((bitcast<f32>((((let5_q3 >> 20u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 12u) + 2u)))) + ((bitcast<f32>((((let5_q3 >> 24u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 12u) + 3u)))) + ((bitcast<f32>(((let5_q3 >> 28u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 12u) + 3u)))) * let1_d), ((((i4 * 8u) + p6) < (args.n2_K / 32u)) && (((bx * 32u) + p5) < args.n0_N)));
        }
        {
            let p5 = (tid / 4u) * 1u + 0u;
            let p6 = tid % 4u + 4u;
            let let0_start = ((((bx * 32u) + p5) * args.n1_RB) + (((i4 * 8u) + p6) * 18u));
            let let1_d = unpack2x16float(((wd_g0_W((let0_start / 4u)) >> ((let0_start % 4u) * 8u)) & 65535u)).x;
            let let2_q0 = select(((wd_g0_W((((let0_start + 2u) + 0u) / 4u)) >> 16u) | (wd_g0_W(((((let0_start + 2u) + 0u) / 4u) + 1u)) << 16u)), wd_g0_W((((let0_start + 2u) + 0u) / 4u)), ((((let0_start + 2u) + 0u) % 4u) == 0u));
            let let3_q1 = select(((wd_g0_W((((let0_start + 2u) + 4u) / 4u)) >> 16u) | (wd_g0_W(((((let0_start + 2u) + 4u) / 4u) + 1u)) << 16u)), wd_g0_W((((let0_start + 2u) + 4u) / 4u)), ((((let0_start + 2u) + 4u) % 4u) == 0u));
            let let4_q2 = select(((wd_g0_W((((let0_start + 2u) + 8u) / 4u)) >> 16u) | (wd_g0_W(((((let0_start + 2u) + 8u) / 4u) + 1u)) << 16u)), wd_g0_W((((let0_start + 2u) + 8u) / 4u)), ((((let0_start + 2u) + 8u) % 4u) == 0u));
            let let5_q3 = select(((wd_g0_W((((let0_start + 2u) + 12u) / 4u)) >> 16u) | (wd_g0_W(((((let0_start + 2u) + 12u) / 4u) + 1u)) << 16u)), wd_g0_W((((let0_start + 2u) + 12u) / 4u)), ((((let0_start + 2u) + 12u) % 4u) == 0u));
            f0_part[1u] = select(0.0f, (((((((((((((((((((((((((((((((((0.0f + ((bitcast<f32>(((let2_q0 & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 0u) + 0u)))) + ((bitcast<f32>((((let2_q0 >> 4u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 0u) + 0u)))) + ((bitcast<f32>((((let2_q0 >> 8u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 0u) + 1u)))) + ((bitcast<f32>((((let2_q0 >> 12u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 0u) + 1u)))) + ((bitcast<f32>((((let2_q0 >> 16u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 0u) + 2u)))) + ((bitcast<f32>((((let2_q0 >> 20u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 0u) + 2u)))) + ((bitcast<f32>((((let2_q0 >> 24u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 0u) + 3u)))) + ((bitcast<f32>(((let2_q0 >> 28u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 0u) + 3u)))) + ((bitcast<f32>(((let3_q1 & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 4u) + 0u)))) + ((bitcast<f32>((((let3_q1 >> 4u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 4u) + 0u)))) + ((bitcast<f32>((((let3_q1 >> 8u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 4u) + 1u)))) + ((bitcast<f32>((((let3_q1 >> 12u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 4u) + 1u)))) + ((bitcast<f32>((((let3_q1 >> 16u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 4u) + 2u)))) + ((bitcast<f32>((((let3_q1 >> 20u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 4u) + 2u)))) + ((bitcast<f32>((((let3_q1 >> 24u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 4u) + 3u)))) + ((bitcast<f32>(((let3_q1 >> 28u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 4u) + 3u)))) + ((bitcast<f32>(((let4_q2 & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 8u) + 0u)))) + ((bitcast<f32>((((let4_q2 >> 4u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 8u) + 0u)))) + ((bitcast<f32>((((let4_q2 >> 8u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 8u) + 1u)))) + ((bitcast<f32>((((let4_q2 >> 12u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 8u) + 1u)))) + ((bitcast<f32>((((let4_q2 >> 16u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 8u) + 2u)))) + ((bitcast<f32>((((let4_q2 >> 20u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 8u) + 2u)))) + ((bitcast<f32>((((let4_q2 >> 24u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 8u) + 3u)))) + ((bitcast<f32>(((let4_q2 >> 28u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 8u) + 3u)))) + ((bitcast<f32>(((let5_q3 & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 12u) + 0u)))) + ((bitcast<f32>((((let5_q3 >> 4u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 12u) + 0u)))) + ((bitcast<f32>((((let5_q3 >> 8u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 12u) + 1u)))) + ((bitcast<f32>((((let5_q3 >> 12u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 12u) + 1u)))) + ((bitcast<f32>((((let5_q3 >> 16u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 12u) + 2u)))) + ((bitcast<f32>((((let5_q3 >> 20u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 12u) + 2u)))) + ((bitcast<f32>((((let5_q3 >> 24u) & 15u) | 1258291200u)) - 8388616.0f) * ld_g1_X((((((i4 * 8u) + p6) * 32u) + 12u) + 3u)))) + ((bitcast<f32>(((let5_q3 >> 28u) | 1258291200u)) - 8388616.0f) * ld_g1_X(((((((i4 * 8u) + p6) * 32u) + 16u) + 12u) + 3u)))) * let1_d), ((((i4 * 8u) + p6) < (args.n2_K / 32u)) && (((bx * 32u) + p5) < args.n0_N)));
        }
        workgroupBarrier();
        {
            {
                var _p2 = 0.0f;
                _p2 = _p2 + f0_part[0u * 2u + 0u];
                _p2 = _p2 + f0_part[0u * 2u + 1u];
                s2_partials[((tid / 4u) * 1u + 0u) * 4u + tid % 4u] = _p2;
            }
            workgroupBarrier();
            for (var _o5 = tid; _o5 < 32u; _o5 += 128u) {
                let q0 = (_o5 / 1u) % 32u;
                var acc = 0.0f;
                for (var _r6 = 0u; _r6 < 4u; _r6 += 1u) {
                    acc = acc + s2_partials[(q0) * 4u + _r6];
                }
                s1_total[_o5] = s1_total[_o5] + acc;
            }
        }
        workgroupBarrier();
    }
    for (var _e7 = tid; _e7 < 32u; _e7 += 128u) {
        let v0 = (_e7 / 1u) % 32u;
        let p7 = v0;
        st_g2_Y(((bx * 32u) + p7), s1_total[p7]);
    }
}
