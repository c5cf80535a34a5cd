#!/usr/bin/env bash
# Old against new binaries, one run, no peer: BINS (paths) x CASES (lines of "kernel shape
# dtype"). Usage on the lent GPU after the .gl/.devbin setup:
#   BINS=".devbin/tilecast-old .devbin/tilecast" CASES="gemm 4096x4096x4096 bf16" bash bench/probe/v8/ab.sh
BINS=${BINS:-".devbin/tilecast-old .devbin/tilecast"}
while read -r kernel shape dtype; do
  [ -z "$kernel" ] && continue
  for bin in $BINS; do
    printf '%-14s ' "$(basename "$bin")"
    $bin bench --kernel $kernel --shape $shape --dtype $dtype < /dev/null 2>&1 | tail -1
  done
done <<< "$CASES"
