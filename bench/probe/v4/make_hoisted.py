"""Does the generated code's repeated index arithmetic cost bandwidth? Takes a kernel emitted
by `tilecast emit ... --target wgsl` (argument 1) and writes variants (prefix argument 2):
  _hoist:   the flat threadgroup index `(by * ...) + bx`, spelled out in every access, is
            computed once at the top (`let fb = ...;`), and so are its quotient and remainder
            by the runtime symbol given as argument 3 (e.g. `args.n1_S`), if any;
  _nocheck: _hoist with the first parameter's loads unmasked (its accessor's bounds test
            removed).
Prints the names."""
import re
import sys


def matching(s, i):
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "(":
            depth += 1
        elif s[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("unbalanced")


def hoist(src, sym):
    i = src.index("(by * ")
    j = matching(src, i)
    fb = src[i : j + 1] + " + bx"
    assert src[j + 1 : j + 6] == " + bx", src[j + 1 : j + 6]
    out = src.replace(fb, "fb")
    lets = [f"    let fb = {fb};"]
    if sym:
        for op, name in (("/", "fq"), ("%", "fr")):
            for pat in (f"((fb) / 1u) {op} {sym}", f"(fb) {op} {sym}"):
                if pat in out:
                    out = out.replace(pat, name)
                    lets.append(f"    let {name} = {pat};")
                    break
    anchor = "    let bz = wg.z;\n"
    return out.replace(anchor, anchor + "\n".join(lets) + "\n", 1)


def nocheck(src):
    m = re.search(r"fn (ld_g0_\w+)\(([^)]*)\) -> (\w+) \{\n    if \(([^)]*(?:\([^)]*\))*[^)]*)\) \{ return ([^;]+); \}", src)
    assert m, "no accessor for parameter 0"
    name, args, ty, _, body = m.groups()
    new = f"fn {name}({args}) -> {ty} {{\n    return {body};\n}}\nfn {name}_checked_unused() -> {ty} {{"
    return src[: m.start()] + new + src[m.end() :]


if __name__ == "__main__":
    src = open(sys.argv[1]).read()
    prefix = sys.argv[2]
    sym = sys.argv[3] if len(sys.argv) > 3 else ""
    h = hoist(src, sym)
    open(prefix + "_hoist.wgsl", "w").write(h)
    open(prefix + "_nocheck.wgsl", "w").write(nocheck(h))
    print(prefix + "_hoist", prefix + "_nocheck")
