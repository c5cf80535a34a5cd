#!/usr/bin/env bash
# Probe variants of generated kernels on the lent GPU (see crates/tilecast-runtime/examples/wgsl_probe.rs).
P=${P:-.devbin/wgsl_probe}
cd "$(dirname "$0")"
M=268435456
$P copy_u4.wgsl main 32768,2 $M,$M
$P load_u4.wgsl main 32768,1 $M,131072
$P load_f16x4.wgsl main 32768,1 $M,131072
$P load_f16x4_shared.wgsl main 32768,1 $M,131072
$P sum.wgsl tc_sum 32768,1 $M,131072,$M 32768
$P sum_noreduce.wgsl tc_sum 32768,1 $M,131072,$M 32768
$P sum_simpleidx.wgsl tc_sum 32768,1 $M,131072,$M 32768
$P softmax.wgsl tc_softmax 32768,1 $M,$M,$M 32768
$P add.wgsl tc_add 32768,2 $M,$M,$M 134217728
$P add_simpleidx.wgsl tc_add 32768,2 $M,$M,$M 134217728
$P sum.wgsl tc_sum 32768,1 $M,131072,=0 32768
$P softmax.wgsl tc_softmax 32768,1 $M,$M,=0 32768
