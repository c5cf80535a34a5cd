"""Session 27: hand-written 4096^3 f16 -> f32 gemms on 16x16 cooperative matrices in which
the subgroups split roles. Every earlier probe (v3, v6) had all subgroups both stage and
multiply, so a threadgroup's tensor work stops while it waits for global memory; the best of
them (register prefetch, 128x128x32) ran 0.61 ms on the H200 against torch's 0.185.

Here C consumer subgroups only multiply (2x2, 64x64 each over a 128x128 tile) and P producer
subgroups only stage: global -> registers -> threadgroup memory, two stages of shared A/B, one
barrier per K step. The producers keep D register sets of loads in flight, so a load issued
while the consumers work on step s is stored at step s + D. The loop is unrolled by two so
every stage offset is a constant (v3's `double` mode indexed stages at run time and ran at half
speed). Barriers sit outside the role branches (WGSL's uniformity rule).

  store unpack  16-byte global loads (vec4<u32>), one f16 store per element
        scalar  8-byte global loads (vec4<f16>), one f16 store per element
Bindings: out (f32 4096^2), A, B (f16 4096^2). Grid: (4096/BM)*(4096/BN).
Usage (from this folder): python3 make_gemm_ws.py  (writes the files, prints name groups threads)
"""

N = 4096


def kernel(bm=128, bn=128, bk=32, wm=2, wn=2, p=4, d=2, store="unpack", pad=8):
    c = wm * wn
    threads = 32 * (c + p)
    sm, sn = bm // wm, bn // wn
    mi, ni = sm // 16, sn // 16
    pa, pb = bk + pad, bn + pad
    g = 8 if store == "unpack" else 4
    gty = "vec4<u32>" if g == 8 else "vec4<f16>"
    pt = 32 * p
    na, nb = bm * bk // g // pt, bk * bn // g // pt
    assert na * pt * g == bm * bk and nb * pt * g == bk * bn
    sa_n, sb_n = bm * pa, bk * pb
    assert 2 * 2 * (sa_n + sb_n) <= 49152, "two stages exceed 48 KiB"
    gx = N // bn
    nk = N // bk
    assert nk % 2 == 0 and d in (1, 2)
    s = f"""enable f16;
enable wgpu_cooperative_matrix;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> ga: array<{gty}>;
@group(0) @binding(2) var<storage, read> gb: array<{gty}>;
var<workgroup> sa: array<f16, {2 * sa_n}>;
var<workgroup> sb: array<f16, {2 * sb_n}>;
@compute @workgroup_size({threads})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_id) sg: u32, @builtin(subgroup_invocation_id) lane: u32) {{
    let bx = wg.x % {gx}u;
    let by = wg.x / {gx}u;
    let consumer = sg < {c}u;
    let wr = (sg / {wn}u) * {sm}u;
    let wc = (sg % {wn}u) * {sn}u;
    let ptid = (sg - {c}u) * 32u + lane;
"""
    s += "".join(f"    var c{i}: coop_mat16x16<f32, C>;\n" for i in range(mi * ni))
    for r in range(d):
        s += "".join(f"    var ra{r}_{k}: {gty};\n" for k in range(na))
        s += "".join(f"    var rb{r}_{k}: {gty};\n" for k in range(nb))

    def loads(it, r, ind):
        o = ""
        for k in range(na):
            e = f"(ptid + {pt * k}u) * {g}u"
            o += f"{ind}ra{r}_{k} = ga[((by * {bm}u + ({e}) / {bk}u) * {N}u + ({it}) * {bk}u + ({e}) % {bk}u) / {g}u];\n"
        for k in range(nb):
            e = f"(ptid + {pt * k}u) * {g}u"
            o += f"{ind}rb{r}_{k} = gb[((({it}) * {bk}u + ({e}) / {bn}u) * {N}u + bx * {bn}u + ({e}) % {bn}u) / {g}u];\n"
        return o

    def stores(stage, r, ind):
        o = ""
        for ab, n, cols, pitch, size in (("a", na, bk, pa, sa_n), ("b", nb, bn, pb, sb_n)):
            for k in range(n):
                e = f"(ptid + {pt * k}u) * {g}u"
                q = f"{stage * size}u + (({e}) / {cols}u) * {pitch}u + ({e}) % {cols}u"
                v = f"r{ab}{r}_{k}"
                o += f"{ind}{{ let q = {q};\n"
                if store == "scalar":
                    o += "".join(f"{ind}  s{ab}[q + {w}u] = {v}.{'xyzw'[w]};\n" for w in range(4))
                else:
                    for w in range(4):
                        o += f"{ind}  let h{w} = unpack2x16float({v}.{'xyzw'[w]});\n"
                        o += f"{ind}  s{ab}[q + {2 * w}u] = f16(h{w}.x); s{ab}[q + {2 * w + 1}u] = f16(h{w}.y);\n"
                o += f"{ind}}}\n"
        return o

    def products(stage, ind):
        o = f"{ind}for (var kk = 0u; kk < {bk}u; kk += 16u) {{\n"
        for i in range(mi):
            at = f"{stage * sa_n}u + (wr + {16 * i}u) * {pa}u + kk"
            o += f"{ind}    let a{i} = coopLoadT<coop_mat16x16<f16, A>>(&sa[{at}], {pa}u);\n"
        for j in range(ni):
            at = f"{stage * sb_n}u + kk * {pb}u + wc + {16 * j}u"
            o += f"{ind}    let b{j} = coopLoadT<coop_mat16x16<f16, B>>(&sb[{at}], {pb}u);\n"
        for i in range(mi):
            for j in range(ni):
                n = i * ni + j
                o += f"{ind}    c{n} = coopMultiplyAdd(a{i}, b{j}, c{n});\n"
        return o + f"{ind}}}\n"

    def phase(step, stage, ind):
        # Consumers multiply `step` from `stage`; producers store step + 1 into the other stage
        # from set (step + 1) % d, then load step + 1 + d into that set.
        r = 1 % d if stage == 0 else 0
        o = f"{ind}if (consumer) {{\n" + products(stage, ind + "    ") + f"{ind}}} else {{\n"
        o += f"{ind}    if ({step} + 1u < {nk}u) {{\n" + stores(1 - stage, r, ind + "        ") + f"{ind}    }}\n"
        o += f"{ind}    if ({step} + {1 + d}u < {nk}u) {{\n" + loads(f"{step} + {1 + d}u", r, ind + "        ") + f"{ind}    }}\n"
        return o + f"{ind}}}\n{ind}workgroupBarrier();\n"

    # Prologue: step 0 into stage 0, steps 1..d into their register sets.
    s += "    if (!consumer) {\n" + loads("0u", 0, "        ") + stores(0, 0, "        ")
    for t in range(1, d + 1):
        s += loads(f"{t}u", t % d, "        ")
    s += "    }\n    workgroupBarrier();\n"
    s += f"    for (var it = 0u; it < {nk}u; it += 2u) {{\n"
    s += phase("it", 0, "        ") + phase("(it + 1u)", 1, "        ") + "    }\n"
    s += "    if (consumer) {\n"
    for i in range(mi):
        for j in range(ni):
            s += f"        coopStoreT(c{i * ni + j}, &out[(by * {bm}u + wr + {16 * i}u) * {N}u + bx * {bn}u + wc + {16 * j}u], {N}u);\n"
    s += "    }\n"
    return s + "}\n", (N // bm) * gx, threads



def kernel_double(bm=128, bn=128, bk=32, wm=2, wn=2):
    """No roles: every subgroup loads step s + 1 into registers, multiplies step s from its
    stage, stores the registers into the other stage, then one barrier. v3's `double` mode with
    the loop unrolled by two so that stage offsets are constants (v3 indexed them at run time
    and ran at 0.93 ms on the H200)."""
    src, groups, threads = kernel(bm, bn, bk, wm, wn, p=wm * wn, d=1)
    c = wm * wn
    # Every subgroup both stages and multiplies: producer thread ids are the thread ids.
    src = src.replace(f"let consumer = sg < {c}u;", "let consumer = true;")
    src = src.replace(f"let ptid = (sg - {c}u) * 32u + lane;", "let ptid = sg * 32u + lane;")
    src = src.replace(f"@workgroup_size({threads})", f"@workgroup_size({32 * c})")
    # Prologue and phases: run the producer part unconditionally, loads before products.
    src = src.replace("    if (!consumer) {\n", "    {\n", 1)
    out, lines, i = [], src.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        if line.strip() == "if (consumer) {" and "coopLoadT" in lines[i + 2]:
            ind = line[: len(line) - len(line.lstrip())]
            j = next(n for n in range(i + 1, len(lines)) if lines[n] == ind + "} else {")
            k = next(n for n in range(j + 1, len(lines)) if lines[n] == ind + "}")
            products, producer = lines[i + 1 : j], lines[j + 1 : k]
            # producer = [store block..., load block...]: split at the load guard.
            cut = next(n for n, l in enumerate(producer) if l.strip().startswith("if (") and "+ 2u <" in l)
            stores, loads = producer[:cut], producer[cut:]
            loads = [l.replace("+ 2u", "+ 1u") for l in loads]
            out += loads + products + stores
            i = k + 1
            continue
        out.append(line)
        i += 1
    return "\n".join(out), groups, 32 * c

CASES = [
    dict(p=4, d=1, store="unpack"),
    dict(p=4, d=2, store="unpack"),
    dict(p=4, d=2, store="scalar"),
    dict(p=2, d=2, store="unpack"),
    dict(p=2, d=1, store="unpack"),
    dict(p=8, d=1, store="unpack"),
]
# Second round (WS=more): two multiplying subgroups per SM quarter (8 consumers), where one
# (the first round) left the matrix units idle; K steps of 16 keep two stages inside 48 KiB.
if __import__("os").environ.get("WS") == "more":
    CASES = [
        dict(bm=128, bn=128, bk=32, wm=2, wn=4, p=4, d=2),
        dict(bm=128, bn=128, bk=32, wm=4, wn=2, p=4, d=2),
        dict(bm=256, bn=128, bk=16, wm=4, wn=2, p=2, d=2),
        dict(bm=128, bn=256, bk=16, wm=2, wn=4, p=2, d=2),
        dict(bm=256, bn=128, bk=16, wm=4, wn=2, p=4, d=1),
        dict(bm=256, bn=128, bk=16, wm=4, wn=4, p=4, d=1),
    ]


def name(kw):
    tile = f"{kw.get('bm', 128)}x{kw.get('bn', 128)}x{kw.get('bk', 32)}_{kw.get('wm', 2)}x{kw.get('wn', 2)}"
    return f"ws_{tile}_p{kw['p']}_d{kw['d']}_{kw.get('store', 'unpack')}"


if __name__ == "__main__":
    if __import__("os").environ.get("WS") == "double":
        for (bm, bn, bk, wm, wn) in [(128, 128, 32, 2, 2), (128, 128, 32, 2, 4)]:
            src, groups, threads = kernel_double(bm, bn, bk, wm, wn)
            n = f"dbl_{bm}x{bn}x{bk}_{wm}x{wn}"
            open(n + ".wgsl", "w").write(src)
            print(n, groups, threads)
        raise SystemExit
    for kw in CASES:
        src, groups, threads = kernel(**kw)
        open(name(kw) + ".wgsl", "w").write(src)
        print(name(kw), groups, threads)
