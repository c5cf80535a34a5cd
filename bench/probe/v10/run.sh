#!/usr/bin/env bash
# Session 23 probes on the lent GPU (after the .gl/.devbin setup; P = the wgsl_probe binary):
# gelu erf variants (make_gelu.py) beside the generated kernel and the no-erf ceiling (v9's
# clamp), then tilecast bench's gelu for reference. Usage: bash bench/probe/v10/run.sh
P=${P:-.devbin/wgsl_probe}
T=${T:-.devbin/tilecast}
D=$(dirname "$0")
M=268435456
for rep in 1 2; do
  $T bench --kernel gelu --shape 134217728 --dtype f16 < /dev/null 2>&1 | tail -1
  for v in emitted rsq nodiv noexp; do $P $D/gelu_$v.wgsl tc_gelu 32768,2 $M,$M,=0,=1 134217728; done
  $P $D/../v9/gelu_clamp.wgsl tc_gelu 32768,2 $M,$M,=0,=1 134217728
done
