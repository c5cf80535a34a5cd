"""Writes microbenchmarks of cooperative-matrix loads from workgroup memory: the inner loop of
the emitted gemm (8 subgroups, each 4x2 accumulators of 16x16, k step 16) with no global
traffic, for several shared row strides and B layouts. Each kernel does the same matrix work, so
their times compare the load paths. Run from this folder: python3 make_coop_loads.py

  mma          products on register operands only (the ceiling)
  ld_A{sa}_B{sb}[t]   A rows of `sa` f16, B rows of `sb` f16 (t: B stored n-major, column loads)
  ..._dyn      the k offset comes from an immediate, so the compiler cannot prove alignment
"""

HEAD = """enable f16;
enable wgpu_cooperative_matrix;
struct Args {{ iters: u32, step: u32, }}
var<immediate> args: Args;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
var<workgroup> sa: array<f16, {na}>;
var<workgroup> sb: array<f16, {nb}>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_id) sg: u32) {{
    for (var i = tid; i < {na}u; i += 256u) {{ sa[i] = f16(f32(i % 7u) * 0.125); }}
    for (var i = tid; i < {nb}u; i += 256u) {{ sb[i] = f16(f32(i % 5u) * 0.125); }}
    workgroupBarrier();
    let wr = (sg / 4u) * 64u;
    let wc = (sg % 4u) * 32u;
"""
TAIL = """    let base = ((wg.x * 8u) + sg) * 2048u;
{stores}
}}
"""


def kernel(sa_stride, sb_stride, b_t, dyn, mma_only=False):
    # A: 128 rows x 32 k, row stride sa_stride. B: 32 k x 128 n (row stride sb_stride), or
    # 128 n x 32 k (b_t, row stride sb_stride) loaded column-major.
    na = 128 * sa_stride
    nb = 128 * sb_stride if b_t else 32 * sb_stride
    s = HEAD.format(na=na, nb=nb)
    s += "".join(f"    var c{i}: coop_mat16x16<f32, C>;\n" for i in range(8))
    if mma_only:
        s += "".join(f"    let a{j} = coopLoadT<coop_mat16x16<f16, A>>(&sa[{16 * j * sa_stride}u], {sa_stride}u);\n" for j in range(4))
        s += "".join(f"    let b{j} = coopLoadT<coop_mat16x16<f16, B>>(&sb[{16 * j}u], {sb_stride}u);\n" for j in range(2))
    s += "    for (var it = 0u; it < args.iters; it++) {\n"
    kk = "((it * args.step) % 32u)" if dyn else "((it % 2u) * 16u)"
    if not mma_only:
        s += f"        let kk = {kk};\n"
        for j in range(4):
            s += f"        let a{j} = coopLoadT<coop_mat16x16<f16, A>>(&sa[(wr + {16 * j}u) * {sa_stride}u + kk], {sa_stride}u);\n"
        for j in range(2):
            if b_t:
                s += f"        let b{j} = coopLoad<coop_mat16x16<f16, B>>(&sb[(wc + {16 * j}u) * {sb_stride}u + kk], {sb_stride}u);\n"
            else:
                s += f"        let b{j} = coopLoadT<coop_mat16x16<f16, B>>(&sb[kk * {sb_stride}u + wc + {16 * j}u], {sb_stride}u);\n"
    for i in range(8):
        s += f"        c{i} = coopMultiplyAdd(a{i // 2}, b{i % 2}, c{i});\n"
    s += "    }\n"
    stores = "".join(f"    coopStoreT(c{i}, &out[base + {256 * i}u], 16u);\n" for i in range(8))
    return s + TAIL.format(stores=stores)


CASES = [("mma", 32, 128, False, False, True)]
for sa_stride, sb_stride, b_t in [(32, 128, False), (40, 136, False), (40, 128, False), (32, 136, False),
                                  (48, 144, False), (64, 128, False), (72, 136, False),
                                  (32, 32, True), (40, 40, True)]:
    name = f"ld_A{sa_stride}_B{sb_stride}{'t' if b_t else ''}"
    CASES.append((name, sa_stride, sb_stride, b_t, False, False))
CASES.append(("ld_A32_B128_dyn", 32, 128, False, True, False))
CASES.append(("ld_A40_B136_dyn", 40, 136, False, True, False))

if __name__ == "__main__":
    for name, a, b, t, d, m in CASES:
        open(name + ".wgsl", "w").write(kernel(a, b, t, d, m))
        print(name)
