#!/usr/bin/env bash
# bf16 gemms on the lent GPU: the old binary (SIMT, bf16 decoded to f32) and the new one (f16
# matrix units with rows and columns scaled into f16's range) beside bench/peer_suite.py's
# torch.matmul in bf16, one run; f16 4096^3 as the reference point. Usage there, after the
# .gl/.devbin setup: OLD=.devbin/tilecast-old bash bench/gpu_bf16.sh
T=${T:-.devbin/tilecast}
OLD=${OLD:-.devbin/tilecast-old}
OUT=${OUT:-$(mktemp -d)}
for case in "4096x4096x4096 bf16" "4096x4096x4096 f16" "1024x1024x1024 bf16" "4000x4000x4000 bf16" \
            "16x4096x4096 bf16" "1x4096x4096 bf16" "64x4096x4096 bf16" "16x14336x4096 bf16"; do
  set -- $case
  tag="gemm-$1-$2"
  $T bench --kernel gemm --shape $1 --dtype $2 --list > "$OUT/$tag-case.json"
  PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/$tag-case.json" "$OUT/$tag-peer.json" > "$OUT/$tag-peer.log"
  grep -h '"error"' "$OUT/$tag-peer.log"
  for bin in "$OLD" "$T"; do
    printf '%-14s ' "$(basename "$bin")"
    $bin bench --kernel gemm --shape $1 --dtype $2 --compare "$OUT/$tag-peer.json" 2>&1 | tail -1
  done
done
