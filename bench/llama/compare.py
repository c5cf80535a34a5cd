#!/usr/bin/env python3
"""Compares `tilecast generate --json/--logits` with the PyTorch peer's: tokens/s side by side,
the ratio, and how the logits and greedy ids agree. With `-` for both logits files (a peer
whose weights are quantized its own way) only the speeds and the ids are compared.

    python bench/llama/compare.py tilecast.json tilecast.npy peer.json peer.npy
"""
import json
import sys

import numpy as np


def main():
    ours, our_logits, peer, peer_logits = sys.argv[1:5]
    o, p = json.load(open(ours)), json.load(open(peer))
    same = 0
    for x, y in zip(o["ids"], p["ids"]):
        n = next((i for i, (u, v) in enumerate(zip(x, y)) if u != v), len(x))
        same += n
    r = dict(
        batch=o["batch"], prompt_len=o["prompt_len"],
        decode_tok_s=o["decode_tokens_per_s"], peer_decode_tok_s=p["decode_tokens_per_s"],
        decode_ratio=o["decode_tokens_per_s"] / p["decode_tokens_per_s"],
        prefill_ms=o["prefill_ms"], peer_prefill_ms=p["prefill_ms"],
        prefill_ratio=p["prefill_ms"] / o["prefill_ms"],
        host_share=o["host_share_of_step"], launches_per_step=o["launches_per_step"],
        peak_gpu_gb=o["peak_gpu_bytes"] / 1e9, peer_weights=p.get("weights", "f16"),
        ids_same_prefix=same, ids_total=sum(len(x) for x in o["ids"]),
    )
    if our_logits != "-":
        a, b = np.load(our_logits), np.load(peer_logits)
        steps = min(len(a), len(b))
        err = np.abs(a[:steps] - b[:steps]).max(axis=(1, 2))
        scale = np.abs(b[:steps]).max(axis=(1, 2))
        r.update(logits_max_abs_step0=float(err[0]), logits_max_abs=float(err.max()),
                 logits_rel_max=float((err / scale).max()))
    print(json.dumps(r))


if __name__ == "__main__":
    main()
