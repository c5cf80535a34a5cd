"""A tiled matrix product written in Python: ``C[M, N] = A[M, K] @ B[K, N]``, f16 in, f32 out.

Each threadgroup computes one ``[BM, BN]`` block of C: K is walked in ``BK`` steps, each
step's A and B blocks copied into threadgroup memory (pipelined over ``stages`` buffers) and
multiplied into a register accumulator, on matrix units where the device has them.

Run it: ``python examples/gemm.py``.
"""

import numpy as np

import tilecast as tc


@tc.jit
def gemm(A: tc.Tensor[tc.f16, "M", "K"], B: tc.Tensor[tc.f16, "K", "N"],
         C: tc.Out[tc.f32, "M", "N"], *, BM: int = 64, BN: int = 64, BK: int = 32,
         stages: int = 3) -> None:
    M, K = A.shape
    N = B.shape[1]
    k = tc.Kernel("gemm", grid=[tc.ceil_div(N, BN), tc.ceil_div(M, BM)], threads=128)
    A_shared = k.shared(tc.f16, [BM, BK])
    B_shared = k.shared(tc.f16, [BK, BN])
    acc = k.fragment(tc.f32, [BM, BN])
    bx, by = tc.block_x(), tc.block_y()
    k.clear(acc)
    with k.pipelined(tc.ceil_div(K, BK), stages=stages) as ko:
        k.copy(A[by * BM, ko * BK], A_shared)
        k.copy(B[ko * BK, bx * BN], B_shared)
        k.gemm(A_shared, B_shared, acc)
    k.copy(acc, C[by * BM, bx * BN])


def check(m: int = 75, n: int = 83, kd: int = 70) -> float:
    """Runs ``gemm`` on random ``[m, kd] @ [kd, n]`` and returns the largest error against numpy."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, kd)).astype(np.float16)
    b = rng.standard_normal((kd, n)).astype(np.float16)
    c = np.from_dlpack(gemm(a, b))
    want = a.astype(np.float32) @ b.astype(np.float32)
    return float(np.abs(c - want).max())


if __name__ == "__main__":
    print(f"gemm: largest error {check():.2e}")
