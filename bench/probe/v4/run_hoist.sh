#!/usr/bin/env bash
# Generated kernels beside copies with their repeated index arithmetic hoisted, and with the
# input's bounds test removed (make_hoisted.py), timed in one run (from the repository root).
P=${P:-$PWD/.devbin/wgsl_probe}
T=${T:-$PWD/.devbin/tilecast}
cd "$(dirname "$0")"
E="--target wgsl --profile vulkan-nvidia"
$T emit rope --shape 8x2048x32x128 --dtype f16 $E > rope_e.wgsl
$T emit rope_neox --shape 8x2048x32x128 --dtype f16 $E > neox_e.wgsl
$T emit rms_norm --shape 4096x32768 --dtype f16 $E > rms_e.wgsl
$T emit softmax --shape 4096x32768 --dtype f16 $E > smax_e.wgsl
python3 make_hoisted.py rope_e.wgsl rope args.n1_S > /dev/null
python3 make_hoisted.py neox_e.wgsl neox args.n1_S > /dev/null
python3 make_hoisted.py rms_e.wgsl rms > /dev/null
python3 make_hoisted.py smax_e.wgsl smax > /dev/null
MB=134217728
gbs() { awk -v b=$1 '{ printf "%s  %.0f GB/s\n", $0, b/($2*1e-3)/1e9 }'; }
for round in 1 2; do
  for v in e hoist nocheck; do
    $P rope_$v.wgsl tc_rope 16384,1 $MB,524288,524288,$MB 8,2048,2048,0 50 | gbs $((2*MB))
  done
  for v in e hoist nocheck; do
    $P neox_$v.wgsl tc_rope_neox 16384,1 $MB,524288,524288,$MB 8,2048,2048,0 50 | gbs $((2*MB))
  done
  for v in e hoist nocheck; do
    $P rms_$v.wgsl tc_rms_norm 4096,1 $((2*MB)),65536,$((2*MB)) 4096,0.00001 50 | gbs $((4*MB))
  done
  for v in e hoist nocheck; do
    $P smax_$v.wgsl tc_softmax 4096,1 $((2*MB)),$((2*MB)) 4096 50 | gbs $((4*MB))
  done
done
