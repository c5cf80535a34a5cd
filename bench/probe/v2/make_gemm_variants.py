"""Writes the hand-edited variants of gemm_dev.wgsl (4096^3 f16 -> f32 gemm as emitted for
vulkan-nvidia) that bench/results/h200-2026-11-23-gemm-anatomy.txt and
-gemm-shared-padding.txt time. Run from this folder: python3 make_gemm_variants.py

  gemm_noload    the K loop without staging (coopLoad from shared + products only)
  gemm_loadonly  the staging without products
  gemm_prefetch  the next K tile loaded into registers before the products
  gemm_global    coopLoad straight from global memory, no staging
  gemm_pad8/16/A/B  shared rows padded (A 32 -> 40 or 48 f16, B 128 -> 136 or 144)
  gemm_noload_pad*  gemm_noload on padded rows
  gemm_pad*v        padded rows, staging stores as base + c (adjacent stores visible)

The padding figures were measured on the emitted kernel of before the barrier merge (a barrier
between the A and B loads); the line ranges below are those of the current gemm_dev.wgsl.
Probes only: no bounds checks where the variant changes the loads.
"""
import re

SRC = open("gemm_dev.wgsl").read()
L = SRC.split("\n")
# 0-based slices of the main K loop (checked below against the text they must hold).
LOOP, A_LOADS, A_STORES, B_LOADS, B_STORES, GEMM = 65, (68, 80), (80, 96), (105, 117), (117, 133), (142, 162)
assert L[LOOP].lstrip().startswith("for (var i4")
assert "ldv_g0_A" in L[A_LOADS[0] + 2] and "ldv_g1_B" in L[B_LOADS[0] + 2]
assert "coopLoadT" in L[GEMM[0] + 4]
KEEP = "    if (tid == 100000u) { g2_C[0] = f32(g0_A[0] + g1_B[0] + v_g0_A[0].x + v_g1_B[0].x); }"


def write(name, lines):
    open(name + ".wgsl", "w").write("\n".join(lines))


def cut(r):
    return L[r[0]:r[1]]


# Products only: the loop keeps nothing but the gemm block.
write("gemm_noload", L[:LOOP] + ["    // Probe: the shared tiles are never loaded; times the coopLoad + coopMultiplyAdd loop alone.", KEEP, L[LOOP]]
      + L[GEMM[0]:GEMM[1] + 1] + L[GEMM[1] + 1:])
# Staging only.
write("gemm_loadonly", L[:GEMM[0]] + ["        // Probe: staging only, no matrix work (the accumulators stay zero)."] + L[GEMM[1]:])

# Register prefetch: loads of tile k+1 issued before the products on tile k.
def rename_b(lines):
    out = []
    for l in lines:
        l = re.sub(r"let u(\d)c0 = ", r"let b\1c0 = ", l)
        l = re.sub(r"let u(\d)c1 = ", r"let b\1c1 = ", l)
        l = re.sub(r"\+ u(\d)c0, \(bx", r"+ b\1c0, (bx", l)
        l = re.sub(r"\+ u(\d)c1\)", r"+ b\1c1)", l)
        for i in range(4):
            l = l.replace(f"let v{i} =", f"let w{i} =").replace(f"(v{i}.", f"(w{i}.")
        out.append(l)
    return out


def loads(k, indent):
    body = [f"{indent}{{", f"{indent}    let i4 = {k};"]
    body += [indent[8:] + l for l in cut(A_LOADS) + rename_b(cut(B_LOADS))]
    body += [f"{indent}    pa[0] = v0; pa[1] = v1; pa[2] = v2; pa[3] = v3;",
             f"{indent}    pb[0] = w0; pb[1] = w1; pb[2] = w2; pb[3] = w3;", f"{indent}}}"]
    return body


pre = ["    let nk = (((args.n1_K + 32u) - 1u) / 32u);",
       "    // Keeps bindings 0 and 1 (the scalar views) in the module, as the probe binds them.",
       "    if (tid == 100000u) { g2_C[0] = f32(g0_A[0] + g1_B[0]); }",
       "    var pa: array<vec4<f16>, 4>;", "    var pb: array<vec4<f16>, 4>;"]
pre += loads("0u", "    ")
pre += ["    for (var i4 = 0u; i4 < nk; i4++) {", "        workgroupBarrier();", "        {",
        "            let v0 = pa[0]; let v1 = pa[1]; let v2 = pa[2]; let v3 = pa[3];",
        "            let w0 = pb[0]; let w1 = pb[1]; let w2 = pb[2]; let w3 = pb[3];"]
pre += cut(A_STORES) + rename_b(cut(B_STORES))
pre += ["        }", "        workgroupBarrier();", "        if (i4 + 1u < nk) {"]
pre += loads("i4 + 1u", "            ") + ["        }"] + cut(GEMM) + ["    }"]
write("gemm_prefetch", L[:LOOP] + pre + L[GEMM[1] + 1:])

# coopLoad from global memory.
g = "\n".join(L[:LOOP] + ["    // Probe: A and B matrices loaded by coopLoad straight from global memory (no staging).", KEEP, L[LOOP]] + L[GEMM[0]:GEMM[1] + 1] + L[GEMM[1] + 1:])
g = re.sub(r"coopLoadT<coop_mat16x16<f16, A>>\(&s0_A_shared\[\(wr \+ (\d+)u\) \* 32u \+ _kk3\], 32u\)",
           r"coopLoadT<coop_mat16x16<f16, A>>(&g0_A[((by * 128u) + wr + \1u) * args.n1_K + i4 * 32u + _kk3], args.n1_K)", g)
g = re.sub(r"coopLoadT<coop_mat16x16<f16, B>>\(&s1_B_shared\[_kk3 \* 128u \+ wc \+ (\d+)u\], 128u\)",
           r"coopLoadT<coop_mat16x16<f16, B>>(&g1_B[(i4 * 32u + _kk3) * args.n2_N + (bx * 128u) + wc + \1u], args.n2_N)", g)
open("gemm_global.wgsl", "w").write(g)


# Padded shared rows. `adjacent`: staging stores written as base + c, so the compiler can see
# four adjacent f16 stores (the pA/pB form hides that).
def pad(pa, pb, name, src=None, adjacent=False):
    s = (src or SRC).replace("var<workgroup> s0_A_shared: array<f16, 4096>;", f"var<workgroup> s0_A_shared: array<f16, {128 * (32 + pa)}>;")
    s = s.replace("var<workgroup> s1_B_shared: array<f16, 4096>;", f"var<workgroup> s1_B_shared: array<f16, {32 * (128 + pb)}>;")
    s = s.replace("@compute", f"fn pA(e: u32) -> u32 {{ return (e / 32u) * {32 + pa}u + e % 32u; }}\n"
                  f"fn pB(e: u32) -> u32 {{ return (e / 128u) * {128 + pb}u + e % 128u; }}\n\n@compute", 1)
    if adjacent:
        out = []
        for l in s.split("\n"):
            m = re.match(r"(\s*)s([01])_(A|B)_shared\[\(tid \+ (\d+)u\) \* 4u \+ (\d)u\] = (.*)$", l)
            if m:
                ind, _, ab, off, c, rhs = m.groups()
                base = f"p{ab}{off}"
                if c == "0":
                    out.append(f"{ind}let {base} = p{ab}((tid + {off}u) * 4u);")
                l = f"{ind}s{'0' if ab == 'A' else '1'}_{ab}_shared[{base} + {c}u] = {rhs}"
            out.append(l)
        s = "\n".join(out)
    else:
        s = re.sub(r"s0_A_shared\[\(tid \+ (\d+)u\) \* 4u \+ (\d)u\]", r"s0_A_shared[pA((tid + \1u) * 4u + \2u)]", s)
        s = re.sub(r"s1_B_shared\[\(tid \+ (\d+)u\) \* 4u \+ (\d)u\]", r"s1_B_shared[pB((tid + \1u) * 4u + \2u)]", s)
    s = s.replace("s0_A_shared[_e1]", "s0_A_shared[pA(_e1)]").replace("s1_B_shared[_e2]", "s1_B_shared[pB(_e2)]")
    s = re.sub(r"s0_A_shared\[\(wr \+ (\d+)u\) \* 32u \+ _kk3\], 32u\)", rf"s0_A_shared[(wr + \1u) * {32 + pa}u + _kk3], {32 + pa}u)", s)
    s = re.sub(r"s1_B_shared\[_kk3 \* 128u \+ wc \+ (\d+)u\], 128u\)", rf"s1_B_shared[_kk3 * {128 + pb}u + wc + \1u], {128 + pb}u)", s)
    open(name + ".wgsl", "w").write(s)


for pa, pb, name in [(8, 8, "gemm_pad8"), (8, 0, "gemm_padA"), (0, 8, "gemm_padB"), (16, 16, "gemm_pad16")]:
    pad(pa, pb, name)
# The products-only loop on padded rows: separates the load path from the staging.
pad(8, 8, "gemm_noload_pad8", open("gemm_noload.wgsl").read())


for pa, pb, name in [(8, 8, "gemm_pad8v"), (8, 0, "gemm_padAv"), (0, 8, "gemm_padBv"), (16, 16, "gemm_pad16v")]:
    pad(pa, pb, name, adjacent=True)
for pa, pb, name in [(8, 0, "gemm_noload_padA"), (0, 8, "gemm_noload_padB"), (16, 16, "gemm_noload_pad16")]:
    pad(pa, pb, name, open("gemm_noload.wgsl").read())
