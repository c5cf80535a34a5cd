"""The DLPack protocol: zero-copy Shared/Managed exports, IS_COPIED Private exports, copy=False
refusals, capsule names and single use, and round trips with numpy."""

import gc

import numpy as np
import pytest

import tilecast
from conftest import IS_COPIED, READ_ONLY, versioned_header


def test_shared_exports_are_zero_copy_and_keep_the_gpu_away(shared_ok, rng):
    if not shared_ok:
        pytest.skip("this adapter has no mappable primary buffers (Shared)")
    x = rng.standard_normal((9, 31)).astype(np.float32)
    s = tilecast.Buffer.from_numpy(x, storage_mode="shared")
    a = np.from_dlpack(s)
    assert a.flags.writeable and s.dlpack_exports == 1
    assert np.array_equal(a, x)
    a[2, 3:7] = -5.0  # numpy writes the GPU buffer's own memory ...
    with pytest.raises(BufferError, match="live DLPack export"):
        tilecast.ops.cast_f32(s.reshape([9 * 31]))  # ... so the GPU may not use it meanwhile
    del a
    gc.collect()
    assert s.dlpack_exports == 0
    want = x.copy()
    want[2, 3:7] = -5.0
    assert np.array_equal(s.numpy(), want)  # the write reached the buffer: no copy in between
    assert np.array_equal(tilecast.ops.cast_f32(s.reshape([9 * 31])).numpy(), want.ravel())  # the GPU too


def test_managed_exports_share_the_host_copy(rng):
    x = rng.standard_normal((4, 37)).astype(np.float32)
    m = tilecast.Buffer.from_numpy(x, storage_mode="managed")
    a = np.from_dlpack(m)
    a[:, 0] = 3.0
    with pytest.raises(BufferError, match="live DLPack export"):
        m.did_modify()
    del a
    m.did_modify()  # the host copy's new bytes go to the GPU copy
    want = x.copy()
    want[:, 0] = 3.0
    assert np.array_equal(tilecast.ops.cast_f32(m.reshape([4 * 37])).numpy(), want.ravel())


def test_private_exports_are_copies_flagged_is_copied(rng):
    x = rng.standard_normal((3, 29)).astype(np.float32)
    p = tilecast.Buffer.from_numpy(x, storage_mode="private")
    cap = p.__dlpack__(max_version=(1, 1))
    h = versioned_header(cap)
    assert (h.version.major, h.version.minor) == (1, 1)
    assert h.flags & IS_COPIED and not h.flags & READ_ONLY
    assert (h.dl_tensor.device_type, h.dl_tensor.ndim) == (1, 2)
    assert [h.dl_tensor.shape[i] for i in range(2)] == [3, 29]
    assert [h.dl_tensor.strides[i] for i in range(2)] == [29, 1]
    assert (h.dl_tensor.code, h.dl_tensor.bits, h.dl_tensor.lanes) == (2, 32, 1)
    del h, cap
    a = np.from_dlpack(p)
    a[0, 0] = 99.0
    assert p.numpy()[0, 0] == x[0, 0]  # a copy: the buffer is untouched
    assert p.dlpack_exports == 0


def test_host_visible_exports_are_not_flagged_copied(shared_ok):
    modes = ["managed"] + (["shared"] if shared_ok else [])
    for mode in modes:
        b = tilecast.Buffer("f16", [5, 3], storage_mode=mode)
        cap = b.__dlpack__(max_version=(1, 1))
        assert versioned_header(cap).flags == 0
        assert b.dlpack_exports == 1
        del cap
        gc.collect()
        assert b.dlpack_exports == 0  # an unconsumed capsule's destructor ran the deleter


def test_copy_false_refuses_every_copy():
    p = tilecast.Buffer("f32", [8], storage_mode="private")
    with pytest.raises(BufferError, match="copy=False"):
        p.__dlpack__(max_version=(1, 1), copy=False)
    with pytest.raises(BufferError, match="copy=False"):
        np.from_dlpack(p, copy=False)
    with pytest.raises(BufferError, match="always copies"):
        tilecast.from_dlpack(np.zeros(4, np.float32), copy=False)
    m = tilecast.Buffer("f32", [8], storage_mode="managed")
    assert np.from_dlpack(m, copy=False).shape == (8,)  # zero-copy is allowed


def test_copy_true_copies_even_host_visible_buffers():
    m = tilecast.Buffer.from_numpy(np.arange(6, dtype=np.int32), storage_mode="managed")
    cap = m.__dlpack__(max_version=(1, 1), copy=True)
    assert versioned_header(cap).flags & IS_COPIED and m.dlpack_exports == 0
    same = tilecast.from_dlpack(m)
    assert same.dtype == "i32" and np.array_equal(same.numpy(), np.arange(6))
    dup = tilecast.from_dlpack(m, copy=True)
    assert np.array_equal(dup.numpy(), np.arange(6))


def test_capsules_are_named_per_protocol_and_consumed_once():
    b = tilecast.Buffer.from_numpy(np.arange(5, dtype=np.uint8))
    assert '"dltensor"' in repr(b.__dlpack__())  # no max_version: legacy
    assert '"dltensor"' in repr(b.__dlpack__(max_version=(0, 8)))
    cap = b.__dlpack__(max_version=(1, 1))
    assert '"dltensor_versioned"' in repr(cap)
    got = tilecast.from_dlpack(cap)
    assert '"used_dltensor_versioned"' in repr(cap)
    assert np.array_equal(got.numpy(), np.arange(5))
    with pytest.raises(BufferError, match="already consumed"):
        tilecast.from_dlpack(cap)
    legacy = np.arange(3, dtype=np.int8).__dlpack__()
    tilecast.from_dlpack(legacy)
    assert '"used_dltensor"' in repr(legacy)
    with pytest.raises(BufferError, match="already consumed"):
        tilecast.from_dlpack(legacy)


def test_protocol_arguments_are_checked():
    b = tilecast.Buffer("f32", [2])
    assert b.__dlpack_device__() == (1, 0)
    with pytest.raises(ValueError, match="stream"):
        b.__dlpack__(stream=1)
    with pytest.raises(BufferError, match="kDLCPU"):
        b.__dlpack__(dl_device=(2, 0))
    assert '"dltensor_versioned"' in repr(b.__dlpack__(max_version=(1, 1), dl_device=(1, 0)))
    with pytest.raises(TypeError, match="no tilecast dtype"):
        tilecast.from_dlpack(np.zeros(3, np.float64))
    with pytest.raises(TypeError, match="no tilecast dtype"):
        tilecast.from_dlpack(np.zeros(3, np.bool_))


@pytest.mark.parametrize("np_dtype", [np.float32, np.float16, np.int8, np.uint8, np.int32, np.uint32])
@pytest.mark.parametrize("mode", ["private", "managed"])
def test_numpy_dlpack_round_trips(np_dtype, mode, rng):
    x = (rng.standard_normal((11, 17)) * 50).astype(np_dtype)
    b = tilecast.from_dlpack(x, storage_mode=mode)
    assert b.storage_mode == mode and b.shape == (11, 17)
    y = np.from_dlpack(b)
    assert y.dtype == x.dtype and np.array_equal(y, x)
    # Strided producers are read in logical order.
    t = tilecast.from_dlpack(x[::3, 1::2].T)
    assert np.array_equal(np.from_dlpack(t), x[::3, 1::2].T)
