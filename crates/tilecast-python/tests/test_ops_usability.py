"""tilecast.ops as numpy, torch and MLX users find it: keywords, shapes of any rank, Python
types, numpy conversion, docstrings and help, errors in Python's terms, quantized weights that
know their format, and Buffer and Stream conveniences. Each test pins one finding of a
new-user trial (issue 40)."""

import inspect
import os
import pathlib

import numpy as np
import pytest

import tilecast as tc
from tilecast import ops

HERE = pathlib.Path(__file__).parent
STUB = HERE.parent / "python" / "tilecast" / "ops.pyi"


def np_softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


# Keywords


def test_inputs_by_keyword():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 8)).astype(np.float32)
    w = rng.standard_normal((5, 8)).astype(np.float32)
    b = rng.standard_normal(5).astype(np.float32)
    want = ops.linear(x, w, b).numpy()
    np.testing.assert_array_equal(ops.linear(x, w, bias=b).numpy(), want)
    np.testing.assert_array_equal(ops.linear(bias=b, x=x, w=w).numpy(), want)
    with pytest.raises(TypeError, match="got input W twice"):
        ops.linear(x, w, b, w=w)


def test_a_mistyped_keyword_is_named():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(TypeError, match="unexpected keyword argument 'stram'"):
        ops.softmax(x, stram=tc.Stream())
    with pytest.raises(TypeError, match="scalar eps is a number; got tilecast.Stream"):
        ops.rms_norm(x, np.ones(3, np.float32), eps=tc.Stream())


def test_out_fills_a_given_buffer():
    x = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)
    out = tc.Buffer("f32", [4, 6])
    assert ops.softmax(x, out=out) is out
    np.testing.assert_allclose(out.numpy(), np_softmax(x), rtol=1e-5)
    with pytest.raises(ValueError, match="out= buffer for Y must be f32"):
        ops.softmax(x, out=tc.Buffer("f32", [4, 5]))
    h, y = tc.Buffer("f32", [4, 6]), tc.Buffer("f32", [4, 6])
    assert ops.add_rms_norm(x, x, np.ones(6, np.float32), out=(h, y)) == (h, y)
    np.testing.assert_allclose(h.numpy(), 2 * x, rtol=1e-6)


# Rank


def test_elementwise_ops_take_any_shape():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((2, 3, 4)).astype(np.float32)
    got = ops.add(a, b)
    assert got.shape == (2, 3, 4)
    np.testing.assert_allclose(got.numpy(), a + b, rtol=1e-6)
    assert ops.cast_f16(a).numpy().dtype == np.float16
    zero_d = ops.silu(np.array(2.0, np.float32))
    assert zero_d.shape == ()
    np.testing.assert_allclose(zero_d.numpy(), 2.0 / (1 + np.exp(-2.0)), rtol=1e-5)
    with pytest.raises(ValueError, match="elementwise inputs have one shape"):
        ops.add(a, b.reshape(4, 3, 2))


def test_row_ops_take_any_rank():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 5)).astype(np.float32)
    got = ops.softmax(x)
    assert got.shape == (2, 3, 5)
    np.testing.assert_allclose(got.numpy(), np_softmax(x), rtol=1e-5)
    w = rng.standard_normal(5).astype(np.float32)
    y = ops.rms_norm(x, w, eps=1e-5).numpy()
    np.testing.assert_allclose(y, x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * w,
                               rtol=1e-4, atol=1e-5)
    assert ops.sum(x).shape == (2, 3)
    np.testing.assert_allclose(ops.sum(x).numpy(), x.sum(-1), rtol=1e-5, atol=1e-5)
    one_row = ops.softmax(x[0, 0])
    assert one_row.shape == (5,)


def test_transpose_swaps_the_last_two_axes_of_any_rank():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    np.testing.assert_array_equal(ops.transpose(x).numpy(), np.swapaxes(x, -1, -2))
    m = x[0, 0]
    np.testing.assert_array_equal(ops.transpose(m).numpy(), m.T)


def test_a_wrong_rank_names_the_rank_taken():
    q = np.zeros((2, 3, 8), np.float16)
    with pytest.raises(ValueError, match=r"attention takes Q of rank 4; got shape \[2, 3, 8\]"):
        ops.attention(q, q, q)


# Python types


@pytest.mark.parametrize("value,text", [
    ([1.0, 2.0], "a list"),
    (3.0, "a Python float"),
    (np.float32(1.0), "a numpy scalar float32"),
])
def test_wrong_python_types_are_type_errors(value, text):
    with pytest.raises(TypeError, match=f"softmax: X must be a tilecast.Buffer .*got {text}"):
        ops.softmax(value)
    with pytest.raises(TypeError, match=r"softmax\(\) needs input\(s\) X"):
        ops.softmax(None)


def test_numpy_asarray_copies_the_elements():
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = tc.Buffer.from_numpy(x)
    np.testing.assert_array_equal(np.asarray(b), x)
    assert np.asarray(b, dtype=np.float64).dtype == np.float64
    assert np.asarray(b).dtype == np.float32


# Docstrings and help


def test_docstrings_say_what_python_takes():
    doc = ops.attention.__doc__
    assert "kv=N" not in doc and "options" not in doc
    assert "scale=from the shapes" in doc
    assert "eps=1e-05" in ops.rms_norm.__doc__


def test_signatures_are_each_ops_own():
    sig = inspect.signature(ops.rms_norm)
    assert list(sig.parameters)[:2] == ["x", "w"]
    assert sig.parameters["eps"].default == 1e-5
    assert list(inspect.signature(ops.linear).parameters)[:3] == ["x", "w", "bias"]
    # attention's scale follows from D, so it has no constant default.
    assert inspect.signature(ops.attention).parameters["scale"].default is None
    assert dict(ops.signature("attention")[4])["scale"] is None
    assert dict(ops.signature("rope")[4])["offset"] == 0.0


def test_dir_of_ops_lists_ops_only():
    names = dir(ops)
    for leaked in ("Any", "Callable", "Dict", "List", "Tuple", "Union"):
        assert leaked not in names
    assert "softmax" in names and "quantize" in names


def stub_text():
    """ops.pyi as the registry and the functions' signatures make it."""
    lines = [
        '"""Kernels of the tilecast registry (generated from the registry by',
        "tests/test_ops_usability.py; TILECAST_BLESS=1 rewrites it).\"\"\"",
        "from typing import Any, List, Optional, Tuple, Union",
        "",
        "from ._core import Buffer, Stream",
        "from .quant import QuantizedWeight",
        "",
        "Tensor = Any  # a tilecast.Buffer or any DLPack tensor (numpy, torch, MLX)",
        "",
    ]
    for name in ops.names():
        sig = inspect.signature(getattr(ops, name))
        outs = ops.signature(name)[1]
        ret = "Buffer" if len(outs) == 1 else "Tuple[" + ", ".join(["Buffer"] * len(outs)) + "]"
        parts = []
        star = False
        for p in sig.parameters.values():
            if p.kind == p.POSITIONAL_OR_KEYWORD:
                parts.append(f"{p.name}: Tensor")
                continue
            if not star:
                parts.append("*extra: Tensor" if name in ("gemm", "qgemv", "qgemm") else "*")
                star = True
            if p.name == "out":
                parts.append(f"out: Optional[{'Buffer' if len(outs) == 1 else ret}] = None")
            elif p.name == "stream":
                parts.append("stream: Optional[Stream] = None")
            elif p.name in ("storage_mode", "format"):
                parts.append(f"{p.name}: Optional[str] = None")
            elif p.name == "group":
                parts.append("group: Optional[int] = None")
            else:
                default = "None" if p.default is None else repr(p.default)
                parts.append(f"{p.name}: Optional[float] = {default}")
        lines.append(f"def {name}({', '.join(parts)}) -> {ret}: ...")
    lines += [
        "def signature(name: str) -> Tuple[list, list, list, list, list]: ...",
        "def arguments(name: str, shape: Optional[str] = None, dtype: Optional[str] = None) -> "
        "List[Tuple[str, str, List[int], str]]: ...",
        "def names() -> List[str]: ...",
        "def quantize(w: Tensor, format: str, group: Optional[int] = None) -> QuantizedWeight: ...",
        "def dequantize(q: Union[QuantizedWeight, Tensor], format: Optional[str] = None, "
        "k: Optional[int] = None, group: Optional[int] = None, scales: Tensor = None, "
        "biases: Tensor = None) -> Buffer: ...",
        "",
    ]
    return "\n".join(lines)


def test_ops_pyi_types_every_op_as_its_signature_says():
    want = stub_text()
    if os.environ.get("TILECAST_BLESS"):
        STUB.write_text(want)
    assert STUB.read_text() == want, "ops.pyi is stale: TILECAST_BLESS=1 pytest rewrites it"
    assert len(ops.names()) >= 38


# Errors in Python's terms


def test_pending_work_is_explained_in_python_terms():
    s = tc.Stream()
    y = ops.softmax(np.ones((2, 3), np.float32), stream=s, storage_mode="managed")
    with pytest.raises(BufferError) as info:
        np.from_dlpack(y)
    assert "SyncType" not in str(info.value) and "synchronize()" in str(info.value)
    s.synchronize()


def test_an_input_past_the_binding_limit_is_a_value_error():
    limit = tc.Device().capabilities()["limits"]["max_storage_binding_size"]
    if limit > 1 << 28:
        pytest.skip(f"this device binds {limit} bytes; the case needs a 128 MiB limit")
    x = tc.Buffer("f32", [limit // 4 + 1024])
    with pytest.raises(ValueError, match=r"silu: input X is \d+ bytes; this device binds at most"):
        ops.silu(x)


# Quantization


def test_a_quantized_weight_knows_its_format():
    rng = np.random.default_rng(4)
    w = rng.standard_normal((16, 64)).astype(np.float32)
    x = rng.standard_normal((1, 64)).astype(np.float16)
    q = ops.quantize(w, "q4_0")
    assert (q.format, q.logical_shape, q.shape) == ("q4_0", (16, 64), (16, 36))
    y = ops.qgemv(x, q).numpy()
    want = x.astype(np.float32) @ q.dequantize().numpy().T
    np.testing.assert_allclose(y, want, rtol=0.05, atol=0.05)
    assert np.from_dlpack(q).shape == (16, 36)
    m = ops.quantize(w.astype(np.float16), "mlx4", group=32)
    words, scales, biases = m
    assert (m.group, words.shape, scales.shape) == (32, (16, 8), (16, 2))
    np.testing.assert_allclose(ops.qgemv(x, m).numpy(), ops.qgemv(x, *m).numpy())


def test_dequantize_finds_k_and_checks_a_given_one():
    w = np.random.default_rng(5).standard_normal((3, 96)).astype(np.float32)
    q = ops.quantize(w, "q8_0")
    assert ops.dequantize(q.data, "q8_0").shape == (3, 96)
    with pytest.raises(ValueError, match="k=64 disagrees with the packed shapes, which give k=96"):
        ops.dequantize(q.data, "q8_0", 64)


def test_a_group_on_a_gguf_format_is_an_error():
    with pytest.raises(ValueError, match="q4_0 has fixed blocks"):
        ops.quantize(np.zeros((2, 64), np.float32), "q4_0", group=32)


# Buffers and streams


def test_buffer_has_ndim_size_len_and_flexible_reshape():
    b = tc.Buffer.from_numpy(np.zeros((3, 4), np.float32))
    assert (b.ndim, b.size, len(b)) == (2, 12, 3)
    assert b.reshape(-1).shape == (12,)
    assert b.reshape(2, -1).shape == (2, 6)
    assert b.reshape((6, 2)).shape == (6, 2)
    with pytest.raises(ValueError, match="cannot reshape 12 elements"):
        b.reshape(5, -1)
    with pytest.raises(TypeError, match="len"):
        len(tc.Buffer.from_numpy(np.array(1.0, np.float32)))


def test_a_stream_is_a_context_manager():
    x = np.ones((2, 3), np.float32)
    with tc.Stream() as s:
        y = ops.softmax(x, stream=s)
        assert s.pending_ops > 0
    assert s.pending_ops == 0
    np.testing.assert_allclose(y.numpy(), np.full((2, 3), 1 / 3, np.float32), rtol=1e-6)


def test_from_dlpack_of_a_buffer_is_that_buffer():
    b = tc.Buffer("f32", [4])
    assert tc.from_dlpack(b) is b
    assert tc.from_dlpack(b, copy=True) is not b


def test_a_0d_array_keeps_its_shape():
    b = tc.Buffer.from_numpy(np.array(3.0, np.float32))
    assert b.shape == () and b.ndim == 0 and b.size == 1
    assert float(b.numpy()) == 3.0


def test_empty_arrays_give_empty_results():
    for x in (np.zeros((0, 5), np.float32), np.zeros((2, 0, 5), np.float32)):
        y = ops.softmax(x)
        assert y.shape == x.shape and y.numpy().shape == x.shape
        assert np.from_dlpack(y).shape == x.shape
    assert ops.add(np.zeros(0, np.float32), np.zeros(0, np.float32)).shape == (0,)
    assert ops.gemm(np.zeros((0, 4), np.float16), np.zeros((4, 3), np.float16)).shape == (0, 3)
    assert tc.Buffer("f16", [3, 0]).size == 0
    # Rows of no elements have no sum to give.
    with pytest.raises(ValueError, match=r"sum: X is empty \(\[3, 0\]\) but output Y \[3\] is not"):
        ops.sum(np.zeros((3, 0), np.float32))


def test_a_jitted_kernel_over_empty_tensors_launches_nothing():
    sys_path = str(HERE.parent / "examples")
    import sys
    if sys_path not in sys.path:
        sys.path.insert(0, sys_path)
    import softmax as example
    assert example.softmax(np.zeros((0, 7), np.float32)).shape == (0, 7)
