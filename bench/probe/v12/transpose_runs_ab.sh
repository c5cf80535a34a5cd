#!/usr/bin/env bash
# Run in session 27 (bench/results/h100-2026-11-25d-transpose-runs.txt; the last variant landed): transpose through a register fragment whose
# columns are runs of 4, so the save to Y takes vec4 stores, as the hand-written tr_v4_v4 probe
# did (74% of copy on the H200 against 68% for scalar stores, bench/probe/v4). Build with
# `git apply bench/probe/v12/transpose-runs.patch` (knobs TC_TR_FRAG, TC_FORCE_RUNS: runs despite
# the window read down a column, TC_FORCE_PAD: window rows padded by a word; checked on
# lavapipe at 3x101x203, 1x64x128, 2x130x67, 1x1x1), copy to .devbin/tilecast, run there.
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
B=${B:-.devbin/tilecast}
for s in 1x8192x8192 16x4096x1024; do
  for i in 1 2; do
    for v in "A=landed" "TC_TR_FRAG=1" "TC_TR_FRAG=1 TC_FORCE_RUNS=1" "TC_TR_FRAG=1 TC_FORCE_RUNS=1 TC_FORCE_PAD=1"; do
      printf '%-48s ' "$v"
      env $v $B bench --kernel transpose --shape $s --dtype f16 < /dev/null 2>&1 | grep "^transpose" | cut -c1-110
    done
  done
done
