#!/usr/bin/env python3
"""Writes a Llama-architecture checkpoint of random weights, as Hugging Face ships one
(config.json plus model.safetensors, or shards with model.safetensors.index.json, written with
the safetensors library), or as llama.cpp ships one (a GGUF file, written with the gguf
package's writer). Nothing is downloaded: tests and benchmarks make their models.

Sizes: `tiny` (2 layers, ragged widths: CI's end-to-end check), `tiny-q` (2 layers, widths of
whole 256-value blocks, for the quantized GGUF types), `1b` (Llama-3.2-1B's shapes, tied
embeddings) and `8b` (Llama-3-8B's shapes, untied, 4 shards).

    python bench/llama/make_model.py --size tiny --out /tmp/tiny [--tied] [--seed 1]
    python bench/llama/make_model.py --size tiny-q --gguf q4_k --out /tmp/tiny-q4k.gguf
    python bench/llama/make_model.py --size tiny-q --mlx 4 --group 64 --out /tmp/tiny-mlx4

A GGUF file has llama.cpp's tensor names, the query and key rows permuted per head as its
converter permutes them (RoPE pairs made adjacent), norms in f32, Llama 3's frequency scaling
as a `rope_freqs` tensor, and every matrix (the embedding table and output too) in the chosen
type: f16, q4_0 and q8_0 (the gguf package's quantizers), or q4_k (quantized here: the gguf
package reads q4_k but does not write it).

`--mlx BITS` writes a checkpoint directory as `mlx-lm` exports one: config.json's
`quantization` entry, and every matrix (the embedding table and output too) as its packed u32
levels `name.weight`, with `name.scales` and `name.biases` in f16, by MLX's affine quantization
(`mx.quantize`, reimplemented here in numpy as docs/quantization.md describes it).

Weights need numpy only for the small sizes; `--torch` draws them with torch (fast for 8B; it
also quantizes q4_0 on the GPU).
"""
import argparse
import json
import os
import sys

SIZES = {
    "tiny": dict(hidden_size=72, intermediate_size=136, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, head_dim=16, vocab_size=300,
                 tie_word_embeddings=False, shards=1),
    "tiny-q": dict(hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                   num_attention_heads=4, num_key_value_heads=2, head_dim=64, vocab_size=300,
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


GGUF_NAMES = {
    "input_layernorm": "attn_norm", "self_attn.q_proj": "attn_q", "self_attn.k_proj": "attn_k",
    "self_attn.v_proj": "attn_v", "self_attn.o_proj": "attn_output",
    "post_attention_layernorm": "ffn_norm", "mlp.gate_proj": "ffn_gate", "mlp.up_proj": "ffn_up",
    "mlp.down_proj": "ffn_down",
}


def gguf_name(name):
    """llama.cpp's name for a Hugging Face tensor name."""
    top = {"model.embed_tokens.weight": "token_embd.weight", "model.norm.weight": "output_norm.weight",
           "lm_head.weight": "output.weight"}
    if name in top:
        return top[name]
    _, _, l, rest = name.split(".", 3)
    return f"blk.{l}.{GGUF_NAMES[rest.rsplit('.', 1)[0]]}.weight"


def permute(w, heads):
    """llama.cpp's converter's row order for attn_q/attn_k: within each head, row 2i + j holds
    Hugging Face's row j * D/2 + i, so RoPE's pairs are adjacent."""
    rows = w.shape[0]
    return w.reshape(heads, 2, rows // heads // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def rope_factors(c):
    """Llama 3's scaling as llama.cpp stores it: a divisor per frequency (rope_freqs.weight)."""
    import numpy as np
    sys.path.insert(0, os.path.dirname(__file__))
    from reference import inv_freq
    base = dict(c)
    base.pop("rope_scaling")
    return (inv_freq(base) / inv_freq(c)).astype(np.float32)


def quantize_q4_k(x):
    """x [rows, K] (K a multiple of 256) as q4_k blocks [rows, K / 256 * 144]: per 32 values a
    6-bit scale and min (relative to the block's f16 d and dmin), 4-bit values, packed as
    ggml's dequantize_row_q4_K reads them."""
    import numpy as np
    rows, k = x.shape
    b = x.astype(np.float32).reshape(-1, 8, 32)
    lo = np.minimum(b.min(-1), 0.0)
    scale = (b.max(-1) - lo) / 15.0
    d = (scale.max(-1) / 63.0).astype(np.float16)
    dmin = ((-lo).max(-1) / 63.0).astype(np.float16)
    safe = lambda v: np.where(v == 0, 1.0, v)  # noqa: E731
    sc = np.clip(np.round(scale / safe(d.astype(np.float32))[:, None]), 0, 63).astype(np.uint8)
    m = np.clip(np.round(-lo / safe(dmin.astype(np.float32))[:, None]), 0, 63).astype(np.uint8)
    step = d.astype(np.float32)[:, None] * sc
    offset = dmin.astype(np.float32)[:, None] * m
    q = np.clip(np.round((b + offset[..., None]) / safe(step)[..., None]), 0, 15).astype(np.uint8)
    scales = np.zeros((b.shape[0], 12), np.uint8)
    scales[:, 0:4] = sc[:, 0:4] | ((sc[:, 4:8] >> 4) << 6)
    scales[:, 4:8] = m[:, 0:4] | ((m[:, 4:8] >> 4) << 6)
    scales[:, 8:12] = (sc[:, 4:8] & 15) | ((m[:, 4:8] & 15) << 4)
    qs = (q[:, 0::2, :] | (q[:, 1::2, :] << 4)).reshape(-1, 128)
    blocks = np.concatenate([d.view(np.uint8).reshape(-1, 2), dmin.view(np.uint8).reshape(-1, 2), scales, qs], axis=1)
    return blocks.reshape(rows, k // 256 * 144)


def quantize_q4_0_torch(t):
    """q4_0 blocks of a CUDA tensor [rows, K], as ggml's reference quantizer makes them (the
    signed largest value maps to -8), computed on the GPU; returns numpy bytes [rows, K/32*18]."""
    import numpy as np
    import torch
    rows, k = t.shape
    b = t.float().reshape(-1, 32)
    idx = b.abs().argmax(-1, keepdim=True)
    d = (b.gather(-1, idx) / -8.0).squeeze(-1)
    inv = torch.where(d == 0, torch.zeros_like(d), 1.0 / d)
    q = torch.clamp(torch.floor(b * inv[:, None] + 8.5), 0, 15).to(torch.uint8)
    qs = q[:, :16] | (q[:, 16:] << 4)
    dh = d.half().view(torch.uint8).reshape(-1, 2)
    return torch.cat([dh, qs], 1).reshape(rows, k // 32 * 18).cpu().numpy()


def quantize_mlx(x, bits, group):
    """MLX's affine quantization of x[N, K] (f32): packed u32 levels [N, K * bits / 32], f16
    scales and biases [N, K / group]. Per group the scale spans [min, max] over 2^bits - 1
    levels, signed so the edge of larger magnitude is a level, which is the bias (0 where it
    rounds to level 0); levels are rint((x - bias) / scale) clamped, all in f32."""
    import numpy as np
    n, k = x.shape
    bins = np.float32(2 ** bits - 1)
    g = x.astype(np.float32).reshape(n, k // group, group)
    lo, hi = g.min(axis=2), g.max(axis=2)
    low_edge = np.abs(lo) > np.abs(hi)
    step = np.maximum((hi - lo) / bins, np.float32(1e-7))
    scale = np.where(low_edge, step, -step).astype(np.float32)
    edge = np.where(low_edge, lo, hi).astype(np.float32)
    q0 = np.rint(edge / scale)
    nonzero = q0 != 0
    scale = np.where(nonzero, edge / np.where(nonzero, q0, 1), scale).astype(np.float32)
    bias = np.where(nonzero, edge, 0).astype(np.float32)
    q = np.clip(np.rint((g - bias[:, :, None]) / scale[:, :, None]), 0, bins).astype(np.uint32)
    per_word = 32 // bits
    q = q.reshape(n, k // per_word, per_word) << (np.arange(per_word, dtype=np.uint32) * bits)
    words = np.bitwise_or.reduce(q, axis=2).astype(np.uint32)
    return words, scale.astype(np.float16), bias.astype(np.float16)


def write_gguf(c, a, shapes, rng, torch_mod):
    import gguf
    import numpy as np
    types = {"f16": gguf.GGMLQuantizationType.F16, "q4_0": gguf.GGMLQuantizationType.Q4_0,
             "q8_0": gguf.GGMLQuantizationType.Q8_0, "q4_k": gguf.GGMLQuantizationType.Q4_K}
    file_types = {"f16": gguf.LlamaFileType.MOSTLY_F16, "q4_0": gguf.LlamaFileType.MOSTLY_Q4_0,
                  "q8_0": gguf.LlamaFileType.MOSTLY_Q8_0, "q4_k": gguf.LlamaFileType.MOSTLY_Q4_K_M}
    qtype = types[a.gguf]
    w = gguf.GGUFWriter(a.out, "llama")
    d = c["head_dim"]
    w.add_block_count(c["num_hidden_layers"])
    w.add_context_length(c["max_position_embeddings"])
    w.add_embedding_length(c["hidden_size"])
    w.add_feed_forward_length(c["intermediate_size"])
    w.add_head_count(c["num_attention_heads"])
    w.add_head_count_kv(c["num_key_value_heads"])
    w.add_key_length(d)
    w.add_value_length(d)
    w.add_rope_dimension_count(d)
    w.add_rope_freq_base(c["rope_theta"])
    w.add_layer_norm_rms_eps(c["rms_norm_eps"])
    w.add_vocab_size(c["vocab_size"])
    w.add_file_type(file_types[a.gguf])
    w.add_tensor("rope_freqs.weight", rope_factors(c))
    total = sum(int(np.prod(s)) for _, s, _ in shapes)
    done = 0
    for name, shape, fan_in in shapes:
        t = draw(shape, fan_in, rng, torch_mod)
        if ".q_proj." in name or ".k_proj." in name:
            heads = c["num_attention_heads"] if ".q_proj." in name else c["num_key_value_heads"]
            t = permute(t, heads)
        if len(shape) == 1:
            w.add_tensor(gguf_name(name), np.asarray(t, dtype=np.float32))
        elif a.gguf == "f16":
            w.add_tensor(gguf_name(name), np.asarray(t))
        elif a.gguf == "q4_0" and torch_mod is not None:
            w.add_tensor(gguf_name(name), quantize_q4_0_torch(t.to(_device(torch_mod))), raw_dtype=qtype)
        else:
            x = np.asarray(t, dtype=np.float32)
            q = quantize_q4_k(x) if a.gguf == "q4_k" else gguf.quants.quantize(x, qtype)
            w.add_tensor(gguf_name(name), q, raw_dtype=qtype)
        done += int(np.prod(shape))
        print(f"\r{done / 1e9:.2f} / {total / 1e9:.2f} G values", end="", file=sys.stderr)
    print(file=sys.stderr)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", choices=sorted(SIZES), default="tiny")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tied", action="store_true", default=None, help="tie lm_head to the embeddings")
    ap.add_argument("--torch", action="store_true", help="draw with torch (GPU if present)")
    ap.add_argument("--gguf", choices=["f16", "q4_0", "q8_0", "q4_k"],
                    help="write a GGUF file of this type at --out instead of a checkpoint directory")
    ap.add_argument("--mlx", type=int, choices=[4, 8],
                    help="write every matrix MLX-quantized to this many bits (numpy only)")
    ap.add_argument("--group", type=int, choices=[32, 64, 128], default=64,
                    help="values per scale and bias with --mlx")
    a = ap.parse_args()
    if a.mlx and (a.gguf or a.torch):
        ap.error("--mlx writes a checkpoint directory with numpy: not with --gguf or --torch")
    c = config_for(a.size, a.tied)
    if a.mlx:
        c["quantization"] = {"group_size": a.group, "bits": a.mlx}
    shards = SIZES[a.size]["shards"]
    if a.gguf:
        if a.torch:
            import torch
            torch.manual_seed(a.seed)
            write_gguf(c, a, tensor_shapes(c), None, torch)
        else:
            import numpy as np
            write_gguf(c, a, tensor_shapes(c), np.random.default_rng(a.seed), None)
        return
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
        if a.mlx and len(shape) == 2:
            base = name[: -len(".weight")]
            words, scales, biases = quantize_mlx(np.asarray(t, dtype=np.float32), a.mlx, a.group)
            current.update({name: words, base + ".scales": scales, base + ".biases": biases})
        else:
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
