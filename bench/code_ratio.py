"""One line per case of two `tilecast bench --json` runs of the same cases, the first through
WGSL and the second through other code (TILECAST_BACKEND_CODE=spirv, the native back end, or
naga-spirv, naga's SPIR-V of the WGSL passed through as native modules are): both medians, the
code each really ran as, and WGSL's median over the other's (above 1: the other is faster).

Usage: python3 bench/code_ratio.py WGSL.json OTHER.json
"""
import json
import sys


def rows(path):
    with open(path) as f:
        data = json.load(f)
    return data["rows"] if isinstance(data, dict) else data


def main(wgsl_path, spirv_path):
    wgsl = {(r["kernel"], r["shape"], r["dtype"]): r for r in rows(wgsl_path)}
    for r in rows(spirv_path):
        key = (r["kernel"], r["shape"], r["dtype"])
        w = wgsl.get(key)
        if w is None or r.get("error") or w.get("error"):
            why = (r.get("error") or (w or {}).get("error") or "no WGSL row")
            print(f"code {key[0]:<22} {key[1]:<28} {key[2]:<6} {why}")
            continue
        ratio = w["median_ms"] / r["median_ms"]
        checks = "ok" if r["ok"] and w["ok"] else "CHECK FAILED"
        print(
            f"code {key[0]:<22} {key[1]:<28} {key[2]:<6} wgsl {w['median_ms'] * 1e3:10.1f} us "
            f"[{w.get('code', '?')}]  other {r['median_ms'] * 1e3:10.1f} us [{r.get('code', '?')}]"
            f"  wgsl/other {ratio:5.2f}  {checks}"
        )


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: code_ratio.py WGSL.json OTHER.json")
    main(sys.argv[1], sys.argv[2])
