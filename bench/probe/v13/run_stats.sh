#!/usr/bin/env bash
# Session 27: what NVIDIA's Vulkan compiler made of the gemm variants (registers, spills,
# shared memory; VK_KHR_pipeline_executable_properties through the vk_stats example): the
# generated 4096^3 f16 gemm, v3's hand-written tilings, the warp-specialized probes and v3's
# load microbenchmarks, a few generated memory-bound kernels, and (timed too) make_gemm_ws.py's
# WS=double kernels: one barrier per K step with constant stage offsets. From the repository root
# after the .gl/.devbin setup; prints one line per pipeline executable.
S=${S:-$PWD/.devbin/vk_stats}
T=${T:-$PWD/.devbin/tilecast}
cd "$(dirname "$0")"
mkdir -p stats && cd stats
$T emit gemm --shape 4096x4096x4096 --dtype f16 --target wgsl --profile vulkan-nvidia > gemm_emit_4096.wgsl
$T emit gemm --shape 16x4096x4096 --dtype f16 --target wgsl --profile vulkan-nvidia > gemm_emit_16x4096.wgsl
for k in "softmax 4096x32768" "layer_norm 4096x32768" "argmax 4096x32768" "transpose 1x8192x8192" "gemv 14336x4096"; do
  set -- $k
  $T emit $1 --shape $2 --dtype f16 --target wgsl --profile vulkan-nvidia > $1_$2.wgsl
done
python3 - <<'PY'
import sys; sys.path.insert(0, '../../v3')
from make_gemm_tiles import kernel
for mode in ('plain', 'prefetch', 'double'):
    for (bm, bn, bk, wm, wn) in [(128, 128, 32, 2, 2), (128, 128, 32, 2, 4), (128, 256, 32, 2, 4), (128, 128, 64, 2, 2)]:
        if mode == 'double' and (bn == 256 or bk == 64):
            continue
        src, g, t = kernel(bm, bn, bk, wm, wn, mode)
        open(f't_{mode}_{bm}x{bn}x{bk}_{wm}x{wn}.wgsl', 'w').write(src)
import make_coop_loads as c
for name, a, b, t, d, m in c.CASES:
    if name in ('mma', 'ld_A40_B136', 'ld_A32_B128', 'ld_A40_B136_dyn'):
        open(name + '.wgsl', 'w').write(c.kernel(a, b, t, d, m))
PY
$S *.wgsl 2>&1
cd ..
python3 make_gemm_ws.py > /dev/null; WS=more python3 make_gemm_ws.py > /dev/null
$S --subgroup-roles ws_*.wgsl 2>&1
WS=double python3 make_gemm_ws.py > dbl_cases.txt
$S dbl_*.wgsl 2>&1
# Timing: one barrier per K step with constant stage offsets, beside the prefetch kernel.
P=${P:-$(dirname $S)/wgsl_probe}
python3 -c "
import sys; sys.path.insert(0, '../v3')
from make_gemm_tiles import kernel
open('t_prefetch.wgsl', 'w').write(kernel(128, 128, 32, 2, 2, 'prefetch')[0])"
tf() { awk '{ printf "%s  %.1f TFLOP/s\n", $0, 2*4096^3/($2*1e-3)/1e12 }'; }
for round in 1 2; do
  PROBE_CHECKSUM=1 $P t_prefetch.wgsl main 1024 67108864,33554432,33554432 - 10 | tf
  while read -r name groups threads; do
    PROBE_CHECKSUM=1 $P $name.wgsl main $groups 67108864,33554432,33554432 - 10 2>&1 | tf
  done < dbl_cases.txt
done
