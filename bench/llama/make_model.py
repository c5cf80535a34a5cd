#!/usr/bin/env python3
"""Writes a Llama-architecture checkpoint of random weights, as Hugging Face ships one:
config.json plus model.safetensors (or shards with model.safetensors.index.json), written with
the safetensors library. Nothing is downloaded: tests and benchmarks make their models.

Sizes: `tiny` (2 layers, ragged widths: CI's end-to-end check), `1b` (Llama-3.2-1B's shapes,
tied embeddings) and `8b` (Llama-3-8B's shapes, untied, 4 shards).

    python bench/llama/make_model.py --size tiny --out /tmp/tiny [--tied] [--seed 1]

Weights need numpy only for the small sizes; `--torch` draws them with torch (fast for 8B).
"""
import argparse
import json
import os
import sys

SIZES = {
    "tiny": dict(hidden_size=72, intermediate_size=136, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=300,
                 tie_word_embeddings=False, shards=1),
    "1b": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
               num_attention_heads=32, num_key_value_heads=8, head_dim=64, vocab_size=128256,
               tie_word_embeddings=True, shards=1),
    "8b": dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
               num_attention_heads=32, num_key_value_heads=8, head_dim=128, vocab_size=128256,
               tie_word_embeddings=False, shards=4),
}


def config_for(size, tied):
    s = dict(SIZES[size])
    s.pop("shards")
    if tied is not None:
        s["tie_word_embeddings"] = tied
    s.update(
        architectures=["LlamaForCausalLM"], model_type="llama", rms_norm_eps=1e-5,
        rope_theta=500000.0, max_position_embeddings=131072, torch_dtype="float16",
        rope_scaling=dict(rope_type="llama3", factor=32.0 if size != "8b" else 8.0,
                          low_freq_factor=1.0, high_freq_factor=4.0,
                          original_max_position_embeddings=8192),
    )
    return s


def tensor_shapes(c):
    """(name, shape, fan_in) of every tensor, in the order Hugging Face writes them."""
    h, i, d = c["hidden_size"], c["intermediate_size"], c["head_dim"]
    q, kv = c["num_attention_heads"] * d, c["num_key_value_heads"] * d
    out = [("model.embed_tokens.weight", (c["vocab_size"], h), None)]
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}"
        out += [
            (f"{p}.input_layernorm.weight", (h,), 0),
            (f"{p}.self_attn.q_proj.weight", (q, h), h),
            (f"{p}.self_attn.k_proj.weight", (kv, h), h),
            (f"{p}.self_attn.v_proj.weight", (kv, h), h),
            (f"{p}.self_attn.o_proj.weight", (h, q), q),
            (f"{p}.post_attention_layernorm.weight", (h,), 0),
            (f"{p}.mlp.gate_proj.weight", (i, h), h),
            (f"{p}.mlp.up_proj.weight", (i, h), h),
            (f"{p}.mlp.down_proj.weight", (h, i), i),
        ]
    out.append(("model.norm.weight", (h,), 0))
    if not c["tie_word_embeddings"]:
        out.append(("lm_head.weight", (c["vocab_size"], h), h))
    return out


def draw(shape, fan_in, rng, torch_mod):
    """Embeddings N(0, 1); norms 1 + N(0, 0.1); projections N(0, 1 / fan_in): activations keep
    unit scale through the layers, so the logits spread and greedy picks are well separated."""
    std = 1.0 if fan_in is None else (0.1 if fan_in == 0 else fan_in ** -0.5)
    mean = 1.0 if fan_in == 0 else 0.0
    if torch_mod is not None:
        t = torch_mod.randn(*shape, dtype=torch_mod.float32, device=_device(torch_mod)) * std + mean
        return t.half().cpu()
    import numpy as np
    return (rng.standard_normal(shape, dtype=np.float32) * std + mean).astype(np.float16)


def _device(torch_mod):
    return "cuda" if torch_mod.cuda.is_available() else "cpu"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", choices=sorted(SIZES), default="tiny")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tied", action="store_true", default=None, help="tie lm_head to the embeddings")
    ap.add_argument("--torch", action="store_true", help="draw with torch (GPU if present)")
    a = ap.parse_args()
    c = config_for(a.size, a.tied)
    shards = SIZES[a.size]["shards"]
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump(c, f, indent=2)
    torch_mod, rng = None, None
    if a.torch:
        import torch as torch_mod
        from safetensors.torch import save_file
        torch_mod.manual_seed(a.seed)
    else:
        import numpy as np
        from safetensors.numpy import save_file
        rng = np.random.default_rng(a.seed)
    shapes = tensor_shapes(c)
    total = sum(int(__import__("math").prod(s)) * 2 for _, s, _ in shapes)
    per_shard = total / shards
    files, weight_map, current, size, done = [], {}, {}, 0, 0
    def flush():
        nonlocal current, size
        name = "model.safetensors" if shards == 1 else f"model-{len(files) + 1:05d}-of-{shards:05d}.safetensors"
        save_file(current, os.path.join(a.out, name), metadata={"format": "pt"})
        for k in current:
            weight_map[k] = name
        files.append(name)
        current, size = {}, 0
    for name, shape, fan_in in shapes:
        t = draw(shape, fan_in, rng, torch_mod)
        current[name] = t
        n = int(__import__("math").prod(shape)) * 2
        size += n
        done += n
        if size >= per_shard and len(files) + 1 < shards:
            flush()
        print(f"\r{done / 1e9:.2f} / {total / 1e9:.2f} GB", end="", file=sys.stderr)
    flush()
    print(file=sys.stderr)
    if shards > 1:
        with open(os.path.join(a.out, "model.safetensors.index.json"), "w") as f:
            json.dump({"metadata": {"total_size": total}, "weight_map": weight_map}, f, indent=2)


if __name__ == "__main__":
    main()
