"""Causal flash attention with grouped-query heads, written in Python:
``O = softmax(Q K^T * scale + causal mask) V``.

``Q[B, H, S, D]``, ``K`` and ``V`` ``[B, KV, T, D]``, ``O[B, H, S, D]`` (f16). Query head ``h``
reads key/value head ``h / (H / KV)``; query ``i`` sees keys ``j <= i + T - S`` (the mask
aligned to the end, as a decoder's prompt continues its cache). Each threadgroup holds ``BM``
query rows; key and value blocks of ``BN`` are pipelined through threadgroup memory, and the
online softmax keeps its row statistics in base 2 in row fragments of the scores.

Run it: ``python examples/flash_attention.py``.
"""

import math

import numpy as np

import tilecast as tc

LOG2_E = math.log2(math.e)


@tc.jit
def flash_attention(Q: tc.Tensor[tc.f16, "B", "H", "S", "D"],
                    K: tc.Tensor[tc.f16, "B", "KV", "T", "D"],
                    V: tc.Tensor[tc.f16, "B", "KV", "T", "D"],
                    O: tc.Out[tc.f16, "B", "H", "S", "D"], scale: float, *, D: int = 64,
                    BM: int = 32, BN: int = 32, stages: int = 2) -> None:
    B, H, S, _ = Q.shape
    KV, T = K.shape[1], K.shape[2]
    k = tc.Kernel("flash_attention", grid=[tc.ceil_div(S, BM), H, B], threads=128)
    q_s = k.shared(tc.f16, [BM, D])
    k_s = k.shared(tc.f16, [BN, D])
    v_s = k.shared(tc.f16, [BN, D])
    scores = k.fragment(tc.f32, [BM, BN])
    probs = k.fragment(tc.f16, [BM, BN])
    acc = k.fragment(tc.f32, [BM, D])
    row_max = k.fragment(tc.f32, [BM])
    row_sum = k.fragment(tc.f32, [BM])
    block_max = k.fragment(tc.f32, [BM])
    block_sum = k.fragment(tc.f32, [BM])
    alpha = k.fragment(tc.f32, [BM])
    rescale = k.shared(tc.f32, [BM])

    q0, h, b = tc.block_x() * BM, tc.block_y(), tc.block_z()
    kv = h / (H / KV)
    # Queries scaled into base 2 once, so each exponential is one exp2.
    k.copy(Q.window([b, h, q0, 0], [2, 3]), q_s)
    with k.parallel(q_s) as (r, c):
        q_s[r, c] = tc.cast(tc.cast(q_s[r, c], tc.f32) * (scale * LOG2_E), tc.f16)
    k.clear(acc)
    k.fill(row_max, tc.neg_inf())
    k.clear(row_sum)
    # Key blocks up to the last key the block's last row sees: q0 + BM - 1 + T - S.
    seen = q0 + BM + T
    blocks = tc.ceil_div(tc.select(seen > S, tc.min(seen - S, T), 0), BN)
    with k.pipelined(blocks, stages=stages) as j:
        key0 = j * BN
        k.copy(K.window([b, kv, key0, 0], [2, 3]), k_s)
        k.copy(V.window([b, kv, key0, 0], [2, 3]), v_s)
        k.clear(scores)
        k.gemm(q_s, k_s, scores, trans_b=True)
        with k.parallel(scores) as (r, c):
            visible = (key0 + c < T) & (key0 + c + S <= q0 + r + T)
            scores[r, c] = tc.select(visible, scores[r, c], tc.neg_inf())
        k.reduce_max(scores, block_max, 1)
        with k.parallel(BM) as r:
            new = k.let("new_max", tc.max(row_max[r], block_max[r]))
            a = k.let("alpha", tc.select(new == tc.neg_inf(), 1.0, tc.exp2(row_max[r] - new)))
            alpha[r] = a
            rescale[r] = a
            row_max[r] = new
        with k.parallel(scores) as (r, c):
            m = row_max[r]
            p = k.let("p", tc.select(m == tc.neg_inf(), 0.0, tc.exp2(scores[r, c] - m)))
            scores[r, c] = p
            probs[r, c] = tc.cast(p, tc.f16)
        k.reduce_sum(scores, block_sum, 1)
        with k.parallel(BM) as r:
            row_sum[r] = row_sum[r] * alpha[r] + block_sum[r]
        with k.parallel(acc) as (r, c):
            acc[r, c] = acc[r, c] * rescale[r]
        k.gemm(probs, v_s, acc)
    k.copy(row_sum, rescale)
    with k.parallel(acc) as (r, c):
        acc[r, c] = tc.select(rescale[r] > 0.0, acc[r, c] / rescale[r], 0.0)
    k.copy(acc, O.window([b, h, q0, 0], [2, 3]))


def reference(q: np.ndarray, k: np.ndarray, v: np.ndarray, scale: float) -> np.ndarray:
    """Causal grouped-query attention in numpy (f32)."""
    b, h, s, d = q.shape
    kv, t = k.shape[1], k.shape[2]
    rep = h // kv
    kf = np.repeat(k.astype(np.float32), rep, axis=1)
    vf = np.repeat(v.astype(np.float32), rep, axis=1)
    sc = q.astype(np.float32) @ kf.transpose(0, 1, 3, 2) * scale
    mask = np.arange(t)[None, :] <= np.arange(s)[:, None] + (t - s)
    sc = np.where(mask, sc, -np.inf)
    e = np.exp(sc - sc.max(axis=-1, keepdims=True))
    out: np.ndarray = (e / e.sum(axis=-1, keepdims=True)) @ vf
    return out


def check(b: int = 2, h: int = 4, kv: int = 2, s: int = 37, t: int = 45, d: int = 64) -> float:
    """Runs ``flash_attention`` on random inputs and returns the largest error against numpy."""
    rng = np.random.default_rng(3)
    q = rng.standard_normal((b, h, s, d)).astype(np.float16)
    k = rng.standard_normal((b, kv, t, d)).astype(np.float16)
    v = rng.standard_normal((b, kv, t, d)).astype(np.float16)
    scale = 1.0 / math.sqrt(d)
    o = np.from_dlpack(flash_attention(q, k, v, scale=scale, D=d)).astype(np.float32)
    return float(np.abs(o - reference(q, k, v, scale)).max())


if __name__ == "__main__":
    print(f"flash_attention: largest error {check():.2e}")
