# One lent-GPU call: emit the current kernels for the device, then time them beside the
# hand-written variants in bench/probe/v2 (see run.sh there).
for f in .gl/*.deb; do dpkg -x $f / >/dev/null; done; ldconfig; export XDG_RUNTIME_DIR=$(mktemp -d)
T=$PWD/.devbin/tilecast
$T emit add --profile device --shape 134217728 --dtype f16 > $OUT/add_dev.wgsl
$T emit softmax --profile device --shape 32768x4096 --dtype f16 > $OUT/softmax_dev.wgsl
$T emit rms_norm --profile device --shape 32768x4096 --dtype f16 > $OUT/rms_dev.wgsl
$T emit sum --profile device --shape 32768x4096 --dtype f16 > $OUT/sum_dev.wgsl
P=$PWD/.devbin/wgsl_probe D=$OUT bash bench/probe/v2/run.sh 2>&1 | tee $OUT/probe.txt
