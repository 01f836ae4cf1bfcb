/*
 * batch_arrays.c: the arrays of split, crops and Batch calls taken in: the
 * input with its device and stream, out= arrays checked against the result,
 * new results made by the input's library, packed arrays bound as slots.
 */
#include "batch_arrays.h"

#include "arrays.h"
#include "errors.h"
#include "exchange.h"
#include "frameworks.h"
#include "lowering.h"
#include "numpy_abi.h"
#include "params.h"
#include "results.h"
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------ arrays */

void dev_release(dev_state *d) {
    Py_CLEAR(d->owned);
    Py_CLEAR(d->stream_arg);
}

static int check_device(dev_state *d, int type, int id) {
    d->w.dl_type = type;
    d->w.dl_id = id;
    return devices_check(type, id);
}

/* The current stream of an array read without DLPack. */
static int known_stream(dev_state *d, const array_view *in) {
    if (check_device(d, in->device_type, in->device_id) < 0) return -1;
    if (!devices_is_gpu(d->w.dl_type)) return 0;
    int rc = 1;
    if (in->source == SRC_TORCH)
        rc = frameworks_torch_stream(in->device_id, &d->w.stream);
    else if (in->source == SRC_CUPY)
        rc = frameworks_cupy_stream(in->device_id, &d->w.stream);
    else if (in->source == SRC_EXCHANGE)
        rc = exchange_stream(exchange_api(d->x), in->device_type, in->device_id, &d->w.stream);
    if (rc == 1) return frameworks_stream_of(d->x, in->device_id, &d->w.stream, &d->stream_arg, &d->w.sync);
    if (rc < 0) return -1;
    d->stream_arg = PyLong_FromUnsignedLongLong(d->w.stream ? (unsigned long long)d->w.stream : 1);
    return d->stream_arg ? 0 : -1;
}

/* Takes obj in (into in, to view_release on success). 0, or -1. */
int take_input(PyObject *obj, dev_state *d, array_view *in) {
    memset(d, 0, sizeof *d);
    d->x = obj;
    int rc = view_import_known(obj, 0, in);
    if (rc < 0) return -1;
    if (rc == 0) {
        if (known_stream(d, in) == 0) return 0;
        view_release(in);
        return -1;
    }
    if (view_is_buffer(obj)) {
        if (!(d->owned = d->x = numpy_asarray(obj))) return -1;
        return view_import_known(d->x, 0, in) == 0 ? 0 : -1;
    }
    int type, id;
    if (view_device(obj, &type, &id) < 0 || check_device(d, type, id) < 0) return -1;
    if (devices_is_gpu(d->w.dl_type) && frameworks_stream_of(obj, id, &d->w.stream, &d->stream_arg, &d->w.sync) < 0)
        return -1;
    return view_import(obj, 0, d->stream_arg, in);
}

/* An argument's name for a message: name, or name[idx] where idx >= 0
 * (formatted only when a message is made: a call may bind thousands). */
static const char *arg_name(char *buf, size_t size, const char *name, Py_ssize_t idx) {
    if (idx < 0) return name;
    snprintf(buf, size, "%s[%zd]", name, idx);
    return buf;
}

/* obj (name[idx]) on d's device, or an error naming both. */
int same_device(PyObject *obj, const dev_state *d, const char *name, Py_ssize_t idx) {
    int type, id;
    if (view_device(obj, &type, &id) < 0) return -1;
    int cuda = devices_is_gpu(type);
    if (cuda == devices_is_gpu(d->w.dl_type) && (!cuda || id == d->w.dl_id)) return 0;
    char what[64];
    ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-DEVICE",
              "%s is on %s %d and the array on %s %d; they must share a device", arg_name(what, sizeof what, name, idx),
              cuda ? "CUDA device" : "the CPU", cuda ? id : 0, devices_is_gpu(d->w.dl_type) ? "CUDA device" : "the CPU",
              devices_is_gpu(d->w.dl_type) ? d->w.dl_id : 0);
    return -1;
}

/* A view taken in (name[idx]) on d's device, read from the view (no second
 * question to its library), or an error naming both devices. */
int view_on_device(const array_view *v, const dev_state *d, const char *name, Py_ssize_t idx) {
    int cuda = devices_is_gpu(v->device_type);
    if (cuda == devices_is_gpu(d->w.dl_type) && (!cuda || v->device_id == d->w.dl_id)) return 0;
    char what[64];
    ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-DEVICE",
              "%s is on %s %d and the array on %s %d; they must share a device", arg_name(what, sizeof what, name, idx),
              cuda ? "CUDA device" : "the CPU", cuda ? v->device_id : 0,
              devices_is_gpu(d->w.dl_type) ? "CUDA device" : "the CPU", devices_is_gpu(d->w.dl_type) ? d->w.dl_id : 0);
    return -1;
}

/* Row-major without gaps (an array without elements places none). */
int is_packed(const array_view *v) {
    for (int i = 0; i < v->ndim; i++)
        if (v->shape[i] == 0) return 1;
    int64_t want = v->itemsize;
    for (int i = v->ndim - 1; i >= 0; i--) {
        if (v->shape[i] > 1 && v->strides[i] != want) return 0;
        want *= v->shape[i];
    }
    return 1;
}

uint64_t view_bytes(const array_view *v) {
    uint64_t n = (uint64_t)v->itemsize;
    for (int i = 0; i < v->ndim; i++) n *= (uint64_t)v->shape[i];
    return n;
}

dmls_batch_output packed_slot(const array_view *v) {
    uint64_t n = view_bytes(v);
    dmls_batch_output s = {n ? v->data : NULL, n};
    return s;
}

dmls_batch_input packed_input(const array_view *v) {
    uint64_t n = view_bytes(v);
    dmls_batch_input s = {n ? v->data : NULL, n};
    return s;
}

/* A new array of x's kind, dtype and device (in: x taken in), described
 * in v; shape_obj: the shape as a tuple where one is at hand, else NULL. */
PyObject *new_like(PyObject *x, const array_view *in, int ndim, const int64_t *shape, PyObject *shape_obj,
                   PyObject *stream_arg, array_view *v) {
    lowered p; /* results_new reads the result's shape alone */
    p.final_ndim = ndim;
    memcpy(p.final_shape, shape, sizeof(int64_t) * (size_t)ndim);
    return results_new(x, in, &p, shape_obj, stream_arg, v);
}

/* An out= array (name[idx]): x's device and dtype, the shape, packed. */
int take_out(PyObject *o, const dev_state *d, PyObject *x, const array_view *in, int ndim, const int64_t *shape,
             const char *name, Py_ssize_t idx, array_view *v) {
    /* A known library's array is read once, its device from the view. */
    int known = view_import_known(o, 1, v);
    if (known < 0) return -1;
    if (known == 0 && view_on_device(v, d, name, idx) < 0) {
        view_release(v);
        return -1;
    }
    if (known == 1 && (same_device(o, d, name, idx) < 0 || view_import(o, 1, d->stream_arg, v) < 0)) return -1;
    int same = v->ndim == ndim;
    for (int i = 0; same && i < ndim; i++) same = v->shape[i] == shape[i];
    int dtype = v->itemsize == in->itemsize && v->dtype_class == in->dtype_class;
    if (dtype && numpy_is_array(x) && numpy_is_array(o))
        dtype = PyObject_RichCompareBool(numpy_descr(x), numpy_descr(o), Py_EQ);
    if (same && dtype == 1 && is_packed(v)) return 0;
    char a[256], b[256], buf[64];
    const char *what = arg_name(buf, sizeof buf, name, idx);
    if (dtype < 0) {
        /* the comparison's own exception */
    } else if (!same) {
        ext_shape_text(a, sizeof a, v->ndim, v->shape);
        ext_shape_text(b, sizeof b, ndim, shape);
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "R-PY-OUT", "%s has shape %s; the result has shape %s",
                  what, a, b);
    } else if (!dtype) {
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-OUT",
                  "%s must have the input's dtype (slicing copies bits; no casting)", what);
    } else {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-PY-OUT",
                  "%s is not C-contiguous: batched results are written packed; pass a C-contiguous array", what);
    }
    view_release(v);
    return -1;
}

/* A sequence of integers into a PyMem array; errors carry `rule`. Returns
 * the count, or -1. */
Py_ssize_t read_ints(PyObject *seq, const char *what, const char *rule, int64_t **out) {
    PyObject *fast = params_sequence(seq, what, rule);
    if (!fast) return -1;
    Py_ssize_t n = PyTuple_Size(fast);
    *out = PyMem_Malloc(sizeof(int64_t) * (size_t)(n ? n : 1));
    if (!*out) PyErr_NoMemory();
    for (Py_ssize_t i = 0; *out && i < n; i++)
        if (params_item(fast, i, what, rule, 0, &(*out)[i]) < 0) {
            PyMem_Free(*out);
            *out = NULL;
        }
    Py_DECREF(fast);
    return *out ? n : -1;
}
