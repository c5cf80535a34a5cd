#!/usr/bin/env bash
# Session 22 probes on the lent GPU (after the .gl/.devbin setup; P = the wgsl_probe binary):
# long-row softmax variants (make_softmax.py) and gelu erf variants (make_gelu.py), with the
# generated softmax through tilecast bench for reference. Usage: bash bench/probe/v9/run.sh
P=${P:-.devbin/wgsl_probe}
T=${T:-.devbin/tilecast}
D=$(dirname "$0")
M=268435456
for rep in 1 2; do
  $T bench --kernel softmax --shape 4096x32768 --dtype f16 < /dev/null 2>&1 | tail -1
  for v in whole raw; do PROBE_CHECKSUM=1 $P $D/sm_$v.wgsl main 4096,1 $M,$M; done
  for g in 132 264 528; do printf 'G=%-4s ' $g; PROBE_CHECKSUM=1 $P $D/sm_pipe.wgsl main $g,1 $M,$M; done
  for v in emitted clamp as28; do $P $D/gelu_$v.wgsl tc_gelu 32768,2 $M,$M,=0,=1 134217728; done
done
