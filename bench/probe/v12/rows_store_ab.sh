#!/usr/bin/env bash
# Session 26 on the lent GPU: row kernels holding the row in registers in the input type (f16)
# instead of f32 (experiment build .devbin/tilecast-p1 reading TC_PROBE_ROWS_STORE /
# TC_PROBE_RECOMPUTE / TC_PROBE_ARGMAX_F16; unset = the landed kernels). 4096x32768 f16 rows
# are held by 1024 threads: with 32 f32 registers of data per thread, two such threadgroups
# cannot share an SM (64K registers / 2048 threads = 32 each).
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
B=${B:-.devbin/tilecast-p1}
one() { printf '%-40s ' "$1"; shift; env "$@" < /dev/null 2>&1 | grep -E "^[a-z_]+ +[0-9]" | cut -c1-110; }
for s in 4096x32768 32768x4096; do
  for k in softmax rms_norm layer_norm layer_norm_nobias add_rms_norm; do
    one "base" $B bench --kernel $k --shape $s --dtype f16
    one "store" TC_PROBE_ROWS_STORE=1 $B bench --kernel $k --shape $s --dtype f16
    [ $k = softmax ] && one "store+recompute" TC_PROBE_ROWS_STORE=1 TC_PROBE_RECOMPUTE=1 $B bench --kernel $k --shape $s --dtype f16
  done
done
for i in 1 2; do
  one "argmax base" $B bench --kernel argmax --shape 4096x32768 --dtype f16
  one "argmax f16 best" TC_PROBE_ARGMAX_F16=1 $B bench --kernel argmax --shape 4096x32768 --dtype f16
done
