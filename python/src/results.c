/*
 * results.c: the result array, made by the input's own library on the
 * input's device (NumPy through its C API, PyTorch's new_empty, CuPy's
 * allocator, a producer's C exchange API, dmlslice/_kinds.py for the rest),
 * taken in as the view the copy writes, and handed back as that library
 * hands it (JAX's from the buffer it was written into).
 */
#include "results.h"
#include "array_view.h"
#include "arrays.h"
#include "errors.h"
#include "exchange.h"
#include "frameworks.h"
#include "lowering.h"
#include "numpy_abi.h"

#include <stdio.h>

#include "dlpack.h"

/* NumPy's name of the element type, for producers whose result is a NumPy
 * array (a CPU array of another kind). */
static void dtype_hint(const array_view *in, char *hint, size_t size) {
    static const char codes[] = "iuf?Vc?"; /* DLPack codes 0-6: 3 opaque, 4 bfloat */
    char c = in->dl_code >= 0 && in->dl_code < 7 ? codes[in->dl_code] : 'V';
    if (in->dl_code == 6)
        snprintf(hint, size, "?");
    else if (c == '?' || c == 'V' || in->dl_code == 4)
        snprintf(hint, size, "V%lld", (long long)in->itemsize);
    else
        snprintf(hint, size, "%c%lld", c, (long long)in->itemsize);
}

/* A new array from the input's library (not NumPy's). */
static PyObject *library_new(PyObject *x, const array_view *in, const lowered *p, PyObject *shape) {
    if (in->source == SRC_TORCH) return frameworks_torch_empty(x, shape);
    if (in->source == SRC_CUPY) return frameworks_cupy_empty(x, shape, in->device_id);
    const void *api = in->source == SRC_EXCHANGE ? exchange_api(x) : NULL;
    if (api && in->dl_code >= 0) return exchange_empty(api, in, p->final_ndim, p->final_shape);
    char hint[32];
    dtype_hint(in, hint, sizeof hint);
    return frameworks_empty_like(x, shape, hint);
}

PyObject *results_new(PyObject *x, const array_view *in, const lowered *p, PyObject *shape, PyObject *stream_arg,
                      array_view *out) {
    if (in->source == SRC_NUMPY) return numpy_new(numpy_descr(x), p->final_ndim, p->final_shape, out);
    PyObject *made = shape ? NULL : ext_shape_tuple(p->final_ndim, p->final_shape);
    if (!shape && !made) return NULL;
    PyObject *target = library_new(x, in, p, shape ? shape : made);
    Py_XDECREF(made);
    int fresh = in->source == SRC_TORCH || in->source == SRC_CUPY; /* made by new_empty / cupy.ndarray */
    if (target && (fresh ? frameworks_fresh_view(target, in, p->final_ndim, p->final_shape, out)
                         : view_import(target, 1, stream_arg, out)) < 0)
        Py_CLEAR(target);
    return target;
}

PyObject *results_finish(PyObject *x, const array_view *in, PyObject *target) {
    if (in->source == SRC_DLPACK || in->source == SRC_BUFFER) return frameworks_finish(x, target);
    return Py_NewRef(target);
}
