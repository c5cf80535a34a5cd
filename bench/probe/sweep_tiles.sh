#!/usr/bin/env bash
# Gemm-family f16 cases at their default tiles and at explicit ones (tilecast bench --tile),
# one line each. CASES: "kernel:shape ..."; TILES: "BMxBNxBK:threads ..."; T: the binary.
# The v7/v8 sweep scripts set these and call this.
T=${T:-.devbin/tilecast}
for c in $CASES; do
  IFS=: read -r k s <<< "$c"
  printf '%-28s %-18s ' "$k $s" default; $T bench --kernel $k --shape $s --dtype f16 | tail -1
  for t in $TILES; do
    IFS=: read -r tile threads <<< "$t"
    printf '%-28s %-18s ' "$k $s" "$tile/$threads"
    $T bench --kernel $k --shape $s --dtype f16 --tile $tile --threads $threads --stages 1 2>&1 | tail -1
  done
done
