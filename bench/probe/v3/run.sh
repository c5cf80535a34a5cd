#!/usr/bin/env bash
# Cooperative-matrix loads from workgroup memory on the device: see make_coop_loads.py.
# Each kernel: 1056 threadgroups x 8 subgroups x ITERS x 8 products of 16x16x16
# (65536 flop per subgroup per iteration).
P=${P:-$PWD/.devbin/wgsl_probe}
cd "$(dirname "$0")"
python3 make_coop_loads.py > /dev/null
IT=${IT:-256}
for f in $(python3 -c 'import make_coop_loads as m; print(" ".join(c[0] for c in m.CASES))'); do
  $P $f.wgsl main 1056 69206016 $IT,16 | awk -v it=$IT '{ printf "%s  %.1f TFLOP/s\n", $0, 1056*8*it*65536/($2*1e-3)/1e12 }'
done
# The gemm built up piece by piece (make_gemm_steps.py): 4096^3, 1024 threadgroups.
python3 make_gemm_steps.py > /dev/null
for f in $(python3 -c 'import make_gemm_steps as m; print(" ".join(c[0] for c in m.CASES))'); do
  $P $f.wgsl main 1024 67108864,33554432,33554432 16 | awk '{ printf "%s  %.1f TFLOP/s\n", $0, 2*4096^3/($2*1e-3)/1e12 }'
done
