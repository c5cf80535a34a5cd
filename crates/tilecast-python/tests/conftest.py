import ctypes

import ml_dtypes
import numpy as np
import pytest

import tilecast


# Each tilecast dtype and the numpy dtype that holds it.
NUMPY = {
    "f32": np.float32,
    "f16": np.float16,
    "bf16": ml_dtypes.bfloat16,
    "i32": np.int32,
    "u32": np.uint32,
    "i8": np.int8,
    "u8": np.uint8,
    "f8e4m3": ml_dtypes.float8_e4m3fn,
    "f8e5m2": ml_dtypes.float8_e5m2,
}


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
