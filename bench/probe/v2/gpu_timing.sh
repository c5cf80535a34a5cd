for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig; export XDG_RUNTIME_DIR=$(mktemp -d)
T=.devbin/tilecast
.devbin/time_probe add 134217728
.devbin/time_probe sum 32768x4096
.devbin/time_probe softmax 32768x4096
$T bench --kernel add --shape 134217728 --dtype f16 2>&1 | tail -2
$T bench --kernel add --shape 134217728 --dtype f16 --iters 20 2>&1 | tail -1
$T emit add --profile device --shape 134217728 --dtype f16 > $OUT/add_dev.wgsl
.devbin/wgsl_probe $OUT/add_dev.wgsl tc_add 32768,2 268435456,268435456,268435456 134217728
