// tilecast kernel "softmax": 128 threads per threadgroup

struct Args {
    n0_R: u32,
    n1_C: u32,
}
var<immediate> args: Args;

@group(0) @binding(0) var<storage, read> g0_X: array<f32>;
@group(0) @binding(1) var<storage, read_write> g1_Y: array<f32>;
var<workgroup> s1_row_max: array<f32, 4>;
var<workgroup> s2_row_sum: array<f32, 4>;
var<workgroup> s3_partials: array<f32, 256>;
var<workgroup> s4_partials: array<f32, 256>;

fn ld_g0_X(i0: u32, i1: u32) -> f32 {
    if (i0 < args.n0_R && i1 < args.n1_C) { return g0_X[(i0) * args.n1_C + i1]; }
    return f32(0);
}
fn ldu_g0_X(i0: u32, i1: u32) -> f32 {
    return g0_X[(i0) * args.n1_C + i1];
}
fn ld_g1_Y(i0: u32, i1: u32) -> f32 {
    if (i0 < args.n0_R && i1 < args.n1_C) { return g1_Y[(i0) * args.n1_C + i1]; }
    return f32(0);
}
fn st_g1_Y(i0: u32, i1: u32, v: f32) {
    if (i0 < args.n0_R && i1 < args.n1_C) { g1_Y[(i0) * args.n1_C + i1] = v; }
}
fn stu_g1_Y(i0: u32, i1: u32, v: f32) {
    g1_Y[(i0) * args.n1_C + i1] = v;
}

@compute @workgroup_size(128)
fn tc_softmax(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32) {
    let bx = wg.x;
    let by = wg.y;
    let bz = wg.z;
    var f0_chunk: array<f32, 4>;
    for (var _e1 = tid; _e1 < 4u; _e1 += 128u) {
        s1_row_max[_e1] = bitcast<f32>(0xff800000u);
    }
    for (var _e2 = tid; _e2 < 4u; _e2 += 128u) {
        s2_row_sum[_e2] = 0.0f;
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
        {
            let p5 = (tid / 64u) * 2u + 0u;
            let p6 = tid % 64u + 0u;
            f0_chunk[0u] = select(bitcast<f32>(0xff800000u), f0_chunk[0u], (((i4 * 128u) + p6) < args.n1_C));
        }
        {
            let p5 = (tid / 64u) * 2u + 0u;
            let p6 = tid % 64u + 64u;
            f0_chunk[1u] = select(bitcast<f32>(0xff800000u), f0_chunk[1u], (((i4 * 128u) + p6) < args.n1_C));
        }
        {
            let p5 = (tid / 64u) * 2u + 1u;
            let p6 = tid % 64u + 0u;
            f0_chunk[2u] = select(bitcast<f32>(0xff800000u), f0_chunk[2u], (((i4 * 128u) + p6) < args.n1_C));
        }
        {
            let p5 = (tid / 64u) * 2u + 1u;
            let p6 = tid % 64u + 64u;
            f0_chunk[3u] = select(bitcast<f32>(0xff800000u), f0_chunk[3u], (((i4 * 128u) + p6) < args.n1_C));
        }
        workgroupBarrier();
        {
            {
                var _p3 = bitcast<f32>(0xff800000u);
                _p3 = max(_p3, f0_chunk[0u * 2u + 0u]);
                _p3 = max(_p3, f0_chunk[0u * 2u + 1u]);
                s3_partials[((tid / 64u) * 2u + 0u) * 64u + tid % 64u] = _p3;
            }
            {
                var _p3 = bitcast<f32>(0xff800000u);
                _p3 = max(_p3, f0_chunk[1u * 2u + 0u]);
                _p3 = max(_p3, f0_chunk[1u * 2u + 1u]);
                s3_partials[((tid / 64u) * 2u + 1u) * 64u + tid % 64u] = _p3;
            }
            workgroupBarrier();
            for (var _o6 = sg_id; _o6 < 4u; _o6 += sg_count) {
                let q0 = (_o6 / 1u) % 4u;
                var acc = bitcast<f32>(0xff800000u);
                for (var _r7 = sg_lane; _r7 < 64u; _r7 += sg_size) {
                    acc = max(acc, s3_partials[(q0) * 64u + _r7]);
                }
                acc = subgroupMax(acc);
                if (sg_lane == 0u) {
                    s1_row_max[_o6] = max(s1_row_max[_o6], acc);
                }
            }
        }
        workgroupBarrier();
    }
    for (var i7 = 0u; i7 < (((args.n1_C + 128u) - 1u) / 128u); i7++) {
        if ((bx * 4u) < args.n0_R && args.n0_R - ((bx * 4u)) >= 4u && (i7 * 128u) < args.n1_C && args.n1_C - ((i7 * 128u)) >= 128u) {
            {
                let r = (tid / 64u) * 2u;
                let c = tid % 64u;
                f0_chunk[0] = f32(ldu_g0_X((bx * 4u) + r + 0u, (i7 * 128u) + c + 0u));
                f0_chunk[1] = f32(ldu_g0_X((bx * 4u) + r + 0u, (i7 * 128u) + c + 64u));
                f0_chunk[2] = f32(ldu_g0_X((bx * 4u) + r + 1u, (i7 * 128u) + c + 0u));
                f0_chunk[3] = f32(ldu_g0_X((bx * 4u) + r + 1u, (i7 * 128u) + c + 64u));
            }
        }
        else {
            {
                let r = (tid / 64u) * 2u;
                let c = tid % 64u;
                f0_chunk[0] = f32(ld_g0_X((bx * 4u) + r + 0u, (i7 * 128u) + c + 0u));
                f0_chunk[1] = f32(ld_g0_X((bx * 4u) + r + 0u, (i7 * 128u) + c + 64u));
                f0_chunk[2] = f32(ld_g0_X((bx * 4u) + r + 1u, (i7 * 128u) + c + 0u));
                f0_chunk[3] = f32(ld_g0_X((bx * 4u) + r + 1u, (i7 * 128u) + c + 64u));
            }
        }
        {
            let p8 = (tid / 64u) * 2u + 0u;
            let p9 = tid % 64u + 0u;
            f0_chunk[0u] = select(0.0f, exp((f0_chunk[0u] - s1_row_max[p8])), (((i7 * 128u) + p9) < args.n1_C));
        }
        {
            let p8 = (tid / 64u) * 2u + 0u;
            let p9 = tid % 64u + 64u;
            f0_chunk[1u] = select(0.0f, exp((f0_chunk[1u] - s1_row_max[p8])), (((i7 * 128u) + p9) < args.n1_C));
        }
        {
            let p8 = (tid / 64u) * 2u + 1u;
            let p9 = tid % 64u + 0u;
            f0_chunk[2u] = select(0.0f, exp((f0_chunk[2u] - s1_row_max[p8])), (((i7 * 128u) + p9) < args.n1_C));
        }
        {
            let p8 = (tid / 64u) * 2u + 1u;
            let p9 = tid % 64u + 64u;
            f0_chunk[3u] = select(0.0f, exp((f0_chunk[3u] - s1_row_max[p8])), (((i7 * 128u) + p9) < args.n1_C));
        }
        workgroupBarrier();
        {
            {
                var _p8 = 0.0f;
                _p8 = _p8 + f0_chunk[0u * 2u + 0u];
                _p8 = _p8 + f0_chunk[0u * 2u + 1u];
                s4_partials[((tid / 64u) * 2u + 0u) * 64u + tid % 64u] = _p8;
            }
            {
                var _p8 = 0.0f;
                _p8 = _p8 + f0_chunk[1u * 2u + 0u];
                _p8 = _p8 + f0_chunk[1u * 2u + 1u];
                s4_partials[((tid / 64u) * 2u + 1u) * 64u + tid % 64u] = _p8;
            }
            workgroupBarrier();
            for (var _o11 = sg_id; _o11 < 4u; _o11 += sg_count) {
                let q0 = (_o11 / 1u) % 4u;
                var acc = 0.0f;
                for (var _r12 = sg_lane; _r12 < 64u; _r12 += sg_size) {
                    acc = acc + s4_partials[(q0) * 64u + _r12];
                }
                acc = subgroupAdd(acc);
                if (sg_lane == 0u) {
                    s2_row_sum[_o11] = s2_row_sum[_o11] + acc;
                }
            }
        }
        workgroupBarrier();
    }
    for (var i10 = 0u; i10 < (((args.n1_C + 128u) - 1u) / 128u); i10++) {
        if ((bx * 4u) < args.n0_R && args.n0_R - ((bx * 4u)) >= 4u && (i10 * 128u) < args.n1_C && args.n1_C - ((i10 * 128u)) >= 128u) {
            {
                let r = (tid / 64u) * 2u;
                let c = tid % 64u;
                f0_chunk[0] = f32(ldu_g0_X((bx * 4u) + r + 0u, (i10 * 128u) + c + 0u));
                f0_chunk[1] = f32(ldu_g0_X((bx * 4u) + r + 0u, (i10 * 128u) + c + 64u));
                f0_chunk[2] = f32(ldu_g0_X((bx * 4u) + r + 1u, (i10 * 128u) + c + 0u));
                f0_chunk[3] = f32(ldu_g0_X((bx * 4u) + r + 1u, (i10 * 128u) + c + 64u));
            }
        }
        else {
            {
                let r = (tid / 64u) * 2u;
                let c = tid % 64u;
                f0_chunk[0] = f32(ld_g0_X((bx * 4u) + r + 0u, (i10 * 128u) + c + 0u));
                f0_chunk[1] = f32(ld_g0_X((bx * 4u) + r + 0u, (i10 * 128u) + c + 64u));
                f0_chunk[2] = f32(ld_g0_X((bx * 4u) + r + 1u, (i10 * 128u) + c + 0u));
                f0_chunk[3] = f32(ld_g0_X((bx * 4u) + r + 1u, (i10 * 128u) + c + 64u));
            }
        }
        {
            let p11 = (tid / 64u) * 2u + 0u;
            let p12 = tid % 64u + 0u;
            f0_chunk[0u] = (exp((f0_chunk[0u] - s1_row_max[p11])) / s2_row_sum[p11]);
        }
        {
            let p11 = (tid / 64u) * 2u + 0u;
            let p12 = tid % 64u + 64u;
            f0_chunk[1u] = (exp((f0_chunk[1u] - s1_row_max[p11])) / s2_row_sum[p11]);
        }
        {
            let p11 = (tid / 64u) * 2u + 1u;
            let p12 = tid % 64u + 0u;
            f0_chunk[2u] = (exp((f0_chunk[2u] - s1_row_max[p11])) / s2_row_sum[p11]);
        }
        {
            let p11 = (tid / 64u) * 2u + 1u;
            let p12 = tid % 64u + 64u;
            f0_chunk[3u] = (exp((f0_chunk[3u] - s1_row_max[p11])) / s2_row_sum[p11]);
        }
        if ((bx * 4u) < args.n0_R && args.n0_R - ((bx * 4u)) >= 4u && (i10 * 128u) < args.n1_C && args.n1_C - ((i10 * 128u)) >= 128u) {
            {
                let r = (tid / 64u) * 2u;
                let c = tid % 64u;
                stu_g1_Y((bx * 4u) + r + 0u, (i10 * 128u) + c + 0u, f32(f0_chunk[0]));
                stu_g1_Y((bx * 4u) + r + 0u, (i10 * 128u) + c + 64u, f32(f0_chunk[1]));
                stu_g1_Y((bx * 4u) + r + 1u, (i10 * 128u) + c + 0u, f32(f0_chunk[2]));
                stu_g1_Y((bx * 4u) + r + 1u, (i10 * 128u) + c + 64u, f32(f0_chunk[3]));
            }
        }
        else {
            {
                let r = (tid / 64u) * 2u;
                let c = tid % 64u;
                st_g1_Y((bx * 4u) + r + 0u, (i10 * 128u) + c + 0u, f32(f0_chunk[0]));
                st_g1_Y((bx * 4u) + r + 0u, (i10 * 128u) + c + 64u, f32(f0_chunk[1]));
                st_g1_Y((bx * 4u) + r + 1u, (i10 * 128u) + c + 0u, f32(f0_chunk[2]));
                st_g1_Y((bx * 4u) + r + 1u, (i10 * 128u) + c + 64u, f32(f0_chunk[3]));
            }
        }
    }
}
