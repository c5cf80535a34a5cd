#!/usr/bin/env bash
# Session 20: f16 decode gemms and linears with many 16-row tiles, default tiles against a small grid (tilecast bench --tile).
T=.devbin/tilecast
for c in "gemm 16x14336x4096" "linear 16x14336x4096" "gemm 1x14336x4096" "gemm 16x11008x4096" "gemm 32x14336x4096" "linear 8x4096x4096"; do
  set -- $c
  printf '%-28s %-18s ' "$1 $2" default; $T bench --kernel $1 --shape $2 --dtype f16 | tail -1
  for cfg in "16x64x64 128" "16x32x64 64" "16x64x128 128" "16x128x64 256" "16x64x32 128" "16x128x32 256"; do
    set -- $c $cfg
    printf '%-28s %-18s ' "$1 $2" "$3/$4"; $T bench --kernel $1 --shape $2 --dtype f16 --tile $3 --threads $4 --stages 1 | tail -1
  done
done
