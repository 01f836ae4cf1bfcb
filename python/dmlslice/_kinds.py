"""What differs between array libraries: making a result of the input's kind
on its device, the CUDA stream to run on, and the dtype of a plan.

The extension calls these for arrays that are not NumPy arrays (NumPy's own
path stays in C; PyTorch and CuPy arrays are read in C, their streams and
results asked here or of their own C-level calls). Each framework's module is looked up only when an array of
it arrives, so none of them is imported by dmlslice itself.
"""
import sys

import numpy as np

# (itemsize, class) classes as array_view.h numbers them (CLS_*).
_OTHER, _INT, _UINT, _FLOAT = 0, 1, 2, 3
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13


def _module_of(x):
    return type(x).__module__.split(".", 1)[0]


def dtype_info(dtype):
    """(itemsize, class) of a NumPy dtype-like, a torch dtype or a CuPy dtype."""
    mod = _module_of(dtype)
    if mod == "torch":
        import torch
        t = torch.empty((), dtype=dtype)
        size = t.element_size()
        if dtype.is_floating_point and dtype != torch.bfloat16:
            return size, _FLOAT
        if dtype in (torch.uint8,):
            return size, _UINT
        if dtype in (torch.int8, torch.int16, torch.int32, torch.int64):
            return size, _INT
        return size, _OTHER
    try:
        dt = np.dtype(dtype)
    except TypeError as e:
        from ._errors import DTypeError
        raise DTypeError(f"{dtype!r} is not a dtype", "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY") from e
    if dt.hasobject:
        from ._errors import DTypeError
        raise DTypeError(f"dtype {dt} holds Python objects; slicing copies bits",
                         "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY")
    cls = {"f": _FLOAT, "i": _INT, "u": _UINT}.get(dt.kind, _OTHER)
    if cls == _FLOAT and dt.itemsize not in (2, 4, 8):
        cls = _OTHER
    return dt.itemsize, cls


def _device(x):
    return tuple(x.__dlpack_device__())


def device_of(x):
    """(DLPack device type, device id) of an array that is not a NumPy array.
    PyTorch's own attributes answer faster than its __dlpack_device__."""
    if _module_of(x) == "torch":
        return (_DL_CUDA, x.get_device()) if x.is_cuda else (_DL_CPU, 0)
    return tuple(x.__dlpack_device__())


def stream_of(x, device_id):
    """(cudaStream_t as int, the stream= value for __dlpack__, synchronize after).

    PyTorch and CuPy arrays run on their library's current stream of the
    array's device; the result is made on that stream too, so nothing waits.
    Other producers (JAX) get the legacy default stream, and the call waits
    for the copy before returning, since their own streams are not visible.
    """
    mod = _module_of(x)
    if mod == "torch":
        import torch
        raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)  # an int, no Stream object made
        s = raw(device_id) if raw else torch.cuda.current_stream(x.device).cuda_stream
        return s, (s if s else 1), False
    if mod == "cupy":
        s = cupy_stream(device_id)
        return s, (s if s else 1), False
    return 0, 1, True


# CuPy's calls the extension makes per call on a CuPy array, found once: the
# current stream of a device without entering a Device context (CuPy 10 and
# later take the device id), and the array constructor (what cupy.empty
# calls) with a check of the current device in place of a context manager.
_cupy_calls = None


def _cupy():
    global _cupy_calls
    if _cupy_calls is None:
        import cupy
        get = cupy.cuda.get_current_stream
        try:
            get(cupy.cuda.runtime.getDevice())
            def stream(device_id):
                return get(device_id).ptr
        except TypeError:  # an older CuPy: the current device's stream only
            def stream(device_id):
                with cupy.cuda.Device(device_id):
                    return get().ptr
        _cupy_calls = (stream, cupy.ndarray, cupy.cuda.runtime.getDevice, cupy.cuda.Device)
    return _cupy_calls


def cupy_stream(device_id):
    """CuPy's current stream of device_id as an int (0: the legacy default)."""
    return _cupy()[0](device_id)


def cupy_empty(x, shape, device_id):
    """An uninitialized CuPy array of x's dtype on device_id, from CuPy's pool."""
    _, ndarray, get_device, device = _cupy()
    if get_device() == device_id:
        return ndarray(shape, x.dtype)
    with device(device_id):
        return ndarray(shape, x.dtype)


def _cuda_allocator(shape, dtype, device_id):
    """An empty CUDA array from whichever of PyTorch and CuPy is installed."""
    if "torch" in sys.modules or _importable("torch"):
        import torch
        tdtype = torch.bfloat16 if dtype.name == "bfloat16" else getattr(torch, dtype.name)
        return torch.empty(shape, dtype=tdtype, device=f"cuda:{device_id}")
    import cupy
    with cupy.cuda.Device(device_id):
        return cupy.empty(shape, dtype=dtype)


def _importable(name):
    try:
        __import__(name)
        return True
    except ImportError:
        return False


def empty_like(x, shape, dtype_hint):
    """An uninitialized array of x's kind, dtype and device with `shape`,
    made by x's own library (its allocator, its memory pool). dtype_hint is
    NumPy's name of the element type the extension read from DLPack, for
    producers whose result is a NumPy array."""
    mod = _module_of(x)
    if mod == "torch":
        import torch
        return torch.empty(shape, dtype=x.dtype, device=x.device)
    if mod == "cupy":
        return cupy_empty(x, shape, x.device.id)
    dev_type, dev_id = _device(x)
    if mod in ("jax", "jaxlib") and dev_type in (_DL_CUDA, _DL_CUDA_MANAGED):
        # JAX arrays are immutable: write into a PyTorch or CuPy buffer and
        # hand it to JAX through DLPack (finish()).
        return _cuda_allocator(shape, np.dtype(x.dtype), dev_id)
    if dev_type in (_DL_CPU, _DL_CUDA_HOST):
        return np.empty(shape, dtype=np.dtype(dtype_hint))
    from ._errors import DTypeError
    raise DTypeError(f"cannot make a result for a {type(x).__name__} on DLPack device "
                     f"{dev_type}; pass out=", "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-DEVICE")


def finish(x, target):
    """The result handed back for input x, written into target."""
    mod = _module_of(x)
    if mod in ("jax", "jaxlib"):
        import jax
        return jax.dlpack.from_dlpack(target)
    return target


def host_starts(starts, rank, extra):
    """The starts of ds.crops given on the host, as a C-contiguous (N, rank +
    extra) int64 NumPy array (extra: zero columns for an axis the extension
    adds when it copies elements in parts)."""
    from ._errors import ArgumentError, DTypeError
    a = np.asarray(starts)
    if a.size == 0 and a.dtype.kind == "f":  # np.asarray([[], []]) is float64: no value to read
        a = a.astype(np.int64)
    if a.dtype.kind not in "iu":
        raise DTypeError(f"crops: starts must hold integers, not {a.dtype}", "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY")
    if a.ndim != 2 or a.shape[1] != rank:
        raise ArgumentError(f"crops: starts has shape {a.shape}; an (N, {rank}) array is needed (row i: the "
                            f"starts of crop i, one per axis of x)", "DMLS_ERROR_SHAPE_MISMATCH", "R-CROP-BOUNDS")
    if a.dtype == np.uint64 and a.size:
        # Values past int64 are out of bounds anyway: kept past every bound, not wrapped negative.
        a = np.minimum(a, np.uint64(np.iinfo(np.int64).max))
    if not extra:
        return np.ascontiguousarray(a, dtype=np.int64)
    b = np.zeros((a.shape[0], rank + extra), np.int64)
    b[:, :rank] = a
    return b


def to_device(x, a, device_id):
    """The host array a copied to CUDA device device_id by x's library
    (PyTorch or CuPy; for other producers whichever of them is installed),
    on that library's current stream."""
    mod = _module_of(x)
    if mod == "torch":
        return _torch_to_device(a, x.device)
    if mod == "cupy":
        import cupy
        with cupy.cuda.Device(device_id):
            return cupy.asarray(a)
    if "torch" in sys.modules or _importable("torch"):
        return _torch_to_device(a, f"cuda:{device_id}")
    import cupy
    with cupy.cuda.Device(device_id):
        return cupy.asarray(a)


def _torch_to_device(a, device):
    """a on the device, copied through a block of PyTorch's pinned host
    memory: a copy from pageable memory makes the host wait for every kernel
    already queued on the stream; from pinned memory it is queued behind
    them, and PyTorch's pinned-memory cache keeps the block until the copy
    has run (a is read into it before this returns, so the caller may reuse
    a at once)."""
    import torch
    t = torch.from_numpy(a)
    try:
        t = t.pin_memory()
    except RuntimeError:  # no pinned memory to be had: the plain copy
        return t.to(device)
    return t.to(device, non_blocking=True)
