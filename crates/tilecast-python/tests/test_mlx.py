"""numpy -> tilecast -> kernel -> MLX -> numpy, and MLX arrays as kernel inputs."""

import ml_dtypes
import numpy as np
import pytest

import tilecast

mx = pytest.importorskip("mlx.core", reason="MLX is not installed (pip install 'mlx[cpu]' on Linux)")


def test_numpy_to_tilecast_to_kernel_to_mlx_to_numpy(rng):
    m, k, n = 19, 45, 33
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = tilecast.ops.gemm(tilecast.from_dlpack(a), tilecast.from_dlpack(b))
    out = mx.array(c)  # MLX reads the result through DLPack
    assert out.shape == (m, n) and out.dtype == mx.float32
    np.testing.assert_allclose(np.array(out), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_mlx_arrays_are_kernel_inputs(rng):
    x = rng.standard_normal((6, 100)).astype(np.float32)
    y = tilecast.ops.softmax(mx.array(x))
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(np.array(mx.array(y)), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    "mx_dtype,np_dtype",
    [
        ("float32", np.float32),
        ("float16", np.float16),
        ("bfloat16", ml_dtypes.bfloat16),
        ("int8", np.int8),
        ("uint8", np.uint8),
    ],
)
def test_mlx_round_trips(mx_dtype, np_dtype, rng):
    x = (rng.standard_normal((7, 23)) * 20).astype(np_dtype)
    arr = mx.array(x.astype(np.float32)).astype(getattr(mx, mx_dtype))
    b = tilecast.from_dlpack(arr)
    assert b.shape == (7, 23)
    assert np.array_equal(b.numpy().astype(np.float32), x.astype(np.float32))
    back = mx.array(b)
    assert back.dtype == getattr(mx, mx_dtype)
    assert np.array_equal(np.array(back.astype(mx.float32)), x.astype(np.float32))
