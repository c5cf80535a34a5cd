#!/usr/bin/env bash
# The TC_* knobs below existed only in the session-20 experiment binary (not landed); results:
# bench/results/h200-2026-11-23o-rows-probes.txt.
# Session 20 on the device, from the repository root with binaries in .devbin/: the 32768-wide
# row kernels of make_rows.sh (f32 or f16 registers, 1024 or 512 threads per row) beside a vec4
# copy, then gemv variants through the experiment binary's knobs (TC_GEMV_XG: x read from
# global memory at the column instead of through threadgroup memory; TC_GEMV_KC: K per step;
# TC_GEMV_ROWS: rows per threadgroup; TC_RUNS_SHARED: runs of 4 columns even where a loop reads
# a threadgroup tile at the column). Second run: VARIANTS='e c'. GB/s: read + write for rows and copy.
P=${P:-$PWD/.devbin/wgsl_probe}
T=${T:-$PWD/.devbin/tilecast}
D=$(dirname "$0")
MB=1048576
gbs() { awk -v b=$1 -v tag="$2" '{ printf "%-8s %s  %.0f GB/s\n", tag, $0, b/($2*1e-3)/1e9 }'; }
T=$T bash $D/make_rows.sh > $D/cases.txt
(cd bench/probe/v5 && python3 make_rows.py > /dev/null)
for round in 1 2; do
  $P bench/probe/copy_u4.wgsl main 32768,4 $((256*MB)),$((256*MB)) - 50 | gbs $((512*MB)) copy
  while read -r n e b imm; do
    (cd $D && $P $n.wgsl $e 4096,1 $b $imm 50 2>/dev/null | gbs $((512*MB)) rows)
  done < $D/cases.txt
  for n in rms_t512_v8 rms_t1024_v8; do
    (cd bench/probe/v5 && $P $n.wgsl main 4096,1 $((256*MB)),65536,$((256*MB)) 4096,0.00001 50 | gbs $((512*MB)) hand)
  done
  for k in softmax log_softmax layer_norm rms_norm; do $T bench --kernel $k --shape 4096x32768 --dtype f16 | grep -E "^$k "; done
done
for round in 1 2; do
  for v in "0 1024 4 -" "0 1024 4 1" "0 2048 4 1" "0 1024 8 1" "0 2048 8 1" "0 512 8 1"; do
    set -- $v
    if [ "$4" = 1 ]; then export TC_RUNS_SHARED=1; else unset TC_RUNS_SHARED; fi
    for s in 14336x4096 4096x14336; do
      printf 'xg=%s kc=%-4s rows=%s runs_shared=%s  ' $1 $2 $3 $4
      TC_GEMV_XG=$1 TC_GEMV_KC=$2 TC_GEMV_ROWS=$3 $T bench --kernel gemv --shape $s --dtype f16 | grep -E "^gemv"
    done
  done
done
