"""Builds the 4096^3 f16 -> f32 matrix-unit gemm up from its products, one piece at a time, to
find which piece costs the time: each kernel has the emitted gemm's structure (128x128 tile,
8 subgroups of 4x2 16x16 matrices) with some parts left out or changed.
Run from this folder: python3 make_gemm_steps.py

  st_loop    loads + products, K offset unknown to the compiler (no staging, no barriers)
  st_bar     + the two barriers per K tile (shared memory never written)
  st_syn     + shared stores of synthetic values (no global loads)
  st_glob    + global loads: the whole gemm (no bounds checks)
  st_stage   global loads and shared stores only, no matrix work
Suffixes: _u unpadded rows (A 32, B 128 f16; else A 40, B 136); _w 16-byte global loads;
_kl the K tile's 16-steps as a loop (as emitted) instead of unrolled; _chk global loads
bounds-checked as emitted; _k64 K tile 64.
Bindings: out (f32 4096^2), A, B (f16 4096^2 as vec4<f16> or vec4<u32>). Grid 1024.
"""


def kernel(step, pad=8, wide=False, kl=False, chk=False, bk=32):
    pa, pb = bk + pad, 128 + pad
    vt = "vec4<u32>" if wide else "vec4<f16>"
    per = 8 if wide else 4  # f16 per global load
    s = f"""enable f16;
enable wgpu_cooperative_matrix;
struct Args {{ step: u32, n: u32, }}
var<immediate> args: Args;
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> ga: array<{vt}>;
@group(0) @binding(2) var<storage, read> gb: array<{vt}>;
var<workgroup> sa: array<f16, {128 * pa}>;
var<workgroup> sb: array<f16, {bk * pb}>;
fn lda(r: u32, c: u32) -> {vt} {{
    if (r < args.n && c < args.n) {{ return ga[(r * args.n + c) / {per}u]; }}
    return {vt}(0);
}}
fn ldb(r: u32, c: u32) -> {vt} {{
    if (r < args.n && c < args.n) {{ return gb[(r * args.n + c) / {per}u]; }}
    return {vt}(0);
}}
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_id) sg: u32) {{
    let bx = wg.x % 32u;
    let by = wg.x / 32u;
    let wr = (sg / 4u) * 64u;
    let wc = (sg % 4u) * 32u;
    // Keeps every binding and the immediates in the module (never true).
    if (tid == 100000u) {{ out[0] = f32(args.step + args.n) + f32(ga[0].x) + f32(gb[0].x); }}
"""
    s += "".join(f"    var c{i}: coop_mat16x16<f32, C>;\n" for i in range(8))
    s += f"    for (var it = 0u; it < {4096 // bk}u; it++) {{\n"
    if step != "loop":
        s += "        workgroupBarrier();\n"
        n = 128 * bk // per // 256  # loads per thread per operand
        for ab, cols, pitch in (("a", bk, pa), ("b", 128, pb)):
            for k in range(n):
                e = f"(tid + {256 * k}u) * {per}u"
                s += f"        let {ab}r{k} = ({e}) / {cols}u;\n        let {ab}c{k} = ({e}) % {cols}u;\n"
                if step == "syn":
                    s += f"        let {ab}v{k} = {vt}({'u32' if wide else 'f16'}(it + tid));\n"
                else:
                    r, c = (f"by * 128u + ar{k}", f"it * {bk}u + ac{k}") if ab == "a" else (f"it * {bk}u + br{k}", f"bx * 128u + bc{k}")
                    if chk:
                        s += f"        let {ab}v{k} = ld{ab}({r}, {c});\n"
                    else:
                        s += f"        let {ab}v{k} = g{ab}[(({r}) * 4096u + {c}) / {per}u];\n"
            for k in range(n):
                base = f"{ab}r{k} * {pitch}u + {ab}c{k}"
                if wide:
                    for w in range(4):
                        s += f"        let {ab}h{k}{w} = unpack2x16float({ab}v{k}.{'xyzw'[w]});\n"
                        s += f"        s{ab}[{base} + {2 * w}u] = f16({ab}h{k}{w}.x);\n        s{ab}[{base} + {2 * w + 1}u] = f16({ab}h{k}{w}.y);\n"
                else:
                    for w in range(4):
                        s += f"        s{ab}[{base} + {w}u] = {ab}v{k}.{'xyzw'[w]};\n"
        s += "        workgroupBarrier();\n"
    if step != "stage":
        if step == "loop":
            kks = [f"((it * args.step) % {bk}u)"]
        elif kl:
            kks = ["kk"]
            s += f"        for (var kk = 0u; kk < {bk}u; kk += 16u) {{\n"
        else:
            kks = [f"{k}u" for k in range(0, bk, 16)]
        for kk in kks:
            s += "        {\n"
            for j in range(4):
                s += f"            let a{j} = coopLoadT<coop_mat16x16<f16, A>>(&sa[(wr + {16 * j}u) * {pa}u + {kk}], {pa}u);\n"
            for j in range(2):
                s += f"            let b{j} = coopLoadT<coop_mat16x16<f16, B>>(&sb[{kk} * {pb}u + wc + {16 * j}u], {pb}u);\n"
            for i in range(8):
                s += f"            c{i} = coopMultiplyAdd(a{i // 2}, b{i % 2}, c{i});\n"
            s += "        }\n"
        if kl and step != "loop":
            s += "        }\n"
        if step == "loop":  # the same products per K tile as the others
            s = s.replace(f"it < {4096 // bk}u; it++", f"it < {4096 // 16}u; it++")
    s += "    }\n"
    for i in range(8):
        r, c = (i // 2) * 16, (i % 2) * 16
        s += f"    coopStoreT(c{i}, &out[(by * 128u + wr + {r}u) * 4096u + bx * 128u + wc + {c}u], 4096u);\n"
    return s + "}\n"


CASES = [
    ("st_loop", dict(step="loop")),
    ("st_bar", dict(step="bar")),
    ("st_syn", dict(step="syn")),
    ("st_glob", dict(step="glob")),
    ("st_stage", dict(step="stage")),
    ("st_glob_u", dict(step="glob", pad=0)),
    ("st_glob_w", dict(step="glob", wide=True)),
    ("st_glob_kl", dict(step="glob", kl=True)),
    ("st_glob_chk", dict(step="glob", chk=True)),
    ("st_glob_chk_kl", dict(step="glob", chk=True, kl=True)),
    ("st_glob_k64", dict(step="glob", bk=64)),
    ("st_glob_k64_w", dict(step="glob", bk=64, wide=True)),
    ("st_glob_p16", dict(step="glob", pad=16)),
    ("st_glob_k16", dict(step="glob", bk=16)),
]

if __name__ == "__main__":
    for name, kw in CASES:
        open(name + ".wgsl", "w").write(kernel(**kw))
        print(name)
