"""DLPack capsules made by hand (ctypes), to pin the protocol down: the
versioned capsule, the legacy fallback, the read-only flag, the deleter
called exactly once, versions it cannot read."""
import ctypes

import numpy as np
import pytest

import dmlslice as ds
from strategies import same_bits


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class Versioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


class Legacy(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
_NAMES = {True: b"dltensor_versioned", False: b"dltensor"}
_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}


class Producer:
    """Hands out a NumPy array's memory through a capsule it builds itself."""

    def __init__(self, arr, versioned=True, readonly=False, major=1, device=(1, 0)):
        self.arr, self.versioned, self.readonly, self.major, self.device = arr, versioned, readonly, major, device
        self.deleted = 0
        self._keep = []

    def _tensor(self):
        a = self.arr
        shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        strides = (ctypes.c_int64 * max(a.ndim, 1))(*[s // a.itemsize for s in a.strides])
        self._keep += [shape, strides]
        return DLTensor(a.__array_interface__["data"][0], DLDevice(*self.device), a.ndim,
                        DLDataType(_CODES[a.dtype.kind], a.itemsize * 8, 1), shape, strides, 0)

    def _deleter(self):
        def delete(_):
            self.deleted += 1
        cb = DELETER(delete)
        self._keep.append(cb)
        return cb

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, *args, **kw):
        if not self.versioned and "max_version" in kw:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        if self.versioned:
            m = Versioned(self.major, 0, None, self._deleter(), 1 if self.readonly else 0, self._tensor())
        else:
            m = Legacy(self._tensor(), None, self._deleter())
        self._keep.append(m)
        return _new_capsule(ctypes.addressof(m), _NAMES[self.versioned], None)


@pytest.mark.parametrize("versioned", [True, False])
def test_capsule_read_in_place_and_deleted_once(versioned):
    a = np.arange(30, dtype=np.int16).reshape(5, 6)[::-2, 1::2]
    p = Producer(a, versioned=versioned)
    y = ds.index(p, "[::-1, 1:]")
    same_bits(y, a[::-1, 1:])
    assert p.deleted == 1
    out = Producer(np.zeros((3, 2), np.int16), versioned=versioned)
    ds.index(p, "[:, 1:]", out=out)
    assert np.array_equal(out.arr, a[:, 1:])
    assert out.deleted == 1


def test_read_only_capsule_is_input_not_output():
    a = np.arange(6, dtype=np.float32)
    ro = Producer(a, readonly=True)
    same_bits(ds.index(ro, "[::-1]"), a[::-1])
    with pytest.raises(ds.ArgumentError):
        ds.index(a, "[::-1]", out=Producer(np.zeros(6, np.float32), readonly=True))


def test_unknown_major_version_is_refused():
    with pytest.raises(ds.DTypeError):
        ds.index(Producer(np.zeros(3, np.float32), major=2), "[1:]")


def test_result_of_a_cpu_producer_is_numpy():
    y = ds.webnn_reverse(Producer(np.arange(4, dtype=np.uint8)))
    assert isinstance(y, np.ndarray) and y.tolist() == [3, 2, 1, 0]


class BufferAndDLPack(bytearray):
    """Answers the buffer protocol's check as CuPy's arrays do, yet holds its
    elements behind DLPack: the bytes it exports are not the array."""

    def __init__(self, arr):
        super().__init__(arr.nbytes)  # zeros, unlike arr
        self.arr = arr

    def __dlpack__(self, stream=None, max_version=None, **kwargs):
        return self.arr.__dlpack__()

    def __dlpack_device__(self):
        return self.arr.__dlpack_device__()


def test_dlpack_preferred_over_buffer():
    a = np.arange(1, 25, dtype=np.int32).reshape(4, 6)
    y = ds.index(BufferAndDLPack(a), "[1:3, ::-2]")
    same_bits(np.asarray(y), a[1:3, ::-2])
