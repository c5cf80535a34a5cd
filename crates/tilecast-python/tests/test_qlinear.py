"""Quantized matrix products on the device: qgemv (1 to 8 rows) and qgemm on weights packed by
``ops.quantize``, against numpy in f64 on the weights the packing holds (dequantized by the
formats' own tools where they have one: gguf for the GGUF formats)."""

import numpy as np
import pytest

from tilecast import ops

gguf = pytest.importorskip("gguf")
from gguf.constants import GGMLQuantizationType as T  # noqa: E402

GGUF = {"q8_0": T.Q8_0, "q4_0": T.Q4_0, "q4_k": T.Q4_K}


def reference(x, w):
    return x.astype(np.float64) @ w.astype(np.float64).T


def close(got, want, k, extra=0.0):
    # f16 results of K-long f32 sums (weights rounded to f16 in qgemm's tiles).
    tol = 2e-3 + 2e-5 * k + 2e-3 * np.abs(want) + extra
    err = np.abs(got.astype(np.float64) - want)
    assert (err <= tol).all(), f"max error {err.max()} where tolerance {tol[np.argmax(err - tol)]}"


# Float kernel: q4_0 and q8_0 rows that are not whole 64-value units. Integer dot products:
# q4_k, and q4_0 and q8_0 with K a multiple of 64; the activations are quantized to int8, 32 to
# a scale, and the tolerance adds their rounding, 0.01 sqrt(K) for values in [-1, 1]
# (docs/quantization.md).
@pytest.mark.parametrize(
    "fmt,k,int8",
    [("q4_0", 96, False), ("q8_0", 160, False), ("q4_0", 320, True), ("q8_0", 320, True),
     ("q4_k", 512, True)],
)
@pytest.mark.parametrize("rows", [1, 3, 8])
def test_qgemv_gguf(fmt, k, int8, rows, rng):
    n = 37
    w = rng.uniform(-1, 1, (n, k)).astype(np.float32)
    q = ops.quantize(w, fmt)
    x = rng.uniform(-1, 1, (rows, k)).astype(np.float16)
    y = ops.qgemv(x, q, format=fmt).numpy()
    assert y.shape == (rows, n) and y.dtype == np.float16
    wq = gguf.quants.dequantize(q.numpy(), GGUF[fmt])
    close(y, reference(x, wq), k, extra=0.01 * np.sqrt(k) if int8 else 0.0)


@pytest.mark.parametrize("bits", [4, 8])
@pytest.mark.parametrize("group", [32, 64, 128])
def test_qgemv_mlx_finds_format_and_group_from_shapes(bits, group, rng):
    n, k = 29, 256
    w = rng.uniform(-1, 1, (n, k)).astype(np.float16)
    q = ops.quantize(w, f"mlx{bits}", group=group)
    x = rng.uniform(-1, 1, (2, k)).astype(np.float16)
    y = ops.qgemv(x, *q).numpy()
    wq = ops.dequantize(q[0], f"mlx{bits}", k, group, q[1], q[2]).numpy()
    # On integer dot products (K a multiple of 64): the activations' int8 rounding too.
    close(y, reference(x, wq), k, extra=0.01 * np.sqrt(k))


@pytest.mark.parametrize("fmt,m", [("q4_0", 33), ("q4_k", 300), ("q8_0", 260)])
def test_qgemm(fmt, m, rng):
    """Both ways qgemm runs: decoded in the gemm's tiles (33 rows) and decoded once (300)."""
    n, k = 21, 512
    w = rng.uniform(-1, 1, (n, k)).astype(np.float32)
    q = ops.quantize(w, fmt)
    x = rng.uniform(-1, 1, (m, k)).astype(np.float16)
    y = ops.qgemm(x, q, format=fmt).numpy()
    close(y, reference(x, gguf.quants.dequantize(q.numpy(), GGUF[fmt])), k)


def test_bad_quantized_calls_raise(rng):
    w = rng.uniform(-1, 1, (8, 64)).astype(np.float32)
    q = ops.quantize(w, "q4_0")
    x = np.zeros((1, 64), np.float16)
    with pytest.raises(Exception, match="needs a weight format"):
        ops.qgemv(x, q.data)
    with pytest.raises(Exception, match="unknown format"):
        ops.qgemv(x, q.data, format="q5_0")
    with pytest.raises(ValueError, match="format='q8_0' but the weight is q4_0"):
        ops.qgemv(x, q, format="q8_0")
    with pytest.raises(Exception, match="rows = 9: qgemv takes 1 to 8"):
        ops.qgemv(np.zeros((9, 64), np.float16), q, format="q4_0")
    with pytest.raises(Exception, match="input W has shape"):
        ops.qgemv(np.zeros((1, 96), np.float16), q, format="q4_0")
    with pytest.raises(Exception, match="K = 48 is not a multiple of q4_0's 32-value block"):
        ops.qgemv(np.zeros((1, 48), np.float16), np.zeros((8, 27), np.uint8), format="q4_0")
    with pytest.raises(TypeError, match="unexpected keyword argument 'format'"):
        ops.softmax(np.zeros((2, 3), np.float32), format="q4_0")
    q8 = ops.quantize(w.astype(np.float16), "mlx8", group=32)
    with pytest.raises(Exception, match="q4_0 has no group size"):
        ops.qgemv(x, q.data, format="q4_0", group=32)
    with pytest.raises(ValueError, match="group=32 but the weight is"):
        ops.qgemv(x, q, group=32)
    assert ops.qgemv(x, *q8).numpy().shape == (1, 8)
