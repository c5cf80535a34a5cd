#!/usr/bin/env bash
# Session 26 on the lent GPU: rectangular transpose windows, rows x columns of X (experiment
# build .devbin/tilecast reading TC_TR_R / TC_TR_C / TC_TR_THREADS; 64 x 64 over 256 threads =
# the landed kernel). Stores run along the window's rows count (R), loads along its columns.
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
B=${B:-.devbin/tilecast}
for s in 1x8192x8192 16x4096x1024; do
  for cfg in "64 64 256" "128 64 256" "64 128 256" "128 128 512" "128 128 256" "32 128 256" "128 32 256" "256 32 256" "64 64 256"; do
    set -- $cfg
    printf '%3sx%-3s threads=%-5s ' $1 $2 $3
    TC_TR_R=$1 TC_TR_C=$2 TC_TR_THREADS=$3 $B bench --kernel transpose --shape $s --dtype f16 < /dev/null 2>&1 | grep "^transpose" | cut -c1-110
  done
done
