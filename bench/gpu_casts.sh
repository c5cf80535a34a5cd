#!/usr/bin/env bash
# The casts at 256 MiB-class sizes beside PyTorch's to() in one run, on the lent GPU (after the
# .gl/.devbin setup): every narrowing cast from f32, and a widening or narrowing cast from each
# other input type. Rows land in $OUT/casts.txt. Usage: bash bench/gpu_casts.sh
set -uo pipefail
B=.devbin/tilecast
OUT=${OUT:-$(mktemp -d)}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
N=134217728
CASES="cast_f32:f32 cast_f16:f32 cast_bf16:f32 cast_e4m3:f32 cast_e5m2:f32 cast_f16:bf16 cast_bf16:f16 cast_f32:f8e4m3 cast_e4m3:f16 cast_f16:f8e5m2"
for c in $CASES; do $B bench --kernel ${c%%:*} --shape $N --dtype ${c##*:} --list; done \
  | python3 -c "import json, sys; d = json.JSONDecoder(); s = sys.stdin.read().strip(); out = []
while s:
    v, i = d.raw_decode(s); out += v; s = s[i:].strip()
json.dump(out, open('$OUT/cast_cases.json', 'w'))"
PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/cast_cases.json" "$OUT/cast_peer.json" > /dev/null
for c in $CASES; do
  $B bench --kernel ${c%%:*} --shape $N --dtype ${c##*:} --compare "$OUT/cast_peer.json" < /dev/null 2>&1
done | awk 'NR <= 4 || /^cast/' | awk '!seen[$0]++' | tee "$OUT/casts.txt"
