import ctypes

import numpy as np
import pytest

import tilecast


@pytest.fixture(scope="session")
def device():
    return tilecast.Device()


@pytest.fixture(scope="session")
def shared_ok(device):
    return device.capabilities()["features"]["mappable_primary_buffers"]


@pytest.fixture
def rng():
    return np.random.default_rng(12)


class DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device_type", ctypes.c_int32),
        ("device_id", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("code", ctypes.c_uint8),
        ("bits", ctypes.c_uint8),
        ("lanes", ctypes.c_uint16),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", DLTensor),
    ]


def versioned_header(capsule):
    """The DLManagedTensorVersioned a 'dltensor_versioned' capsule holds (read, not consumed)."""
    get = ctypes.pythonapi.PyCapsule_GetPointer
    get.restype = ctypes.c_void_p
    get.argtypes = [ctypes.py_object, ctypes.c_char_p]
    ptr = get(capsule, b"dltensor_versioned")
    return DLManagedTensorVersioned.from_address(ptr)


READ_ONLY = 1 << 0
IS_COPIED = 1 << 1
