"""Hand-written f16 gemv variants (y = W x, f32 accumulation) for the lent GPU: does reading W
with 16-byte loads, one subgroup per row and no threadgroup memory close the gap between the
generated gemv (scalar f16 loads, x staged through threadgroup memory, 77% of copy) and torch
(about 100%)? Names: g_v{bytes per load}_u{loads in flight per row}_r{rows per subgroup}_t{threads}.
K and N are immediates, as in generated code; shapes must be multiples of 8 * 32 * u in K and of
rows per threadgroup in N (the probe has no masks). Usage: python3 make_gemv.py (prints names)."""

HEAD = """enable f16;
struct Args {{ n: u32, k: u32 }}
var<immediate> args: Args;
@group(0) @binding(0) var<storage, read> W: array<{vt}>;
@group(0) @binding(1) var<storage, read> X: array<{vt}>;
@group(0) @binding(2) var<storage, read_write> Y: array<f16>;
fn h2(u: u32) -> vec2<f32> {{ return vec2<f32>(bitcast<vec2<f16>>(u)); }}
{dot}
@compute @workgroup_size({t})
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32) {{
    let row0 = (wg.x * {sgs}u + sg) * {r}u;
    let kv = args.k / {per}u;
    var acc: array<f32, {r}>;
{zero}
    for (var c = 0u; c < kv; c += {step}u) {{
        var w: array<{vt}, {ru}>;
{loads}
{fmas}
    }}
{tail}
}}
"""

DOT = {
    16: """fn dot(w: vec4<u32>, x: vec4<u32>) -> f32 {
    let a = h2(w.x) * h2(x.x) + h2(w.y) * h2(x.y) + h2(w.z) * h2(x.z) + h2(w.w) * h2(x.w);
    return a.x + a.y;
}""",
    8: """fn dot(w: vec2<u32>, x: vec2<u32>) -> f32 {
    let a = h2(w.x) * h2(x.x) + h2(w.y) * h2(x.y);
    return a.x + a.y;
}""",
    4: """fn dot(w: u32, x: u32) -> f32 {
    let a = h2(w) * h2(x);
    return a.x + a.y;
}""",
}
VT = {16: "vec4<u32>", 8: "vec2<u32>", 4: "u32"}


def make(bytes_, u, r, t):
    per = bytes_ // 2
    ind = " " * 8
    loads = "\n".join(
        f"{ind}w[{i * u + j}] = W[(row0 + {i}u) * kv + c + {j * 32}u + lane];"
        for i in range(r) for j in range(u))
    fmas = "\n".join(
        f"{ind}{{ let x = X[c + {j * 32}u + lane];\n"
        + "\n".join(f"{ind}  acc[{i}] += dot(w[{i * u + j}], x);" for i in range(r))
        + f"\n{ind}}}"
        for j in range(u))
    zero = "\n".join(f"    acc[{i}] = 0.0;" for i in range(r))
    tail = "\n".join(
        f"    {{ let s = subgroupAdd(acc[{i}]); if (lane == 0u) {{ Y[row0 + {i}u] = f16(s); }} }}"
        for i in range(r))
    return HEAD.format(vt=VT[bytes_], dot=DOT[bytes_], t=t, sgs=t // 32, r=r, per=per,
                       step=32 * u, ru=r * u, zero=zero, loads=loads, fmas=fmas, tail=tail)


CASES = [(16, 4, 1, 256), (16, 8, 1, 256), (16, 16, 1, 256), (16, 4, 2, 256), (16, 8, 2, 256),
         (16, 4, 4, 256), (16, 8, 1, 128), (16, 8, 1, 512), (8, 8, 1, 256), (8, 16, 1, 256),
         (4, 16, 1, 256)]

if __name__ == "__main__":
    for b, u, r, t in CASES:
        name = f"g_v{b}_u{u}_r{r}_t{t}"
        with open(name + ".wgsl", "w") as f:
            f.write(make(b, u, r, t))
        print(name, b // 2 * 32 * u, r * t // 32)
