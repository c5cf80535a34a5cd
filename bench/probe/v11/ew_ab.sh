#!/usr/bin/env bash
# Session 25 on the lent GPU (after the .gl/.devbin setup): the flat kernels at 16 elements per
# thread (.devbin/tilecast-new) against the landed 8 (.devbin/tilecast), alternating, one case
# each at 128 Mi elements (each case is also checked against the CPU, which takes most of
# the wall time). Usage: bash bench/probe/v11/ew_ab.sh
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
for k in gelu silu gelu_tanh add mul swiglu cast_f16 cast_f32; do
  d=f16; case $k in cast_*) d=f32;; esac
  for b in tilecast tilecast-new; do
    printf '%-13s ' $b; .devbin/$b bench --kernel $k --shape 134217728 --dtype $d < /dev/null 2>&1 | grep "^$k"
  done
done
