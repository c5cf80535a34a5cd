#!/usr/bin/env bash
# Session 25 gemm probe on the lent GPU (after the .gl/.devbin setup): the generated f16 gemm
# for 4096^3 (128x128x32 tiles on 16x16 matrices, `tilecast emit gemm --shape
# 4096x4096x4096 --dtype f16 --target wgsl --profile vulkan-nvidia`) as emitted (A) and with
# only the unmasked vector path of its grouped operand loads (D: the scalar fallbacks that
# shaped windows never take removed, as gemv's proofs do), three rounds, then tilecast bench
# for reference. Usage: bash bench/probe/v11/run_gemm.sh
P=${P:-$PWD/.devbin/wgsl_probe}
T=${T:-$PWD/.devbin/tilecast}
cd "$(dirname "$0")"
python3 make_bisect.py GEMM
AB=33554432
for round in 1 2 3; do
  for v in A D; do
    $P gemm_4096_$v.wgsl tc_gemm 32,32 $AB,$AB,67108864,=0,=1 4096,4096,4096 20 2>/dev/null \
      | awk '{ printf "%s  %.1f TFLOP/s\n", $0, 2*4096^3/($2*1e-3)/1e12 }'
  done
done
$T bench --kernel gemm --shape 4096x4096x4096 --dtype f16 < /dev/null 2>&1 | tail -1
