"""Hand-written 4096^3 f16 -> f32 gemms on cooperative matrices, to find the structure the
compiler should emit: tile shape, subgroup grid, padded shared rows, and how the staging overlaps
the products. Run from this folder: python3 make_gemm_tiles.py

  mode plain     barrier; global -> shared; barrier; products (the emitted structure)
  mode prefetch  the next K tile's global loads are issued before this tile's products and
                 stored after them (registers double-buffer the staging)
  mode double    two shared buffers: one barrier per K tile, the next tile's stores go to the
                 other buffer while this one is read
Bindings: out (f32 4096^2), A, B (f16 4096^2 as vec4<u32>, 8 f16 each). Grid: (4096/BN)*(4096/BM).
"""


def kernel(bm=128, bn=128, bk=32, wm=2, wn=2, mode="plain", pad=8):
    threads = 32 * wm * wn
    sm, sn = bm // wm, bn // wn  # each subgroup's block
    mi, ni = sm // 16, sn // 16
    pa, pb = bk + pad, bn + pad
    stages = 2 if mode == "double" else 1
    na = bm * bk // 8 // threads  # 16-byte loads per thread
    nb = bk * bn // 8 // threads
    assert na * threads * 8 == bm * bk and nb * threads * 8 == bk * bn, "loads must divide"
    gx = 4096 // bn
    s = f"""enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> ga: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read> gb: array<vec4<u32>>;
var<workgroup> sa: array<f16, {stages * bm * pa}>;
var<workgroup> sb: array<f16, {stages * bk * pb}>;
@compute @workgroup_size({threads})
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_id) sg: u32) {{
    let bx = wg.x % {gx}u;
    let by = wg.x / {gx}u;
    let wr = (sg / {wn}u) * {sm}u;
    let wc = (sg % {wn}u) * {sn}u;
"""
    s += "".join(f"    var c{i}: coop_mat16x16<f32, C>;\n" for i in range(mi * ni))
    s += "".join(f"    var ra{k}: vec4<u32>;\n" for k in range(na))
    s += "".join(f"    var rb{k}: vec4<u32>;\n" for k in range(nb))

    def loads(it, ind):
        o = ""
        for k in range(na):
            e = f"(tid + {threads * k}u) * 8u"
            o += f"{ind}ra{k} = ga[((by * {bm}u + ({e}) / {bk}u) * 4096u + ({it}) * {bk}u + ({e}) % {bk}u) / 8u];\n"
        for k in range(nb):
            e = f"(tid + {threads * k}u) * 8u"
            o += f"{ind}rb{k} = gb[((({it}) * {bk}u + ({e}) / {bn}u) * 4096u + bx * {bn}u + ({e}) % {bn}u) / 8u];\n"
        return o

    def stores(buf, ind):
        o = ""
        for ab, n, cols, pitch, rows in (("a", na, bk, pa, bm), ("b", nb, bn, pb, bk)):
            for k in range(n):
                e = f"(tid + {threads * k}u) * 8u"
                base = f"({buf}) * {rows * pitch}u + (({e}) / {cols}u) * {pitch}u + ({e}) % {cols}u"
                o += f"{ind}{{\n{ind}    let p = {base};\n"
                for w in range(4):
                    o += f"{ind}    let h{w} = unpack2x16float(r{ab}{k}.{'xyzw'[w]});\n"
                    o += f"{ind}    s{ab}[p + {2 * w}u] = f16(h{w}.x);\n{ind}    s{ab}[p + {2 * w + 1}u] = f16(h{w}.y);\n"
                o += f"{ind}}}\n"
        return o

    def products(buf, ind):
        o = f"{ind}for (var kk = 0u; kk < {bk}u; kk += 16u) {{\n"
        for i in range(mi):
            o += f"{ind}    let a{i} = coopLoadT<coop_mat16x16<f16, A>>(&sa[({buf}) * {bm * pa}u + (wr + {16 * i}u) * {pa}u + kk], {pa}u);\n"
        for j in range(ni):
            o += f"{ind}    let b{j} = coopLoadT<coop_mat16x16<f16, B>>(&sb[({buf}) * {bk * pb}u + kk * {pb}u + wc + {16 * j}u], {pb}u);\n"
        for i in range(mi):
            for j in range(ni):
                c = i * ni + j
                o += f"{ind}    c{c} = coopMultiplyAdd(a{i}, b{j}, c{c});\n"
        return o + f"{ind}}}\n"

    nk = 4096 // bk
    if mode == "plain":
        s += f"    for (var it = 0u; it < {nk}u; it++) {{\n        workgroupBarrier();\n"
        s += loads("it", "        ") + stores("0u", "        ") + "        workgroupBarrier();\n"
        s += products("0u", "        ") + "    }\n"
    elif mode == "prefetch":
        s += loads("0u", "    ")
        s += f"    for (var it = 0u; it < {nk}u; it++) {{\n        workgroupBarrier();\n"
        s += stores("0u", "        ") + "        workgroupBarrier();\n"
        s += f"        if (it + 1u < {nk}u) {{\n" + loads("it + 1u", "            ") + "        }\n"
        s += products("0u", "        ") + "    }\n"
    else:
        s += loads("0u", "    ") + stores("0u", "    ") + "    workgroupBarrier();\n"
        s += f"    for (var it = 0u; it < {nk}u; it++) {{\n"
        s += f"        if (it + 1u < {nk}u) {{\n" + loads("it + 1u", "            ") + "        }\n"
        s += products("it % 2u", "        ")
        s += f"        if (it + 1u < {nk}u) {{\n" + stores("(it + 1u) % 2u", "            ") + "        }\n"
        s += "        workgroupBarrier();\n    }\n"
    for i in range(mi):
        for j in range(ni):
            s += f"    coopStoreT(c{i * ni + j}, &out[(by * {bm}u + wr + {16 * i}u) * 4096u + bx * {bn}u + wc + {16 * j}u], 4096u);\n"
    return s + "}\n", (4096 // bm) * gx


CASES = []
for mode in ([] if __import__("os").environ.get("TILES") == "more" else ["plain", "prefetch", "double"]):
    for (bm, bn, bk, wm, wn) in [(128, 128, 32, 2, 2), (128, 128, 32, 2, 4), (128, 256, 32, 2, 4),
                                 (256, 128, 32, 4, 2), (128, 128, 64, 2, 2)]:
        CASES.append((f"t_{mode}_{bm}x{bn}x{bk}_{wm}x{wn}", dict(bm=bm, bn=bn, bk=bk, wm=wm, wn=wn, mode=mode)))

# A second round (TILES=more): around the best of the first (prefetch, 128x128x32, 2x2).
if __import__("os").environ.get("TILES") == "more":
    for (bm, bn, bk, wm, wn) in [(128, 128, 16, 2, 2), (128, 64, 32, 2, 1), (64, 128, 32, 1, 2),
                                 (128, 128, 32, 4, 1), (128, 128, 32, 1, 4), (128, 256, 16, 2, 2)]:
        CASES.append((f"t_prefetch_{bm}x{bn}x{bk}_{wm}x{wn}", dict(bm=bm, bn=bn, bk=bk, wm=wm, wn=wn, mode="prefetch")))

if __name__ == "__main__":
    for name, kw in CASES:
        src, groups = kernel(**kw)
        smem = src.split("array<f16, ")
        open(name + ".wgsl", "w").write(src)
        print(name, groups, 32 * kw["wm"] * kw["wn"])
