"""Session 25 gemv bisect: the generated gemv built for the problem (rows 2, K steps of 2048, x
from global memory read once per run; tilecast-knobs with TC_GEMV_ROWS=2 TC_GEMV_KC=2048
TC_GEMV_XG=1) against hand edits of it, to find what separates it from v10's hand-written
gemv_rg_r2_k2048 (34.2 us against 40.5 at 14336x4096 f16 on the H200). Variants:
  A  as emitted
  B  A without the unused threadgroup x array
  C  B with x's vector reads unmasked
  D  C with only the unmasked vector path for W's loads (no fallback branches)
  E  D with the products accumulated per row as dot(vec4, vec4) (one running sum per row)
Also GEMM: the same cut (only the unmasked vector path of the grouped operand loads) on
gemm_4096_A.wgsl, written as gemm_4096_D.wgsl (run_gemm.sh).
Usage: python3 make_bisect.py GEN.wgsl PREFIX | python3 make_bisect.py GEMM"""
import re
import sys



def unmasked_only(text):
    """The first `if (... % 4u == 0u ...) { A } else { B }` at 8 spaces (the vector path's
    test) replaced by A's body."""
    lines = text.split("\n")
    i = next(n for n, l in enumerate(lines) if l.startswith("        if (") and "% 4u == 0u" in l)
    j = next(n for n in range(i + 1, len(lines)) if lines[n] == "        }")
    assert lines[j + 1] == "        else {"
    k = next(n for n in range(j + 2, len(lines)) if lines[n] == "        }")
    return "\n".join(lines[:i] + [l[4:] for l in lines[i + 1:j]] + lines[k + 1:])


if sys.argv[1] == "GEMM":
    with open("gemm_4096_D.wgsl", "w") as f:
        f.write(unmasked_only(open("gemm_4096_A.wgsl").read()))
    sys.exit(0)
src = open(sys.argv[1]).read()
pre = sys.argv[2]
out = {"A": src}
b = re.sub(r"var<workgroup> s2_x: array<f32, \d+>;\n", "", src)
out["B"] = b
c = b.replace("ldv_g1_X(((", "ldvu_g1_X(((")
out["C"] = c
out["D"] = unmasked_only(c)
# E: per row, dot products of the run's four weights with x's vector
e = out["D"]
e = re.sub(r"f1_prod\[(\d+)u\] = \(f1_prod\[\d+u\] \+ \(f0_w\[\d+u\] \* f32\((_rv\d+)\.(x)\)\)\);",
           lambda m: f"f1_prod[{m.group(1)}u] = f1_prod[{m.group(1)}u] + dot(vec4<f32>(f0_w[{m.group(1)}u], f0_w[{int(m.group(1))+1}u], f0_w[{int(m.group(1))+2}u], f0_w[{int(m.group(1))+3}u]), vec4<f32>({m.group(2)}));", e)
e = re.sub(r"f1_prod\[\d+u\] = \(f1_prod\[\d+u\] \+ \(f0_w\[\d+u\] \* f32\(_rv\d+\.[yzw]\)\)\);", "", e)
out["E"] = e
for name, text in out.items():
    with open(f"{pre}_{name}.wgsl", "w") as f:
        f.write(text)
    print(f"{pre}_{name}")
