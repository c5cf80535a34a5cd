#!/usr/bin/env bash
# Session 18's probes on the device (from the repository root, binaries in .devbin/): gemv with
# 16-byte loads, a subgroup per row (make_gemv.py) and 32768-wide rms_norm rows with packed
# 16-byte loads (make_rows.py), each beside the generated kernel and a vec4 copy. Times are
# medians per launch; GB/s counts W's bytes for gemv, read + write for the rest.
P=${P:-$PWD/.devbin/wgsl_probe}
T=${T:-$PWD/.devbin/tilecast}
cd "$(dirname "$0")"
python3 make_gemv.py > gemv_cases.txt
python3 make_rows.py > rows_cases.txt
E="--target wgsl --profile vulkan-nvidia"
$T emit gemv --shape 14336x4096 --dtype f16 $E > gemv_a.wgsl
$T emit gemv --shape 4096x14336 --dtype f16 $E > gemv_b.wgsl
$T emit rms_norm --shape 4096x32768 --dtype f16 $E > rms_e.wgsl
MB=1048576
WB=117440512
gbs() { awk -v b=$1 -v tag="$2" '{ printf "%-12s %s  %.0f GB/s\n", tag, $0, b/($2*1e-3)/1e9 }'; }
for round in 1 2; do
  $P ../copy_u4.wgsl main 32768,4 $((256*MB)),$((256*MB)) - 50 | gbs $((512*MB)) copy
  $P gemv_a.wgsl tc_gemv 3584,1 $WB,8192,28672,=1 14336,4096 50 | gbs $WB 14336x4096
  $P gemv_b.wgsl tc_gemv 1024,1 $WB,28672,8192,=1 4096,14336 50 | gbs $WB 4096x14336
  while read -r name kc rows; do
    $P $name.wgsl main $((14336 / rows)),1 $WB,8192,28672 14336,4096 50 | gbs $WB 14336x4096
    if [ $((14336 % kc)) -eq 0 ]; then
      $P $name.wgsl main $((4096 / rows)),1 $WB,28672,8192 4096,14336 50 | gbs $WB 4096x14336
    fi
  done < gemv_cases.txt
  $P rms_e.wgsl tc_rms_norm 4096,1 $((256*MB)),65536,$((256*MB)) 4096,0.00001 50 | gbs $((512*MB)) rows
  while read -r name; do
    $P $name.wgsl main 4096,1 $((256*MB)),65536,$((256*MB)) 4096,0.00001 50 | gbs $((512*MB)) rows
  done < rows_cases.txt
done
