#!/usr/bin/env python3
"""tilecast generate's peer: a gpt-fast-style Llama decoder in plain PyTorch on the same
checkpoint. Static KV cache, the decode step captured in a CUDA graph, SDPA (GQA), f16. It
times the prompt's pass and the decode steps the way `tilecast generate` does, and writes every
step's logits for the comparison.

With `--int4` every projection and the output layer run as gpt-fast's int4 variant does:
weights quantized to 4 bits in groups of 128 (asymmetric, a bf16 scale and zero per group),
multiplied by torch's tinygemm kernel (`_weight_int4pack_mm`) on bf16 activations. That is the
peer of a GGUF q4_0 model's decode; its quantization is its own, so its logits are not compared.

    python bench/llama/torch_peer.py --model DIR --prompt-ids-json tilecast.json \\
        --new-tokens 128 --logits peer.npy --json peer.json [--int4]

`--model` may name a GGUF file: its weights, dequantized by the gguf package, run in f16, so a
quantized file's logits have a peer on the very weights tilecast multiplies.
"""
import argparse
import json
import math
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(__file__))
from reference import inv_freq  # noqa: E402  (the llama3 frequencies, shared with the numpy reference)


# CPU only to try the script without a GPU (no graph there; timings meaningless).
DEV = "cuda" if torch.cuda.is_available() else "cpu"


def load(model_dir):
    if model_dir.endswith(".gguf"):
        # The file's weights dequantized by the gguf package, in Hugging Face's layout: the
        # f16 peer of a quantized file's logits.
        from reference import load_gguf
        cfg, w = load_gguf(model_dir)
        cfg.pop("quantized", None)
        return cfg, {k: torch.from_numpy(v).to(DEV, torch.float16) for k, v in w.items()}
    from safetensors.torch import load_file
    cfg = json.load(open(os.path.join(model_dir, "config.json")))
    index = os.path.join(model_dir, "model.safetensors.index.json")
    files = sorted(set(json.load(open(index))["weight_map"].values())) if os.path.exists(index) else ["model.safetensors"]
    w = {}
    for f in files:
        w.update({k: v.to(DEV, torch.float16) for k, v in load_file(os.path.join(model_dir, f)).items()})
    return cfg, w


def sync():
    if DEV == "cuda":
        torch.cuda.synchronize()


def int4_pack(w, group=128):
    """w [n, k] (f16) as tinygemm's int4 layout and its [k / group, n, 2] bf16 scales and zeros."""
    n, k = w.shape
    g = w.float().reshape(n, k // group, group)
    lo, hi = g.amin(-1), g.amax(-1)
    scales = (hi - lo).clamp(min=1e-6) / 15
    zeros = lo + scales * 8
    q = ((g - lo[..., None]) / scales[..., None]).round().clamp(0, 15).to(torch.int32).reshape(n, k)
    packed = torch.ops.aten._convert_weight_to_int4pack((q[:, ::2] << 4 | q[:, 1::2]).to(torch.uint8), 8)
    sz = torch.stack([scales, zeros], -1).transpose(0, 1).contiguous().to(torch.bfloat16)
    return packed, sz


class Llama:
    def __init__(self, cfg, w, batch, max_len, int4=False):
        self.c, self.w = cfg, w
        self.int4 = {}
        if int4:
            head = "model.embed_tokens.weight" if cfg.get("tie_word_embeddings") else "lm_head.weight"
            for name in [n for n in w if n.endswith("_proj.weight")] + [head]:
                self.int4[name] = (w[name].shape[0],) + int4_pack(w[name])
                if name != "model.embed_tokens.weight":
                    del w[name]
            torch.cuda.empty_cache()
        self.head_name = "model.embed_tokens.weight" if cfg.get("tie_word_embeddings") else "lm_head.weight"
        self.nh, self.kv = cfg["num_attention_heads"], cfg["num_key_value_heads"]
        self.d = cfg.get("head_dim") or cfg["hidden_size"] // self.nh
        self.L, self.eps = cfg["num_hidden_layers"], cfg["rms_norm_eps"]
        f = torch.tensor(inv_freq(cfg), dtype=torch.float64)
        ang = torch.arange(max_len, dtype=torch.float64)[:, None] * f[None, :]
        self.cos, self.sin = ang.cos().float().to(DEV), ang.sin().float().to(DEV)
        shape = (batch, self.kv, max_len, self.d)
        self.k = [torch.zeros(shape, dtype=torch.float16, device=DEV) for _ in range(self.L)]
        self.v = [torch.zeros(shape, dtype=torch.float16, device=DEV) for _ in range(self.L)]
        self.max_len = max_len

    def mm(self, x, name):
        """x @ W^T for weight `name`: f16, or the int4 kernel on bf16 activations."""
        if name in self.int4:
            n, packed, sz = self.int4[name]
            y = torch.ops.aten._weight_int4pack_mm(x.reshape(-1, x.shape[-1]).to(torch.bfloat16), packed, 128, sz)
            return y.to(torch.float16).reshape(*x.shape[:-1], n)
        return x @ self.w[name].T

    def norm(self, x, w):
        x32 = x.float()
        return (x32 * torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + self.eps) * w.float()).half()

    def rope(self, x, pos):  # x [B, T, H, D], pos [T]
        c, s = self.cos[pos][None, :, None, :], self.sin[pos][None, :, None, :]
        h = x.shape[-1] // 2
        x0, x1 = x[..., :h].float(), x[..., h:].float()
        return torch.cat([x0 * c - x1 * s, x1 * c + x0 * s], -1).half()

    def forward(self, ids, pos, prefill):
        """ids [B, T] at positions pos [T]; logits of the last position [B, V] (f32)."""
        w, (b, t) = self.w, ids.shape
        h = w["model.embed_tokens.weight"][ids]
        for l in range(self.L):
            p = f"model.layers.{l}"
            y = self.norm(h, w[f"{p}.input_layernorm.weight"])
            q = self.mm(y, f"{p}.self_attn.q_proj.weight").view(b, t, self.nh, self.d)
            k = self.mm(y, f"{p}.self_attn.k_proj.weight").view(b, t, self.kv, self.d)
            v = self.mm(y, f"{p}.self_attn.v_proj.weight").view(b, t, self.kv, self.d)
            q, k = self.rope(q, pos).transpose(1, 2), self.rope(k, pos).transpose(1, 2)
            v = v.transpose(1, 2)
            self.k[l].index_copy_(2, pos, k)
            self.v[l].index_copy_(2, pos, v)
            if prefill:
                o = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            else:
                mask = (torch.arange(self.max_len, device=DEV) <= pos[-1])[None, None, None, :]
                o = F.scaled_dot_product_attention(q, self.k[l], self.v[l], attn_mask=mask, enable_gqa=True)
            o = o.transpose(1, 2).reshape(b, t, self.nh * self.d)
            h = h + self.mm(o, f"{p}.self_attn.o_proj.weight")
            y = self.norm(h, w[f"{p}.post_attention_layernorm.weight"])
            g = self.mm(y, f"{p}.mlp.gate_proj.weight")
            u = self.mm(y, f"{p}.mlp.up_proj.weight")
            h = h + self.mm(F.silu(g) * u, f"{p}.mlp.down_proj.weight")
        y = self.norm(h[:, -1], w["model.norm.weight"])
        return self.mm(y, self.head_name).float()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", required=True)
    ap.add_argument("--prompt-ids-json", required=True, help="tilecast generate --json output (its prompt_ids)")
    ap.add_argument("--new-tokens", type=int, default=128)
    ap.add_argument("--logits", help=".npy for every step's logits [steps, batch, vocab]")
    ap.add_argument("--json", required=True)
    ap.add_argument("--int4", action="store_true", help="gpt-fast's int4 weights (tinygemm, group 128)")
    a = ap.parse_args()
    prompt = torch.tensor(json.load(open(a.prompt_ids_json))["prompt_ids"], device=DEV)
    b, s = prompt.shape
    cfg, w = load(a.model)
    m = Llama(cfg, w, b, s + a.new_tokens, int4=a.int4)
    spos = torch.arange(s, device=DEV)
    with torch.no_grad():
        for _ in range(2):  # warm-up
            m.forward(prompt, spos, True)
        sync()
        reps = 5
        t0 = time.perf_counter()
        for _ in range(reps):
            first = m.forward(prompt, spos, True)
        sync()
        prefill_ms = (time.perf_counter() - t0) * 1e3 / reps
        # Decode: one step captured, replayed with the token and position in static tensors.
        tok = first.argmax(-1)[:, None].clone()
        pos = torch.tensor([s], device=DEV)
        if DEV == "cuda":
            stream = torch.cuda.Stream()
            stream.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(stream):
                for _ in range(2):
                    out = m.forward(tok, pos, False)
            torch.cuda.current_stream().wait_stream(stream)
            graph = torch.cuda.CUDAGraph()
            with torch.cuda.graph(graph):
                out = m.forward(tok, pos, False)
            step = graph.replay
        else:
            out = torch.empty(0)

            def step():
                out.set_(m.forward(tok, pos, False))
        # The timed run: the prompt again (its cache rows), then the steps.
        first = m.forward(prompt, spos, True)
        logits = [first]
        tok.copy_(first.argmax(-1)[:, None])
        pos.fill_(s)
        sync()
        t0 = time.perf_counter()
        for i in range(1, a.new_tokens):
            step()
            logits.append(out.clone())
            tok.copy_(out.argmax(-1)[:, None])
            pos.add_(1)
        sync()
        steps = max(a.new_tokens - 1, 1)
        decode_ms = (time.perf_counter() - t0) * 1e3 / steps
    lg = torch.stack(logits)
    ids = lg.argmax(-1).T.tolist()
    if a.logits:
        import numpy as np
        np.save(a.logits, lg.cpu().numpy())
    r = dict(device=torch.cuda.get_device_name() if DEV == "cuda" else "cpu", torch=torch.__version__, batch=b, prompt_len=s,
             weights="int4 (tinygemm, group 128)" if a.int4 else
             "f16 (the file's weights, dequantized)" if a.model.endswith(".gguf") else "f16",
             prefill_ms=prefill_ms, prefill_tokens_per_s=b * s / prefill_ms * 1e3,
             decode_ms_per_step=decode_ms, decode_tokens_per_s=b / decode_ms * 1e3, ids=ids)
    json.dump(r, open(a.json, "w"), indent=1)
    print(json.dumps({k: v for k, v in r.items() if k != "ids"}))


if __name__ == "__main__":
    main()
