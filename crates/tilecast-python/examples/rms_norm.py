"""RMS norm over the last axis of ``X[R, C]`` written in Python: ``x / sqrt(mean(x^2) + eps) * w``.

Each threadgroup takes ``BR`` rows in ``BC``-column chunks: one pass sums the squares (columns
past ``C`` read as zero, which adds nothing), the second scales and writes.

Run it: ``python examples/rms_norm.py``.
"""

import numpy as np

import tilecast as tc


@tc.jit
def rms_norm(X: tc.Tensor[tc.f32, "R", "C"], W: tc.Tensor[tc.f32, "C"],
             Y: tc.Out[tc.f32, "R", "C"], eps: float, *, BR: int = 4, BC: int = 128) -> None:
    R, C = X.shape
    k = tc.Kernel("rms_norm", grid=[tc.ceil_div(R, BR)], threads=128)
    chunk = k.fragment(tc.f32, [BR, BC])
    sum_sq = k.shared(tc.f32, [BR])
    row0 = tc.block_x() * BR
    k.clear(sum_sq)
    with k.serial(tc.ceil_div(C, BC)) as c:
        k.copy(X[row0, c * BC], chunk)
        k.reduce_sq_sum(chunk, sum_sq, 1, clear=False)
    with k.serial(tc.ceil_div(C, BC)) as c:
        k.copy(X[row0, c * BC], chunk)
        with k.parallel(chunk) as (i, j):
            inv = tc.rsqrt(sum_sq[i] / tc.cast(C, tc.f32) + eps)
            chunk[i, j] = chunk[i, j] * inv * W[c * BC + j]
        k.copy(chunk, Y[row0, c * BC])


def check(r: int = 11, c: int = 203, eps: float = 1e-5) -> float:
    """Runs ``rms_norm`` on random rows and returns the largest error against numpy."""
    rng = np.random.default_rng(2)
    x = rng.standard_normal((r, c)).astype(np.float32)
    w = rng.standard_normal(c).astype(np.float32)
    y = np.from_dlpack(rms_norm(x, w, eps=eps))
    want = x / np.sqrt((x * x).mean(axis=1, keepdims=True) + eps) * w
    return float(np.abs(y - want).max())


if __name__ == "__main__":
    print(f"rms_norm: largest error {check():.2e}")
