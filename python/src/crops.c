/*
 * crops.c: ds.crops, N windows of one size from one array, stacked, in one
 * batch; starts given by the host are checked here, starts held by the GPU
 * are read by the kernel (clamped). The batch is kept (batch_cache.c).
 */
#include "crops.h"

#include <string.h>

#include "arrays.h"
#include "batch_arrays.h"
#include "batch_cache.h"
#include "dlpack.h"
#include "errors.h"
#include "numpy_abi.h"
#include "results.h"

static PyObject *k_host_starts, *k_to_device; /* dmlslice._kinds */

typedef struct crops_args {
    const bt_tensor *t;
    const int64_t *size; /* t->ndim sizes */
    size_t n;
    int width;
} crops_args;

static void *make_crops(void *arg) {
    const crops_args *a = arg;
    return bt_crops(a->t, a->size, a->n, a->width);
}

/* The starts as bound (input slot 1): the array holding them, kept alive. */
typedef struct starts_state {
    PyObject *keep;
    array_view v;
    int have;
    size_t n;
    int width;
    dmls_batch_input slot;
} starts_state;

static void starts_release(starts_state *s) {
    if (s->have) view_release(&s->v);
    Py_CLEAR(s->keep);
}

/* Starts held by the GPU: used as they are, clamped (R-CROP-BOUNDS). known:
 * the starts already taken in (a known library's array), or NULL. */
static int device_starts(PyObject *starts, const dev_state *d, int r, const bt_tensor *t, starts_state *s,
                         const array_view *known) {
    if (known) {
        memcpy(&s->v, known, VIEW_HEAD_BYTES + sizeof(int64_t) * (size_t)known->ndim);
        memcpy(s->v.strides, known->strides, sizeof(int64_t) * (size_t)known->ndim);
        s->have = 1;
        if (view_on_device(&s->v, d, "starts", -1) < 0) return -1;
    } else if (same_device(starts, d, "starts", -1) < 0) {
        return -1;
    }
    if (t->k > 1) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-PY-LAYOUT",
                  "crops: x's elements are copied as %lld parts of %lld bytes (an item size or a byte stride "
                  "not a multiple of 8, 4 or 2), which adds an axis starts on the device have no column for; "
                  "pass the starts as a host array",
                  (long long)t->k, (long long)t->unit);
        return -1;
    }
    if (!known && view_import(starts, 0, d->stream_arg, &s->v) < 0) return -1;
    s->have = 1;
    const array_view *v = &s->v;
    if (v->ndim != 2 || v->shape[1] != r) {
        char a[256];
        ext_shape_text(a, sizeof a, v->ndim, v->shape);
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "R-CROP-BOUNDS",
                  "crops: starts has shape %s; an (N, %d) array is needed (row i: the starts of crop i, one per "
                  "axis of x)",
                  a, r);
        return -1;
    }
    if (v->dtype_class != CLS_INT || (v->itemsize != 4 && v->itemsize != 8)) {
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY",
                  "crops: starts on the device must be 32- or 64-bit signed integers, not %lld-byte %s",
                  (long long)v->itemsize, v->dtype_class == CLS_UINT ? "unsigned integers" : "elements");
        return -1;
    }
    if (!is_packed(v)) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-PY-LAYOUT",
                  "crops: starts on the device must be C-contiguous (e.g. starts.contiguous())");
        return -1;
    }
    s->n = (size_t)v->shape[0];
    s->width = (int)v->itemsize;
    s->slot = packed_input(v);
    return 0;
}

/* Host starts: each crop inside x (R-CROP-BOUNDS), checked before anything
 * runs; cols: the row length (r, or r + 1 with the parts' axis). */
static int check_starts(const int64_t *st, size_t n, int cols, const array_view *in, const int64_t *size) {
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < in->ndim; k++) {
            int64_t v = st[i * (size_t)cols + (size_t)k];
            if (v < 0 || v > in->shape[k] - size[k]) {
                ext_raise(ERR_OUT_OF_BOUNDS, "DMLS_ERROR_OUT_OF_BOUNDS", "R-CROP-BOUNDS",
                          "crops: crop %zu: start[%d] = %lld with size %lld reaches outside [0, %lld) (axis %d) "
                          "(R-CROP-BOUNDS)",
                          i, k, (long long)v, (long long)size[k], (long long)in->shape[k], k);
                return -1;
            }
        }
    return 0;
}

/* The kept batch of n crops of size with starts of width bytes (a new
 * reference to its capsule). Made by the library, which checks size
 * (R-CROP-SIZE) itself: the binding does not repeat the rule. */
static PyObject *crops_batch(const dev_state *d, const bt_tensor *t, const int64_t *size, size_t n, int width) {
    crops_args a = {t, size, n, width};
    key_buf k;
    key_tensor(&k, 'C', &d->w, t);
    for (int i = 0; i < t->ndim; i++) key_add(&k, size[i]);
    key_add(&k, (int64_t)n);
    key_add(&k, width);
    return kept_batch(&k, NULL, 0, make_crops, &a);
}

/* Starts given by the host: the batch made (size checked), the starts
 * checked against it, then bound as they are on the CPU, or copied to x's
 * device by x's library. */
static int host_starts(PyObject *starts, const dev_state *d, const array_view *in, const int64_t *size,
                       const bt_tensor *t, starts_state *s, PyObject **cap) {
    int extra = t->k > 1;
    PyObject *host = PyObject_CallFunction(k_host_starts, "Oii", starts, in->ndim, extra);
    if (!host) return -1;
    array_view hv;
    int rc = view_import(host, 0, NULL, &hv);
    if (rc == 0) {
        s->n = (size_t)hv.shape[0];
        *cap = crops_batch(d, t, size, s->n, 8);
        rc = *cap ? check_starts((const int64_t *)(void *)hv.data, s->n, t->ndim, in, size) : -1;
        view_release(&hv);
    }
    if (rc == 0 && devices_is_gpu(d->w.dl_type)) {
        s->keep = PyObject_CallFunction(k_to_device, "OOi", d->x, host, d->w.dl_id);
        Py_DECREF(host);
    } else {
        s->keep = host;
    }
    if (rc < 0 || !s->keep || view_import(s->keep, 0, d->stream_arg, &s->v) < 0) return -1;
    s->have = 1;
    s->width = 8;
    s->slot = packed_input(&s->v);
    return 0;
}

/* The crops of batch cap written into out= or a new array. */
static PyObject *crops_run(const dev_state *d, const array_view *in, const bt_tensor *t, const int64_t *size,
                           const starts_state *s, PyObject *cap, PyObject *out) {
    int64_t shape[EXT_MAX_RANK + 1];
    shape[0] = (int64_t)s->n;
    memcpy(shape + 1, size, sizeof(int64_t) * (size_t)in->ndim);
    array_view ov;
    PyObject *target = NULL, *result = NULL;
    if (out == Py_None) {
        target = new_like(d->x, in, in->ndim + 1, shape, NULL, d->stream_arg, &ov);
    } else if (take_out(out, d, d->x, in, in->ndim + 1, shape, "out=", -1, &ov) == 0) {
        target = Py_NewRef(out);
    }
    if (target) {
        dmls_batch_input ins[2] = {{t->base, t->bytes}, s->slot};
        dmls_batch_output o = packed_slot(&ov);
        if (bt_run(PyCapsule_GetPointer(cap, "dmlslice.batch"), ins, 2, &o, 1, o.bytes, &d->w) == 0)
            result = out == Py_None ? results_finish(d->x, in, target) : Py_NewRef(target);
        view_release(&ov);
    }
    Py_XDECREF(target);
    return result;
}

static PyObject *crops_impl(PyObject *args, PyObject *kw) {
    static const char *kwlist[] = {"x", "starts", "size", "out", NULL};
    PyObject *x, *starts, *size_obj, *out = Py_None, *result = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|$O:crops", (char **)kwlist, &x, &starts, &size_obj, &out))
        return NULL;
    dev_state d;
    array_view in;
    if (take_input(x, &d, &in) < 0) {
        dev_release(&d);
        return NULL;
    }
    int64_t *size = NULL, sz[EXT_MAX_RANK];
    Py_ssize_t ns = read_ints(size_obj, "crops: size", "R-CROP-SIZE", &size);
    bt_tensor t;
    starts_state s = {0};
    array_view sv;
    int type = 0, id;
    if (ns >= 0 && ns != in.ndim)
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "R-CROP-SIZE",
                  "crops: size has %zd values; x has %d axes (R-CROP-SIZE)", ns, in.ndim);
    else if (ns >= 0 && bt_describe(&in, "x", &t) == 0) {
        memcpy(sz, size, sizeof(int64_t) * (size_t)ns);
        if (t.k > 1) sz[ns] = t.k; /* the parts' axis, whole */
        /* Lists and other host objects NumPy reads have no device to ask;
         * starts on the GPU are read once, their device then from the view. */
        int asked = !numpy_is_array(starts) && !PyList_Check(starts) && !PyTuple_Check(starts) &&
                    view_device(starts, &type, &id) == 0;
        PyErr_Clear();
        int dev = asked && (type == DL_CUDA || type == DL_CUDA_MANAGED);
        int known = dev ? view_import_known(starts, 0, &sv) : 1;
        PyObject *cap = NULL;
        if (known >= 0 &&
            (dev ? device_starts(starts, &d, in.ndim, &t, &s, known == 0 ? &sv : NULL)
                 : host_starts(starts, &d, &in, sz, &t, &s, &cap)) == 0 &&
            (cap || (cap = crops_batch(&d, &t, sz, s.n, s.width))))
            result = crops_run(&d, &in, &t, sz, &s, cap, out);
        Py_XDECREF(cap);
    }
    starts_release(&s);
    PyMem_Free(size);
    view_release(&in);
    dev_release(&d);
    return result;
}

EXT_ENTRY_KW(crops_fn, crops_impl)

PyObject *crops_batch_init(PyObject *self, PyObject *kinds) {
    (void)self;
    PyObject *host = PyObject_GetAttrString(kinds, "host_starts");
    PyObject *dev = host ? PyObject_GetAttrString(kinds, "to_device") : NULL;
    if (!dev) {
        Py_XDECREF(host);
        return NULL;
    }
    Py_XDECREF(k_host_starts);
    Py_XDECREF(k_to_device);
    k_host_starts = host, k_to_device = dev;
    Py_RETURN_NONE;
}

const char crops_doc[] = PyDoc_STR("crops(x, starts, size, *, out=None)\n"
                                   "\n"
                                   "N windows of one size from x, stacked into an array of shape (N, *size):\n"
                                   "result[i] == x[starts[i][0]:starts[i][0]+size[0], ...]. starts is an (N, x.ndim)\n"
                                   "integer array. Given by the host (NumPy, a list, a CPU tensor), every window\n"
                                   "must lie inside x (OutOfBoundsError naming the crop and the axis otherwise).\n"
                                   "For a CUDA x, starts may be a CUDA array (int32 or int64, C-contiguous) on x's\n"
                                   "device, read by the kernel with no host round trip: each start is then\n"
                                   "clamped to [0, x.shape[k] - size[k]], as jax.lax.dynamic_slice does. out=\n"
                                   "takes a C-contiguous array of the result's shape.");
