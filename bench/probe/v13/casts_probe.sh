#!/usr/bin/env bash
# Session 27: the fp8 casts as emitted before (tilecast: encoders with branches) and after
# (tilecast-new: branchless), timed by wgsl_probe on 134217728 elements (no CPU check), three
# rounds alternating; then the new binary's bench (checked) and PyTorch's to() for two cases.
# WGSL from `tilecast emit cast_e4m3 --shape 134217728 --dtype f16 --target wgsl --profile
# vulkan-nvidia`, written to casts/ here). From the repository root with both binaries in .devbin;
# writes $OUT/casts_probe.txt.
P=.devbin/wgsl_probe
O=${OUT:-/tmp}/casts_probe.txt
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
N=134217728
mkdir -p bench/probe/v13/casts
for b in tilecast tilecast-new; do
  for c in "cast_e4m3 f16" "cast_e5m2 f16" "cast_e4m3 f32"; do
    set -- $c
    .devbin/$b emit $1 --shape $N --dtype $2 --target wgsl --profile vulkan-nvidia \
      > bench/probe/v13/casts/${b}_$1_$2.wgsl
  done
done
for round in 1 2 3; do
  for c in cast_e4m3_f16 cast_e5m2_f16 cast_e4m3_f32; do
    in=$([ ${c##*_} = f32 ] && echo $((4 * N)) || echo $((2 * N)))
    for b in tilecast tilecast-new; do
      $P bench/probe/v13/casts/${b}_$c.wgsl tc_cast 32768,1 $in,$N,=0 $N 20 2>&1 | tail -1 \
        | awk -v n=$N -v i=$in '{ printf "%s  %.0f GB/s\n", $0, (i + n) / ($2 * 1e-3) / 1e9 }' | tee -a $O
    done
  done
done
for c in "cast_e4m3 f16" "cast_e5m2 f16"; do
  set -- $c
  .devbin/tilecast-new bench --kernel $1 --shape $N --dtype $2 < /dev/null 2>&1 | grep -E '^(cast|roofline)' | tee -a $O
done
