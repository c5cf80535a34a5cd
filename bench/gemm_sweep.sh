#!/usr/bin/env bash
# Matrix-unit gemm tile sweep on the lent GPU (f16 in, f32 out, 4096^3): tile BMxBNxBK,
# threads, stages. Usage there: bash bench/gemm_sweep.sh (after the .gl/.devbin setup).
T=${T:-.devbin/tilecast}
S=${S:-4096x4096x4096}
for cfg in "128x128x32 256 1" "128x128x32 256 2" "128x128x16 256 1" "128x128x64 256 1" \
           "128x256x32 256 1" "256x128x32 256 1" "64x128x32 128 1" "64x64x32 128 1" \
           "128x128x32 128 1" "256x256x32 256 1"; do
  set -- $cfg
  echo "tile $1 threads $2 stages $3"
  $T bench --kernel gemm --shape $S --dtype f16 --tile $1 --threads $2 --stages $3 2>&1 | tail -1
done
