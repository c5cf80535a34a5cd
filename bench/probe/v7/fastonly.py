"""Rewrites a generated kernel so each top-level fast-path test `if (inside) { A } else { B }`
keeps only A (valid only for launches where every window lies inside, as the probe's are): does
the masked fallback's code cost anything when it never runs? Usage: fastonly.py IN OUT"""
import sys

import re

lines = open(sys.argv[1]).read().split("\n")
out, i, n = [], 0, 0
while i < len(lines):
    l = lines[i]
    m = re.match(r"^(\s*)if \(.*\) \{$", l)
    if m and i + 1 < len(lines) and lines[i + 1] == m.group(1) + "    {":
        ind = m.group(1)
        j = i + 1
        while lines[j] != ind + "}":
            j += 1
        if j + 1 < len(lines) and lines[j + 1] == ind + "else {":
            k = j + 2
            while lines[k] != ind + "}":
                k += 1
            out.append(ind + "{")
            out.extend(lines[i + 1:j])
            out.append(ind + "}")
            i, n = k + 1, n + 1
            continue
    out.append(l)
    i += 1
assert n > 0, "no fast-path test found"
open(sys.argv[2], "w").write("\n".join(out))
