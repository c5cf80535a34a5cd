// tilecast kernel "rms_norm": 128 threads per threadgroup

struct Args {
    n0_R: u32,
    n1_C: u32,
    a0_eps: f32,
}
var<immediate> args: Args;

@group(0) @binding(0) var<storage, read> g0_X: array<f32>;
@group(0) @binding(1) var<storage, read> g1_W: array<f32>;
@group(0) @binding(2) var<storage, read_write> g2_Y: array<f32>;
var<workgroup> s1_sum_sq: array<f32, 4>;
var<workgroup> s2_partials: array<f32, 256>;

fn ld_g0_X(i0: u32, i1: u32) -> f32 {
    if (i0 < args.n0_R && i1 < args.n1_C) { return g0_X[(i0) * args.n1_C + i1]; }
    return f32(0);
}
fn ldu_g0_X(i0: u32, i1: u32) -> f32 {
    return g0_X[(i0) * args.n1_C + i1];
}
fn ld_g1_W(i0: u32) -> f32 {
    if (i0 < args.n1_C) { return g1_W[i0]; }
    return f32(0);
}
fn ld_g2_Y(i0: u32, i1: u32) -> f32 {
    if (i0 < args.n0_R && i1 < args.n1_C) { return g2_Y[(i0) * args.n1_C + i1]; }
    return f32(0);
}
fn st_g2_Y(i0: u32, i1: u32, v: f32) {
    if (i0 < args.n0_R && i1 < args.n1_C) { g2_Y[(i0) * args.n1_C + i1] = v; }
}
fn stu_g2_Y(i0: u32, i1: u32, v: f32) {
    g2_Y[(i0) * args.n1_C + i1] = v;
}

@compute @workgroup_size(128)
fn tc_rms_norm(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32) {
    let bx = wg.x;
    let by = wg.y;
    let bz = wg.z;
    var f0_chunk: array<f32, 4>;
    for (var _e1 = tid; _e1 < 4u; _e1 += 128u) {
        s1_sum_sq[_e1] = 0.0f;
    }
    workgroupBarrier();
    for (var i4 = 0u; i4 < (((args.n1_C + 128u) - 1u) / 128u); i4++) {
        if ((bx * 4u) < args.n0_R && args.n0_R - ((bx * 4u)) >= 4u && (i4 * 128u) < args.n1_C && args.n1_C - ((i4 * 128u)) >= 128u) {
            {
                let r = (tid / 64u) * 2u;
                let c = tid % 64u;
                f0_chunk[0] = f32(ldu_g0_X((bx * 4u) + r + 0u, (i4 * 128u) + c + 0u));
                f0_chunk[1] = f32(ldu_g0_X((bx * 4u) + r + 0u, (i4 * 128u) + c + 64u));
                f0_chunk[2] = f32(ldu_g0_X((bx * 4u) + r + 1u, (i4 * 128u) + c + 0u));
                f0_chunk[3] = f32(ldu_g0_X((bx * 4u) + r + 1u, (i4 * 128u) + c + 64u));
            }
        }
        else {
            {
                let r = (tid / 64u) * 2u;
                let c = tid % 64u;
                f0_chunk[0] = f32(ld_g0_X((bx * 4u) + r + 0u, (i4 * 128u) + c + 0u));
                f0_chunk[1] = f32(ld_g0_X((bx * 4u) + r + 0u, (i4 * 128u) + c + 64u));
                f0_chunk[2] = f32(ld_g0_X((bx * 4u) + r + 1u, (i4 * 128u) + c + 0u));
                f0_chunk[3] = f32(ld_g0_X((bx * 4u) + r + 1u, (i4 * 128u) + c + 64u));
            }
        }
        workgroupBarrier();
        {
            {
                var _p2 = 0.0f;
                _p2 = _p2 + f0_chunk[0u * 2u + 0u] * f0_chunk[0u * 2u + 0u];
                _p2 = _p2 + f0_chunk[0u * 2u + 1u] * f0_chunk[0u * 2u + 1u];
                s2_partials[((tid / 64u) * 2u + 0u) * 64u + tid % 64u] = _p2;
            }
            {
                var _p2 = 0.0f;
                _p2 = _p2 + f0_chunk[1u * 2u + 0u] * f0_chunk[1u * 2u + 0u];
                _p2 = _p2 + f0_chunk[1u * 2u + 1u] * f0_chunk[1u * 2u + 1u];
                s2_partials[((tid / 64u) * 2u + 1u) * 64u + tid % 64u] = _p2;
            }
            workgroupBarrier();
            for (var _o5 = sg_id; _o5 < 4u; _o5 += sg_count) {
                let q0 = (_o5 / 1u) % 4u;
                var acc = 0.0f;
                for (var _r6 = sg_lane; _r6 < 64u; _r6 += sg_size) {
                    acc = acc + s2_partials[(q0) * 64u + _r6];
                }
                acc = subgroupAdd(acc);
                if (sg_lane == 0u) {
                    s1_sum_sq[_o5] = s1_sum_sq[_o5] + acc;
                }
            }
        }
        workgroupBarrier();
    }
    for (var i5 = 0u; i5 < (((args.n1_C + 128u) - 1u) / 128u); i5++) {
        if ((bx * 4u) < args.n0_R && args.n0_R - ((bx * 4u)) >= 4u && (i5 * 128u) < args.n1_C && args.n1_C - ((i5 * 128u)) >= 128u) {
            {
                let r = (tid / 64u) * 2u;
                let c = tid % 64u;
                f0_chunk[0] = f32(ldu_g0_X((bx * 4u) + r + 0u, (i5 * 128u) + c + 0u));
                f0_chunk[1] = f32(ldu_g0_X((bx * 4u) + r + 0u, (i5 * 128u) + c + 64u));
                f0_chunk[2] = f32(ldu_g0_X((bx * 4u) + r + 1u, (i5 * 128u) + c + 0u));
                f0_chunk[3] = f32(ldu_g0_X((bx * 4u) + r + 1u, (i5 * 128u) + c + 64u));
            }
        }
        else {
            {
                let r = (tid / 64u) * 2u;
                let c = tid % 64u;
                f0_chunk[0] = f32(ld_g0_X((bx * 4u) + r + 0u, (i5 * 128u) + c + 0u));
                f0_chunk[1] = f32(ld_g0_X((bx * 4u) + r + 0u, (i5 * 128u) + c + 64u));
                f0_chunk[2] = f32(ld_g0_X((bx * 4u) + r + 1u, (i5 * 128u) + c + 0u));
                f0_chunk[3] = f32(ld_g0_X((bx * 4u) + r + 1u, (i5 * 128u) + c + 64u));
            }
        }
        {
            let p6 = (tid / 64u) * 2u + 0u;
            let p7 = tid % 64u + 0u;
            f0_chunk[0u] = ((f0_chunk[0u] * inverseSqrt(((s1_sum_sq[p6] / f32(args.n1_C)) + args.a0_eps))) * ld_g1_W(((i5 * 128u) + p7)));
        }
        {
            let p6 = (tid / 64u) * 2u + 0u;
            let p7 = tid % 64u + 64u;
            f0_chunk[1u] = ((f0_chunk[1u] * inverseSqrt(((s1_sum_sq[p6] / f32(args.n1_C)) + args.a0_eps))) * ld_g1_W(((i5 * 128u) + p7)));
        }
        {
            let p6 = (tid / 64u) * 2u + 1u;
            let p7 = tid % 64u + 0u;
            f0_chunk[2u] = ((f0_chunk[2u] * inverseSqrt(((s1_sum_sq[p6] / f32(args.n1_C)) + args.a0_eps))) * ld_g1_W(((i5 * 128u) + p7)));
        }
        {
            let p6 = (tid / 64u) * 2u + 1u;
            let p7 = tid % 64u + 64u;
            f0_chunk[3u] = ((f0_chunk[3u] * inverseSqrt(((s1_sum_sq[p6] / f32(args.n1_C)) + args.a0_eps))) * ld_g1_W(((i5 * 128u) + p7)));
        }
        if ((bx * 4u) < args.n0_R && args.n0_R - ((bx * 4u)) >= 4u && (i5 * 128u) < args.n1_C && args.n1_C - ((i5 * 128u)) >= 128u) {
            {
                let r = (tid / 64u) * 2u;
                let c = tid % 64u;
                stu_g2_Y((bx * 4u) + r + 0u, (i5 * 128u) + c + 0u, f32(f0_chunk[0]));
                stu_g2_Y((bx * 4u) + r + 0u, (i5 * 128u) + c + 64u, f32(f0_chunk[1]));
                stu_g2_Y((bx * 4u) + r + 1u, (i5 * 128u) + c + 0u, f32(f0_chunk[2]));
                stu_g2_Y((bx * 4u) + r + 1u, (i5 * 128u) + c + 64u, f32(f0_chunk[3]));
            }
        }
        else {
            {
                let r = (tid / 64u) * 2u;
                let c = tid % 64u;
                st_g2_Y((bx * 4u) + r + 0u, (i5 * 128u) + c + 0u, f32(f0_chunk[0]));
                st_g2_Y((bx * 4u) + r + 0u, (i5 * 128u) + c + 64u, f32(f0_chunk[1]));
                st_g2_Y((bx * 4u) + r + 1u, (i5 * 128u) + c + 0u, f32(f0_chunk[2]));
                st_g2_Y((bx * 4u) + r + 1u, (i5 * 128u) + c + 64u, f32(f0_chunk[3]));
            }
        }
    }
}
