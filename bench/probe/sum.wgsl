// tilecast kernel "sum": 256 threads per threadgroup
enable f16;

struct Args {
    n0_R: u32,
}
var<immediate> args: Args;

@group(0) @binding(0) var<storage, read> g0_X: array<f16>;
@group(0) @binding(1) var<storage, read_write> g1_Y: array<f32>;
@group(0) @binding(2) var<storage, read> v_g0_X: array<vec4<f16>>;
var<workgroup> s0_rows: array<f32, 4096>;
var<workgroup> s1_acc: array<f32, 1>;
var<workgroup> s2_partials: array<f32, 8>;

fn ld_g0_X(i0: u32, i1: u32) -> f16 {
    if (i0 < args.n0_R && i1 < 4096u) { return g0_X[(i0) * 4096u + i1]; }
    return f16(0);
}
fn ldv_g0_X(i0: u32, i1: u32) -> vec4<f16> {
    if (i0 < args.n0_R && i1 < 4096u) { return v_g0_X[((i0) * 4096u + i1) / 4u]; }
    return vec4<f16>(0);
}
fn ld_g1_Y(i0: u32) -> f32 {
    if (i0 < args.n0_R) { return g1_Y[i0]; }
    return f32(0);
}
fn st_g1_Y(i0: u32, v: f32) {
    if (i0 < args.n0_R) { g1_Y[i0] = v; }
}

@compute @workgroup_size(256)
fn tc_sum(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32) {
    let bx = wg.x;
    let by = wg.y;
    let bz = wg.z;
    workgroupBarrier();
    for (var _e1 = tid; _e1 < 1u; _e1 += 256u) {
        s1_acc[_e1] = 0.0f;
    }
    workgroupBarrier();
    for (var i4 = 0u; i4 < 1u; i4++) {
        workgroupBarrier();
        if (4096u % 4u == 0u && ((i4 * 4096u)) % 4u == 0u) {
            let u0c0 = ((tid + 0u) * 4u / 4096u) % 1u;
            let u0c1 = ((tid + 0u) * 4u / 1u) % 4096u;
            let v0 = ldv_g0_X((((by * ((((((args.n0_R + 1u) - 1u) / 1u) + ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u))) + bx) * 1u) + u0c0, (i4 * 4096u) + u0c1);
            let u1c0 = ((tid + 256u) * 4u / 4096u) % 1u;
            let u1c1 = ((tid + 256u) * 4u / 1u) % 4096u;
            let v1 = ldv_g0_X((((by * ((((((args.n0_R + 1u) - 1u) / 1u) + ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u))) + bx) * 1u) + u1c0, (i4 * 4096u) + u1c1);
            let u2c0 = ((tid + 512u) * 4u / 4096u) % 1u;
            let u2c1 = ((tid + 512u) * 4u / 1u) % 4096u;
            let v2 = ldv_g0_X((((by * ((((((args.n0_R + 1u) - 1u) / 1u) + ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u))) + bx) * 1u) + u2c0, (i4 * 4096u) + u2c1);
            let u3c0 = ((tid + 768u) * 4u / 4096u) % 1u;
            let u3c1 = ((tid + 768u) * 4u / 1u) % 4096u;
            let v3 = ldv_g0_X((((by * ((((((args.n0_R + 1u) - 1u) / 1u) + ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u))) + bx) * 1u) + u3c0, (i4 * 4096u) + u3c1);
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
            for (var _e2 = tid; _e2 < 4096u; _e2 += 256u) {
                let c0 = (_e2 / 4096u) % 1u;
                let c1 = (_e2 / 1u) % 4096u;
                s0_rows[_e2] = f32(ld_g0_X((((by * ((((((args.n0_R + 1u) - 1u) / 1u) + ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u))) + bx) * 1u) + c0, (i4 * 4096u) + c1));
            }
        }
        workgroupBarrier();
        {
            let _g3 = max(sg_count / 1u, 1u);
            for (var _o4 = sg_id / _g3; _o4 < 1u; _o4 += max(sg_count / _g3, 1u)) {
                let q0 = (_o4 / 1u) % 1u;
                var acc = 0.0f;
                for (var _r5 = (sg_id % _g3) * sg_size + sg_lane; _r5 < 4096u; _r5 += _g3 * sg_size) {
                    acc = acc + s0_rows[(q0) * 4096u + _r5];
                }
                acc = subgroupAdd(acc);
                if (sg_lane == 0u) {
                    s2_partials[_o4 * _g3 + sg_id % _g3] = acc;
                }
            }
            workgroupBarrier();
            for (var _o6 = tid; _o6 < 1u; _o6 += 256u) {
                var acc = 0.0f;
                for (var p = 0u; p < _g3; p++) {
                    acc = acc + s2_partials[_o6 * _g3 + p];
                }
                s1_acc[_o6] = s1_acc[_o6] + acc;
            }
        }
        workgroupBarrier();
    }
    for (var _e7 = tid; _e7 < 1u; _e7 += 256u) {
        let c0 = (_e7 / 1u) % 1u;
        st_g1_Y((((by * ((((((args.n0_R + 1u) - 1u) / 1u) + ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u)) - 1u) / ((((((args.n0_R + 1u) - 1u) / 1u) + 32768u) - 1u) / 32768u))) + bx) * 1u) + c0, f32(s1_acc[_e7]));
    }
}
