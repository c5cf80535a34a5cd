"""Buffers, numpy conversion, the device report, streams and errors as Python exceptions."""

import numpy as np
import pytest

import tilecast
from conftest import NUMPY


def test_device_reports_capabilities_as_a_dict(device):
    caps = device.capabilities()
    assert caps["name"] == device.name
    assert caps["backend"] in ("vulkan", "metal", "dx12", "gl")
    assert caps["limits"]["max_buffer_size"] > 0
    assert device.default_storage_mode in ("private", "shared", "managed")


@pytest.mark.parametrize("name,np_dtype", NUMPY.items())
@pytest.mark.parametrize("mode", ["private", "managed", "shared"])
def test_numpy_round_trips_every_dtype_bit_exactly(name, np_dtype, mode, rng, shared_ok):
    if mode == "shared" and not shared_ok:
        pytest.skip("this adapter has no mappable primary buffers (Shared)")
    bits = rng.integers(0, 256, size=(7, 13 * np.dtype(np_dtype).itemsize), dtype=np.uint8)
    x = bits.view(np_dtype)  # every bit pattern, NaNs included
    b = tilecast.Buffer.from_numpy(x, storage_mode=mode)
    assert (b.dtype, b.shape, b.storage_mode) == (name, (7, 13), mode)
    y = b.numpy()
    assert y.dtype == np.dtype(np_dtype)
    assert np.array_equal(y.view(np.uint8), bits)


def test_non_contiguous_numpy_input_is_copied_in_logical_order():
    x = np.arange(35, dtype=np.float32).reshape(5, 7)[:, ::2].T
    assert np.array_equal(tilecast.Buffer.from_numpy(x).numpy(), x)


def test_errors_are_python_exceptions_with_the_runtimes_message():
    with pytest.raises(TypeError, match="float64"):
        tilecast.Buffer.from_numpy(np.zeros(3))
    with pytest.raises(TypeError, match="has no tilecast dtype"):
        tilecast.Buffer("complex64", [3])
    assert tilecast.Buffer("f32", [4, 0]).shape == (4, 0)  # empty, not an error
    with pytest.raises(ValueError, match="not 'private', 'shared' or 'managed'"):
        tilecast.Buffer("f32", [4], storage_mode="gpu")
    with pytest.raises(MemoryError, match="allows at most"):
        tilecast.Buffer("f32", [1 << 40])
    with pytest.raises(ValueError, match="element counts must match"):
        tilecast.Buffer("f32", [4]).reshape([3])


def test_non_native_byte_order_is_refused_not_read_as_native_bytes():
    x = np.array([[1, 2, 3]], dtype=np.dtype(np.float32).newbyteorder())
    with pytest.raises(TypeError, match=f"'{x.dtype.str}'.*native byte order.*astype"):
        tilecast.Buffer.from_numpy(x)
    with pytest.raises(TypeError, match="byte order"):
        tilecast.ops.softmax(x)
    # as from_dlpack does (numpy refuses to export it)
    with pytest.raises(BufferError):
        tilecast.from_dlpack(x)
    e = np.exp([[1.0, 2.0, 3.0]])
    got = tilecast.ops.softmax(x.astype(x.dtype.newbyteorder("="))).numpy()
    np.testing.assert_allclose(got, e / e.sum(), rtol=1e-6)


def test_stream_synchronize_modes_and_no_implicit_sync():
    s = tilecast.Stream()
    x = tilecast.Buffer.from_numpy(np.ones((3, 5), np.float32))
    y = tilecast.ops.softmax(x, stream=s)
    assert s.pending_ops >= 1
    # Encoded, not submitted: DLPack refuses instead of committing behind the user's back.
    with pytest.raises(BufferError, match="not yet submitted"):
        y.__dlpack__(max_version=(1, 1))
    s.synchronize("commit")
    s.synchronize()  # commit_and_wait
    np.testing.assert_allclose(np.from_dlpack(y), np.full((3, 5), 0.2, np.float32), rtol=1e-6)
    for mode in ["none", "commit_and_continue", "commit_adaptive", "COMMIT_AND_WAIT"]:
        s.synchronize(mode)
    with pytest.raises(ValueError, match="sync mode"):
        s.synchronize("later")
