#!/usr/bin/env bash
# Session 19's probes on the device (from the repository root, binaries in .devbin/): 4096^3 f16
# gemms whose staging stores are scalar f16, 8-byte or 16-byte vectors (make_gemm_stores.py),
# beside the generated kernel. PROBE_CHECKSUM compares each variant's output on the same inputs.
P=${P:-$PWD/.devbin/wgsl_probe}
T=${T:-$PWD/.devbin/tilecast}
cd "$(dirname "$0")"
python3 make_gemm_stores.py > gemm_cases.txt
$T emit gemm --shape 4096x4096x4096 --dtype f16 --target wgsl --profile vulkan-nvidia > gemm_emit.wgsl
tf() { awk '{ printf "%s  %.1f TFLOP/s\n", $0, 2*4096^3/($2*1e-3)/1e12 }'; }
export PROBE_CHECKSUM=1
for round in 1 2; do
  # Generated: bindings A, B, C, A as vec4, B as vec4; immediates M, K, N.
  $P gemm_emit.wgsl tc_gemm 32,32 33554432,33554432,67108864,=0,=1 4096,4096,4096 10 | tf
  while read -r name groups threads; do
    $P $name.wgsl main $groups 67108864,33554432,33554432 - 10 | tf
  done < gemm_cases.txt
done
