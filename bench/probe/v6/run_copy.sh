#!/usr/bin/env bash
# Why the roofline's copy bandwidth (Device::calibrate_copies: 512 MiB, batches of 4 copies)
# reads lower than the same one-vector-per-thread kernel timed by wgsl_probe (256 MiB, batches
# of 50): the kernel at both sizes and both batch lengths, and four vectors per thread.
# From the repository root on the device: bash bench/probe/v6/run_copy.sh
P=${P:-$PWD/.devbin/wgsl_probe}
cd "$(dirname "$0")"
MB=1048576
gbs() { awk -v b=$1 -v tag="$2" '{ printf "%-22s %s  %.0f GB/s\n", tag, $0, b/($2*1e-3)/1e9 }'; }
for round in 1 2; do
  for it in 4 50; do
    $P ../copy_u4.wgsl main 32768,2 $((256*MB)),$((256*MB)) - $it | gbs $((512*MB)) "256MiB x$it"
    $P ../copy_u4.wgsl main 32768,4 $((512*MB)),$((512*MB)) - $it | gbs $((1024*MB)) "512MiB x$it"
    $P copy_u4x4.wgsl main 16384,1 $((256*MB)),$((256*MB)) - $it | gbs $((512*MB)) "256MiB x$it (4/thread)"
  done
done
