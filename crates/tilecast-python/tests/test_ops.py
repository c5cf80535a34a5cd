"""Kernels from Python against numpy references, on ragged shapes (no multiple of any tile)."""

import math

import ml_dtypes
import numpy as np
import pytest

import tilecast
from tilecast import ops
from conftest import NUMPY


@pytest.mark.parametrize("name", ops.names())
def test_every_registry_kernel_is_callable(name, rng):
    """Each kernel runs from Python on one of its own test-suite shapes; its outputs have the
    dtypes and shapes the registry says."""
    if name in ("qgemv", "qgemm"):
        pytest.skip("takes packed weights from ops.quantize: tests/test_qlinear.py")
    args = ops.arguments(name)
    inputs = [
        (rng.uniform(-1, 1, shape)).astype(NUMPY[dtype])
        for _, dtype, shape, role in args
        if role == "input"
    ]
    out = getattr(ops, name)(*inputs)
    outs = out if isinstance(out, tuple) else (out,)
    want = [(dtype, tuple(shape)) for _, dtype, shape, role in args if role == "output"]
    assert [(o.dtype, o.shape) for o in outs] == want
    for o in outs:
        v = o.numpy()
        if v.dtype.kind == "f":
            assert np.isfinite(v.astype(np.float32)).all(), name


@pytest.mark.parametrize("dtype,tol", [(np.float16, 2e-3), (np.float32, 1e-4)])
def test_gemm_matches_numpy(dtype, tol, rng):
    m, k, n = 37, 53, 29
    a = rng.standard_normal((m, k)).astype(dtype)
    b = rng.standard_normal((k, n)).astype(dtype)
    c = ops.gemm(a, b)  # numpy arrays in, through DLPack
    assert (c.dtype, c.shape) == ("f32", (m, n))
    ref = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(np.from_dlpack(c), ref, rtol=tol, atol=tol)


def test_gemv_takes_one_row_or_a_batch_of_rows(rng):
    """gemv(W, x): x [K] gives y [N]; x [M, K] (up to 8 rows, a batch's decode step) gives
    Y [M, N], the rows read from the shapes; 9 rows are refused by name."""
    n, k = 37, 1001
    w = rng.uniform(-1, 1, (n, k)).astype(np.float32)
    x = rng.uniform(-1, 1, (k,)).astype(np.float32)
    np.testing.assert_allclose(ops.gemv(w, x).numpy(), w @ x, rtol=1e-4, atol=1e-4)
    xs = rng.uniform(-1, 1, (3, k)).astype(np.float32)
    y = ops.gemv(w, xs)
    assert y.shape == (3, n)
    np.testing.assert_allclose(y.numpy(), xs @ w.T, rtol=1e-4, atol=1e-4)
    with pytest.raises(ValueError, match="rows = 9: gemv takes 1 to 8"):
        ops.gemv(w, rng.uniform(-1, 1, (9, k)).astype(np.float32))


def test_gemm_on_tilecast_buffers_and_a_stream(rng):
    m, k, n = 65, 31, 70
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    s = tilecast.Stream()
    c = ops.gemm(tilecast.Buffer.from_numpy(a), tilecast.Buffer.from_numpy(b), stream=s)
    s.synchronize()
    np.testing.assert_allclose(c.numpy(), a.astype(np.float64) @ b, rtol=1e-4, atol=1e-4)


def test_bf16_weights_scaled_once_then_linear_every_call(rng):
    """An engine's bf16 weights, converted once (scale_rows_f16: exact scaled f16 rows and
    their exponents), then linear_prescaled on bf16 activations in two launches (the
    activations' rows scaled first), twice on one stream: rows far outside f16's range."""
    m, n, k = 5, 33, 301
    w = (rng.standard_normal((n, k)) * np.logspace(-20, 20, n)[:, None]).astype(ml_dtypes.bfloat16)
    x = (rng.standard_normal((m, k)) * np.logspace(-8, 8, m)[:, None]).astype(ml_dtypes.bfloat16)
    bias = rng.standard_normal(n).astype(np.float32)
    w16, ew = ops.scale_rows_f16(w)
    assert (w16.dtype, w16.shape, ew.dtype, ew.shape) == ("f16", (n, k), "f32", (n,))
    e = ew.numpy()
    assert np.array_equal(e, np.round(e))  # powers of two
    np.testing.assert_array_equal(
        w16.numpy().astype(np.float64) * np.exp2(-e.astype(np.float64))[:, None],
        w.astype(np.float64),  # the conversion is exact
    )
    s = tilecast.Stream()
    ys = [ops.linear_prescaled(x, w16, ew, bias, stream=s) for _ in range(2)]
    s.synchronize()
    xw = x.astype(np.float64) @ w.astype(np.float64).T
    scale = np.abs(x.astype(np.float64)) @ np.abs(w.astype(np.float64)).T + np.abs(bias)
    for y in ys:
        err = np.abs(y.numpy() - (xw + bias))
        assert (err <= 1e-5 * scale + 1e-30).all(), err.max()


def test_bf16_gemm_weights_scaled_by_column_once(rng):
    """The same for a gemm's B[K, N]: scale_cols_f16 once (exponents per column, shape
    (1, N)), then gemm_prescaled on bf16 A."""
    m, n, k = 7, 40, 260
    b = (rng.standard_normal((k, n)) * np.logspace(-20, 20, n)[None, :]).astype(ml_dtypes.bfloat16)
    a = (rng.standard_normal((m, k)) * np.logspace(-8, 8, m)[:, None]).astype(ml_dtypes.bfloat16)
    b16, eb = ops.scale_cols_f16(b)
    assert (b16.shape, eb.shape) == ((k, n), (1, n))
    e = eb.numpy().astype(np.float64)
    np.testing.assert_array_equal(b16.numpy().astype(np.float64) * np.exp2(-e), b.astype(np.float64))
    c = ops.gemm_prescaled(a, b16, eb).numpy()
    want = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    assert (np.abs(c - want) <= 1e-5 * scale + 1e-30).all()


def test_row_and_elementwise_kernels_match_numpy(rng):
    x = rng.standard_normal((13, 77)).astype(np.float32)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    np.testing.assert_allclose(ops.softmax(x).numpy(), e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(ops.sum(x).numpy(), x64.sum(axis=1), rtol=1e-5, atol=1e-4)
    assert np.array_equal(ops.argmax(x).numpy(), x.argmax(axis=1).astype(np.uint32))
    w = rng.standard_normal(77).astype(np.float32)
    for eps in (1e-5, 0.5):
        rms = x64 / np.sqrt((x64**2).mean(axis=1, keepdims=True) + eps) * w
        np.testing.assert_allclose(ops.rms_norm(x, w, eps=eps).numpy(), rms, rtol=1e-4, atol=1e-5)
    flat = rng.standard_normal(1001).astype(np.float32)
    gelu = 0.5 * flat * (1 + np.vectorize(math.erf)(flat.astype(np.float64) / math.sqrt(2)))
    np.testing.assert_allclose(ops.gelu(flat).numpy(), gelu, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(ops.add(flat, flat).numpy(), 2 * flat, rtol=0, atol=0)
    t = rng.standard_normal((2, 5, 7)).astype(np.float32)
    assert np.array_equal(ops.transpose(t).numpy(), t.transpose(0, 2, 1))
    bf = rng.standard_normal(333).astype(ml_dtypes.bfloat16)
    assert np.array_equal(ops.cast_f32(bf).numpy(), bf.astype(np.float32))
    # Narrowing casts round to nearest even, as ml_dtypes does (inside fp8's range here).
    for name, t in (("cast_bf16", ml_dtypes.bfloat16), ("cast_e4m3", ml_dtypes.float8_e4m3fn),
                    ("cast_e5m2", ml_dtypes.float8_e5m2)):
        got = getattr(ops, name)(flat).numpy()
        assert got.dtype == t and np.array_equal(got.view(np.uint8), flat.astype(t).view(np.uint8)), name


def test_bad_kernel_calls_raise_clear_errors(rng):
    a = rng.standard_normal((5, 6)).astype(np.float32)
    with pytest.raises(TypeError, match=r"gemm\(\) needs input\(s\) B"):
        ops.gemm(a)
    with pytest.raises(ValueError, match="must be"):
        ops.gemm(a, a)  # K mismatch: 6 vs 5
    with pytest.raises(TypeError, match="f16"):
        ops.gemm(a, a.T.astype(np.float16))  # mixed dtypes
    with pytest.raises(TypeError, match="i8"):
        ops.softmax(a.astype(np.int8))
    with pytest.raises(TypeError, match="unexpected keyword argument 'alpha'"):
        ops.softmax(a, alpha=1.0)
    with pytest.raises(KeyError, match="nope"):
        tilecast._core.run_kernel("nope", [])


def test_signature_names_scalar_arguments_and_their_defaults():
    inputs, outputs, dims, dtypes, scalars = ops.signature("rms_norm")
    assert [i[0] for i in inputs] == ["X", "W"] and [o[0] for o in outputs] == ["Y"]
    assert (dims, dtypes[0]) == (["R", "C"], "f16")
    assert scalars == [("eps", 1e-5)]
    assert ops.signature("softmax")[4] == []
    assert ops.signature("rope")[4] == [("offset", 0.0)]


@pytest.mark.parametrize("name", ["rope", "rope_neox"])
def test_rope_reads_a_model_table_at_any_offset(name, rng):
    """rope's tables are a model's (any number of positions): tokens at ``offset`` (default 0)
    read rows offset .. offset + S; an offset past the table is an error naming it."""
    b, s, h, d, rows = 2, 5, 3, 64, 4096
    x = rng.uniform(-1, 1, (b, s, h, d)).astype(np.float32)
    angles = np.arange(rows)[:, None] / 10000 ** (np.arange(0, d, 2) / d)[None, :]
    cos, sin = np.cos(angles).astype(np.float32), np.sin(angles).astype(np.float32)

    def reference(offset):
        c, sn = cos[None, offset:offset + s, None, :], sin[None, offset:offset + s, None, :]
        x0, x1 = (x[..., : d // 2], x[..., d // 2:]) if name == "rope_neox" else (x[..., 0::2], x[..., 1::2])
        y0, y1 = x0 * c - x1 * sn, x1 * c + x0 * sn
        if name == "rope_neox":
            return np.concatenate([y0, y1], axis=-1)
        return np.stack([y0, y1], axis=-1).reshape(x.shape)

    rope = getattr(ops, name)
    np.testing.assert_allclose(rope(x, cos[:s], sin[:s]).numpy(), reference(0), rtol=1e-5, atol=1e-5)
    for offset in (0, 1000, rows - s):
        got = rope(x, cos, sin, offset=offset).numpy()
        np.testing.assert_allclose(got, reference(offset), rtol=1e-5, atol=1e-5)
    with pytest.raises(ValueError, match=r"table Cos has 4096 rows; offset 4092 \+ S = 5"):
        rope(x, cos, sin, offset=rows - 4)
