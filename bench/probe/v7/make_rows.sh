#!/usr/bin/env bash
# The TC_* knobs below existed only in the session-20 experiment binary (not landed); results:
# bench/results/h200-2026-11-23o-rows-probes.txt.
# Session 20: 32768-wide row kernels emitted with 1024 or 512 threads per row (TC_WIDE, a knob
# of the experiment binary only), as generated (f32 registers) and rewritten by h16.py to hold
# the row in f16 registers (half the registers, so two rows may share an SM), and by
# combine.py to combine reduction partials in one subgroup at once and by fastonly.py to drop the masked fallbacks (f, fc: both)
# (VARIANTS picks among e h c f fc). Writes
# NAME.wgsl and prints "NAME ENTRY BINDINGS IMMEDIATES" lines for run.sh.
set -euo pipefail
T=${T:-$PWD/.devbin/tilecast}
cd "$(dirname "$0")"
E="--target wgsl --profile vulkan-nvidia"
R=4096; C=32768
for k in softmax log_softmax layer_norm rms_norm; do
  for t in 1024 512; do
    n=${k}_e$t
    TC_WIDE=$t TC_COPIES=2 $T emit $k --shape ${R}x$C --dtype f16 $E > $n.wgsl
    python3 h16.py $n.wgsl ${k}_h$t.wgsl
    python3 combine.py $n.wgsl ${k}_c$t.wgsl
    python3 fastonly.py $n.wgsl ${k}_f$t.wgsl
    python3 combine.py ${k}_f$t.wgsl ${k}_fc$t.wgsl
    # bindings: parameters by name (g<i>_<NAME>), vector views bind their parameter again
    b=$(grep -o '@binding([0-9]*) var<storage, [a-z_]*> [A-Za-z0-9_]*' $n.wgsl | awk -v R=$R -v C=$C '
      { name=$NF; if (name ~ /^v_g/) { split(name, p, "_"); sub("g", "", p[2]); s = "=" p[2] }
        else if (name ~ /_(W|B)$/) s = C * 2; else s = R * C * 2;
        out = out (out == "" ? "" : ",") s } END { print out }')
    imm=$R; case $k in *norm*) imm="$R,0.00001";; esac
    for v in ${VARIANTS:-e h}; do echo "${k}_$v$t tc_$k $b $imm"; done
  done
done
