#!/usr/bin/env bash
# Session 23 gemv choices on the lent GPU (after the .gl/.devbin setup): the landed binary
# (.devbin/tilecast) beside an experiment build whose gemv reads TC_GEMV_ROWS, TC_GEMV_KC and
# TC_GEMV_XG (x from global memory) from the environment (.devbin/tilecast-knobs, not landed),
# with torch.mv timed in the same run. Usage: bash bench/probe/v10/gemv_ab.sh
OUT=${OUT:-$(mktemp -d)}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
.devbin/tilecast bench --full --kernel gemv --list > "$OUT/gemv_cases.json"
PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/gemv_cases.json" "$OUT/gemv_peer.json" | grep -v '^{'
for round in 1 2; do
  printf '%-14s ' old; .devbin/tilecast bench --full --kernel gemv --compare "$OUT/gemv_peer.json" < /dev/null 2>&1 | grep '^gemv' | tr '\n' '|'; echo
  for cfg in "4 1024 0" "2 2048 0" "2 1024 0" "4 2048 0" "8 1024 0" "4 1024 1" "2 2048 1"; do
    set -- $cfg
    printf '%-14s ' "r$1 k$2 xg$3"
    TC_GEMV_ROWS=$1 TC_GEMV_KC=$2 TC_GEMV_XG=$3 .devbin/tilecast-knobs bench --full --kernel gemv --compare "$OUT/gemv_peer.json" < /dev/null 2>&1 | grep '^gemv' | tr '\n' '|'; echo
  done
done
