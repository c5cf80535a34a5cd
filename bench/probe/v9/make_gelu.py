"""gelu (erf form) on 128 Mi f16, from the generated kernel (gelu_emitted.wgsl, written by
`tilecast emit gelu --profile vulkan-nvidia --shape 134217728 --dtype f16`) with its erf
replaced, to find whether gelu (72% of the copy roofline against 96% for add) is bound by
arithmetic: `clamp` (no erf at all: the memory-bound ceiling), `as28` (Abramowitz & Stegun
7.1.28: one reciprocal, no exp). Usage: python3 make_gelu.py (writes gelu_<v>.wgsl)."""
import re

SRC = open("gelu_emitted.wgsl").read()
BODY = re.search(r"fn tc_erf\(x: f32\) -> f32 \{.*?\n\}\n", SRC, re.S).group(0)
VARIANTS = {
    "clamp": "fn tc_erf(x: f32) -> f32 {\n    return clamp(x, -1.0, 1.0);\n}\n",
    "as28": """fn tc_erf(x: f32) -> f32 {
    let a = abs(x);
    let p = ((((((0.0000430638 * a + 0.0002765672) * a + 0.0001520143) * a + 0.0092705272) * a + 0.0422820123) * a + 0.0705230784) * a + 1.0);
    let p2 = p * p; let p4 = p2 * p2; let p8 = p4 * p4;
    let y = 1.0 - 1.0 / (p8 * p8);
    return select(-y, y, x >= 0.0);
}
""",
}
for name, body in VARIANTS.items():
    with open(f"gelu_{name}.wgsl", "w") as f:
        f.write(SRC.replace(BODY, body))
    print(f"gelu_{name}.wgsl")
