"""Session 23: where gelu's erf time goes (gelu f16 128 Mi ran at 72% of the copy roofline; with
erf replaced by a clamp, 87%). Variants of the generated kernel (gelu_emitted.wgsl, from
`tilecast emit gelu --profile vulkan-nvidia --shape 134217728 --dtype f16`) with tc_erf's body
changed: `rsq` takes t = 1/(1 + p|x|) as inverseSqrt(.)^2 (one fast reciprocal square root
instead of a division), `nodiv` drops the division (wrong values: the division's cost),
`noexp` drops the exp (wrong values: the exp's cost). Usage: python3 make_gelu.py."""
import re

SRC = open("gelu_emitted.wgsl").read()
BODY = re.search(r"fn tc_erf\(x: f32\) -> f32 \{.*?\n\}\n", SRC, re.S).group(0)
POLY = ("(((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t"
        " + 0.254829592) * t")


def erf(t, e):
    return ("fn tc_erf(x: f32) -> f32 {\n"
            f"    let t = {t};\n"
            f"    let y = 1.0 - {POLY} * {e};\n"
            "    return select(-y, y, x >= 0.0);\n}\n")


VARIANTS = {
    "rsq": erf("inverseSqrt(1.0 + 0.3275911 * abs(x)) * inverseSqrt(1.0 + 0.3275911 * abs(x))",
               "exp(-x * x)"),
    "nodiv": erf("0.3275911 * abs(x)", "exp(-x * x)"),
    "noexp": erf("1.0 / (1.0 + 0.3275911 * abs(x))", "(1.0 - x * x)"),
}
for name, body in VARIANTS.items():
    with open(f"gelu_{name}.wgsl", "w") as f:
        f.write(SRC.replace(BODY, body))
    print(f"gelu_{name}.wgsl")
