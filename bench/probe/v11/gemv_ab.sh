#!/usr/bin/env bash
# Session 25 gemv choices on the lent GPU (after the .gl/.devbin setup): the landed binary
# (.devbin/tilecast) beside an experiment build whose gemv is built for the problem's N and K
# (constants: no divisions in the row origin, and X read as one vector per run of columns when
# K % 4 == 0) and reads TC_GEMV_ROWS, TC_GEMV_KC and TC_GEMV_XG (x from global memory) from the
# environment (.devbin/tilecast-knobs, not landed), torch.mv in the same run.
# Usage: bash bench/probe/v11/gemv_ab.sh
OUT=${OUT:-$(mktemp -d)}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
CASES=${CASES:-"14336x4096 4096x14336"}
CFGS=${CFGS:-"4,1024,0 4,1024,1 2,2048,1 4,2048,1 2,1024,1 8,1024,1 2,4096,1 2,2048,0"}
for s in $CASES; do for d in f16 f32; do
  .devbin/tilecast bench --kernel gemv --shape $s --dtype $d --list > "$OUT/case_${s}_$d.json"; done; done
python3 -c 'import json,sys; print(json.dumps([c for f in sys.argv[1:] for c in json.load(open(f))]))' \
  "$OUT"/case_*.json > "$OUT/gemv_cases.json" && rm "$OUT"/case_*.json
PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/gemv_cases.json" "$OUT/gemv_peer.json" | grep -v '^{'
for round in 1 2; do
  for s in $CASES; do for d in f16 f32; do
    printf '%-12s ' old; .devbin/tilecast bench --kernel gemv --shape $s --dtype $d --compare "$OUT/gemv_peer.json" < /dev/null 2>&1 | grep '^gemv'
    for cfg in $CFGS; do
      IFS=, read -r r kc xg <<< "$cfg"
      printf '%-12s ' "r$r k$kc x$xg"
      TC_GEMV_ROWS=$r TC_GEMV_KC=$kc TC_GEMV_XG=$xg .devbin/tilecast-knobs bench --kernel gemv --shape $s --dtype $d --compare "$OUT/gemv_peer.json" < /dev/null 2>&1 | grep '^gemv'
    done
  done; done
done
