"""Sessions 23 and 25: which part of the generated gemv's structure costs (generated 42 us at 14336x4096
f16, 68% of copy; session 18's hand-written kernel with a subgroup per row 35 us). Kernels in the
generated kernel's shape: 256 threads, R rows x KC columns of W per step, f32 products, one
reduction at the end (subgroupAdd, then partials through threadgroup memory). Knobs:
  layout  s = each thread owns columns c, c+256, ... (stride 256, scalar f16 loads: generated)
          r = each thread owns runs of 4 columns (one vec4<f16> load per row and run)
          q = runs of 8 columns (one 16-byte vec4<u32> load per row and run, unpacked)
  x       w = the x chunk through threadgroup memory, two barriers per step (generated)
          g = x read from global memory at the column, no barriers in the loop
No masks: N % R == 0 and K % KC == 0. Bindings: W, X, Y. Usage: python3 make_gemv.py."""

HEAD = """enable f16;
struct Args { n: u32, k: u32 }
var<immediate> args: Args;
@group(0) @binding(0) var<storage, read> W: array<f16>;
@group(0) @binding(1) var<storage, read> X: array<f16>;
@group(0) @binding(2) var<storage, read_write> Y: array<f16>;
@group(0) @binding(3) var<storage, read> WV: array<vec4<f16>>;
@group(0) @binding(4) var<storage, read> XV: array<vec4<f16>>;
@group(0) @binding(5) var<storage, read> WQ: array<vec4<u32>>;
@group(0) @binding(6) var<storage, read> XQ: array<vec4<u32>>;
var<workgroup> xs: array<f32, KC>;
var<workgroup> part: array<f32, R8>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) tid: u32, @builtin(workgroup_id) wg: vec3<u32>,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_id) sg: u32,
        @builtin(num_subgroups) nsg: u32) {
    let row0 = wg.x * RU;
    var acc: array<f32, RU>;
    for (var i = 0u; i < RU; i++) { acc[i] = 0.0; }
    for (var k0 = 0u; k0 < args.k; k0 += KCu) {
BODY
    }
    for (var i = 0u; i < RU; i++) {
        let s = subgroupAdd(acc[i]);
        if (lane == 0u) { part[i * 32u + sg] = s; }
    }
    workgroupBarrier();
    if (tid < RU) {
        var t = 0.0;
        for (var j = 0u; j < nsg; j++) { t += part[tid * 32u + j]; }
        Y[row0 + tid] = f16(t);
    }
}
"""


def body(layout, x, r, kc):
    per = kc // 256  # columns per thread per row
    out = []
    # As generated: W's loads first, then the x chunk staged between two barriers.
    stage = []
    if x == "w":
        stage.append("        workgroupBarrier();")
        stage += [f"        xs[tid + {256 * q}u] = f32(X[k0 + tid + {256 * q}u]);" for q in range(per)]
        stage.append("        workgroupBarrier();")
    if layout == "s":
        cols = [(f"tid + {256 * q}u", None) for q in range(per)]
        for i in range(r):
            for q, (c, _) in enumerate(cols):
                out.append(f"        let w{i}_{q} = f32(W[(row0 + {i}u) * args.k + k0 + {c}]);")
        out += stage
        for i in range(r):
            for q, (c, _) in enumerate(cols):
                xv = f"xs[{c}]" if x == "w" else f"f32(X[k0 + {c}])"
                out.append(f"        acc[{i}] += w{i}_{q} * {xv};")
    elif layout == "q":
        runs = per // 8
        for i in range(r):
            for q in range(runs):
                out.append(f"        let w{i}_{q} = WQ[((row0 + {i}u) * args.k + k0 + tid * 8u + {2048 * q}u) / 8u];")
        out += stage
        for q in range(runs):
            if x == "w":
                b = f"tid * 8u + {2048 * q}u"
                out.append(f"        let x{q}a = vec4<f32>(xs[{b}], xs[{b} + 1u], xs[{b} + 2u], xs[{b} + 3u]);")
                out.append(f"        let x{q}b = vec4<f32>(xs[{b} + 4u], xs[{b} + 5u], xs[{b} + 6u], xs[{b} + 7u]);")
            else:
                out.append(f"        let xq{q} = XQ[(k0 + tid * 8u + {2048 * q}u) / 8u];")
                out.append(f"        let x{q}a = vec4<f32>(unpack2x16float(xq{q}.x), unpack2x16float(xq{q}.y));")
                out.append(f"        let x{q}b = vec4<f32>(unpack2x16float(xq{q}.z), unpack2x16float(xq{q}.w));")
        for i in range(r):
            for q in range(runs):
                w = f"w{i}_{q}"
                out.append(f"        acc[{i}] += dot(vec4<f32>(unpack2x16float({w}.x), unpack2x16float({w}.y)), x{q}a)"
                           f" + dot(vec4<f32>(unpack2x16float({w}.z), unpack2x16float({w}.w)), x{q}b);")
    else:
        runs = per // 4
        for i in range(r):
            for q in range(runs):
                out.append(f"        let w{i}_{q} = vec4<f32>(WV[((row0 + {i}u) * args.k + k0 + tid * 4u + {1024 * q}u) / 4u]);")
        out += stage
        for q in range(runs):
            if x == "w":
                out.append(f"        let x{q} = vec4<f32>(xs[tid * 4u + {1024 * q}u], xs[tid * 4u + {1024 * q + 1}u], xs[tid * 4u + {1024 * q + 2}u], xs[tid * 4u + {1024 * q + 3}u]);")
            else:
                out.append(f"        let x{q} = vec4<f32>(XV[(k0 + tid * 4u + {1024 * q}u) / 4u]);")
        for i in range(r):
            for q in range(runs):
                out.append(f"        acc[{i}] += dot(w{i}_{q}, x{q});")
    return "\n".join(out)


CASES = [("s", "w", 4, 1024), ("r", "w", 4, 1024), ("s", "g", 4, 1024), ("r", "g", 4, 1024),
         ("r", "g", 8, 1024), ("r", "g", 4, 2048), ("r", "w", 8, 1024), ("r", "g", 2, 2048),
         # 16-byte loads (8 f16 a thread a row): session 25
         ("q", "g", 4, 2048), ("q", "w", 4, 2048), ("q", "g", 2, 2048), ("q", "g", 8, 2048),
         ("q", "g", 4, 4096), ("q", "g", 2, 4096)]

if __name__ == "__main__":
    for layout, x, r, kc in CASES:
        name = f"gemv_{layout}{x}_r{r}_k{kc}"
        src = HEAD.replace("BODY", body(layout, x, r, kc)).replace("R8", str(r * 32))
        src = src.replace("RU", f"{r}u").replace("KCu", f"{kc}u").replace("KC", str(kc))
        with open(name + ".wgsl", "w") as f:
            f.write(src)
        print(name, r)
