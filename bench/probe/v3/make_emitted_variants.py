"""Hand edits of an emitted 4096^3 f16 gemm (gemm_emit.wgsl, `tilecast emit gemm --profile
device --shape 4096x4096x4096 --dtype f16`) that separate its costs:
  emit_direct   the epilogue stores each matrix straight to C (no scratch, no masking)
  emit_inside   the staging always takes the unmasked path (its window test removed)
  emit_both     both
Probes only (no bounds checks where edited). Run from this folder."""
import re

SRC = open("gemm_emit.wgsl").read()


def direct(s):
    start = s.rindex("    {\n        let wr")
    body = s[start:]
    wr = re.search(r"let wr = .*;", body).group(0)
    wc = re.search(r"let wc = .*;", body).group(0)
    # The stride as a named value: naga 30's SPIR-V writer panics on `args.n2_N` inline there.
    out = ["    {", "        " + wr, "        " + wc, "        let ldc = args.n2_N;"]
    for m in re.finditer(r"coopStoreT\((f2_acc_m\d+), &s3_acc_matrix_scratch\[base\], 16u\);\n\s*workgroupBarrier\(\);\n\s*for \(var _e\d+ = sg_lane; _e\d+ < 256u; _e\d+ \+= sg_size\) \{\n\s*st_g2_C\(\(by \* (\d+)u\) \+ wr \+ (\d+)u \+ _e\d+ / 16u, \(bx \* (\d+)u\) \+ wc \+ (\d+)u", body):
        v, bm, r, bn, c = m.groups()
        out.append(f"        coopStoreT({v}, &g2_C[((by * {bm}u) + wr + {r}u) * ldc + (bx * {bn}u) + wc + {c}u], ldc);")
    out += ["    }", "}", ""]
    return s[:start] + "\n".join(out)


def inside(s):
    return re.sub(r"if \(\(by \* \d+u\) < args.n0_M && [^{]*\{|if \(\(i4 \* \d+u\) < args.n1_K && [^{]*\{", "if (true) {", s)


open("emit_direct.wgsl", "w").write(direct(SRC))
open("emit_inside.wgsl", "w").write(inside(SRC))
open("emit_both.wgsl", "w").write(direct(inside(SRC)))
