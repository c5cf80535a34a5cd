#!/usr/bin/env bash
# Session 26 on the lent GPU: transpose window edge and threads (experiment build
# .devbin/tilecast reading TC_TR_T / TC_TR_THREADS; 64 / 256 = the landed kernel).
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
B=${B:-.devbin/tilecast}
for s in 1x8192x8192 16x4096x1024; do
  for cfg in "64 256" "32 256" "32 128" "64 512" "128 1024" "64 256"; do
    set -- $cfg
    printf 'T=%-4s threads=%-5s ' $1 $2
    TC_TR_T=$1 TC_TR_THREADS=$2 $B bench --kernel transpose --shape $s --dtype f16 < /dev/null 2>&1 | grep "^transpose" | cut -c1-110
  done
done
