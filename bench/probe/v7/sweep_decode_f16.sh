#!/usr/bin/env bash
# Session 20: f16 decode gemms and linears with many tiles, default tiles against a small grid
# (tilecast bench --tile). Default: 16-row tiles; ROWS=64: problems of 33..64 rows.
if [ "${ROWS:-16}" = 64 ]; then
  export CASES="gemm:64x14336x4096 gemm:64x4096x4096 linear:64x14336x4096 gemm:48x11008x4096 gemm:33x4000x4099"
  export TILES="64x64x64:256 64x64x32:256 32x64x64:128 32x32x64:64 64x32x64:256 16x64x64:128"
else
  export CASES="gemm:16x14336x4096 linear:16x14336x4096 gemm:1x14336x4096 gemm:16x11008x4096 gemm:32x14336x4096 linear:8x4096x4096"
  export TILES="16x64x64:128 16x32x64:64 16x64x128:128 16x128x64:256 16x64x32:128 16x128x32:256"
fi
exec bash "$(dirname "$0")/../sweep_tiles.sh"
