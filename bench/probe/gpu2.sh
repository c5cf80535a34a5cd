for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig; export XDG_RUNTIME_DIR=$(mktemp -d)
P=$PWD/.devbin/wgsl_probe bash bench/probe/run.sh 2>&1 | tail -3
T=.devbin/tilecast
$T bench --kernel add --shape 134217728 2>&1 | tail -1
$T bench --kernel add --shape 134217728 --iters 100 2>&1 | tail -1
$T bench --kernel add --shape 134217728 --batches 30 2>&1 | tail -1
$T bench --kernel sum --shape 32768x4096 2>&1 | tail -1
$T bench --kernel sum --shape 32768x4096 --checked 2>&1 | tail -1
TILECAST_MAX_MB_PER_BUFFER=100000 $T bench --kernel sum --shape 32768x4096 2>&1 | tail -1
TILECAST_MAX_MB_PER_BUFFER=100000 $T bench --kernel add --shape 134217728 2>&1 | tail -1
