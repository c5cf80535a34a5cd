"""Kernels from Python against numpy references, on ragged shapes (no multiple of any tile)."""

import math

import numpy as np
import pytest

import tilecast
from tilecast import ops


def test_every_catalog_kernel_is_a_function_with_a_signature():
    names = ops.names()
    assert {"gemm", "softmax", "row_sum", "add_gelu", "copy"} <= set(names)
    for name in names:
        assert callable(getattr(ops, name))
        inputs, outputs, _ = ops.signature(name)
        assert inputs and outputs, name


def test_gemm_f16_matches_numpy(rng):
    m, k, n = 37, 53, 29
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = ops.gemm(a, b)  # numpy arrays in, through DLPack
    assert (c.dtype, c.shape) == ("f32", (m, n))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(np.from_dlpack(c), ref, rtol=1e-3, atol=1e-3)


def test_gemm_f32_on_tilecast_buffers_and_streams(rng):
    m, k, n = 65, 31, 70
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    s = tilecast.Stream()
    c = ops.gemm_f32(tilecast.Buffer.from_numpy(a), tilecast.Buffer.from_numpy(b), stream=s)
    s.synchronize()
    np.testing.assert_allclose(c.numpy(), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_softmax_row_sum_add_gelu_copy(rng):
    x = rng.standard_normal((13, 77)).astype(np.float32)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(ops.softmax(x).numpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ops.row_sum(x).numpy(), x.astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-4)
    y = rng.standard_normal((13, 77)).astype(np.float32)
    v = (x + y).astype(np.float64)
    gelu = 0.5 * v * (1 + np.vectorize(math.erf)(v / math.sqrt(2)))
    np.testing.assert_allclose(ops.add_gelu(x, y).numpy(), gelu, rtol=1e-4, atol=1e-5)
    assert np.array_equal(ops.copy(x, storage_mode="managed").numpy(), x)


def test_bad_kernel_calls_raise_clear_errors(rng):
    a = rng.standard_normal((5, 6)).astype(np.float32)
    with pytest.raises(ValueError, match="takes 2 inputs"):
        ops.gemm(a)
    with pytest.raises(ValueError, match="f16"):
        ops.gemm(a, a)  # gemm takes f16 inputs
    with pytest.raises(ValueError, match="dimension"):
        ops.gemm_f32(a, a)  # K mismatch: 6 vs 5
    with pytest.raises(ValueError, match="no scalar"):
        ops.copy(a, alpha=1.0)
    with pytest.raises(KeyError, match="no kernel"):
        tilecast._core.run_kernel("nope", [])
