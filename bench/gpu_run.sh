#!/usr/bin/env bash
# One call on the lent NVIDIA machine (binaries built here, carried in .devbin/): the SIMT gemm
# beside torch.matmul in the same run (trusted and checked modules, a small tile sweep), then
# the runtime's GPU fault scenarios. Every line also lands in $OUT/gpu_run.log.
# Usage there: for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig; bash bench/gpu_run.sh
set -uo pipefail
B=.devbin
OUT=${OUT:-$(mktemp -d)}
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
exec > >(tee "$OUT/gpu_run.log") 2>&1
$B/tilecast info
S=4096x4096x4096
for dt in f32 f16; do
  PYTHONUNBUFFERED=1 python3 bench/peer_gemm.py $S $dt 20
  $B/tilecast bench --kernel gemm --shape $S --dtype $dt --json
  $B/tilecast bench --kernel gemm --shape $S --dtype $dt --json --checked
done
# f32 tile sweep: tile, threads, stages.
for cfg in "128x128x16 256 2" "128x128x8 256 3" "128x128x16 256 3" "64x128x8 128 2" "128x64x8 128 2" "128x256x8 256 2"; do
  set -- $cfg
  $B/tilecast bench --kernel gemm --shape $S --dtype f32 --tile $1 --threads $2 --stages $3 --json
done
PYTHONUNBUFFERED=1 python3 bench/peer_gemm.py $S f32 20
$B/gpu_faults --oom-cap-gib ${OOM_CAP_GIB:-150} --shared-cap-gib ${SHARED_CAP_GIB:-48}
