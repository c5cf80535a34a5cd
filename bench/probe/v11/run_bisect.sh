#!/usr/bin/env bash
# Session 25 gemv bisect on the lent GPU (after the .gl/.devbin setup): make_bisect.py's variants
# of the generated kernel beside v10's hand-written gemv_rg_r2_k2048 and gemv_qg_r2_k2048, three
# rounds, both shapes. GB/s counts W's bytes. Usage: bash bench/probe/v11/run_bisect.sh
P=${P:-$PWD/.devbin/wgsl_probe}
cd "$(dirname "$0")"
for s in 14336x4096 4096x14336; do python3 make_bisect.py gen_$s.wgsl bis_$s > /dev/null; done
WB=117440512
gbs() { awk -v b=$1 -v tag="$2" '{ printf "%-12s %s  %.0f GB/s\n", tag, $0, b/($2*1e-3)/1e9 }'; }
for round in 1 2 3; do
  for v in A B C D E; do
    $P bis_14336x4096_$v.wgsl tc_gemv 7168,1 $WB,8192,28672,=0,=1 - 50 2>/dev/null | gbs $WB 14336x4096
    $P bis_4096x14336_$v.wgsl tc_gemv 2048,1 $WB,28672,8192,=0,=1 - 50 2>/dev/null | gbs $WB 4096x14336
  done
  for h in gemv_rg_r2_k2048 gemv_qg_r2_k2048; do
    $P ../v10/$h.wgsl main 7168,1 $WB,8192,28672,=0,=1,=0,=1 14336,4096 50 2>/dev/null | gbs $WB 14336x4096
    $P ../v10/$h.wgsl main 2048,1 $WB,28672,8192,=0,=1,=0,=1 4096,14336 50 2>/dev/null | gbs $WB 4096x14336
  done
done
# The builds: old (landed), knobs (problem-built, runs over threadgroup reads allowed), knobs2
# (problem-built, selection unchanged).
cd ../../..
for round in 1 2; do for s in 14336x4096 4096x14336; do
  printf '%-22s ' old; .devbin/tilecast bench --kernel gemv --shape $s --dtype f16 < /dev/null 2>&1 | grep '^gemv'
  for b in knobs knobs2; do for cfg in 4,1024,0 2,2048,1; do
    IFS=, read -r r kc xg <<< "$cfg"; printf '%-22s ' "$b r$r k$kc x$xg"
    TC_GEMV_ROWS=$r TC_GEMV_KC=$kc TC_GEMV_XG=$xg .devbin/tilecast-$b bench --kernel gemv --shape $s --dtype f16 < /dev/null 2>&1 | grep '^gemv'
  done; done
done; done
