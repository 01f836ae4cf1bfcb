"""A CPU producer of DLPack's C exchange API, made with ctypes, for the tests.

``make_producer()`` returns a class wrapping a NumPy array whose type
carries ``__dlpack_c_exchange_api__``: a capsule named
"dlpack_exchange_api" holding a DLPackExchangeAPI table (DLPack 1.3) whose
functions are ctypes callbacks. ``calls`` counts what the consumer asked
for. Its ``__dlpack__`` raises, so a consumer that falls back to it is seen.
"""
import ctypes
from collections import Counter

import numpy as np

c_int64_p = ctypes.POINTER(ctypes.c_int64)


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", c_int64_p), ("strides", c_int64_p), ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", DELETER), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


SET_ERROR = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p)
ALLOCATOR = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(DLTensor), ctypes.POINTER(ctypes.c_void_p),
                             ctypes.c_void_p, SET_ERROR)
FROM_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(ctypes.c_void_p))
TO_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p))
DLTENSOR_FROM_PY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.py_object, ctypes.POINTER(DLTensor))
STREAM = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p))


class APIHeader(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("prev_api", ctypes.c_void_p)]


class ExchangeAPI(ctypes.Structure):
    _fields_ = [("header", APIHeader), ("managed_tensor_allocator", ALLOCATOR),
                ("managed_tensor_from_py_object_no_sync", FROM_PY),
                ("managed_tensor_to_py_object_no_sync", TO_PY),
                ("dltensor_from_py_object_no_sync", DLTENSOR_FROM_PY), ("current_work_stream", STREAM)]


_CODES = {"i": 0, "u": 1, "f": 2, "c": 5, "b": 6}
_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


def _dtype_of(t):
    kind = {v: k for k, v in _CODES.items()}[t.code]
    return np.dtype("?") if kind == "b" else np.dtype(f"{kind}{t.bits // 8}")


def make_producer(major=1, with_dltensor=True):
    """A new producer class (each its own type: the consumer caches per type)."""
    calls = Counter()
    live = {}  # address of a managed tensor -> (struct, array, shape, strides)

    class Producer:
        def __init__(self, arr):
            self.arr = arr
            self._shape = (ctypes.c_int64 * max(arr.ndim, 1))(*arr.shape)
            self._strides = (ctypes.c_int64 * max(arr.ndim, 1))(*[s // arr.itemsize for s in arr.strides])

        def fill(self, t):
            a = self.arr
            t.data = a.ctypes.data
            t.device = DLDevice(1, 0)
            t.ndim = a.ndim
            t.dtype = DLDataType(_CODES[a.dtype.kind], a.itemsize * 8, 1)
            t.shape = ctypes.cast(self._shape, c_int64_p)
            t.strides = ctypes.cast(self._strides, c_int64_p)
            t.byte_offset = 0

        def __dlpack__(self, *args, **kwargs):
            calls["__dlpack__"] += 1
            return self.arr.__dlpack__(*args, **kwargs)

        def __dlpack_device__(self):
            calls["__dlpack_device__"] += 1
            return (1, 0)

    def managed(owner):
        m = DLManagedTensorVersioned()
        m.major, m.minor = 1, 3
        m.deleter = deleter
        m.flags = 0 if owner.arr.flags.writeable else 1
        owner.fill(m.dl_tensor)
        live[ctypes.addressof(m)] = (m, owner)
        return ctypes.addressof(m)

    @DELETER
    def deleter(ptr):
        calls["deleter"] += 1
        live.pop(ptr, None)

    @ALLOCATOR
    def allocator(proto, out, ctx, set_error):
        calls["allocator"] += 1
        p = proto.contents
        shape = tuple(p.shape[i] for i in range(p.ndim))
        out[0] = managed(Producer(np.zeros(shape, _dtype_of(p.dtype))))
        return 0

    @FROM_PY
    def from_py(obj, out):
        calls["managed_from_py"] += 1
        out[0] = managed(obj)
        return 0

    @TO_PY
    def to_py(ptr, out):
        calls["to_py"] += 1
        _, owner = live.pop(ptr)
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(owner))  # a new reference for the consumer
        out[0] = id(owner)
        return 0

    @DLTENSOR_FROM_PY
    def dltensor_from_py(obj, out):
        calls["dltensor_from_py"] += 1
        obj.fill(out.contents)
        return 0

    @STREAM
    def stream(device_type, device_id, out):
        calls["stream"] += 1
        out[0] = None
        return 0

    api = ExchangeAPI()
    api.header = APIHeader(major, 3, None)
    api.managed_tensor_allocator = allocator
    api.managed_tensor_from_py_object_no_sync = from_py
    api.managed_tensor_to_py_object_no_sync = to_py
    if with_dltensor:
        api.dltensor_from_py_object_no_sync = dltensor_from_py
    api.current_work_stream = stream
    Producer.__dlpack_c_exchange_api__ = _capsule_new(ctypes.addressof(api), b"dlpack_exchange_api", None)
    # The table and its callbacks live as long as the class.
    Producer._keep = (api, allocator, from_py, to_py, dltensor_from_py, stream, deleter)
    Producer.calls = calls
    Producer.live = live
    return Producer
