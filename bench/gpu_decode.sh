#!/usr/bin/env bash
# Decode-shaped gemms (M <= 64) on the lent GPU (session 19: the K split, 64-row tiles).
# Old and new binaries alternate on the default choice, then a sweep of tiles on the new one,
# then each case beside PyTorch (bench/peer_suite.py) in the same run. Every tilecast case is
# checked against the CPU reference. Usage there, after the .gl/.devbin setup:
#   OLD=.devbin/tilecast-old bash bench/gpu_decode.sh
# TALL=1 runs the 17..64-row cases instead, without the sweep.
T=${T:-.devbin/tilecast}
OLD=${OLD:-.devbin/tilecast-old}
OUT=${OUT:-$(mktemp -d)}
CASES_16="gemm:16x4096x4096:f16 gemm:1x4096x4096:f16 gemm:64x4096x4096:f16 gemm:13x4000x4099:f16
  gemm:16x4096x4096:e4m3 linear:16x14336x4096:f16 linear_gelu:16x14336x4096:f16
  linear:1x4096x14336:f16"
CASES_TALL="gemm:17x4096x4096:f16 gemm:32x4096x4096:f16 gemm:48x4096x4096:f16
  gemm:64x4096x4096:f16 gemm:33x4000x4099:f16 gemm:64x4096x4096:e4m3
  linear:64x14336x4096:f16 linear_gelu:32x4096x4096:f16"
if [ -n "${TALL:-}" ]; then CASES=$CASES_TALL; else CASES=$CASES_16; fi
OLD="$OLD" NEW="$T" ROUNDS=2 CASES="$CASES" bash "$(dirname "$0")/gpu_ab.sh"
SWEEP="16x32x128:64 16x32x128:256 16x32x256:256 16x32x256:128 16x64x256:256 16x16x256:256
  16x32x256:512 16x64x128:256 32x32x256:256"
if [ -z "${TALL:-}" ]; then
  echo "# tile sweep, 16x4096x4096 f16 (tile threads)"
  for cfg in $SWEEP; do
    IFS=: read -r tile threads <<< "$cfg"
    printf '%-16s %-4s ' "$tile" "$threads"
    $T bench --kernel gemm --shape 16x4096x4096 --dtype f16 --tile "$tile" --threads "$threads" \
      --stages 1 | grep -E "^gemm " || echo "(failed)"
  done
fi
echo "# beside PyTorch"
for c in $CASES; do
  IFS=: read -r k s d <<< "$c"
  $T bench --kernel $k --shape $s --dtype $d --list > "$OUT/case.json"
  PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/case.json" "$OUT/peer.json" > "$OUT/peer.log"
  grep -h '"error"' "$OUT/peer.log"
  $T bench --kernel $k --shape $s --dtype $d --compare "$OUT/peer.json" 2>&1 | tail -1
done
