"""A Q4_0 matrix-vector product written in Python: ``Y[N] = W[N, K] @ X[K]`` with ``W`` in
GGUF's Q4_0 layout, read in place.

A Q4_0 row is ``K / 32`` blocks of 18 bytes: an f16 scale ``d``, then 16 bytes whose low
nibbles are values 0..15 and high nibbles values 16..31, each ``(q - 8) * d``. Blocks start at
even byte offsets, so a block's words are realigned by half a word where needed. Each
threadgroup takes ``ROWS`` rows; each element of its parallel body decodes one block of one
row, and the blocks' partial sums are added along the row.

Run it: ``python examples/q4_0_gemv.py``.
"""

import numpy as np

import tilecast as tc

BLOCK_BYTES = 18


@tc.jit
def q4_0_gemv(W: tc.Tensor[tc.u8, "N", "RB"], X: tc.Tensor[tc.f32, "K"],
              Y: tc.Out[tc.f32, "N"], *, ROWS: int = 32, BLOCKS: int = 8) -> None:
    N, RB = W.shape
    K = X.shape[0]
    k = tc.Kernel("q4_0_gemv", grid=[tc.ceil_div(N, ROWS)], threads=128)
    part = k.fragment(tc.f32, [ROWS, BLOCKS])
    total = k.shared(tc.f32, [ROWS])
    row0 = tc.block_x() * ROWS
    k.clear(total)

    def half_word(byte: tc.Expr) -> tc.Expr:
        """The 16 bits at even byte offset ``byte`` of W."""
        return (W.word(byte // 4) >> ((byte % 4) * 8)) & 0xFFFF

    def word_at(byte: tc.Expr) -> tc.Expr:
        """The 32 bits at even byte offset ``byte`` of W (two words joined where it is not a
        multiple of 4)."""
        lo, hi = W.word(byte // 4), W.word(byte // 4 + 1)
        return tc.select(byte % 4 == 0, lo, (lo >> 16) | (hi << 16))

    with k.serial(tc.ceil_div(K / 32, BLOCKS)) as step:
        with k.parallel(part) as (r, j):
            blk = step * BLOCKS + j
            start = k.let("start", (row0 + r) * RB + blk * BLOCK_BYTES)
            d = k.let("d", tc.cast(tc.bitcast(half_word(start), tc.f16), tc.f32))
            dot: tc.Expr | float = 0.0
            for w in range(4):
                q = k.let(f"q{w}", word_at(start + 2 + 4 * w))
                for i in range(4):
                    x_lo = X[blk * 32 + 4 * w + i]
                    x_hi = X[blk * 32 + 16 + 4 * w + i]
                    dot = dot + (tc.cast(q.bits(8 * i, 4), tc.f32) - 8.0) * x_lo
                    dot = dot + (tc.cast(q.bits(8 * i + 4, 4), tc.f32) - 8.0) * x_hi
            inside = (blk < K / 32) & (row0 + r < N)
            part[r, j] = tc.select(inside, dot * d, 0.0)
        k.reduce_sum(part, total, 1, clear=False)
    with k.parallel(ROWS) as r:
        Y[row0 + r] = total[r]


def quantize_q4_0(w: np.ndarray) -> np.ndarray:
    """``w [N, K]`` (f32, K a multiple of 32) as Q4_0 bytes ``[N, K / 32 * 18]``, as ggml packs it."""
    n, kd = w.shape
    blocks = w.reshape(n, kd // 32, 32)
    amax_at = np.abs(blocks).argmax(axis=2)
    mx = np.take_along_axis(blocks, amax_at[..., None], axis=2)[..., 0]
    d = (mx / np.float32(-8.0)).astype(np.float32)
    with np.errstate(divide="ignore"):
        inv = np.where(d != 0, np.float32(1.0) / d, np.float32(0.0)).astype(np.float32)
    q = np.clip(np.trunc(blocks * inv[..., None] + np.float32(8.5)), 0, 15).astype(np.uint8)
    d = d.astype(np.float16)
    packed = q[..., :16] | (q[..., 16:] << 4)
    out = np.concatenate([d[..., None].view(np.uint8), packed], axis=2)
    return out.reshape(n, kd // 32 * BLOCK_BYTES)


def dequantize_q4_0(b: np.ndarray) -> np.ndarray:
    """Q4_0 bytes ``[N, K / 32 * 18]`` as f32 ``[N, K]``."""
    n = b.shape[0]
    blocks = b.reshape(n, -1, BLOCK_BYTES)
    d = blocks[..., :2].copy().view(np.float16).astype(np.float32)
    q = blocks[..., 2:]
    vals = np.concatenate([q & 15, q >> 4], axis=2).astype(np.float32) - 8.0
    return (vals * d).reshape(n, -1)


def check(n: int = 77, kd: int = 320) -> float:
    """Runs ``q4_0_gemv`` on a random quantized matrix and returns the largest error against
    numpy on the same dequantized weights."""
    rng = np.random.default_rng(4)
    w = quantize_q4_0(rng.standard_normal((n, kd)).astype(np.float32))
    x = rng.standard_normal(kd).astype(np.float32)
    y = np.from_dlpack(q4_0_gemv(w, x))
    return float(np.abs(y - dequantize_q4_0(w) @ x).max())


if __name__ == "__main__":
    print(f"q4_0_gemv: largest error {check():.2e}")
