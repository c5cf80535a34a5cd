#!/usr/bin/env bash
# Session 21: f16 gemms of 300..2048 rows (prefill), where 128x128 tiles make 256 or more
# threadgroups (the default) against 64-row tiles over 8 subgroups.
export CASES=${CASES:-"gemm:300x11008x4096 gemm:1024x4096x4096 gemm:1536x4096x4096 gemm:2048x4096x4096 linear:512x14336x4096 linear:1024x14336x4096 gemm:4096x4096x4096"}
export TILES=${TILES:-"64x128x32:256 128x64x32:256 64x64x64:128"}
exec bash "$(dirname "$0")/../sweep_tiles.sh"
