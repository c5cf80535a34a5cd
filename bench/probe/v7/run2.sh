#!/usr/bin/env bash
# Session 20, second probe: generated row kernels (4096x32768 f16) and gemvs as emitted (e)
# and without their masked fallbacks (f; fc: also partials combined in one subgroup), beside
# session 18's hand-written rms_norm and gemv and the tilecast bench figures.
P=${P:-$PWD/.devbin/wgsl_probe}
T=${T:-$PWD/.devbin/tilecast}
D=$(dirname "$0")
MB=1048576
gbs() { awk -v b=$1 -v tag="$2" '{ printf "%-12s %s  %.0f GB/s\n", tag, $0, b/($2*1e-3)/1e9 }'; }
VARIANTS="e f fc" T=$T bash $D/make_rows.sh | grep -E "_(e|f|fc)1024 " > $D/cases.txt
(cd bench/probe/v5 && python3 make_rows.py > /dev/null && python3 make_gemv.py > /dev/null)
E="--target wgsl --profile vulkan-nvidia"
for s in 14336x4096 4096x14336; do
  $T emit gemv --shape $s --dtype f16 $E > $D/gemv_e_$s.wgsl
  python3 $D/fastonly.py $D/gemv_e_$s.wgsl $D/gemv_f_$s.wgsl
done
WB=117440512
for round in 1 2; do
  while read -r n e b imm; do
    (cd $D && $P $n.wgsl $e 4096,1 $b $imm 50 2>/dev/null | gbs $((512*MB)) rows)
  done < $D/cases.txt
  (cd bench/probe/v5 && $P rms_t1024_v8.wgsl main 4096,1 $((256*MB)),65536,$((256*MB)) 4096,0.00001 50 | gbs $((512*MB)) hand)
  for v in e f; do
    (cd $D && $P gemv_${v}_14336x4096.wgsl tc_gemv 3584,1 $WB,8192,28672,=1 14336,4096 50 2>/dev/null | gbs $WB 14336x4096)
    (cd $D && $P gemv_${v}_4096x14336.wgsl tc_gemv 1024,1 $WB,28672,8192,=1 4096,14336 50 2>/dev/null | gbs $WB 4096x14336)
  done
  (cd bench/probe/v5 && $P g_v8_u8_r1_t256.wgsl main 1792,1 $WB,8192,28672 14336,4096 50 | gbs $WB 14336x4096)
  (cd bench/probe/v5 && $P g_v8_u8_r1_t256.wgsl main 512,1 $WB,28672,8192 4096,14336 50 | gbs $WB 4096x14336)
done
for k in softmax log_softmax layer_norm rms_norm; do $T bench --kernel $k --shape 4096x32768 --dtype f16 | grep -E "^$k "; done
for s in 14336x4096 4096x14336; do $T bench --kernel gemv --shape $s --dtype f16 | grep -E "^gemv "; done
# log_softmax rows held whole with two copies (TC_COPIES=2, 1024 threads) against chunked
for round in 1 2; do
  for d in f16 f32; do
    for c in 1 2; do
      printf 'copies<=%s ' $c; TC_COPIES=$c $T bench --kernel log_softmax --shape 4096x32768 --dtype $d | grep -E "^log_softmax "
    done
  done
done
