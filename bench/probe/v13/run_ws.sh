#!/usr/bin/env bash
# Session 27: warp-specialized gemm probes (make_gemm_ws.py, loaded with PROBE_ROLES=1 through
# ShaderLibrary::load_subgroup_roles) beside v3's best hand-written kernel (register prefetch,
# 128x128x32, 2x2) and the generated kernel, 4096^3 f16 -> f32, two rounds; then torch.matmul
# and tilecast bench on the same shape. Run from the repository root after the .gl/.devbin setup.
P=${P:-$PWD/.devbin/wgsl_probe}
T=${T:-$PWD/.devbin/tilecast}
ROOT=$PWD
cd "$(dirname "$0")"
python3 make_gemm_ws.py > ws_cases.txt
python3 -c "
import sys; sys.path.insert(0, '../v3')
from make_gemm_tiles import kernel
src, g, t = kernel(128, 128, 32, 2, 2, 'prefetch')
open('t_prefetch.wgsl', 'w').write(src)"
tf() { awk '{ printf "%s  %.1f TFLOP/s\n", $0, 2*4096^3/($2*1e-3)/1e12 }'; }
export PROBE_CHECKSUM=1
for round in 1 2; do
  $P t_prefetch.wgsl main 1024 67108864,33554432,33554432 - 10 | tf
  while read -r name groups threads; do
    PROBE_ROLES=1 $P $name.wgsl main $groups 67108864,33554432,33554432 - 10 2>&1 | tf
  done < ws_cases.txt
done
cd "$ROOT"
python3 bench/peer_gemm.py 4096x4096x4096 f16
$T bench --kernel gemm --shape 4096x4096x4096 --dtype f16 < /dev/null 2>&1 | tail -1
