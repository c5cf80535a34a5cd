#!/usr/bin/env bash
# Session 21: f16 gemms of 300..2048 rows (prefill), where 128x128 tiles make 256 or more
# threadgroups (the default) against 64-row tiles over 8 subgroups (tilecast bench --tile).
T=${T:-.devbin/tilecast}
CASES=${CASES:-"gemm:300x11008x4096 gemm:1024x4096x4096 gemm:1536x4096x4096 gemm:2048x4096x4096 linear:512x14336x4096 linear:1024x14336x4096 gemm:4096x4096x4096"}
TILES=${TILES:-"64x128x32:256 128x64x32:256 64x64x64:128"}
for c in $CASES; do
  IFS=: read -r k s <<< "$c"
  printf '%-28s %-18s ' "$k $s" default; $T bench --kernel $k --shape $s --dtype f16 | tail -1
  for t in $TILES; do
    IFS=: read -r tile threads <<< "$t"
    printf '%-28s %-18s ' "$k $s" "$tile/$threads"
    $T bench --kernel $k --shape $s --dtype f16 --tile $tile --threads $threads --stages 1 2>&1 | tail -1
  done
done
