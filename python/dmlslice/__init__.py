"""dmlslice: DirectML's slice operators for NumPy, PyTorch, CuPy and JAX arrays.

Every function takes an array (anything with ``__dlpack__`` or the buffer
protocol) without copying it, reads it with its strides as they are, and
returns a new array of the input's kind on its device (NumPy in, NumPy out; a
CUDA tensor in, a tensor on the same GPU out), or writes into ``out=``.

Vocabularies::

    dmlslice.index(x, "[1:3, ::-1, None]")      # NumPy basic indexing, as text
    dmlslice.index(x, np.s_[1:3, ::-1])         # ... or as an index tuple
    dmlslice.slice1(x, offsets, sizes, strides) # DirectML SLICE1 (window)
    dmlslice.slice(x, offsets, sizes, strides)  # DirectML SLICE (output sizes)
    dmlslice.slice_grad(g, input_shape, offsets, sizes, strides)  # SLICE_GRAD
    dmlslice.onnx_slice(x, starts, ends, axes=None, steps=None)
    dmlslice.webnn_slice(x, starts, sizes, strides=None)
    dmlslice.webnn_reverse(x, axes=None)
    dmlslice.transpose(x, axes=None)            # numpy.transpose, a contiguous result

Plan once, run many times (from any number of threads)::

    op = dmlslice.plan("index", (4, 5), "float32", "[1:3, ::-1]")
    y = op(x)

Many slices in one call (one pass of the CPU pool, one launch on the GPU)::

    parts = dmlslice.split(x, 4, axis=1)            # ONNX num_outputs; or sizes [2, 3]
    boxes = dmlslice.crops(img, starts, (3, 4, 4))  # (N, 3, 4, 4) from an (N, 3) starts
    b = dmlslice.plan_batch([op1, op2, ((8, 8), "float32", "[::2]")])
    y1, y2, y3 = b([x1, x2, x3])

Errors are :class:`dmlslice.Error` with ``.status`` and ``.rule``.
"""
import os as _os

import numpy as _np

from . import _errors, _kinds
from ._dmlslice import (Batch, Operator, check_dml, crops, cuda_available, get_num_threads, index,
                        library_version, onnx_slice, set_num_threads, slice, slice1,
                        slice_grad, split, transpose, webnn_reverse, webnn_slice)
from ._dmlslice import _after_fork_child, _batch_init, _init, _plan, _plan_batch, cuda_built as _cuda_built
from ._errors import (ArgumentError, ArrayLibraryError, DeviceError, DTypeError, Error,
                      IndexKeyError, IndexTypeError, OutOfBoundsError, OutOfMemoryError)

__version__ = library_version
cuda_built: bool = bool(_cuda_built)

_init(_errors.BY_ROLE, _np, _kinds)
_batch_init(_kinds)
# A forked child has none of the parent's pool threads: it makes its own.
_os.register_at_fork(after_in_child=_after_fork_child)

_KINDS = ("index", "slice", "slice1", "slice_grad", "onnx_slice", "webnn_slice", "webnn_reverse",
          "transpose")


def plan(kind, shape, dtype, *params, feature_level=None):
    """Validate and plan a slice once, for arrays of `shape` and `dtype`.

    kind is the name of the one-shot function whose parameters follow
    (``"index"``, ``"slice"``, ``"slice1"``, ``"slice_grad"``, ``"onnx_slice"``,
    ``"webnn_slice"``, ``"webnn_reverse"``, ``"transpose"``). For ``"slice_grad"``, shape is the
    forward input's shape (the result's); the operator takes the gradient.
    Returns an :class:`Operator`; call it as ``op(x, out=None)``.
    """
    if kind not in _KINDS:
        raise ArgumentError(f"kind {kind!r} is not one of {', '.join(_KINDS)}",
                            "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-KIND")
    return _plan(kind, shape, dtype, params, feature_level)


def plan_batch(items, inputs=None):
    """Plan many slices to run together, in one call: one pass of the CPU pool,
    or one kernel launch on the arrays' current CUDA stream.

    items is a sequence; each item is an :class:`Operator` (``plan(...)``) or a
    ``(shape, dtype, key)`` tuple, planned as ``plan("index", shape, dtype, key)``.
    inputs says which input array each item reads: None (item i reads input
    i), or one input number per item (items may share an input; each input is
    read by at least one item). Returns a :class:`Batch`; call it as
    ``b(inputs, *, out=None)`` with the list of input arrays (C-contiguous, of
    the shapes planned; one array alone where the batch reads one) and get one
    result per item (the results of the items reading one input are views of
    one new array, each its own bytes), or pass ``out=`` (one C-contiguous
    array per item). Safe to
    call from many threads at once. On the GPU a batch serves the device of its
    first call, with at most 128 input and output arrays in all.
    """
    ops = []
    for i, item in enumerate(items):
        if isinstance(item, tuple) and len(item) == 3:
            shape, dtype, key = item
            item = plan("index", shape, dtype, key)
        ops.append(item)
    return _plan_batch(ops, inputs)


__all__ = ["ArgumentError", "ArrayLibraryError", "Batch", "DTypeError", "DeviceError", "Error", "IndexKeyError",
           "IndexTypeError", "Operator",
           "OutOfBoundsError", "OutOfMemoryError", "check_dml", "crops", "cuda_available", "cuda_built",
           "get_num_threads", "index", "library_version", "onnx_slice", "plan", "plan_batch",
           "set_num_threads", "slice", "slice1", "slice_grad", "split", "transpose", "webnn_reverse", "webnn_slice"]
