#!/usr/bin/env bash
# bf16 gemms and linears on the lent GPU: the old binary (SIMT, bf16 decoded to f32) and the
# new one (f16 matrix units with rows and columns scaled into f16's range) beside
# bench/peer_suite.py's torch timing in bf16, one run; f16 4096^3 as the reference point.
# Usage there, after the .gl/.devbin setup: OLD=.devbin/tilecast-old bash bench/gpu_bf16.sh
# (CASES: lines of "kernel shape dtype").
T=${T:-.devbin/tilecast}
OLD=${OLD:-.devbin/tilecast-old}
OUT=${OUT:-$(mktemp -d)}
CASES=${CASES:-"gemm 4096x4096x4096 bf16
gemm 4096x4096x4096 f16
gemm 1024x1024x1024 bf16
gemm 4000x4000x4000 bf16
gemm 16x4096x4096 bf16
gemm 1x4096x4096 bf16
gemm 64x4096x4096 bf16
gemm 16x14336x4096 bf16
linear 4096x4096x4096 bf16
linear 16x14336x4096 bf16
linear 1x4096x14336 bf16
linear_gelu 16x14336x4096 bf16"}
while read -r kernel shape dtype; do
  tag="$kernel-$shape-$dtype"
  $T bench --kernel $kernel --shape $shape --dtype $dtype --list > "$OUT/$tag-case.json" < /dev/null
  PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/$tag-case.json" "$OUT/$tag-peer.json" > "$OUT/$tag-peer.log" < /dev/null
  grep -h '"error"' "$OUT/$tag-peer.log"
  for bin in "$OLD" "$T"; do
    printf '%-14s ' "$(basename "$bin")"
    $bin bench --kernel $kernel --shape $shape --dtype $dtype --compare "$OUT/$tag-peer.json" < /dev/null 2>&1 | tail -1
  done
done <<< "$CASES"
