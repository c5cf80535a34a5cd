#!/usr/bin/env bash
# Session 21: f16 gemms of 65..512 rows (prefill-sized batches), where 128x128 tiles make too
# few threadgroups and 64x64 ones over 4 subgroups were the default: default tiles against a
# grid of smaller tiles and more subgroups (a K split where a tile has fewer matrices than
# subgroups).
export CASES=${CASES:-"gemm:128x4096x4096 gemm:256x4096x4096 gemm:512x4096x4096 linear:128x14336x4096 gemm:96x4096x4096"}
export TILES=${TILES:-"64x64x32:128 64x64x64:128 64x64x64:256 64x64x128:512 64x64x128:256 32x64x64:128 32x64x128:256 64x32x128:256 32x32x128:128 16x64x64:128 16x64x128:256 64x128x32:256 128x64x32:256 64x128x64:256"}
exec bash "$(dirname "$0")/../sweep_tiles.sh"
