#!/usr/bin/env bash
# Session 27, second round: warp-specialized gemms with two multiplying subgroups per SM
# quarter (WS=more make_gemm_ws.py), and v3's register-prefetch kernel with its threadgroups
# rasterized in groups of G block rows (column-major inside a group, for L2 reuse of B),
# 4096^3 f16 -> f32, two rounds, checksums compared. From the repository root (.devbin set up).
P=${P:-$PWD/.devbin/wgsl_probe}
cd "$(dirname "$0")"
WS=more python3 make_gemm_ws.py > ws_cases2.txt
python3 - <<'PY'
import sys; sys.path.insert(0, '../v3')
from make_gemm_tiles import kernel
src, g, t = kernel(128, 128, 32, 2, 2, 'prefetch')
open('t_prefetch.wgsl', 'w').write(src)
plain = "    let bx = wg.x % 32u;\n    let by = wg.x / 32u;\n"
assert plain in src
for G in (4, 8, 16):
    sw = (f"    let grp = wg.x / {32 * G}u;\n    let rem = wg.x % {32 * G}u;\n"
          f"    let by = grp * {G}u + rem % {G}u;\n    let bx = rem / {G}u;\n")
    open(f't_prefetch_g{G}.wgsl', 'w').write(src.replace(plain, sw))
PY
tf() { awk '{ printf "%s  %.1f TFLOP/s\n", $0, 2*4096^3/($2*1e-3)/1e12 }'; }
export PROBE_CHECKSUM=1
for round in 1 2; do
  for f in t_prefetch t_prefetch_g4 t_prefetch_g8 t_prefetch_g16; do
    $P $f.wgsl main 1024 67108864,33554432,33554432 - 10 | tf
  done
  while read -r name groups threads; do
    PROBE_ROLES=1 $P $name.wgsl main $groups 67108864,33554432,33554432 - 10 2>&1 | tf
  done < ws_cases2.txt
done
