#!/usr/bin/env bash
# Issue 10's gemm table on the lent GPU: each (shape, dtype) as one tilecast case beside
# bench/peer_suite.py's PyTorch timing of the same case (torch.matmul; torch._scaled_mm for
# fp8 where it exists), in one run. Usage there, after the .gl/.devbin setup:
#   bash bench/gpu_gemm.sh
T=${T:-.devbin/tilecast}
OUT=${OUT:-$(mktemp -d)}
for case in "4096x4096x4096 f16" "1024x1024x1024 f16" "8192x8192x8192 f16" "4000x4000x4000 f16" \
            "16x4096x4096 f16" "4096x4096x4096 e4m3" "4096x4096x4096 e5m2" "4096x4096x4096 bf16" \
            "4096x4096x4096 f32" "linear_gelu 4096x4096x4096 f16" "batched_gemm 8x2048x2048x2048 f16"; do
  set -- $case
  kernel=gemm
  if [ $# = 3 ]; then kernel=$1; shift; fi
  tag="$kernel-$1-$2"
  $T bench --kernel $kernel --shape $1 --dtype $2 --list > "$OUT/$tag-case.json"
  PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/$tag-case.json" "$OUT/$tag-peer.json" > "$OUT/$tag-peer.log"
  grep -h '"error"' "$OUT/$tag-peer.log"
  $T bench --kernel $kernel --shape $1 --dtype $2 --compare "$OUT/$tag-peer.json" 2>&1 | tail -1
done
