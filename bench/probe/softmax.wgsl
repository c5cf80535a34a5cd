// tilecast kernel "softmax": 256 threads per threadgroup
enable f16;

struct Args {
    n0_R: u32,
}
var<immediate> args: Args;

@group(0) @binding(0) var<storage, read> g0_X: array<f16>;
@group(0) @binding(1) var<storage, read_write> g1_Y: array<f16>;
@group(0) @binding(2) var<storage, read> v_g0_X: array<vec4<f16>>;
var<workgroup> s0_rows: array<f32, 4096>;
var<workgroup> s1_row_max: array<f32, 1>;
var<workgroup> s2_row_sum: array<f32, 1>;
var<workgroup> s3_partials: array<f32, 8>;
var<workgroup> s4_partials: array<f32, 8>;

fn ld_g0_X(i0: u32, i1: u32) -> f16 {
    if (i0 < args.n0_R && i1 < 4096u) { return g0_X[(i0) * 4096u + i1]; }
    return f16(0);
}
fn ldv_g0_X(i0: u32, i1: u32) -> vec4<f16> {
    if (i0 < args.n0_R && i1 < 4096u) { return v_g0_X[((i0) * 4096u + i1) / 4u]; }
    return vec4<f16>(0);
}
fn ld_g1_Y(i0: u32, i1: u32) -> f16 {
    if (i0 < args.n0_R && i1 < 4096u) { return g1_Y[(i0) * 4096u + i1]; }
    return f16(0);
}
fn st_g1_Y(i0: u32, i1: u32, v: f16) {
    if (i0 < args.n0_R && i1 < 4096u) { g1_Y[(i0) * 4096u + i1] = v; }
}

@compute @workgroup_size(256)
fn tc_softmax(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32) {
    let bx = wg.x;
    let by = wg.y;
    let bz = wg.z;
    workgroupBarrier();
    if (4096u % 4u == 0u && (0u) % 4u == 0u) {
        let u0c0 = ((tid + 0u) * 4u / 4096u) % 1u;
        let u0c1 = ((tid + 0u) * 4u / 1u) % 4096u;
        let v0 = ldv_g0_X((((by * ((((((args.n0_R + 1u) - 1u) / 1u) + ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u))) + bx) * 1u) + u0c0, 0u + u0c1);
        let u1c0 = ((tid + 256u) * 4u / 4096u) % 1u;
        let u1c1 = ((tid + 256u) * 4u / 1u) % 4096u;
        let v1 = ldv_g0_X((((by * ((((((args.n0_R + 1u) - 1u) / 1u) + ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u))) + bx) * 1u) + u1c0, 0u + u1c1);
        let u2c0 = ((tid + 512u) * 4u / 4096u) % 1u;
        let u2c1 = ((tid + 512u) * 4u / 1u) % 4096u;
        let v2 = ldv_g0_X((((by * ((((((args.n0_R + 1u) - 1u) / 1u) + ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u))) + bx) * 1u) + u2c0, 0u + u2c1);
        let u3c0 = ((tid + 768u) * 4u / 4096u) % 1u;
        let u3c1 = ((tid + 768u) * 4u / 1u) % 4096u;
        let v3 = ldv_g0_X((((by * ((((((args.n0_R + 1u) - 1u) / 1u) + ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u))) + bx) * 1u) + u3c0, 0u + u3c1);
        s0_rows[(tid + 0u) * 4u + 0u] = f32(v0.x);
        s0_rows[(tid + 0u) * 4u + 1u] = f32(v0.y);
        s0_rows[(tid + 0u) * 4u + 2u] = f32(v0.z);
        s0_rows[(tid + 0u) * 4u + 3u] = f32(v0.w);
        s0_rows[(tid + 256u) * 4u + 0u] = f32(v1.x);
        s0_rows[(tid + 256u) * 4u + 1u] = f32(v1.y);
        s0_rows[(tid + 256u) * 4u + 2u] = f32(v1.z);
        s0_rows[(tid + 256u) * 4u + 3u] = f32(v1.w);
        s0_rows[(tid + 512u) * 4u + 0u] = f32(v2.x);
        s0_rows[(tid + 512u) * 4u + 1u] = f32(v2.y);
        s0_rows[(tid + 512u) * 4u + 2u] = f32(v2.z);
        s0_rows[(tid + 512u) * 4u + 3u] = f32(v2.w);
        s0_rows[(tid + 768u) * 4u + 0u] = f32(v3.x);
        s0_rows[(tid + 768u) * 4u + 1u] = f32(v3.y);
        s0_rows[(tid + 768u) * 4u + 2u] = f32(v3.z);
        s0_rows[(tid + 768u) * 4u + 3u] = f32(v3.w);
    }
    else {
        for (var _e1 = tid; _e1 < 4096u; _e1 += 256u) {
            let c0 = (_e1 / 4096u) % 1u;
            let c1 = (_e1 / 1u) % 4096u;
            s0_rows[_e1] = f32(ld_g0_X((((by * ((((((args.n0_R + 1u) - 1u) / 1u) + ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u))) + bx) * 1u) + c0, 0u + c1));
        }
    }
    workgroupBarrier();
    {
        let _g2 = max(sg_count / 1u, 1u);
        for (var _o3 = sg_id / _g2; _o3 < 1u; _o3 += max(sg_count / _g2, 1u)) {
            let q0 = (_o3 / 1u) % 1u;
            var acc = bitcast<f32>(0xff800000u);
            for (var _r4 = (sg_id % _g2) * sg_size + sg_lane; _r4 < 4096u; _r4 += _g2 * sg_size) {
                acc = max(acc, s0_rows[(q0) * 4096u + _r4]);
            }
            acc = subgroupMax(acc);
            if (sg_lane == 0u) {
                s3_partials[_o3 * _g2 + sg_id % _g2] = acc;
            }
        }
        workgroupBarrier();
        for (var _o5 = tid; _o5 < 1u; _o5 += 256u) {
            var acc = bitcast<f32>(0xff800000u);
            for (var p = 0u; p < _g2; p++) {
                acc = max(acc, s3_partials[_o5 * _g2 + p]);
            }
            s1_row_max[_o5] = acc;
        }
    }
    workgroupBarrier();
    for (var _e6 = tid; _e6 < 4096u; _e6 += 256u) {
        let v0 = (_e6 / 4096u) % 1u;
        let v1 = (_e6 / 1u) % 4096u;
        let p4 = v0;
        let p5 = v1;
        s0_rows[(p4) * 4096u + p5] = exp((s0_rows[(p4) * 4096u + p5] - s1_row_max[p4]));
    }
    workgroupBarrier();
    {
        let _g7 = max(sg_count / 1u, 1u);
        for (var _o8 = sg_id / _g7; _o8 < 1u; _o8 += max(sg_count / _g7, 1u)) {
            let q0 = (_o8 / 1u) % 1u;
            var acc = 0.0f;
            for (var _r9 = (sg_id % _g7) * sg_size + sg_lane; _r9 < 4096u; _r9 += _g7 * sg_size) {
                acc = acc + s0_rows[(q0) * 4096u + _r9];
            }
            acc = subgroupAdd(acc);
            if (sg_lane == 0u) {
                s4_partials[_o8 * _g7 + sg_id % _g7] = acc;
            }
        }
        workgroupBarrier();
        for (var _o10 = tid; _o10 < 1u; _o10 += 256u) {
            var acc = 0.0f;
            for (var p = 0u; p < _g7; p++) {
                acc = acc + s4_partials[_o10 * _g7 + p];
            }
            s2_row_sum[_o10] = acc;
        }
    }
    workgroupBarrier();
    for (var _e11 = tid; _e11 < 4096u; _e11 += 256u) {
        let v0 = (_e11 / 4096u) % 1u;
        let v1 = (_e11 / 1u) % 4096u;
        let p6 = v0;
        let p7 = v1;
        s0_rows[(p6) * 4096u + p7] = (s0_rows[(p6) * 4096u + p7] / s2_row_sum[p6]);
    }
    workgroupBarrier();
    for (var _e12 = tid; _e12 < 4096u; _e12 += 256u) {
        let c0 = (_e12 / 4096u) % 1u;
        let c1 = (_e12 / 1u) % 4096u;
        st_g1_Y((((by * ((((((args.n0_R + 1u) - 1u) / 1u) + ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u))) + bx) * 1u) + c0, 0u + c1, f16(s0_rows[_e12]));
    }
}
