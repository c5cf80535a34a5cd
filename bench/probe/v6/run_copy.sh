#!/usr/bin/env bash
# Why the roofline's copy bandwidth (Device::calibrate_copies: 512 MiB, batches of 4 copies)
# reads lower than the same one-vector-per-thread kernel timed by wgsl_probe (256 MiB, batches
# of 50): the kernel at both sizes and both batch lengths, and four vectors per thread
# (skipped with STREAM_ONLY=1); then the stream's kernel itself on three grids.
# From the repository root on the device: bash bench/probe/v6/run_copy.sh
P=${P:-$PWD/.devbin/wgsl_probe}
cd "$(dirname "$0")"
MB=1048576
gbs() { awk -v b=$1 -v tag="$2" '{ printf "%-22s %s  %.0f GB/s\n", tag, $0, b/($2*1e-3)/1e9 }'; }
if [ -z "${STREAM_ONLY:-}" ]; then
for round in 1 2; do
  for it in 4 50; do
    $P ../copy_u4.wgsl main 32768,2 $((256*MB)),$((256*MB)) - $it | gbs $((512*MB)) "256MiB x$it"
    $P ../copy_u4.wgsl main 32768,4 $((512*MB)),$((512*MB)) - $it | gbs $((1024*MB)) "512MiB x$it"
    $P copy_u4x4.wgsl main 16384,1 $((256*MB)),$((256*MB)) - $it | gbs $((512*MB)) "256MiB x$it (4/thread)"
  done
done
fi
# The stream's own copy kernel (COPY_WGSL, taken from stream_copy.rs) on the grid the stream
# dispatches for 512 MiB (65535 x 3 threadgroups for 131072 threadgroups of work) and on
# grids without the idle third (43691 x 3, 32768 x 4).
sed -n '/^pub(super) const COPY_WGSL: &str = r#"$/,/^"#;$/p' ../../../crates/tilecast-runtime/src/stream_copy.rs | sed '1d;$d' > copy_stream.wgsl
for round in 1 2; do
  for grid in 65535,3 43691,3 32768,4; do
    $P copy_stream.wgsl copy_vec4 $grid $((512*MB)),$((512*MB)) 0,0,33554432 4 | gbs $((1024*MB)) "stream $grid"
  done
  $P ../copy_u4.wgsl main 32768,4 $((512*MB)),$((512*MB)) - 4 | gbs $((1024*MB)) "512MiB x4"
done
