#!/usr/bin/env bash
# Session 23 gemv bisect on the lent GPU (after the .gl/.devbin setup): the generated gemv, session
# 18's hand-written subgroup-per-row kernels (v5/make_gemv.py) and make_gemv.py's variants in the
# generated kernel's shape, two rounds, both shapes. GB/s counts W's bytes.
P=${P:-$PWD/.devbin/wgsl_probe}
T=${T:-$PWD/.devbin/tilecast}
cd "$(dirname "$0")"
python3 make_gemv.py > gemv_cases.txt
(cd ../v5 && python3 make_gemv.py > /dev/null)
E="--target wgsl --profile vulkan-nvidia"
$T emit gemv --shape 14336x4096 --dtype f16 $E > gemv_gen_a.wgsl
$T emit gemv --shape 4096x14336 --dtype f16 $E > gemv_gen_b.wgsl
WB=117440512
gbs() { awk -v b=$1 -v tag="$2" '{ printf "%-12s %s  %.0f GB/s\n", tag, $0, b/($2*1e-3)/1e9 }'; }
for round in 1 2; do
  $T bench --kernel gemv --shape 14336x4096 --dtype f16 < /dev/null 2>&1 | tail -1
  $P gemv_gen_a.wgsl tc_gemv 3584,1 $WB,8192,28672,=1 14336,4096 50 | gbs $WB 14336x4096
  $P gemv_gen_b.wgsl tc_gemv 1024,1 $WB,28672,8192,=1 4096,14336 50 | gbs $WB 4096x14336
  for h in g_v8_u8_r1_t256 g_v16_u8_r1_t256; do
    $P ../v5/$h.wgsl main 1792,1 $WB,8192,28672 14336,4096 50 | gbs $WB 14336x4096
    $P ../v5/$h.wgsl main 512,1 $WB,28672,8192 4096,14336 50 | gbs $WB 4096x14336
  done
  while read -r name rows; do
    $P $name.wgsl main $((14336 / rows)),1 $WB,8192,28672,=0,=1,=0,=1 14336,4096 50 | gbs $WB 14336x4096
    $P $name.wgsl main $((4096 / rows)),1 $WB,28672,8192,=0,=1,=0,=1 4096,14336 50 | gbs $WB 4096x14336
  done < gemv_cases.txt
done
