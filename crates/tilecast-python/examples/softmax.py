"""Softmax over the last axis of ``X[R, C]`` (f32) written in Python, for rows of any length.

Each threadgroup takes ``BR`` rows and walks them in ``BC``-column chunks three times: the
running row maximum, the running sum of ``exp(x - max)``, then the output. Columns past ``C``
read as zero, so each pass masks them.

Run it: ``python examples/softmax.py``.
"""

import numpy as np

import tilecast as tc


@tc.jit
def softmax(X: tc.Tensor[tc.f32, "R", "C"], Y: tc.Out[tc.f32, "R", "C"], *, BR: int = 4,
            BC: int = 128) -> None:
    R, C = X.shape
    k = tc.Kernel("softmax", grid=[tc.ceil_div(R, BR)], threads=128)
    chunk = k.fragment(tc.f32, [BR, BC])
    row_max = k.shared(tc.f32, [BR])
    row_sum = k.shared(tc.f32, [BR])
    row0 = tc.block_x() * BR
    chunks = tc.ceil_div(C, BC)
    k.fill(row_max, tc.neg_inf())
    k.clear(row_sum)
    with k.serial(chunks) as c:
        k.copy(X[row0, c * BC], chunk)
        with k.parallel(chunk) as (i, j):
            chunk[i, j] = tc.select(c * BC + j < C, chunk[i, j], tc.neg_inf())
        k.reduce_max(chunk, row_max, 1, clear=False)
    with k.serial(chunks) as c:
        k.copy(X[row0, c * BC], chunk)
        with k.parallel(chunk) as (i, j):
            e = tc.exp(chunk[i, j] - row_max[i])
            chunk[i, j] = tc.select(c * BC + j < C, e, 0.0)
        k.reduce_sum(chunk, row_sum, 1, clear=False)
    with k.serial(chunks) as c:
        k.copy(X[row0, c * BC], chunk)
        with k.parallel(chunk) as (i, j):
            chunk[i, j] = tc.exp(chunk[i, j] - row_max[i]) / row_sum[i]
        k.copy(chunk, Y[row0, c * BC])


def check(r: int = 13, c: int = 301) -> float:
    """Runs ``softmax`` on random ``[r, c]`` rows and returns the largest error against numpy."""
    x = np.random.default_rng(1).standard_normal((r, c)).astype(np.float32) * 4
    y = np.from_dlpack(softmax(x))
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return float(np.abs(y - e / e.sum(axis=1, keepdims=True)).max())


if __name__ == "__main__":
    print(f"softmax: largest error {check():.2e}")
