"""Interleaved rope on X[8, 2048, 32, 128] f16 (Cos/Sin [2048, 64] f32), one token per
threadgroup of 256 threads, 8 pairs each: does reading a pair as one 32-bit word (instead of
two f16 loads 4 bytes apart) close the gap to the NeoX layout and to copy bandwidth?
Variants: `half` (two f16 loads and stores per pair, as generated) and `word` (one u32 load and
store per pair). Usage: python3 make_rope.py (writes rope_<v>.wgsl; prints the names)."""

CASES = ["half", "word"]

HEAD = """enable f16;
@group(0) @binding(0) var<storage, read> X: array<{t}>;
@group(0) @binding(1) var<storage, read> Cos: array<f32>;
@group(0) @binding(2) var<storage, read> Sin: array<f32>;
@group(0) @binding(3) var<storage, read_write> Y: array<{t}>;
@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) t: u32, @builtin(workgroup_id) wg: vec3<u32>) {{
    let token = wg.x + wg.y * 65535u;
    let pos = token % 2048u;
    let base = token * 2048u;
    var y0: array<f32, 8>;
    var y1: array<f32, 8>;
    for (var k = 0u; k < 8u; k++) {{
        let q = t + k * 256u;
        let i = q % 64u;
        let c = Cos[pos * 64u + i];
        let s = Sin[pos * 64u + i];
{load}
        y0[k] = x0 * c - x1 * s;
        y1[k] = x1 * c + x0 * s;
    }}
    for (var k = 0u; k < 8u; k++) {{
        let q = t + k * 256u;
{store}
    }}
}}
"""

LOAD = {
    "half": "        let x0 = f32(X[(base + q) * 2u]); let x1 = f32(X[(base + q) * 2u + 1u]);",
    "word": "        let w = unpack2x16float(X[base + q]); let x0 = w.x; let x1 = w.y;",
}
STORE = {
    "half": "        Y[(base + q) * 2u] = f16(y0[k]); Y[(base + q) * 2u + 1u] = f16(y1[k]);",
    "word": "        Y[base + q] = pack2x16float(vec2<f32>(y0[k], y1[k]));",
}
TYPE = {"half": "f16", "word": "u32"}

if __name__ == "__main__":
    for v in CASES:
        with open(f"rope_{v}.wgsl", "w") as f:
            f.write(HEAD.format(t=TYPE[v], load=LOAD[v], store=STORE[v]))
        print(f"rope_{v}")
