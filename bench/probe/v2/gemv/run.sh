#!/usr/bin/env bash
# gemv variants (rows per threadgroup x K chunk), emitted by make.sh (run it first, where Rust
# builds), timed by wgsl_probe on both suite shapes (random data).
P=${P:-$PWD/.devbin/wgsl_probe}
cd "$(dirname "$0")"
W=117440512
for f in gemv_r8_k1024 gemv_r4_k1024 gemv_r4_k2048 gemv_r16_k512 gemv_r8_k512 gemv_r2_k2048 gemv_r16_k1024 gemv_r8_k1024; do
  r=${f#gemv_r}; r=${r%%_*}
  echo "$f 14336x4096: $($P $f.wgsl tc_gemv $((14336 / r)),1 $W,8192,28672,=1 14336,4096 50)"
  echo "$f 4096x14336: $($P $f.wgsl tc_gemv $((4096 / r)),1 $W,28672,8192,=1 4096,14336 50)"
done
