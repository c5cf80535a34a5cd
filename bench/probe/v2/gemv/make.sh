#!/usr/bin/env bash
# Emits the gemv variants run.sh times: the registry's gemv with ROWS and K_CHUNK changed
# (crates/tilecast-kernels/src/gemv.rs is restored afterwards). Run here, where Rust builds.
set -euo pipefail
root=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
src=$root/crates/tilecast-kernels/src/gemv.rs
cp "$src" /tmp/gemv.rs.orig
trap 'cp /tmp/gemv.rs.orig "$src"' EXIT
for v in "8 1024" "4 1024" "4 2048" "16 512" "8 512" "2 2048" "16 1024"; do
  set -- $v
  sed -i "s/^const ROWS: u32 = .*/const ROWS: u32 = $1;/; s/^const K_CHUNK: u32 = .*/const K_CHUNK: u32 = $2;/" "$src"
  cargo build -q --manifest-path "$root/Cargo.toml" --bin tilecast
  "$root/target/debug/tilecast" emit gemv --profile vulkan-nvidia --shape 14336x4096 --dtype f16 \
    > "$(dirname "$0")/gemv_r$1_k$2.wgsl"
done
