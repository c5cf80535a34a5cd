#!/usr/bin/env bash
# Session 25 on the lent GPU (after the .gl/.devbin setup): the landed binary (.devbin/tilecast)
# against the new one (.devbin/tilecast-new: gemv built for its problem, windows proven inside),
# whose gemv also reads TC_GEMV_ROWS and TC_GEMV_KC for the alternatives, torch in the same run.
# Usage: bash bench/probe/v11/final_ab.sh
OUT=${OUT:-$(mktemp -d)}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
CASES=${CASES:-"gemv:14336x4096:f16 gemv:4096x14336:f16 gemv:4096x11008:f16 gemv:11008x4096:f16
  gemv:14336x4096:f32 gemv:4096x14336:f32 argmax:4096x32768:f16 argmax:4096x32768:f32"}
ALTS=${ALTS:-"4,1024 2,4096 2,1024"}
n=0
for c in $CASES; do IFS=: read -r k s d <<< "$c"; n=$((n + 1))
  .devbin/tilecast bench --kernel $k --shape $s --dtype $d --list > "$OUT/case_$n.json"; done
python3 -c 'import json,sys; print(json.dumps([c for f in sys.argv[1:] for c in json.load(open(f))]))' \
  "$OUT"/case_*.json > "$OUT/ab_cases.json" && rm "$OUT"/case_*.json
PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/ab_cases.json" "$OUT/ab_peer.json" | grep -v '^{'
for round in 1 2 3; do
  for c in $CASES; do IFS=: read -r k s d <<< "$c"
    for b in tilecast tilecast-new; do
      printf '%-16s ' "$b"; .devbin/$b bench --kernel $k --shape $s --dtype $d --compare "$OUT/ab_peer.json" < /dev/null 2>&1 | grep "^$k"
    done
    [ "$k" = gemv ] || continue
    for cfg in $ALTS; do IFS=, read -r r kc <<< "$cfg"
      printf '%-16s ' "new r$r k$kc"
      TC_GEMV_ROWS=$r TC_GEMV_KC=$kc .devbin/tilecast-new bench --kernel $k --shape $s --dtype $d --compare "$OUT/ab_peer.json" < /dev/null 2>&1 | grep "^$k"
    done
  done
done
