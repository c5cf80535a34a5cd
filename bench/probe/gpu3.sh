for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig; export XDG_RUNTIME_DIR=$(mktemp -d)
T=.devbin/tilecast
$T emit add --profile device --shape 134217728 > $OUT/add_dev.wgsl
$T emit sum --profile device --shape 32768x4096 > $OUT/sum_dev.wgsl
$T emit softmax --profile device --shape 32768x4096 > $OUT/softmax_dev.wgsl
P=.devbin/wgsl_probe; M=268435456
$P $OUT/add_dev.wgsl tc_add 32768,2 $M,$M,$M 134217728
$T bench --kernel add --shape 134217728 2>&1 | tail -1
$T bench --kernel sum --shape 32768x4096 2>&1 | tail -1
$T bench --full --kernel softmax 2>&1 | tail -2
$T bench --full --dtype f32 2>&1 | tail -48
