#!/usr/bin/env bash
# Decode gemms on the device (from the repository root, binaries in .devbin/): subgroups loading
# A and B straight from global memory (make_decode_direct.py) beside the generated K split, for
# C[16, N] = A[16, K] x B[K, N] at N x K = 4096 x 4096, 14336 x 4096 and 4096 x 14336; then tile
# sweeps of the generated kernel for M = 64 and for linear 16x14336x4096.
P=${P:-$PWD/.devbin/wgsl_probe}
T=${T:-$PWD/.devbin/tilecast}
cd "$(dirname "$0")"
python3 make_decode_direct.py > decode_cases.txt
export PROBE_CHECKSUM=1
us() { awk -v b=$1 -v tag="$2" '{ printf "%-11s %s  %.1f us  %.0f GB/s (B)\n", tag, $0, $2*1e3, b/($2*1e-3)/1e9 }'; }
for round in 1 2; do
  for nk in 4096,4096 14336,4096 4096,14336; do
    IFS=, read -r n k <<< "$nk"
    while read -r name g4096 _ _; do
      g=$((n * g4096 / 4096))
      $P $name.wgsl main $g $((16 * k * 2)),$((k * n * 2)),$((16 * n * 4)) $n,$k 20 | us $((k * n * 2)) "16x${n}x${k}"
    done < decode_cases.txt
    $T bench --kernel gemm --shape 16x${n}x${k} --dtype f16 | grep -E "^gemm "
  done
done
unset PROBE_CHECKSUM
echo "# M = 64 tiles (tile threads)"
for cfg in "16x32x128 64" "16x32x256 256" "32x32x256 256" "32x32x128 128" "64x32x128 256" "32x64x128 256" "64x64x64 256" "64x32x64 128"; do
  set -- $cfg
  printf '%-12s %-4s ' $1 $2
  $T bench --kernel gemm --shape 64x4096x4096 --dtype f16 --tile $1 --threads $2 --stages 1 | grep -E "^gemm " || echo "(failed)"
done
echo "# linear 16x14336x4096 tiles (tile threads)"
for cfg in "16x32x128 64" "16x32x128 128" "16x32x256 128" "16x32x64 64" "16x16x256 128" "16x32x128 256"; do
  set -- $cfg
  printf '%-12s %-4s ' $1 $2
  $T bench --kernel linear --shape 16x14336x4096 --dtype f16 --tile $1 --threads $2 --stages 1 | grep -E "^linear " || echo "(failed)"
done
