#!/usr/bin/env bash
# Old and new tilecast binaries on the same bench cases, alternating, in one run (only ratios
# from one run count). Usage there:
#   OLD=.devbin/tilecast-old NEW=.devbin/tilecast ROUNDS=2 \
#     CASES="softmax:4096x32768:f16 sum:4096x32768:f16" bash bench/gpu_ab.sh
set -uo pipefail
OLD=${OLD:-.devbin/tilecast-old}
NEW=${NEW:-.devbin/tilecast}
for round in $(seq "${ROUNDS:-2}"); do
  for c in $CASES; do
    IFS=: read -r k s d <<< "$c"
    for bin in "$OLD" "$NEW"; do
      printf '%-22s ' "$(basename "$bin")"
      $bin bench --kernel "$k" --shape "$s" --dtype "$d" | grep -E "^$k +$s"
    done
  done
done
