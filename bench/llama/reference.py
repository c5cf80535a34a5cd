#!/usr/bin/env python3
"""An independent Llama decoder in numpy, for checking tilecast's logits: it reads the same
checkpoint (config.json and safetensors, MLX-quantized ones too, or a GGUF file) and generates
greedily, returning every step's logits. A GGUF file's tensors are dequantized by the gguf package (the format's
own reader) and its query/key rows put back in Hugging Face's order, so the decoder below runs
the same dequantized weights tilecast runs quantized. Where tilecast multiplies quantized
weights by up to 8 rows at once (`qgemv`), it first rounds each 32 activations to int8 levels of
their largest magnitude, as llama.cpp does; the reference rounds them the same way there.

It follows Hugging Face's LlamaForCausalLM: RMSNorm, RoPE with NeoX half-split pairs and the
config's llama3 frequency scaling, grouped-query attention, SwiGLU, tied or untied output. It
computes in float32 and rounds to float16 where tilecast stores an activation in f16 (each
kernel's output), so the two agree to f16 rounding rather than drifting apart step by step.

    python bench/llama/reference.py --model DIR --prompt-ids 1,2,3 --new-tokens 8 --out ref.npy
"""
import argparse
import json
import math
import os

import numpy as np


def f16(x):
    return x.astype(np.float16).astype(np.float32)


def mlx_dequantize(words, scales, biases, bits):
    """MLX's `mx.dequantize` (affine): `scale * q + bias`, each operation rounded to the
    scales' type as MLX computes in it; f32 out."""
    per_word = 32 // bits
    shifts = np.arange(per_word, dtype=np.uint32) * bits
    q = ((words[:, :, None] >> shifts) & ((1 << bits) - 1)).reshape(words.shape[0], -1)
    group = q.shape[1] // scales.shape[1]
    t = scales.dtype
    s = np.repeat(scales, group, axis=1)
    b = np.repeat(biases, group, axis=1)
    return ((s * q.astype(t)).astype(t) + b).astype(t).astype(np.float32)


def load(model_dir):
    from safetensors.numpy import load_file
    with open(os.path.join(model_dir, "config.json")) as f:
        c = json.load(f)
    tensors = {}
    index = os.path.join(model_dir, "model.safetensors.index.json")
    files = sorted(set(json.load(open(index))["weight_map"].values())) if os.path.exists(index) else ["model.safetensors"]
    for name in files:
        tensors.update(load_file(os.path.join(model_dir, name)))
    # MLX-quantized matrices (mlx-lm's exports): levels, scales and biases to float weights.
    # tilecast's 4-bit mat-vec rounds its activations to int8 (qgemv); its 8-bit one does not.
    q, c["quantized"] = c.get("quantization"), set()
    for name in [k for k in tensors if k.endswith(".scales")] if q else []:
        base = name[: -len(".scales")]
        words = tensors.pop(base + ".weight")
        tensors[base + ".weight"] = mlx_dequantize(words, tensors.pop(name), tensors.pop(base + ".biases"), q["bits"])
        if q["bits"] == 4:
            c["quantized"].add(base + ".weight")
    w = {k: v.astype(np.float32) for k, v in tensors.items()}
    return c, w


def load_gguf(path):
    """(config, weights) of a GGUF file, under Hugging Face's names and layout."""
    import gguf
    r = gguf.GGUFReader(path)

    def field(key, default=None):
        f = r.fields.get(key)
        return default if f is None else f.contents()

    c = dict(
        hidden_size=field("llama.embedding_length"), intermediate_size=field("llama.feed_forward_length"),
        num_hidden_layers=field("llama.block_count"), num_attention_heads=field("llama.attention.head_count"),
        rms_norm_eps=field("llama.attention.layer_norm_rms_epsilon"), rope_theta=field("llama.rope.freq_base", 10000.0),
    )
    c["num_key_value_heads"] = field("llama.attention.head_count_kv", c["num_attention_heads"])
    c["head_dim"] = field("llama.attention.key_length", c["hidden_size"] // c["num_attention_heads"])
    names = {
        "token_embd": "model.embed_tokens", "output_norm": "model.norm", "output": "lm_head",
        "attn_norm": "input_layernorm", "attn_q": "self_attn.q_proj", "attn_k": "self_attn.k_proj",
        "attn_v": "self_attn.v_proj", "attn_output": "self_attn.o_proj", "ffn_norm": "post_attention_layernorm",
        "ffn_gate": "mlp.gate_proj", "ffn_up": "mlp.up_proj", "ffn_down": "mlp.down_proj",
    }
    w, quantized = {}, set()
    for t in r.tensors:
        x = gguf.quants.dequantize(t.data, t.tensor_type).astype(np.float32)
        x = x.reshape([int(n) for n in reversed(t.shape)])
        if t.name == "rope_freqs.weight":
            c["rope_freq_factors"] = x
            continue
        parts = t.name.split(".")
        if parts[0] == "blk":
            role = parts[2]
            if role in ("attn_q", "attn_k"):
                heads = c["num_attention_heads"] if role == "attn_q" else c["num_key_value_heads"]
                # Undo the converter's permutation: row 2i + j of a head back to j * D/2 + i.
                x = x.reshape(heads, x.shape[0] // heads // 2, 2, -1).swapaxes(1, 2).reshape(x.shape)
            name = f"model.layers.{parts[1]}.{names[role]}.weight"
        else:
            name = names[parts[0]] + ".weight"
        w[name] = x
        if t.tensor_type not in (gguf.GGMLQuantizationType.F32, gguf.GGMLQuantizationType.F16):
            quantized.add(name)
    c["quantized"] = quantized
    c["vocab_size"] = field("llama.vocab_size", w["model.embed_tokens.weight"].shape[0])
    c["tie_word_embeddings"] = "lm_head.weight" not in w
    return c, w


def inv_freq(c):
    d = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
    base = c.get("rope_theta", 10000.0)
    freqs = 1.0 / base ** (np.arange(0, d, 2, dtype=np.float64) / d)
    if c.get("rope_freq_factors") is not None:
        return freqs / np.asarray(c["rope_freq_factors"], dtype=np.float64)
    s = c.get("rope_scaling")
    if s:
        factor, lo, hi = s["factor"], s["low_freq_factor"], s["high_freq_factor"]
        old = s["original_max_position_embeddings"]
        out = []
        for f in freqs:
            wavelen = 2 * math.pi / f
            if wavelen < old / hi:
                out.append(f)
            elif wavelen > old / lo:
                out.append(f / factor)
            else:
                smooth = (old / wavelen - lo) / (hi - lo)
                out.append((1 - smooth) * f / factor + smooth * f)
        freqs = np.array(out)
    return freqs


def int8_blocks(x):
    """x[..., K] with each 32 values rounded to int8 levels of their largest magnitude."""
    b = x.reshape(*x.shape[:-1], -1, 32)
    amax = np.abs(b).max(axis=-1, keepdims=True)
    d = amax / 127.0
    return (np.round(b / np.where(d == 0, 1.0, d)) * d).reshape(x.shape).astype(np.float32)


def rms_norm(x, w, eps):
    x32 = x.astype(np.float32)
    return f16(x32 / np.sqrt(np.mean(x32 * x32, axis=-1, keepdims=True) + eps) * w)


def rope(x, pos, freqs):
    """x[T, H, D] at positions pos[T], NeoX pairs (i, i + D/2)."""
    ang = pos[:, None].astype(np.float64) * freqs[None, :]
    cos, sin = np.cos(ang).astype(np.float32)[:, None, :], np.sin(ang).astype(np.float32)[:, None, :]
    half = x.shape[-1] // 2
    x0, x1 = x[..., :half], x[..., half:]
    return f16(np.concatenate([x0 * cos - x1 * sin, x1 * cos + x0 * sin], axis=-1))


class Llama:
    def __init__(self, model):
        """`model`: a checkpoint directory or a GGUF file."""
        self.c, self.w = load_gguf(model) if model.endswith(".gguf") else load(model)
        c = self.c
        self.d = c.get("head_dim") or c["hidden_size"] // c["num_attention_heads"]
        self.freqs = inv_freq(c)
        self.eps = c["rms_norm_eps"]
        self.head_name = "model.embed_tokens.weight" if c.get("tie_word_embeddings") else "lm_head.weight"
        self.lm_head = self.w[self.head_name]
        self.quantized = c.get("quantized", set())

    def mm(self, x, name, rows):
        """x @ W^T for weight `name`, in a launch over `rows` rows (all sequences' tokens)."""
        if name in self.quantized and rows <= 8:
            x = int8_blocks(x)
        return x @ self.w[name].T

    def run(self, prompt, steps, follow=None):
        """prompt[B, S] ids; returns (logits[steps, B, V], ids[B, steps]). With `follow`
        (ids[B, steps] another decoder picked) those tokens are fed back instead of this one's
        picks, so the two decoders' logits stay comparable past a near tie."""
        b, s = prompt.shape
        c, w, d = self.c, self.w, self.d
        nh, kv, L = c["num_attention_heads"], c["num_key_value_heads"], c["num_hidden_layers"]
        cache = [[[None, None] for _ in range(L)] for _ in range(b)]
        logits_all, ids = [], []
        tokens = [list(p) for p in prompt]
        for step in range(steps):
            out = []
            for bi in range(b):
                toks = tokens[bi] if step == 0 else tokens[bi][-1:]
                start = 0 if step == 0 else len(tokens[bi]) - 1
                pos = np.arange(start, start + len(toks))
                h = w["model.embed_tokens.weight"][np.array(toks)]
                for l in range(L):
                    p = f"model.layers.{l}"
                    y = rms_norm(h, w[f"{p}.input_layernorm.weight"], self.eps)
                    rows = b * len(toks)
                    q = f16(self.mm(y, f"{p}.self_attn.q_proj.weight", rows)).reshape(len(toks), nh, d)
                    k = f16(self.mm(y, f"{p}.self_attn.k_proj.weight", rows)).reshape(len(toks), kv, d)
                    v = f16(self.mm(y, f"{p}.self_attn.v_proj.weight", rows)).reshape(len(toks), kv, d)
                    q, k = rope(q, pos, self.freqs), rope(k, pos, self.freqs)
                    kc, vc = cache[bi][l]
                    kc = k if kc is None else np.concatenate([kc, k])
                    vc = v if vc is None else np.concatenate([vc, v])
                    cache[bi][l] = [kc, vc]
                    o = np.zeros((len(toks), nh, d), np.float32)
                    for hh in range(nh):
                        g = hh // (nh // kv)
                        sc = (q[:, hh, :] @ kc[:, g, :].T) / math.sqrt(d)
                        allowed = np.arange(kc.shape[0])[None, :] <= pos[:, None]
                        sc = np.where(allowed, sc, -np.inf)
                        sc = np.exp(sc - sc.max(axis=1, keepdims=True))
                        o[:, hh, :] = (sc / sc.sum(axis=1, keepdims=True)) @ vc[:, g, :]
                    o = f16(o).reshape(len(toks), nh * d)
                    h = f16(h + f16(self.mm(o, f"{p}.self_attn.o_proj.weight", rows)))
                    y = rms_norm(h, w[f"{p}.post_attention_layernorm.weight"], self.eps)
                    g_ = f16(self.mm(y, f"{p}.mlp.gate_proj.weight", rows))
                    u = f16(self.mm(y, f"{p}.mlp.up_proj.weight", rows))
                    a = f16(g_ / (1 + np.exp(-g_)) * u)
                    h = f16(h + f16(self.mm(a, f"{p}.mlp.down_proj.weight", rows)))
                y = rms_norm(h[-1:], w["model.norm.weight"], self.eps)
                out.append(self.mm(y, self.head_name, b)[0])
            logits = np.stack(out)
            logits_all.append(logits)
            nxt = logits.argmax(axis=1)
            ids.append(nxt)
            for bi in range(b):
                tokens[bi].append(int(nxt[bi] if follow is None else follow[bi][step]))
        return np.stack(logits_all), np.stack(ids, axis=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--prompt-ids", required=True, help="comma-separated; rows split by ';'")
    ap.add_argument("--new-tokens", type=int, default=8)
    ap.add_argument("--out", required=True, help=".npy file for the logits [steps, batch, vocab]")
    a = ap.parse_args()
    prompt = np.array([[int(t) for t in row.split(",")] for row in a.prompt_ids.split(";")])
    logits, ids = Llama(a.model).run(prompt, a.new_tokens)
    np.save(a.out, logits)
    print(json.dumps({"ids": ids.tolist()}))


if __name__ == "__main__":
    main()
