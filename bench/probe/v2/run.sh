#!/usr/bin/env bash
# Hand-written register-resident, vectorized variants beside the emitted kernels (random data).
P=${P:-.devbin/wgsl_probe}; D=${D:-.}
M=${M:-268435456}
cd "$(dirname "$0")"
$P ../copy_u4.wgsl main 32768,2 $M,$M
$P $D/add_dev.wgsl tc_add 32768,2 $M,$M,$M 134217728
$P add_u4.wgsl main 32768,2 $M,$M,$M
$P add_h4.wgsl main 32768,1 $M,$M,$M
$P $D/softmax_dev.wgsl tc_softmax 32768,1 $M,$M,=0 32768
$P softmax_wg.wgsl main 32768,1 $M,$M
$P softmax_wg_h4.wgsl main 32768,1 $M,$M
$P softmax_sg.wgsl main 4096,1 $M,$M
$P $D/rms_dev.wgsl tc_rms_norm 32768,1 $M,8192,$M,=0 32768,0.00001
$P rms_wg.wgsl main 32768,1 $M,8192,$M
$P $D/sum_dev.wgsl tc_sum 32768,1 $M,131072,=0 32768
$P sum_wg.wgsl main 32768,1 $M,131072
# gemm 4096^3 f16 -> f32 (emitted for vulkan-nvidia) and its hand-edited variants.
python3 make_gemm_variants.py
G=33554432; C=67108864
for f in gemm_dev gemm_noload gemm_loadonly gemm_prefetch gemm_global gemm_pad8 gemm_padA gemm_padB gemm_pad16; do
  $P $f.wgsl tc_gemm 32,32 $G,$G,$C,=0,=1 4096,4096,4096 10
done
