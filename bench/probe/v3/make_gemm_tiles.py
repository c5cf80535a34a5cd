"""Hand-written 4096^3 f16 -> f32 gemms on cooperative matrices, to find the structure the
compiler should emit: tile shape, subgroup grid, padded shared rows, and how the staging overlaps
the products. Run from this folder: python3 make_gemm_tiles.py

  mode plain     barrier; global -> shared; barrier; products (the emitted structure)
  mode prefetch  the next K tile's global loads are issued before this tile's products and
                 stored after them (registers double-buffer the staging)
  mode double    two shared buffers: one barrier per K tile, the next tile's stores go to the
                 other buffer while this one is read
  store          how the staging writes threadgroup memory (session 19,
                 bench/probe/v6/make_gemm_stores.py): unpack (the default: 16-byte loads, one
                 f16 store each), scalar, h4 or u4 (8- or 16-byte stores)
Bindings: out (f32 4096^2), A, B (f16 4096^2, as vec4<u32> or vec4<f16>). Grid: (4096/BN)*(4096/BM).
"""


N = 4096
UNIT = {"unpack": 1, "scalar": 1, "h4": 4, "u4": 8}  # f16 per shared element
ELEM = {"unpack": "f16", "scalar": "f16", "h4": "vec4<f16>", "u4": "vec4<u32>"}
GLOBAL = {"unpack": 8, "scalar": 4, "h4": 4, "u4": 8}  # f16 per global load


def kernel(bm=128, bn=128, bk=32, wm=2, wn=2, mode="plain", store="unpack", pad=8):
    threads = 32 * wm * wn
    sm, sn = bm // wm, bn // wn
    mi, ni = sm // 16, sn // 16
    pa, pb = bk + pad, bn + pad
    u, g = UNIT[store], GLOBAL[store]
    gty = "vec4<u32>" if g == 8 else "vec4<f16>"
    assert pa % u == 0 and pb % u == 0
    stages = 2 if mode == "double" else 1
    na, nb = bm * bk // g // threads, bk * bn // g // threads
    assert na * threads * g == bm * bk and nb * threads * g == bk * bn
    gx = N // bn
    s = f"""enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> ga: array<{gty}>;
@group(0) @binding(2) var<storage, read> gb: array<{gty}>;
var<workgroup> sa: array<{ELEM[store]}, {stages * bm * pa // u}>;
var<workgroup> sb: array<{ELEM[store]}, {stages * bk * pb // u}>;
@compute @workgroup_size({threads})
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_id) sg: u32) {{
    let bx = wg.x % {gx}u;
    let by = wg.x / {gx}u;
    let wr = (sg / {wn}u) * {sm}u;
    let wc = (sg % {wn}u) * {sn}u;
"""
    s += "".join(f"    var c{i}: coop_mat16x16<f32, C>;\n" for i in range(mi * ni))
    s += "".join(f"    var ra{k}: {gty};\n" for k in range(na))
    s += "".join(f"    var rb{k}: {gty};\n" for k in range(nb))

    def loads(it, ind):
        o = ""
        for k in range(na):
            e = f"(tid + {threads * k}u) * {g}u"
            o += f"{ind}ra{k} = ga[((by * {bm}u + ({e}) / {bk}u) * {N}u + ({it}) * {bk}u + ({e}) % {bk}u) / {g}u];\n"
        for k in range(nb):
            e = f"(tid + {threads * k}u) * {g}u"
            o += f"{ind}rb{k} = gb[((({it}) * {bk}u + ({e}) / {bn}u) * {N}u + bx * {bn}u + ({e}) % {bn}u) / {g}u];\n"
        return o

    def stores(buf, ind):
        o = ""
        for ab, n, cols, pitch, rows in (("a", na, bk, pa, bm), ("b", nb, bn, pb, bk)):
            for k in range(n):
                e = f"(tid + {threads * k}u) * {g}u"
                p = f"({buf}) * {rows * pitch}u + (({e}) / {cols}u) * {pitch}u + ({e}) % {cols}u"
                r = f"r{ab}{k}"
                if store in ("u4", "h4"):
                    o += f"{ind}s{ab}[({p}) / {u}u] = {r};\n"
                elif store == "scalar":
                    o += f"{ind}{{ let p = {p};\n"
                    o += "".join(f"{ind}  s{ab}[p + {w}u] = {r}.{'xyzw'[w]};\n" for w in range(4))
                    o += f"{ind}}}\n"
                else:
                    o += f"{ind}{{ let p = {p};\n"
                    for w in range(4):
                        o += f"{ind}  let h{w} = unpack2x16float({r}.{'xyzw'[w]});\n"
                        o += f"{ind}  s{ab}[p + {2 * w}u] = f16(h{w}.x); s{ab}[p + {2 * w + 1}u] = f16(h{w}.y);\n"
                    o += f"{ind}}}\n"
        return o

    def products(buf, ind):
        o = f"{ind}for (var kk = 0u; kk < {bk}u; kk += 16u) {{\n"
        for i in range(mi):
            at = f"(({buf}) * {bm * pa}u + (wr + {16 * i}u) * {pa}u + kk) / {u}u"
            o += f"{ind}    let a{i} = coopLoadT<coop_mat16x16<f16, A>>(&sa[{at}], {pa // u}u);\n"
        for j in range(ni):
            at = f"(({buf}) * {bk * pb}u + kk * {pb}u + wc + {16 * j}u) / {u}u"
            o += f"{ind}    let b{j} = coopLoadT<coop_mat16x16<f16, B>>(&sb[{at}], {pb // u}u);\n"
        for i in range(mi):
            for j in range(ni):
                c = i * ni + j
                o += f"{ind}    c{c} = coopMultiplyAdd(a{i}, b{j}, c{c});\n"
        return o + f"{ind}}}\n"

    nk = N // bk
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
            s += f"    coopStoreT(c{i * ni + j}, &out[(by * {bm}u + wr + {16 * i}u) * {N}u + bx * {bn}u + wc + {16 * j}u], {N}u);\n"
    return s + "}\n", (N // bm) * gx, threads


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
        src, groups, _ = kernel(**kw)
        smem = src.split("array<f16, ")
        open(name + ".wgsl", "w").write(src)
        print(name, groups, 32 * kw["wm"] * kw["wn"])
