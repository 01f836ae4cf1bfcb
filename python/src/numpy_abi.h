/* numpy_abi.h: NumPy's array fields and C API table: arrays read and made without a Python-level call (numpy_abi.c). */
#ifndef DMLSLICE_PY_NUMPY_ABI_H
#define DMLSLICE_PY_NUMPY_ABI_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "array_view.h"

/* Takes the numpy module: ndarray, bool_, empty, and the C API table. 0 or -1. */
int numpy_init(PyObject *np);
int numpy_is_array(PyObject *obj);
/* Exactly numpy.ndarray (no subclass). */
int numpy_is_exact(PyObject *obj);
int numpy_is_bool(PyObject *obj); /* numpy.bool_ */
/* A NumPy array's dtype (borrowed), without an attribute lookup. */
PyObject *numpy_descr(PyObject *arr);
/* What the slice needs of a NumPy dtype; cls -1: it holds Python objects.
 * Asked once per dtype object. 0, or -1 with an exception. */
int numpy_dtype(PyObject *descr, int64_t *itemsize, int *cls);
/* Reads a NumPy array's fields into v (source SRC_NUMPY). 0 or -1. */
int numpy_view(PyObject *arr, int writable, array_view *v);
/* A new C-contiguous array of dtype descr and this shape, through NumPy's
 * C API where it is reachable (numpy.empty otherwise); v describes it
 * (source SRC_FRESH_NUMPY). A new reference, or NULL. */
PyObject *numpy_new(PyObject *descr, int ndim, const int64_t *shape, array_view *v);
/* A writable C-contiguous view of this shape at data, inside base (a
 * C-contiguous NumPy array of the same dtype, kept alive by the view),
 * made through the C API where numpy_can_view() says it is reachable. A new
 * reference, or NULL. */
int numpy_can_view(void);
PyObject *numpy_view_of(PyObject *base, int ndim, const int64_t *shape, char *data);
/* v's shape, and the strides of a C-contiguous array (NumPy's default
 * order, every library's fresh array) of v->itemsize elements. */
void numpy_c_order(array_view *v, int ndim, const int64_t *shape);
/* The fields of a host (CPU) array's view, after the checks NumPy's fields
 * and the buffer protocol (arrays.c) take in alike: elements of a byte or
 * more (R-V-SIZES), and for out= (writable) an array that may be written
 * (R-PY-OUT). 0, or -1 with the error raised; shape and strides are the
 * caller's, as each source reads them its own way. */
int view_host(array_view *v, int source, void *data, int ndim, int64_t itemsize, int cls, int readonly, int writable);
/* numpy.asarray(obj): a NumPy view of a buffer exporter. */
PyObject *numpy_asarray(PyObject *obj);

#endif /* DMLSLICE_PY_NUMPY_ABI_H */
