#!/usr/bin/env bash
# Session 25 on the lent GPU (after the .gl/.devbin setup): elements per threadgroup of the flat
# (elementwise) kernels, from an experiment build whose `flat` reads TC_EW_BLOCK
# (.devbin/tilecast-ew, not landed; 2048 = the landed 8 per thread), two rounds.
# Usage: bash bench/probe/v11/ew_blocks.sh
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
for round in 1 2; do
  for k in gelu silu gelu_tanh add swiglu cast_f16; do
    d=f16; [ $k = cast_f16 ] && d=f32
    for b in 2048 4096 8192 1024; do
      printf '%-6s ' $b; TC_EW_BLOCK=$b .devbin/tilecast-ew bench --kernel $k --shape 134217728 --dtype $d < /dev/null 2>&1 | grep "^$k"
    done
  done
done
