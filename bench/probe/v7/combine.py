"""Rewrites a generated one-row-per-threadgroup kernel so each reduction's per-subgroup partials
are combined by the lanes of the first subgroup at once (one read each, then a subgroup
reduction) instead of by one thread reading them in turn. Usage: combine.py IN OUT"""
import re, sys

src = open(sys.argv[1]).read()
pat = re.compile(
    r"for \(var (_o\d+) = tid; \1 < 1u; \1 \+= \d+u\) \{\n"
    r"(\s*)var acc = ([^;]+);\n"
    r"\s*for \(var p = 0u; p < sg_count; p\+\+\) \{\n"
    r"\s*acc = ([^;]+);\n"
    r"\s*\}\n"
    r"\s*(\w+)\[\1\] = acc;\n"
    r"(\s*)\}")


def repl(m):
    o, ind, init, step, dst, end = m.groups()
    part = re.search(r"(s\d+_partials)\[", step).group(1)
    op = "subgroupMax" if step.startswith("max(") else "subgroupAdd"
    return (f"if (sg_id == 0u) {{\n{ind}var acc = {init};\n"
            f"{ind}if (sg_lane < sg_count) {{ acc = {part}[sg_lane]; }}\n"
            f"{ind}acc = {op}(acc);\n{ind}if (sg_lane == 0u) {{ {dst}[0] = acc; }}\n{end}}}")


out, n = pat.subn(repl, src)
assert n > 0, "no combine loop found"
open(sys.argv[2], "w").write(out)
