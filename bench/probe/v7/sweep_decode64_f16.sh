#!/usr/bin/env bash
# Session 20: f16 decode gemms of 33..64 rows (64-row tiles by default), default tiles against
# a small grid (tilecast bench --tile).
T=.devbin/tilecast
for c in "gemm 64x14336x4096" "gemm 64x4096x4096" "linear 64x14336x4096" "gemm 48x11008x4096" "gemm 33x4000x4099"; do
  set -- $c
  printf '%-28s %-18s ' "$1 $2" default; $T bench --kernel $1 --shape $2 --dtype f16 | tail -1
  for cfg in "64x64x64 256" "64x64x32 256" "32x64x64 128" "32x32x64 64" "64x32x64 256" "16x64x64 128"; do
    set -- $c $cfg
    printf '%-28s %-18s ' "$1 $2" "$3/$4"; $T bench --kernel $1 --shape $2 --dtype f16 --tile $3 --threads $4 --stages 1 | tail -1
  done
done
