#!/usr/bin/env bash
# The final run on the lent GPU: the full suite beside PyTorch, f32 and f16, then the DLPack
# checks beside torch (needs an abi3 wheel in .devbin/wheels, built here with
# `maturin build --release -m crates/tilecast-python/Cargo.toml --features pyo3/abi3-py39`).
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" / >/dev/null; done; ldconfig
export XDG_RUNTIME_DIR=$(mktemp -d)
OUT=${OUT:-$(mktemp -d)}
T=.devbin/tilecast
$T bench --full --list > "$OUT/cases.json"
PYTHONUNBUFFERED=1 python3 bench/peer_suite.py "$OUT/cases.json" "$OUT/peer.json" > "$OUT/peer.log" 2>&1
$T bench --full --compare "$OUT/peer.json" --json "$OUT/ours.json" 2>&1 | tee "$OUT/suite.txt"
python3 --version
pip install -q --no-index --no-deps --target /tmp/tcpy .devbin/wheels/*.whl 2>&1 | tail -2
PYTHONPATH=/tmp/tcpy python3 bench/gpu_dlpack.py 2>&1 | tee "$OUT/dlpack.txt"
