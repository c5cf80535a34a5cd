// tilecast kernel "gemv": 256 threads per threadgroup
enable f16;

@group(0) @binding(0) var<storage, read> g0_W: array<f16>;
@group(0) @binding(1) var<storage, read> g1_X: array<f16>;
@group(0) @binding(2) var<storage, read_write> g2_Y: array<f16>;
@group(0) @binding(3) var<storage, read> v_g0_W: array<vec4<f16>>;
@group(0) @binding(4) var<storage, read> v_g1_X: array<vec4<f16>>;
var<workgroup> s2_x: array<f32, 2048>;
var<workgroup> s3_acc: array<f32, 2>;
var<workgroup> s4_partials: array<f32, 16>;

fn ld_g0_W(i0: u32, i1: u32) -> f16 {
    if (i0 < 14336u && i1 < 4096u) { return g0_W[(i0) * 4096u + i1]; }
    return f16(0);
}
fn ldu_g0_W(i0: u32, i1: u32) -> f16 {
    return g0_W[(i0) * 4096u + i1];
}
fn ldv_g0_W(i0: u32, i1: u32) -> vec4<f16> {
    if (i0 < 14336u && i1 < 4096u) { return v_g0_W[((i0) * 4096u + i1) / 4u]; }
    return vec4<f16>(0);
}
fn ldvu_g0_W(i0: u32, i1: u32) -> vec4<f16> {
    return v_g0_W[((i0) * 4096u + i1) / 4u];
}
fn ld_g1_X(i0: u32) -> f16 {
    if (i0 < 4096u) { return g1_X[i0]; }
    return f16(0);
}
fn ldv_g1_X(i0: u32) -> vec4<f16> {
    if (i0 < 4096u) { return v_g1_X[(i0) / 4u]; }
    return vec4<f16>(0);
}
fn ldvu_g1_X(i0: u32) -> vec4<f16> {
    return v_g1_X[(i0) / 4u];
}
fn ld_g2_Y(i0: u32) -> f16 {
    if (i0 < 14336u) { return g2_Y[i0]; }
    return f16(0);
}
fn st_g2_Y(i0: u32, v: f16) {
    if (i0 < 14336u) { g2_Y[i0] = v; }
}
fn stu_g2_Y(i0: u32, v: f16) {
    g2_Y[i0] = v;
}

@compute @workgroup_size(256)
fn tc_gemv(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_invocation_id) sg_lane: u32, @builtin(subgroup_size) sg_size: u32, @builtin(subgroup_id) sg_id: u32, @builtin(num_subgroups) sg_count: u32) {
    let bx = wg.x;
    let by = wg.y;
    let bz = wg.z;
    var f0_w: array<f32, 16>;
    var f1_prod: array<f32, 16>;
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
    for (var i4 = 0u; i4 < 2u; i4++) {
        if (4096u % 4u == 0u && ((i4 * 2048u)) % 4u == 0u && (((by * 7168u) + bx) * 2u) < 14336u && 14336u - ((((by * 7168u) + bx) * 2u)) >= 2u && (i4 * 2048u) < 4096u && 4096u - ((i4 * 2048u)) >= 2048u) {
            {
                let r = (tid / 256u) * 2u;
                let c = (tid % 256u) * 4u;
                let v0 = ldvu_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 0u);
                let v1 = ldvu_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1024u);
                let v2 = ldvu_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 0u);
                let v3 = ldvu_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1024u);
                f0_w[0] = f32(v0.x);
                f0_w[1] = f32(v0.y);
                f0_w[2] = f32(v0.z);
                f0_w[3] = f32(v0.w);
                f0_w[4] = f32(v1.x);
                f0_w[5] = f32(v1.y);
                f0_w[6] = f32(v1.z);
                f0_w[7] = f32(v1.w);
                f0_w[8] = f32(v2.x);
                f0_w[9] = f32(v2.y);
                f0_w[10] = f32(v2.z);
                f0_w[11] = f32(v2.w);
                f0_w[12] = f32(v3.x);
                f0_w[13] = f32(v3.y);
                f0_w[14] = f32(v3.z);
                f0_w[15] = f32(v3.w);
            }
        }
        else {
            if ((((by * 7168u) + bx) * 2u) < 14336u && 14336u - ((((by * 7168u) + bx) * 2u)) >= 2u && (i4 * 2048u) < 4096u && 4096u - ((i4 * 2048u)) >= 2048u) {
                {
                    let r = (tid / 256u) * 2u;
                    let c = (tid % 256u) * 4u;
                    f0_w[0] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 0u));
                    f0_w[1] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1u));
                    f0_w[2] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 2u));
                    f0_w[3] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 3u));
                    f0_w[4] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1024u));
                    f0_w[5] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1025u));
                    f0_w[6] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1026u));
                    f0_w[7] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1027u));
                    f0_w[8] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 0u));
                    f0_w[9] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1u));
                    f0_w[10] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 2u));
                    f0_w[11] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 3u));
                    f0_w[12] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1024u));
                    f0_w[13] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1025u));
                    f0_w[14] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1026u));
                    f0_w[15] = f32(ldu_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1027u));
                }
            }
            else {
                {
                    let r = (tid / 256u) * 2u;
                    let c = (tid % 256u) * 4u;
                    f0_w[0] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 0u));
                    f0_w[1] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1u));
                    f0_w[2] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 2u));
                    f0_w[3] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 3u));
                    f0_w[4] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1024u));
                    f0_w[5] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1025u));
                    f0_w[6] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1026u));
                    f0_w[7] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 0u, (i4 * 2048u) + c + 1027u));
                    f0_w[8] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 0u));
                    f0_w[9] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1u));
                    f0_w[10] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 2u));
                    f0_w[11] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 3u));
                    f0_w[12] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1024u));
                    f0_w[13] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1025u));
                    f0_w[14] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1026u));
                    f0_w[15] = f32(ld_g0_W((((by * 7168u) + bx) * 2u) + r + 1u, (i4 * 2048u) + c + 1027u));
                }
            }
        }
        {
            let p5 = (tid / 256u) * 2u + 0u;
            let p6 = (tid % 256u) * 4u + 0u;
            let _rv1 = ldv_g1_X(((i4 * 2048u) + p6));
            {
                let p5 = (tid / 256u) * 2u + 0u;
                let p6 = (tid % 256u) * 4u + 0u;
                f1_prod[0u] = (f1_prod[0u] + (f0_w[0u] * f32(_rv1.x)));
            }
            {
                let p5 = (tid / 256u) * 2u + 0u;
                let p6 = (tid % 256u) * 4u + 1u;
                f1_prod[1u] = (f1_prod[1u] + (f0_w[1u] * f32(_rv1.y)));
            }
            {
                let p5 = (tid / 256u) * 2u + 0u;
                let p6 = (tid % 256u) * 4u + 2u;
                f1_prod[2u] = (f1_prod[2u] + (f0_w[2u] * f32(_rv1.z)));
            }
            {
                let p5 = (tid / 256u) * 2u + 0u;
                let p6 = (tid % 256u) * 4u + 3u;
                f1_prod[3u] = (f1_prod[3u] + (f0_w[3u] * f32(_rv1.w)));
            }
        }
        {
            let p5 = (tid / 256u) * 2u + 0u;
            let p6 = (tid % 256u) * 4u + 1024u;
            let _rv2 = ldv_g1_X(((i4 * 2048u) + p6));
            {
                let p5 = (tid / 256u) * 2u + 0u;
                let p6 = (tid % 256u) * 4u + 1024u;
                f1_prod[4u] = (f1_prod[4u] + (f0_w[4u] * f32(_rv2.x)));
            }
            {
                let p5 = (tid / 256u) * 2u + 0u;
                let p6 = (tid % 256u) * 4u + 1025u;
                f1_prod[5u] = (f1_prod[5u] + (f0_w[5u] * f32(_rv2.y)));
            }
            {
                let p5 = (tid / 256u) * 2u + 0u;
                let p6 = (tid % 256u) * 4u + 1026u;
                f1_prod[6u] = (f1_prod[6u] + (f0_w[6u] * f32(_rv2.z)));
            }
            {
                let p5 = (tid / 256u) * 2u + 0u;
                let p6 = (tid % 256u) * 4u + 1027u;
                f1_prod[7u] = (f1_prod[7u] + (f0_w[7u] * f32(_rv2.w)));
            }
        }
        {
            let p5 = (tid / 256u) * 2u + 1u;
            let p6 = (tid % 256u) * 4u + 0u;
            let _rv3 = ldv_g1_X(((i4 * 2048u) + p6));
            {
                let p5 = (tid / 256u) * 2u + 1u;
                let p6 = (tid % 256u) * 4u + 0u;
                f1_prod[8u] = (f1_prod[8u] + (f0_w[8u] * f32(_rv3.x)));
            }
            {
                let p5 = (tid / 256u) * 2u + 1u;
                let p6 = (tid % 256u) * 4u + 1u;
                f1_prod[9u] = (f1_prod[9u] + (f0_w[9u] * f32(_rv3.y)));
            }
            {
                let p5 = (tid / 256u) * 2u + 1u;
                let p6 = (tid % 256u) * 4u + 2u;
                f1_prod[10u] = (f1_prod[10u] + (f0_w[10u] * f32(_rv3.z)));
            }
            {
                let p5 = (tid / 256u) * 2u + 1u;
                let p6 = (tid % 256u) * 4u + 3u;
                f1_prod[11u] = (f1_prod[11u] + (f0_w[11u] * f32(_rv3.w)));
            }
        }
        {
            let p5 = (tid / 256u) * 2u + 1u;
            let p6 = (tid % 256u) * 4u + 1024u;
            let _rv4 = ldv_g1_X(((i4 * 2048u) + p6));
            {
                let p5 = (tid / 256u) * 2u + 1u;
                let p6 = (tid % 256u) * 4u + 1024u;
                f1_prod[12u] = (f1_prod[12u] + (f0_w[12u] * f32(_rv4.x)));
            }
            {
                let p5 = (tid / 256u) * 2u + 1u;
                let p6 = (tid % 256u) * 4u + 1025u;
                f1_prod[13u] = (f1_prod[13u] + (f0_w[13u] * f32(_rv4.y)));
            }
            {
                let p5 = (tid / 256u) * 2u + 1u;
                let p6 = (tid % 256u) * 4u + 1026u;
                f1_prod[14u] = (f1_prod[14u] + (f0_w[14u] * f32(_rv4.z)));
            }
            {
                let p5 = (tid / 256u) * 2u + 1u;
                let p6 = (tid % 256u) * 4u + 1027u;
                f1_prod[15u] = (f1_prod[15u] + (f0_w[15u] * f32(_rv4.w)));
            }
        }
    }
    {
        {
            var _p5 = 0.0f;
            _p5 = _p5 + f1_prod[0u * 8u + 0u];
            _p5 = _p5 + f1_prod[0u * 8u + 1u];
            _p5 = _p5 + f1_prod[0u * 8u + 2u];
            _p5 = _p5 + f1_prod[0u * 8u + 3u];
            _p5 = _p5 + f1_prod[0u * 8u + 4u];
            _p5 = _p5 + f1_prod[0u * 8u + 5u];
            _p5 = _p5 + f1_prod[0u * 8u + 6u];
            _p5 = _p5 + f1_prod[0u * 8u + 7u];
            _p5 = subgroupAdd(_p5);
            if (sg_lane == 0u) { s4_partials[(0u) * 8u + sg_id] = _p5; }
        }
        {
            var _p5 = 0.0f;
            _p5 = _p5 + f1_prod[1u * 8u + 0u];
            _p5 = _p5 + f1_prod[1u * 8u + 1u];
            _p5 = _p5 + f1_prod[1u * 8u + 2u];
            _p5 = _p5 + f1_prod[1u * 8u + 3u];
            _p5 = _p5 + f1_prod[1u * 8u + 4u];
            _p5 = _p5 + f1_prod[1u * 8u + 5u];
            _p5 = _p5 + f1_prod[1u * 8u + 6u];
            _p5 = _p5 + f1_prod[1u * 8u + 7u];
            _p5 = subgroupAdd(_p5);
            if (sg_lane == 0u) { s4_partials[(1u) * 8u + sg_id] = _p5; }
        }
        workgroupBarrier();
        for (var _o8 = tid; _o8 < 2u; _o8 += 256u) {
            var acc = 0.0f;
            for (var p = 0u; p < sg_count; p++) {
                acc = acc + s4_partials[_o8 * 8u + p];
            }
            s3_acc[_o8] = acc;
        }
    }
    workgroupBarrier();
    if ((((by * 7168u) + bx) * 2u) < 14336u && 14336u - ((((by * 7168u) + bx) * 2u)) >= 2u) {
        for (var _e9 = tid; _e9 < 2u; _e9 += 256u) {
            let c0 = (_e9 / 1u) % 2u;
            stu_g2_Y((((by * 7168u) + bx) * 2u) + c0, f16(s3_acc[_e9]));
        }
    }
    else {
        for (var _e10 = tid; _e10 < 2u; _e10 += 256u) {
            let c0 = (_e10 / 1u) % 2u;
            st_g2_Y((((by * 7168u) + bx) * 2u) + c0, f16(s3_acc[_e10]));
        }
    }
}
