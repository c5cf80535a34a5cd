"""Transpose variants of an f16 8192x8192 matrix (64x64 windows, 256 threads), to find why the
generated transpose moves 31% of copy bandwidth: the width of global loads and stores.

Each variant stages the window in threadgroup memory as u32 words (two f16 each), rows padded
to 33 words. Loads: `u32` (one word per thread-load) or `v4` (vec4<u32>, 8 f16). Stores: `h`
(one f16), `u32` (a pair of rows' elements) or `v4`. No masking: 8192 is a multiple of 64.
Usage: python3 make_transpose.py  (writes tr_<load>_<store>.wgsl; prints the names)."""

N = 8192
CASES = [(l, s) for l in ("u32", "v4") for s in ("h", "u32", "v4")]

HEAD = """enable f16;
@group(0) @binding(0) var<storage, read> X: array<{xt}>;
@group(0) @binding(1) var<storage, read_write> Y: array<{yt}>;
var<workgroup> s: array<u32, 2112>;
fn half_of(r: u32, c: u32) -> u32 {{
    let w = s[r * 33u + c / 2u];
    return select(w & 0xffffu, w >> 16u, (c & 1u) == 1u);
}}
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {{
    let r0 = wg.y * 64u;
    let c0 = wg.x * 64u;
"""

LOAD = {
    # 2048 words: 8 per thread, all issued before any is stored.
    "u32": """    var v: array<u32, 8>;
    for (var k = 0u; k < 8u; k++) {
        let i = t + k * 256u; let r = i / 32u; let w = i % 32u;
        v[k] = X[((r0 + r) * N + c0) / 2u + w];
    }
    for (var k = 0u; k < 8u; k++) {
        let i = t + k * 256u; let r = i / 32u; let w = i % 32u;
        s[r * 33u + w] = v[k];
    }
""",
    # 512 vec4: 2 per thread.
    "v4": """    var v: array<vec4<u32>, 2>;
    for (var k = 0u; k < 2u; k++) {
        let i = t + k * 256u; let r = i / 8u; let q = i % 8u;
        v[k] = X[((r0 + r) * N + c0) / 8u + q];
    }
    for (var k = 0u; k < 2u; k++) {
        let i = t + k * 256u; let r = i / 8u; let q = i % 8u;
        for (var e = 0u; e < 4u; e++) { s[r * 33u + q * 4u + e] = v[k][e]; }
    }
""",
}

STORE = {
    # Y[c0 + c, r0 + r] = X[r0 + r, c0 + c]: 4096 halves, 16 per thread.
    "h": """    for (var k = 0u; k < 16u; k++) {
        let i = t + k * 256u; let c = i / 64u; let r = i % 64u;
        let hv = unpack2x16float(half_of(r, c));
        Y[(c0 + c) * N + r0 + r] = f16(hv.x);
    }
""",
    # 2048 words (rows 2w, 2w+1 of column c): 8 per thread.
    "u32": """    for (var k = 0u; k < 8u; k++) {
        let i = t + k * 256u; let c = i / 32u; let w = i % 32u;
        Y[((c0 + c) * N + r0) / 2u + w] = half_of(2u * w, c) | (half_of(2u * w + 1u, c) << 16u);
    }
""",
    # 512 vec4 (rows 8q .. 8q+7 of column c): 2 per thread.
    "v4": """    for (var k = 0u; k < 2u; k++) {
        let i = t + k * 256u; let c = i / 8u; let q = i % 8u;
        var o: vec4<u32>;
        for (var e = 0u; e < 4u; e++) {
            let r = q * 8u + e * 2u;
            o[e] = half_of(r, c) | (half_of(r + 1u, c) << 16u);
        }
        Y[((c0 + c) * N + r0) / 8u + q] = o;
    }
""",
}

TYPES = {"u32": "u32", "v4": "vec4<u32>", "h": "f16"}

if __name__ == "__main__":
    for l, st in CASES:
        body = HEAD.format(xt=TYPES[l], yt=TYPES[st]) + LOAD[l] + "    workgroupBarrier();\n" + STORE[st] + "}\n"
        name = f"tr_{l}_{st}"
        with open(name + ".wgsl", "w") as f:
            f.write(body.replace("enable f16;\n", f"enable f16;\nconst N: u32 = {N}u;\n", 1))
        print(name)
