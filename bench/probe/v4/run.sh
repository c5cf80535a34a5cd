#!/usr/bin/env bash
# Session 17's probes on the device (from the repository root, binaries in .devbin/):
# transpose load/store widths (make_transpose.py) beside the generated transpose, and rope's
# pair loads (make_rope.py) beside the generated rope. Times are medians per launch.
P=${P:-$PWD/.devbin/wgsl_probe}
T=${T:-$PWD/.devbin/tilecast}
cd "$(dirname "$0")"
python3 make_transpose.py > /dev/null
python3 make_rope.py > /dev/null
$T emit transpose --shape 1x8192x8192 --dtype f16 --target wgsl > tr_emitted.wgsl
$T emit rope --shape 8x2048x32x128 --dtype f16 --target wgsl > rope_emitted.wgsl
MB=134217728
gbs() { awk -v b=$1 '{ printf "%s  %.0f GB/s\n", $0, b/($2*1e-3)/1e9 }'; }
for round in 1 2; do
  $P tr_emitted.wgsl tc_transpose 128,128 $MB,$MB 1,8192,8192 50 | gbs $((2*MB))
  for f in tr_u32_h tr_u32_u32 tr_u32_v4 tr_v4_h tr_v4_u32 tr_v4_v4; do
    $P $f.wgsl main 128,128 $MB,$MB - 50 | gbs $((2*MB))
  done
  $P rope_emitted.wgsl tc_rope 16384,1 $MB,524288,524288,$MB 8,2048,2048,0 50 | gbs $((2*MB))
  for f in rope_half rope_word; do
    $P $f.wgsl main 16384,1 $MB,524288,524288,$MB - 50 | gbs $((2*MB))
  done
done
