#!/usr/bin/env bash
# Session 25 on the lent GPU (after the .gl/.devbin setup): the chunk width of row reductions
# over rows too long to hold (experiment build .devbin/tilecast-k2 reading TC_CHUNK, not
# landed; 4096 = the landed 16 per thread), 4096x32768 f16. Usage: bash bench/probe/v11/chunk_ab.sh
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
for k in argmax sum max; do
  for c in 4096 8192 2048 4096; do
    printf '%-6s ' $c; TC_CHUNK=$c .devbin/tilecast-k2 bench --kernel $k --shape 4096x32768 --dtype f16 < /dev/null 2>&1 | grep "^$k"
  done
done
