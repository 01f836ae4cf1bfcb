/* frameworks.h: PyTorch and CuPy arrays read through their own attributes; their streams (frameworks.c). */
#ifndef DMLSLICE_PY_FRAMEWORKS_H
#define DMLSLICE_PY_FRAMEWORKS_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "array_view.h"

/* Takes dmlslice._kinds (dtype_info, device_of, stream_of, cupy_empty). 0 or -1. */
int frameworks_init(PyObject *kinds);
/* (itemsize, class) of a dtype-like object (NumPy's, torch's), through
 * dmlslice._kinds.dtype_info. 0, or -1 with an exception. */
int frameworks_dtype_info(PyObject *dtype, int64_t *itemsize, int *cls);
/* True for a torch.Tensor (or subclass) / cupy.ndarray, once that library
 * is imported (never imported here). */
int frameworks_is_torch(PyObject *obj);
int frameworks_is_cupy(PyObject *obj);
/* Reads a tensor / CuPy array into v: 0, 1 when it must go through DLPack
 * instead (another layout or device), or -1 with an exception. */
int frameworks_torch_view(PyObject *obj, array_view *v);
int frameworks_cupy_view(PyObject *obj, array_view *v);
/* (device_type, device_id) of a tensor: 0, 1 when torch cannot say, -1. */
int frameworks_torch_device(PyObject *obj, int *type, int *id);
/* The library's current stream of CUDA device `device` as an integer: 0,
 * or -1 with an exception. */
int frameworks_torch_stream(int device, uintptr_t *stream);
int frameworks_cupy_stream(int device, uintptr_t *stream);
/* An uninitialized array like x of this shape on x's device. */
PyObject *frameworks_torch_empty(PyObject *x, PyObject *shape);
PyObject *frameworks_cupy_empty(PyObject *x, PyObject *shape, int device);
/* The view of such an array, made for input `in` with this shape: the
 * input's dtype and device, C-contiguous; only its address is asked. 0 or -1. */
int frameworks_fresh_view(PyObject *made, const array_view *in, int ndim, const int64_t *shape, array_view *v);
/* _kinds.device_of / stream_of / empty_like / finish, for other producers. */
int frameworks_device_of(PyObject *obj, int *type, int *id);
int frameworks_stream_of(PyObject *obj, int device, uintptr_t *stream, PyObject **stream_arg, int *sync);
PyObject *frameworks_empty_like(PyObject *x, PyObject *shape, const char *dtype_hint);
PyObject *frameworks_finish(PyObject *x, PyObject *target);

#endif /* DMLSLICE_PY_FRAMEWORKS_H */
