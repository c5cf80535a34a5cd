"""Hand-written rms_norm variants for 32768-wide f16 rows (one row per threadgroup, the row held
in registers): do 16-byte loads kept packed, and fewer threads per row (so more rows share an
SM and one row's reduction overlaps another's loads), lift the generated kernel (1024 threads,
32 scalar f16 loads each, 64% of copy)? Names: rms_t{threads}_v{bytes per load}.
Usage: python3 make_rows.py (prints names)."""

C = 32768

HEAD = """enable f16;
struct Args {{ r: u32, eps: f32 }}
var<immediate> args: Args;
@group(0) @binding(0) var<storage, read> X: array<{vt}>;
@group(0) @binding(1) var<storage, read> Wt: array<{vt}>;
@group(0) @binding(2) var<storage, read_write> Y: array<{vt}>;
var<workgroup> part: array<f32, 32>;
fn h2(u: u32) -> vec2<f32> {{ return vec2<f32>(bitcast<vec2<f16>>(u)); }}
fn p2(v: vec2<f32>) -> u32 {{ return pack2x16float(v); }}
@compute @workgroup_size({t})
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32,
        @builtin(num_subgroups) nsg: u32) {{
    let base = wg.x * {cv}u;
    var x: array<{vt}, {u}>;
{loads}
    var s = 0.0;
{sq}
    s = subgroupAdd(s);
    if (lane == 0u) {{ part[sg] = s; }}
    workgroupBarrier();
    var tot = 0.0;
    for (var p = 0u; p < nsg; p++) {{ tot += part[p]; }}
    let inv = inverseSqrt(tot / {c}.0 + args.eps);
{stores}
}}
"""

COMPS = {16: ["x", "y", "z", "w"], 8: ["x", "y"], 4: [None]}
VT = {16: "vec4<u32>", 8: "vec2<u32>", 4: "u32"}


def make(t, b):
    per = b // 2
    cv = C // per
    u = cv // t
    comps = COMPS[b]
    sel = lambda v, c: v if c is None else f"{v}.{c}"
    loads = "\n".join(f"    x[{j}] = X[base + {j * t}u + tid];" for j in range(u))
    sq = "\n".join(f"    {{ let v = h2({sel(f'x[{j}]', c)}); s += dot(v, v); }}"
                   for j in range(u) for c in comps)
    st = []
    for j in range(u):
        st.append(f"    {{ let w = Wt[{j * t}u + tid];")
        parts = [f"p2(h2({sel(f'x[{j}]', c)}) * inv * h2({sel('w', c)}))" for c in comps]
        val = parts[0] if b == 4 else f"{VT[b]}({', '.join(parts)})"
        st.append(f"      Y[base + {j * t}u + tid] = {val}; }}")
    return HEAD.format(vt=VT[b], t=t, cv=cv, u=u, loads=loads, sq=sq, c=C, stores="\n".join(st))


CASES = [(1024, 16), (512, 16), (256, 16), (1024, 8), (512, 8), (1024, 4)]

if __name__ == "__main__":
    for t, b in CASES:
        name = f"rms_t{t}_v{b}"
        with open(name + ".wgsl", "w") as f:
            f.write(make(t, b))
        print(name)
