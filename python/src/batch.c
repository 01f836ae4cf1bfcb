/*
 * batch.c: many slices in one call, the Python surface: ds.split (one input,
 * many outputs along an axis), ds.crops (N windows of one size, stacked) and
 * the Batch type ds.plan_batch makes (planned Operators over lists of
 * arrays). Each call is one pass of the CPU pool or one launch on the
 * array's current CUDA stream (batch_run.c). Batches made by split and
 * crops depend only on the array's layout and the parameters, not on its
 * address: they are kept (by device) and reused, so a GPU call allocates,
 * copies and synchronizes nothing after the first.
 */
#include "batch_ext.h"

#include <stdio.h>
#include <string.h>

#include "dlpack.h"

/* ------------------------------------------------------------ state */

static PyObject *k_host_starts, *k_to_device; /* dmlslice._kinds */

/* Batches of split and crops by (kind, device, layout, parameters): bytes ->
 * capsule. Bounded, emptied when full; a call holds its capsule while it
 * runs, so one dropped from here meanwhile lives until the call ends. */
#define BATCH_CACHE_MAX 128
static PyObject *batch_cache;

static void capsule_free(PyObject *cap) { bt_free(PyCapsule_GetPointer(cap, "dmlslice.batch")); }

/* A key's fixed fields, as int64 values; kept_batch appends a variable
 * part (split's sizes). */
typedef struct key_buf {
    int64_t v[8 + 2 * EXT_MAX_RANK + 2 * EXT_MAX_RANK];
    size_t n;
} key_buf;

static void key_add(key_buf *k, int64_t x) { k->v[k->n++] = x; }

static void key_tensor(key_buf *k, int tag, const bt_where *w, const bt_tensor *t) {
    k->n = 0;
    key_add(k, tag);
    key_add(k, devices_is_gpu(w->dl_type) ? w->dl_id : -1);
    key_add(k, t->unit);
    key_add(k, (int64_t)t->offset);
    key_add(k, t->ndim);
    for (int i = 0; i < t->ndim; i++) key_add(k, t->shape[i]), key_add(k, t->strides[i]);
}

/* Remembers (key, cap) as the last found, letting the previous pair go. */
static void keep_last(PyObject **last_key, PyObject **last_cap, PyObject *key, PyObject *cap) {
    PyObject *k = *last_key, *c = *last_cap;
    *last_key = Py_NewRef(key), *last_cap = Py_NewRef(cap);
    Py_XDECREF(k);
    Py_XDECREF(c);
}

/* The kept batch for key k + extra[0..n_extra) (a new reference to its
 * capsule), made by make(arg) on a miss; NULL with an exception. */
static PyObject *kept_batch(const key_buf *k, const int64_t *extra, size_t n_extra, void *(*make)(void *), void *arg) {
    /* The last key found, with its capsule: a loop calling alike skips
     * making the key's bytes, hashing them and the dict. */
    static PyObject *last_key, *last_cap;
    size_t head = k->n * sizeof(int64_t);
    if (last_key && (size_t)PyBytes_Size(last_key) == head + n_extra * sizeof(int64_t) &&
        memcmp(PyBytes_AsString(last_key), k->v, head) == 0 &&
        (!n_extra || memcmp(PyBytes_AsString(last_key) + head, extra, n_extra * sizeof(int64_t)) == 0))
        return Py_NewRef(last_cap);
    PyObject *key = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(head + n_extra * sizeof(int64_t)));
    if (!key) return NULL;
    memcpy(PyBytes_AsString(key), k->v, head);
    if (n_extra) memcpy(PyBytes_AsString(key) + head, extra, n_extra * sizeof(int64_t));
    if (!batch_cache && !(batch_cache = PyDict_New())) {
        Py_DECREF(key);
        return NULL;
    }
    PyObject *cap = PyDict_GetItemWithError(batch_cache, key);
    if (cap) keep_last(&last_key, &last_cap, key, cap);
    if (cap || PyErr_Occurred()) {
        Py_XINCREF(cap);
        Py_DECREF(key);
        return cap;
    }
    void *b = make(arg);
    cap = b ? PyCapsule_New(b, "dmlslice.batch", capsule_free) : NULL;
    if (b && !cap) bt_free(b);
    if (cap && PyDict_Size(batch_cache) >= BATCH_CACHE_MAX) PyDict_Clear(batch_cache);
    if (cap && PyDict_SetItem(batch_cache, key, cap) < 0) Py_CLEAR(cap);
    if (cap) keep_last(&last_key, &last_cap, key, cap);
    Py_DECREF(key);
    return cap;
}

/* ------------------------------------------------------------ arrays */

/* An array taken in with its device and, on a GPU, its stream, as call.c
 * takes one slice's input. x may become a NumPy view of a buffer exporter
 * (owned). */
typedef struct dev_state {
    PyObject *x, *owned, *stream_arg;
    bt_where w;
} dev_state;

static void dev_release(dev_state *d) {
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
static int take_input(PyObject *obj, dev_state *d, array_view *in) {
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
    if (devices_is_gpu(d->w.dl_type) && frameworks_stream_of(obj, id, &d->w.stream, &d->stream_arg, &d->w.sync) < 0) return -1;
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
static int same_device(PyObject *obj, const dev_state *d, const char *name, Py_ssize_t idx) {
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
static int view_on_device(const array_view *v, const dev_state *d, const char *name, Py_ssize_t idx) {
    int cuda = devices_is_gpu(v->device_type);
    if (cuda == devices_is_gpu(d->w.dl_type) && (!cuda || v->device_id == d->w.dl_id)) return 0;
    char what[64];
    ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-DEVICE",
              "%s is on %s %d and the array on %s %d; they must share a device", arg_name(what, sizeof what, name, idx),
              cuda ? "CUDA device" : "the CPU", cuda ? v->device_id : 0, devices_is_gpu(d->w.dl_type) ? "CUDA device" : "the CPU",
              devices_is_gpu(d->w.dl_type) ? d->w.dl_id : 0);
    return -1;
}

/* Row-major without gaps (an array without elements places none). */
static int is_packed(const array_view *v) {
    for (int i = 0; i < v->ndim; i++)
        if (v->shape[i] == 0) return 1;
    int64_t want = v->itemsize;
    for (int i = v->ndim - 1; i >= 0; i--) {
        if (v->shape[i] > 1 && v->strides[i] != want) return 0;
        want *= v->shape[i];
    }
    return 1;
}

static uint64_t view_bytes(const array_view *v) {
    uint64_t n = (uint64_t)v->itemsize;
    for (int i = 0; i < v->ndim; i++) n *= (uint64_t)v->shape[i];
    return n;
}

static bt_slot packed_slot(const array_view *v) {
    uint64_t n = view_bytes(v);
    bt_slot s = {n ? v->data : NULL, n};
    return s;
}

/* A new array of x's kind, dtype and device (in: x taken in), described
 * in v; shape_obj: the shape as a tuple where one is at hand, else NULL. */
static PyObject *new_like(PyObject *x, const array_view *in, int ndim, const int64_t *shape, PyObject *shape_obj,
                          PyObject *stream_arg, array_view *v) {
    lowered p; /* results_new reads the result's shape alone */
    p.final_ndim = ndim;
    memcpy(p.final_shape, shape, sizeof(int64_t) * (size_t)ndim);
    return results_new(x, in, &p, shape_obj, stream_arg, v);
}

/* An out= array (name[idx]): x's device and dtype, the shape, packed. */
static int take_out(PyObject *o, const dev_state *d, PyObject *x, const array_view *in, int ndim, const int64_t *shape,
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
static Py_ssize_t read_ints(PyObject *seq, const char *what, const char *rule, int64_t **out) {
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

/* ------------------------------------------------------------ split */

static const struct {
    const char *name;
    int rule;
} split_modes[] = {
    {"onnx", 0}, {"split_size", 1}, {"array_split", 2}, {"tensor_split", 2}, {"chunk", 3},
};

/* mode= as a dmls_split_rule (None: ONNX's), or -1 with the error. */
static int split_mode(PyObject *mode) {
    if (mode == Py_None) return 0;
    const char *m = PyUnicode_Check(mode) ? PyUnicode_AsUTF8AndSize(mode, NULL) : NULL;
    PyErr_Clear();
    for (size_t i = 0; m && i < sizeof split_modes / sizeof *split_modes; i++)
        if (strcmp(m, split_modes[i].name) == 0) return split_modes[i].rule;
    ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-SPLIT-COUNT",
              "split: mode= is \"onnx\", \"split_size\", \"array_split\", \"tensor_split\" or \"chunk\" "
              "(R-SPLIT-COUNT)");
    return -1;
}

/* sizes_or_sections and mode= as the output sizes along an axis of d. An
 * integer (what operator.index takes: a 0-d integer array too) is a count,
 * anything else a sequence of sizes (an integer array among them). */
static Py_ssize_t split_sizes(PyObject *sos, PyObject *mode, int64_t d, int64_t **sizes) {
    int64_t n = 0;
    int bad = PyBool_Check(sos) || numpy_is_bool(sos) ? 3 : params_index(sos, &n);
    if (bad == 1) {
        if (mode == Py_None) return read_ints(sos, "split: sizes", "R-SPLIT-SUM", sizes);
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-SPLIT-SUM",
                  "split: mode= applies to an integer count; a sequence gives the sizes themselves (R-SPLIT-SUM)");
        return -1;
    }
    if (bad == 3) {
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-SPLIT-COUNT",
                  "split: the count is a boolean, not an integer (R-SPLIT-COUNT)");
        return -1;
    }
    int rule = split_mode(mode);
    if (rule < 0) return -1;
    if (bad == 2) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-SPLIT-COUNT",
                  "split: the count is outside the 64-bit integers (R-SPLIT-COUNT)");
        return -1;
    }
    size_t count = 0;
    return bt_split_sizes(d, n, rule, sizes, &count) < 0 ? -1 : (Py_ssize_t)count;
}

typedef struct split_args {
    const bt_tensor *t;
    int axis, one_output;
    const int64_t *sizes;
    size_t n;
} split_args;

static void *make_split(void *arg) {
    const split_args *a = arg;
    return bt_split(a->t, a->axis, a->sizes, a->n, a->one_output);
}

/* The parts' new arrays: one packed array of every part, cut into views. */
static int split_new(const dev_state *d, const array_view *in, const split_args *a, array_view *flat, PyObject *list,
                     bt_slot *slot) {
    int64_t per = 1, total = 0, shape[EXT_MAX_RANK];
    int r = in->ndim;
    for (int i = 0; i < r; i++) per *= i == a->axis ? 1 : in->shape[i];
    for (size_t j = 0; j < a->n; j++) total += per * a->sizes[j];
    PyObject *buf = new_like(d->x, in, 1, &total, NULL, d->stream_arg, flat);
    if (!buf) return -1;
    *slot = packed_slot(flat);
    memcpy(shape, in->shape, sizeof(int64_t) * (size_t)r);
    int64_t at = 0;
    for (size_t j = 0; j < a->n; j++) {
        shape[a->axis] = a->sizes[j];
        PyObject *lo = PyLong_FromLongLong(at), *hi = PyLong_FromLongLong(at + per * a->sizes[j]);
        PyObject *cut = lo && hi ? PySlice_New(lo, hi, NULL) : NULL;
        Py_XDECREF(lo);
        Py_XDECREF(hi);
        PyObject *part = cut ? PyObject_GetItem(buf, cut) : NULL;
        PyObject *st = part ? ext_shape_tuple(r, shape) : NULL;
        PyObject *view = st ? PyObject_CallMethod(part, "reshape", "(O)", st) : NULL;
        Py_XDECREF(st);
        Py_XDECREF(part);
        Py_XDECREF(cut);
        if (!view) {
            view_release(flat);
            Py_DECREF(buf);
            return -1;
        }
        PyList_SetItem(list, (Py_ssize_t)j, view);
        at += per * a->sizes[j];
    }
    Py_DECREF(buf);
    return 0;
}

/* out= of split: a sequence of one packed array per part. */
static int split_outs(PyObject *out, const dev_state *d, const array_view *in, const split_args *a, array_view *views,
                      bt_slot *slots, PyObject *list) {
    PyObject *fast = PySequence_Tuple(out);
    if (!fast) {
        PyErr_Clear();
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-OUT",
                  "split: out= must be a sequence of arrays, one per part");
        return -1;
    }
    Py_ssize_t m = PyTuple_Size(fast), j = 0;
    int64_t shape[EXT_MAX_RANK];
    memcpy(shape, in->shape, sizeof(int64_t) * (size_t)in->ndim);
    if (m != (Py_ssize_t)a->n)
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "R-PY-OUT", "split: out= has %zd arrays for %zu parts", m,
                  a->n);
    for (; m == (Py_ssize_t)a->n && j < m; j++) {
        shape[a->axis] = a->sizes[j];
        PyObject *o = PyTuple_GetItem(fast, j);
        if (take_out(o, d, d->x, in, in->ndim, shape, "out", j, &views[j]) < 0) break;
        slots[j] = packed_slot(&views[j]);
        PyList_SetItem(list, j, Py_NewRef(o));
    }
    Py_DECREF(fast);
    if (j == (Py_ssize_t)a->n) return 0;
    while (j > 0) view_release(&views[--j]);
    return -1;
}

/* The parts handed back: JAX's arrays made from the buffers written. */
static PyObject *split_result(const dev_state *d, const array_view *in, PyObject *list, int fresh) {
    if (!fresh || (in->source != SRC_DLPACK && in->source != SRC_BUFFER)) return Py_NewRef(list);
    Py_ssize_t n = PyList_Size(list);
    PyObject *r = PyList_New(n);
    for (Py_ssize_t j = 0; r && j < n; j++) {
        PyObject *v = results_finish(d->x, in, PyList_GetItem(list, j));
        if (!v)
            Py_CLEAR(r);
        else
            PyList_SetItem(r, j, v);
    }
    return r;
}

/* The outputs bound and the batch run (a: planned; in: x taken in). */
static PyObject *split_run(const dev_state *d, const array_view *in, const bt_tensor *t, const split_args *a,
                           PyObject *out) {
    key_buf k;
    key_tensor(&k, 'S', &d->w, t);
    key_add(&k, a->axis);
    key_add(&k, a->one_output);
    PyObject *cap = kept_batch(&k, a->sizes, a->n, make_split, (void *)a);
    if (!cap) return NULL;
    PyObject *list = PyList_New((Py_ssize_t)a->n), *result = NULL;
    bt_slot *outs = PyMem_Calloc(a->n ? a->n : 1, sizeof *outs);
    /* Not zeroed: view_import fills each (a view is over 1 KiB, mostly its shape arrays). */
    array_view *views = a->one_output ? NULL : PyMem_Malloc((a->n ? a->n : 1) * sizeof *views);
    array_view flat;
    int bound = list && outs && (a->one_output || views) ? 0 : -1;
    if (bound < 0 && !PyErr_Occurred()) PyErr_NoMemory();
    if (bound == 0)
        bound = a->one_output ? split_new(d, in, a, &flat, list, outs) : split_outs(out, d, in, a, views, outs, list);
    if (bound == 0) {
        bt_slot src = {t->base, t->bytes};
        uint32_t n_out = a->one_output ? 1 : (uint32_t)a->n;
        if (bt_run(PyCapsule_GetPointer(cap, "dmlslice.batch"), &src, 1, outs, n_out, view_bytes(in), &d->w) == 0)
            result = split_result(d, in, list, a->one_output);
        if (a->one_output) view_release(&flat);
        for (size_t j = 0; views && j < a->n; j++) view_release(&views[j]);
    }
    PyMem_Free(views);
    PyMem_Free(outs);
    Py_XDECREF(list);
    Py_DECREF(cap);
    return result;
}

/* axis= of an input of rank r, in [0, r): 0, or -1 with the error
 * (R-SPLIT-AXIS; an OutOfBoundsError, as NumPy's AxisError is an
 * IndexError, also for an axis past the 64-bit integers). */
static int split_axis(PyObject *obj, int r, int *axis) {
    int64_t a = 0;
    int bad = obj ? params_index(obj, &a) : 0;
    if (obj && (bad == 1 || PyBool_Check(obj) || numpy_is_bool(obj))) {
        char name[128];
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-SPLIT-AXIS",
                  "split: axis is %s, not an integer (R-SPLIT-AXIS)", ext_type_name(obj, name, sizeof name));
        return -1;
    }
    if (bad == 2 || r < 1 || a < -r || a > r - 1) {
        char value[32] = "outside the 64-bit integers";
        if (bad != 2) snprintf(value, sizeof value, "%lld", (long long)a);
        ext_raise(ERR_OUT_OF_BOUNDS, "DMLS_ERROR_OUT_OF_BOUNDS", "R-SPLIT-AXIS",
                  "split: axis %s is outside [-%d, %d] for an input of rank %d (R-SPLIT-AXIS)", value, r, r - 1, r);
        return -1;
    }
    *axis = (int)(a < 0 ? a + r : a);
    return 0;
}

static PyObject *split_impl(PyObject *args, PyObject *kw) {
    static const char *kwlist[] = {"x", "sizes_or_sections", "axis", "mode", "out", NULL};
    PyObject *x, *sos, *axis_obj = NULL, *mode = Py_None, *out = Py_None, *result = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|O$OO:split", (char **)kwlist, &x, &sos, &axis_obj, &mode, &out))
        return NULL;
    dev_state d;
    array_view in;
    int64_t *sizes = NULL;
    if (take_input(x, &d, &in) < 0) {
        dev_release(&d);
        return NULL;
    }
    bt_tensor t;
    Py_ssize_t n = -1;
    int axis = 0;
    if (split_axis(axis_obj, in.ndim, &axis) == 0 && (n = split_sizes(sos, mode, in.shape[axis], &sizes)) >= 0 &&
        bt_describe(&in, "x", &t) == 0) {
        split_args a = {&t, axis, out == Py_None, sizes, (size_t)n};
        result = split_run(&d, &in, &t, &a, out);
    }
    PyMem_Free(sizes);
    view_release(&in);
    dev_release(&d);
    return result;
}

static PyObject *fn_split(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    PyObject *r = split_impl(args, kw);
    return r ? r : ext_own_error();
}

/* ------------------------------------------------------------ crops */

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
    bt_slot slot;
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
    s->slot = packed_slot(v);
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

/* Starts given by the host: checked here, then bound as they are on the
 * CPU, or copied to x's device by x's library. */
static int host_starts(PyObject *starts, const dev_state *d, const array_view *in, const int64_t *size,
                       const bt_tensor *t, starts_state *s) {
    int extra = t->k > 1;
    PyObject *host = PyObject_CallFunction(k_host_starts, "Oii", starts, in->ndim, extra);
    if (!host) return -1;
    array_view hv;
    int rc = view_import(host, 0, NULL, &hv);
    if (rc == 0) {
        s->n = (size_t)hv.shape[0];
        rc = check_starts((const int64_t *)(void *)hv.data, s->n, t->ndim, in, size);
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
    s->slot = packed_slot(&s->v);
    return 0;
}

/* R-CROP-SIZE, before the starts are read (their bounds depend on it). */
static int check_size(const array_view *in, const int64_t *size) {
    for (int k = 0; k < in->ndim; k++)
        if (size[k] < 0 || size[k] > in->shape[k]) {
            ext_raise(ERR_OUT_OF_BOUNDS, "DMLS_ERROR_OUT_OF_BOUNDS", "R-CROP-SIZE",
                      "crops: size[%d] = %lld is outside [0, %lld] (input axis %d) (R-CROP-SIZE)", k,
                      (long long)size[k], (long long)in->shape[k], k);
            return -1;
        }
    return 0;
}

static PyObject *crops_run(const dev_state *d, const array_view *in, const bt_tensor *t, const int64_t *size,
                           const starts_state *s, PyObject *out) {
    crops_args a = {t, size, s->n, s->width};
    key_buf k;
    key_tensor(&k, 'C', &d->w, t);
    for (int i = 0; i < t->ndim; i++) key_add(&k, size[i]);
    key_add(&k, (int64_t)s->n);
    key_add(&k, s->width);
    PyObject *cap = kept_batch(&k, NULL, 0, make_crops, &a);
    if (!cap) return NULL;
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
        bt_slot ins[2] = {{t->base, t->bytes}, s->slot}, o = packed_slot(&ov);
        if (bt_run(PyCapsule_GetPointer(cap, "dmlslice.batch"), ins, 2, &o, 1, o.bytes, &d->w) == 0)
            result = out == Py_None ? results_finish(d->x, in, target) : Py_NewRef(target);
        view_release(&ov);
    }
    Py_XDECREF(target);
    Py_DECREF(cap);
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
    else if (ns >= 0 && check_size(&in, size) == 0 && bt_describe(&in, "x", &t) == 0) {
        memcpy(sz, size, sizeof(int64_t) * (size_t)ns);
        if (t.k > 1) sz[ns] = t.k; /* the parts' axis, whole */
        /* Lists and other host objects NumPy reads have no device to ask;
         * starts on the GPU are read once, their device then from the view. */
        int asked = !numpy_is_array(starts) && !PyList_Check(starts) && !PyTuple_Check(starts) &&
                    view_device(starts, &type, &id) == 0;
        PyErr_Clear();
        int dev = asked && (type == DL_CUDA || type == DL_CUDA_MANAGED);
        int known = dev ? view_import_known(starts, 0, &sv) : 1;
        if (known >= 0 && (dev ? device_starts(starts, &d, in.ndim, &t, &s, known == 0 ? &sv : NULL)
                               : host_starts(starts, &d, &in, sz, &t, &s)) == 0)
            result = crops_run(&d, &in, &t, sz, &s, out);
    }
    starts_release(&s);
    PyMem_Free(size);
    view_release(&in);
    dev_release(&d);
    return result;
}

static PyObject *fn_crops(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    PyObject *r = crops_impl(args, kw);
    return r ? r : ext_own_error();
}

/* ------------------------------------------------------------ Batch */

/* Consecutive items reading one input slot with results of one shape:
 * their results are the rows of one (count, *shape) array. */
typedef struct brun {
    Py_ssize_t first, count;
    uint32_t slot;
    int64_t per;     /* elements of one result */
    int64_t off;     /* elements before the run in its slot's array */
    PyObject *shape; /* (count, *shape) */
} brun;

/* Planned Operators run together: item i reads input in_slot[i] and writes
 * output i. Inputs and outputs are packed arrays of the shapes planned (the
 * operators' packed plans). Immutable but for the device its table was
 * prepared for; callable from many threads at once. */
typedef struct BatchObject {
    PyObject_HEAD void *batch; /* the non-empty items; NULL when there are none */
    PyObject *ops;             /* tuple of the Operators, kept alive */
    Py_ssize_t n;
    uint32_t n_in;
    uint32_t *in_slot;   /* per item */
    Py_ssize_t *slot_op; /* per input slot: an item reading it (its shape and dtype) */
    int device;          /* the CUDA device the batch was prepared for, or -1 */
    /* Fresh results come from one array per input slot, cut into views:
     * one allocation where a loop of new arrays would make one per item. */
    brun *runs;
    Py_ssize_t n_runs;
    int64_t *slot_total;              /* per slot: the elements of its results */
    Py_ssize_t *slot_runs, *slot_run; /* per slot: its runs, and one of them */
    int grouped;                      /* 0: a new array per item (ranks or sizes too large) */
} BatchObject;

static PyObject *batch_type;

static const compiled *item_plan(const BatchObject *b, Py_ssize_t i) {
    return &operator_prepared(PyTuple_GetItem(b->ops, i))->c;
}

/* Item i's result shape as a tuple, made once with its lowered slice. */
static PyObject *item_shape(const BatchObject *b, Py_ssize_t i) {
    return operator_prepared(PyTuple_GetItem(b->ops, i))->shape;
}

static void batch_dealloc(PyObject *self) {
    BatchObject *b = (BatchObject *)self;
    if (b->batch) bt_free(b->batch);
    Py_XDECREF(b->ops);
    PyMem_Free(b->in_slot);
    PyMem_Free(b->slot_op);
    for (Py_ssize_t r = 0; b->runs && r < b->n_runs; r++) Py_XDECREF(b->runs[r].shape);
    PyMem_Free(b->runs);
    PyMem_Free(b->slot_total);
    PyMem_Free(b->slot_runs);
    PyMem_Free(b->slot_run);
    PyTypeObject *tp = Py_TYPE(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

/* Item i's operator: an Operator of a lowered slice the batch can hold. */
static int check_item(PyObject *op, Py_ssize_t i) {
    const prepared *pr = operator_prepared(op);
    if (!pr) {
        char name[128];
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-B-ITEM",
                  "plan_batch: item %zd is %s, not an Operator or a (shape, dtype, key) tuple", i,
                  ext_type_name(op, name, sizeof name));
        return -1;
    }
    if (pr->c.p.transposed) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-B-ITEM",
                  "plan_batch: item %zd is a transpose; batches take slices of their inputs as they are", i);
        return -1;
    }
    if (pr->c.expr) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-B-ITEM",
                  "plan_batch: item %zd: an index over more than %d axes is planned for each array's own "
                  "layout; a batch item needs a lowered slice of at most %d axes",
                  i, EXT_MAX_RANK, EXT_MAX_RANK);
        return -1;
    }
    return 0;
}

/* Which input each item reads (inputs: None, one each, or a sequence of
 * slot numbers), and one item per slot whose lowered slice gives the slot's shape;
 * items sharing a slot must agree on it. */
static int assign_slots(BatchObject *b, PyObject *inputs) {
    int64_t *given = NULL;
    if (inputs != Py_None) {
        Py_ssize_t m = read_ints(inputs, "plan_batch: inputs", "R-B-ITEM", &given);
        if (m < 0) return -1;
        if (m != b->n) {
            PyMem_Free(given);
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "R-B-ITEM",
                      "plan_batch: inputs has %zd slot numbers for %zd items", m, b->n);
            return -1;
        }
    }
    int64_t top = -1;
    for (Py_ssize_t i = 0; i < b->n; i++) {
        int64_t s = given ? given[i] : i;
        if (s < 0 || s >= (int64_t)b->n) {
            PyMem_Free(given);
            ext_raise(ERR_OUT_OF_BOUNDS, "DMLS_ERROR_INVALID_ARGUMENT", "R-B-ITEM",
                      "plan_batch: item %zd reads input %lld, outside [0, %zd)", i, (long long)s, b->n);
            return -1;
        }
        b->in_slot[i] = (uint32_t)s;
        top = s > top ? s : top;
    }
    PyMem_Free(given);
    b->n_in = (uint32_t)(top + 1);
    for (uint32_t s = 0; s < b->n_in; s++) b->slot_op[s] = -1;
    for (Py_ssize_t i = 0; i < b->n; i++) {
        uint32_t s = b->in_slot[i];
        if (b->slot_op[s] < 0) b->slot_op[s] = i;
        const compiled *a = item_plan(b, b->slot_op[s]), *c = item_plan(b, i);
        int same = a->itemsize == c->itemsize && a->p.ndim == c->p.ndim &&
                   memcmp(a->p.in_shape, c->p.in_shape, sizeof(int64_t) * (size_t)a->p.ndim) == 0;
        if (!same) {
            char x[256], y[256];
            ext_shape_text(x, sizeof x, a->p.ndim, a->p.in_shape);
            ext_shape_text(y, sizeof y, c->p.ndim, c->p.in_shape);
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "R-B-ITEM",
                      "plan_batch: items %zd and %zd read input %u but were planned for %s of %lld-byte and %s of "
                      "%lld-byte elements",
                      b->slot_op[s], i, s, x, (long long)a->itemsize, y, (long long)c->itemsize);
            return -1;
        }
    }
    for (uint32_t s = 0; s < b->n_in; s++)
        if (b->slot_op[s] < 0) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-B-ITEM",
                      "plan_batch: no item reads input %u (inputs numbers them from 0 without gaps)", s);
            return -1;
        }
    return 0;
}

/* The library's batch of the items that write anything. */
static int build_batch(BatchObject *b) {
    void **ops = PyMem_Calloc((size_t)(b->n ? b->n : 1), sizeof *ops);
    uint32_t *ins = PyMem_Calloc((size_t)(b->n ? b->n : 1), sizeof *ins);
    uint32_t *outs = PyMem_Calloc((size_t)(b->n ? b->n : 1), sizeof *outs);
    size_t m = 0;
    for (Py_ssize_t i = 0; ops && ins && outs && i < b->n; i++) {
        void *op = item_plan(b, i)->packed_op;
        if (!op) continue; /* an empty result: nothing to write, ever */
        ops[m] = op, ins[m] = b->in_slot[i], outs[m] = (uint32_t)i;
        m++;
    }
    int rc = -1;
    if (!ops || !ins || !outs)
        PyErr_NoMemory();
    else if (m == 0 || (b->batch = bt_items(ops, ins, outs, m, b->n_in, (uint32_t)b->n)))
        rc = 0;
    PyMem_Free(ops);
    PyMem_Free(ins);
    PyMem_Free(outs);
    return rc;
}

/* Item i's result joins the last run or starts one; 0, or -1 where the
 * sizes or the rank leave no room for one array per slot (grouped = 0). */
static int add_to_run(BatchObject *b, Py_ssize_t i) {
    const lowered *p = &item_plan(b, i)->p;
    uint32_t s = b->in_slot[i];
    int64_t per = 1;
    for (int k = 0; k < p->final_ndim; k++)
        if (__builtin_mul_overflow(per, p->final_shape[k], &per)) return -1;
    if (p->final_ndim + 1 > EXT_ARRAY_MAX_RANK || per > INT64_MAX - b->slot_total[s]) return -1;
    brun *r = b->n_runs ? &b->runs[b->n_runs - 1] : NULL;
    const lowered *q = r ? &item_plan(b, r->first)->p : NULL;
    if (r && r->slot == s && q->final_ndim == p->final_ndim &&
        memcmp(q->final_shape, p->final_shape, sizeof(int64_t) * (size_t)p->final_ndim) == 0) {
        r->count++;
    } else {
        r = &b->runs[b->n_runs];
        *r = (brun){i, 1, s, per, b->slot_total[s], NULL};
        b->slot_runs[s]++;
        b->slot_run[s] = b->n_runs++;
    }
    b->slot_total[s] += per;
    return 0;
}

/* The runs of the items, and each run's (count, *shape) tuple. */
static int make_runs(BatchObject *b) {
    size_t n = (size_t)(b->n ? b->n : 1), ni = b->n_in ? b->n_in : 1;
    b->runs = PyMem_Calloc(n, sizeof *b->runs);
    b->slot_total = PyMem_Calloc(ni, sizeof *b->slot_total);
    b->slot_runs = PyMem_Calloc(ni, sizeof *b->slot_runs);
    b->slot_run = PyMem_Calloc(ni, sizeof *b->slot_run);
    if (!b->runs || !b->slot_total || !b->slot_runs || !b->slot_run) {
        PyErr_NoMemory();
        return -1;
    }
    b->grouped = 1;
    for (Py_ssize_t i = 0; b->grouped && i < b->n; i++) b->grouped = add_to_run(b, i) == 0;
    for (Py_ssize_t r = 0; b->grouped && r < b->n_runs; r++) {
        const lowered *p = &item_plan(b, b->runs[r].first)->p;
        int64_t shape[EXT_ARRAY_MAX_RANK];
        shape[0] = b->runs[r].count;
        memcpy(shape + 1, p->final_shape, sizeof(int64_t) * (size_t)p->final_ndim);
        if (!(b->runs[r].shape = ext_shape_tuple(p->final_ndim + 1, shape))) return -1;
    }
    return 0;
}

/* _plan_batch(operators, inputs) */
static PyObject *plan_batch_impl(PyObject *args) {
    PyObject *items, *inputs;
    if (!PyArg_ParseTuple(args, "OO", &items, &inputs)) return NULL;
    PyObject *ops = PySequence_Tuple(items);
    if (!ops) return NULL;
    Py_ssize_t n = PyTuple_Size(ops);
    if ((uint64_t)n >= UINT32_MAX) {
        Py_DECREF(ops);
        return ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-B-ITEM", "plan_batch: %zd items", n);
    }
    for (Py_ssize_t i = 0; i < n; i++)
        if (check_item(PyTuple_GetItem(ops, i), i) < 0) {
            Py_DECREF(ops);
            return NULL;
        }
    BatchObject *b = PyObject_New(BatchObject, (PyTypeObject *)batch_type);
    if (!b) {
        Py_DECREF(ops);
        return NULL;
    }
    b->batch = NULL, b->ops = ops, b->n = n, b->n_in = 0, b->device = -1;
    b->runs = NULL, b->n_runs = 0, b->slot_total = NULL, b->slot_runs = b->slot_run = NULL, b->grouped = 0;
    b->in_slot = PyMem_Calloc((size_t)(n ? n : 1), sizeof *b->in_slot);
    b->slot_op = PyMem_Calloc((size_t)(n ? n : 1), sizeof *b->slot_op);
    if (!b->in_slot || !b->slot_op) {
        Py_DECREF(b);
        return PyErr_NoMemory();
    }
    if (assign_slots(b, inputs) < 0 || build_batch(b) < 0 || make_runs(b) < 0) {
        Py_DECREF(b);
        return NULL;
    }
    return (PyObject *)b;
}

static PyObject *fn_plan_batch(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *r = plan_batch_impl(args);
    return r ? r : ext_own_error();
}

/* One call of a Batch: its arrays, taken in, and the slots bound. */
typedef struct bcall {
    dev_state d;
    PyObject *objs;    /* list: the inputs (NumPy views of buffer exporters) */
    PyObject *results; /* list: the outputs */
    array_view *in, *out;
    uint32_t n_in_have;
    Py_ssize_t n_out_have;
    bt_slot *in_slots, *out_slots;
    uint64_t out_bytes;
    int fresh; /* the outputs were made here */
} bcall;

static void bcall_release(bcall *c) {
    for (Py_ssize_t i = 0; i < c->n_out_have; i++) view_release(&c->out[i]);
    for (uint32_t s = 0; s < c->n_in_have; s++) view_release(&c->in[s]);
    PyMem_Free(c->in), PyMem_Free(c->out), PyMem_Free(c->in_slots), PyMem_Free(c->out_slots);
    Py_XDECREF(c->objs);
    Py_XDECREF(c->results);
    dev_release(&c->d);
}

/* Input slot s: the array planned (shape, element size), packed. Input 0
 * is taken in already (take_input, with the device and stream). */
static int batch_input(const BatchObject *b, uint32_t s, PyObject *obj, bcall *c) {
    if (s > 0) {
        PyObject *x = view_is_buffer(obj) ? numpy_asarray(obj) : Py_NewRef(obj);
        if (!x) return -1;
        PyList_SetItem(c->objs, s, x);
        if (same_device(x, &c->d, "inputs", s) < 0 || view_import(x, 0, c->d.stream_arg, &c->in[s]) < 0) return -1;
        c->n_in_have = s + 1;
    }
    const array_view *v = &c->in[s];
    const compiled *p = item_plan(b, b->slot_op[s]);
    int same = v->itemsize == p->itemsize && v->ndim == p->p.ndim;
    for (int i = 0; same && i < v->ndim; i++) same = v->shape[i] == p->p.in_shape[i];
    c->in_slots[s] = packed_slot(v);
    if (same && is_packed(v)) return 0;
    char x1[256], x2[256];
    ext_shape_text(x1, sizeof x1, v->ndim, v->shape);
    ext_shape_text(x2, sizeof x2, p->p.ndim, p->p.in_shape);
    if (!same)
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "R-B-ITEM",
                  "Batch: inputs[%u] has shape %s of %lld-byte elements; item %zd was planned for %s of %lld-byte "
                  "elements",
                  s, x1, (long long)v->itemsize, b->slot_op[s], x2, (long long)p->itemsize);
    else
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-PY-LAYOUT",
                  "Batch: inputs[%u] is not C-contiguous: a planned batch reads packed arrays "
                  "(np.ascontiguousarray(x), x.contiguous())",
                  s);
    return -1;
}

static int batch_inputs(const BatchObject *b, PyObject *inputs, bcall *c) {
    PyObject *seq = PyList_Check(inputs) || PyTuple_Check(inputs) ? PySequence_Tuple(inputs)
                    : b->n_in == 1                                ? PyTuple_Pack(1, inputs)
                                                                  : NULL;
    if (!seq) {
        if (!PyErr_Occurred())
            ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-B-ITEM",
                      "Batch: inputs must be a list or tuple of %u arrays", b->n_in);
        return -1;
    }
    int rc = -1;
    if (PyTuple_Size(seq) != (Py_ssize_t)b->n_in)
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "R-B-ITEM", "Batch: %zd inputs given; the batch reads %u",
                  PyTuple_Size(seq), b->n_in);
    else if (b->n_in == 0)
        rc = 0;
    else if (take_input(PyTuple_GetItem(seq, 0), &c->d, &c->in[0]) == 0) {
        c->n_in_have = 1;
        PyList_SetItem(c->objs, 0, Py_NewRef(c->d.x));
        rc = 0;
        for (uint32_t s = 0; rc == 0 && s < b->n_in; s++) rc = batch_input(b, s, PyTuple_GetItem(seq, s), c);
    }
    Py_DECREF(seq);
    return rc;
}

/* Run r's part of its slot's array (buf: of one run, or flat). */
static PyObject *run_part(const BatchObject *b, const brun *r, PyObject *buf) {
    if (b->slot_runs[r->slot] == 1) return Py_NewRef(buf);
    PyObject *lo = PyLong_FromLongLong(r->off), *hi = PyLong_FromLongLong(r->off + r->count * r->per);
    PyObject *cut = lo && hi ? PySlice_New(lo, hi, NULL) : NULL;
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    PyObject *part = cut ? PyObject_GetItem(buf, cut) : NULL;
    Py_XDECREF(cut);
    PyObject *shaped = part ? PyObject_CallMethod(part, "reshape", "(O)", r->shape) : NULL;
    Py_XDECREF(part);
    return shaped;
}

/* Item i = r->first + g: its result's slot in the slot's array. */
static void bind_row(const brun *r, Py_ssize_t g, char *base, int64_t itemsize, bcall *c) {
    uint64_t bytes = (uint64_t)(r->per * itemsize);
    c->out_slots[r->first + g] = (bt_slot){bytes ? base + (r->off + g * r->per) * itemsize : NULL, bytes};
    c->out_bytes += bytes;
}

/* A NumPy run's results: views made through NumPy's C API, each with the
 * slot's array as its base (no indexing, no Python-level call). */
static int numpy_rows(const BatchObject *b, const brun *r, PyObject *buf, char *base, int64_t itemsize, bcall *c) {
    const lowered *p = &item_plan(b, r->first)->p;
    for (Py_ssize_t g = 0; g < r->count; g++) {
        PyObject *row = numpy_view_of(buf, p->final_ndim, p->final_shape, base + (r->off + g * r->per) * itemsize);
        if (!row) return -1;
        PyList_SetItem(c->results, r->first + g, row);
        bind_row(r, g, base, itemsize, c);
    }
    return 0;
}

/* Run r's results: the rows of its part, by one unbind for a tensor (no
 * Python-level call per row), by indexing (row, ...) otherwise (a 0-d
 * array, not a NumPy scalar, for a 0-d result); base: the slot's array's
 * address. */
static int run_rows(const BatchObject *b, const brun *r, PyObject *buf, char *base, int64_t itemsize, bcall *c) {
    static PyObject *s_unbind;
    if (!s_unbind && !(s_unbind = PyUnicode_InternFromString("unbind"))) return -1;
    int src = c->in[r->slot].source;
    if (src == SRC_NUMPY && numpy_can_view()) return numpy_rows(b, r, buf, base, itemsize, c);
    PyObject *part = run_part(b, r, buf), *rows = NULL;
    if (part && src == SRC_TORCH) {
        PyObject *zero = PyLong_FromLong(0);
        rows = zero ? PyObject_CallMethodObjArgs(part, s_unbind, zero, NULL) : NULL;
        Py_XDECREF(zero);
        if (rows && (!PyTuple_Check(rows) || PyTuple_Size(rows) != r->count)) {
            Py_CLEAR(rows);
            ext_raise(ERR_FOREIGN, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY", "Batch: unbind(0) gave no tuple of %zd",
                      r->count);
        }
    }
    for (Py_ssize_t g = 0; part && g < r->count; g++) {
        PyObject *row = rows ? Py_NewRef(PyTuple_GetItem(rows, g)) : NULL;
        if (!rows && !PyErr_Occurred()) {
            PyObject *key = Py_BuildValue("(nO)", g, Py_Ellipsis);
            row = key ? PyObject_GetItem(part, key) : NULL;
            Py_XDECREF(key);
        }
        if (!row) break;
        PyList_SetItem(c->results, r->first + g, row);
        bind_row(r, g, base, itemsize, c);
    }
    Py_XDECREF(rows);
    Py_XDECREF(part);
    return PyErr_Occurred() ? -1 : 0;
}

/* The fresh results of a grouped batch whose inputs are NumPy, PyTorch or
 * CuPy arrays: one new array per input slot (its runs' results end to end),
 * cut into one view per item. */
static int fresh_outputs(const BatchObject *b, bcall *c) {
    size_t ni = b->n_in ? b->n_in : 1;
    PyObject **bufs = PyMem_Calloc(ni, sizeof *bufs);
    char **bases = PyMem_Calloc(ni, sizeof *bases);
    array_view made;
    int rc = bufs && bases ? 0 : -1;
    if (rc < 0) PyErr_NoMemory();
    for (uint32_t s = 0; rc == 0 && s < b->n_in; s++) {
        const brun *r = b->slot_runs[s] == 1 ? &b->runs[b->slot_run[s]] : NULL;
        const lowered *p = r ? &item_plan(b, r->first)->p : NULL;
        int64_t shape[EXT_ARRAY_MAX_RANK];
        shape[0] = r ? r->count : b->slot_total[s];
        if (p) memcpy(shape + 1, p->final_shape, sizeof(int64_t) * (size_t)p->final_ndim);
        bufs[s] = new_like(PyList_GetItem(c->objs, s), &c->in[s], p ? p->final_ndim + 1 : 1, shape, r ? r->shape : NULL,
                           c->d.stream_arg, &made);
        if (!bufs[s])
            rc = -1;
        else
            bases[s] = made.data, view_release(&made);
    }
    for (Py_ssize_t r = 0; rc == 0 && r < b->n_runs; r++) {
        const brun *run = &b->runs[r];
        rc = run_rows(b, run, bufs[run->slot], bases[run->slot], c->in[run->slot].itemsize, c);
    }
    for (uint32_t s = 0; bufs && s < b->n_in; s++) Py_XDECREF(bufs[s]);
    PyMem_Free(bufs);
    PyMem_Free(bases);
    return rc;
}

/* True where every input is an array whose library makes views cheaply. */
static int fast_sources(const BatchObject *b, const bcall *c) {
    for (uint32_t s = 0; s < b->n_in; s++) {
        int src = c->in[s].source;
        if (src != SRC_NUMPY && src != SRC_TORCH && src != SRC_CUPY) return 0;
    }
    return 1;
}

/* Output i: out[i], or a new array of its input's kind. */
static int batch_outputs(const BatchObject *b, PyObject *out, bcall *c) {
    if (out == Py_None && b->grouped && fast_sources(b, c)) return fresh_outputs(b, c);
    PyObject *fast = NULL;
    if (out != Py_None) {
        if (!(fast = PySequence_Tuple(out))) {
            PyErr_Clear();
            ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-OUT",
                      "Batch: out= must be a sequence of arrays, one per item");
            return -1;
        }
        if (PyTuple_Size(fast) != b->n) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_SHAPE_MISMATCH", "R-PY-OUT", "Batch: out= has %zd arrays for %zd items",
                      PyTuple_Size(fast), b->n);
            Py_DECREF(fast);
            return -1;
        }
    }
    int rc = 0;
    for (Py_ssize_t i = 0; rc == 0 && i < b->n; i++) {
        const lowered *p = &item_plan(b, i)->p;
        uint32_t s = b->in_slot[i];
        PyObject *x = PyList_GetItem(c->objs, s), *target = NULL;
        if (!fast) {
            target =
                new_like(x, &c->in[s], p->final_ndim, p->final_shape, item_shape(b, i), c->d.stream_arg, &c->out[i]);
        } else if (take_out(PyTuple_GetItem(fast, i), &c->d, x, &c->in[s], p->final_ndim, p->final_shape, "out", i,
                            &c->out[i]) == 0) {
            target = Py_NewRef(PyTuple_GetItem(fast, i));
        }
        if (!target) {
            rc = -1;
            break;
        }
        c->n_out_have = i + 1;
        PyList_SetItem(c->results, i, target);
        c->out_slots[i] = packed_slot(&c->out[i]);
        c->out_bytes += c->out_slots[i].bytes;
    }
    Py_XDECREF(fast);
    return rc;
}

/* The device a batch's table lives on: the first CUDA call's. */
static int batch_device(BatchObject *b, const bcall *c) {
    if (!devices_is_gpu(c->d.w.dl_type) || !b->batch) return 0;
    if (b->device < 0) b->device = c->d.w.dl_id;
    if (b->device == c->d.w.dl_id) return 0;
    ext_raise(ERR_DEVICE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-DEVICE",
              "Batch: prepared for CUDA device %d, called with arrays on device %d; plan another batch for it",
              b->device, c->d.w.dl_id);
    return -1;
}

static PyObject *batch_call_impl(BatchObject *b, PyObject *args, PyObject *kw) {
    static const char *kwlist[] = {"inputs", "out", NULL};
    PyObject *inputs, *out = Py_None, *result = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O:Batch", (char **)kwlist, &inputs, &out)) return NULL;
    bcall c;
    memset(&c, 0, sizeof c);
    size_t ni = b->n_in ? b->n_in : 1, no = b->n ? (size_t)b->n : 1;
    /* Views not zeroed: view_import fills each, and only those filled are released. */
    c.in = PyMem_Malloc(ni * sizeof *c.in), c.out = PyMem_Malloc(no * sizeof *c.out);
    c.in_slots = PyMem_Calloc(ni, sizeof *c.in_slots), c.out_slots = PyMem_Calloc(no, sizeof *c.out_slots);
    c.objs = PyList_New(b->n_in), c.results = PyList_New(b->n);
    c.fresh = out == Py_None;
    if (!c.in || !c.out || !c.in_slots || !c.out_slots) PyErr_NoMemory();
    int ok = c.objs && c.results && !PyErr_Occurred() && batch_inputs(b, inputs, &c) == 0 && batch_device(b, &c) == 0 &&
             batch_outputs(b, out, &c) == 0;
    if (ok && b->batch)
        ok = bt_run(b->batch, c.in_slots, b->n_in, c.out_slots, (uint32_t)b->n, c.out_bytes, &c.d.w) == 0;
    if (ok && c.fresh && b->n_in && (c.in[0].source == SRC_DLPACK || c.in[0].source == SRC_BUFFER)) {
        result = PyList_New(b->n);
        for (Py_ssize_t i = 0; result && i < b->n; i++) {
            uint32_t s = b->in_slot[i];
            PyObject *v = results_finish(PyList_GetItem(c.objs, s), &c.in[s], PyList_GetItem(c.results, i));
            if (!v)
                Py_CLEAR(result);
            else
                PyList_SetItem(result, i, v);
        }
    } else if (ok) {
        result = Py_NewRef(c.results);
    }
    bcall_release(&c);
    return result;
}

static PyObject *batch_call(PyObject *self, PyObject *args, PyObject *kw) {
    PyObject *r = batch_call_impl((BatchObject *)self, args, kw);
    return r ? r : ext_own_error();
}

static Py_ssize_t batch_len(PyObject *self) { return ((BatchObject *)self)->n; }

static PyObject *batch_get(PyObject *self, void *which) {
    BatchObject *b = (BatchObject *)self;
    int inputs = which != NULL;
    Py_ssize_t n = inputs ? (Py_ssize_t)b->n_in : b->n;
    PyObject *t = PyTuple_New(n);
    for (Py_ssize_t i = 0; t && i < n; i++) {
        const lowered *p = &item_plan(b, inputs ? b->slot_op[i] : i)->p;
        PyObject *s = inputs ? ext_shape_tuple(p->ndim, p->in_shape) : ext_shape_tuple(p->final_ndim, p->final_shape);
        if (!s)
            Py_CLEAR(t);
        else
            PyTuple_SetItem(t, i, s);
    }
    return t;
}

static PyObject *batch_ops(PyObject *self, void *unused) {
    (void)unused;
    return Py_NewRef(((BatchObject *)self)->ops);
}

static PyObject *batch_repr(PyObject *self) {
    BatchObject *b = (BatchObject *)self;
    return PyUnicode_FromFormat("<dmlslice.Batch of %zd items over %u inputs>", b->n, b->n_in);
}

static PyGetSetDef batch_getset[] = {
    {"input_shapes", batch_get, NULL, "The shape of each input array, by input number.", (void *)1},
    {"output_shapes", batch_get, NULL, "The shape of each item's result.", NULL},
    {"operators", batch_ops, NULL, "The items' Operators.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot batch_slots[] = {
    {Py_tp_dealloc, batch_dealloc},
    {Py_tp_call, batch_call},
    {Py_tp_repr, batch_repr},
    {Py_tp_getset, batch_getset},
    {Py_sq_length, batch_len},
    {Py_tp_doc, "Planned slices run together: b(inputs, *, out=None) -> list, one result per item.\n"
                "One pass of the CPU pool, or one launch on the arrays' current CUDA stream.\n"
                "Safe to call from several threads at once. Made by dmlslice.plan_batch(...)."},
    {0, NULL},
};

static PyType_Spec batch_spec = {"dmlslice.Batch", sizeof(BatchObject), 0, Py_TPFLAGS_DEFAULT, batch_slots};

/* ------------------------------------------------------------ module */

/* _batch_init(dmlslice._kinds): the helpers crops takes host starts with. */
static PyObject *fn_batch_init(PyObject *self, PyObject *kinds) {
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

PyDoc_STRVAR(doc_split, "split(x, sizes_or_sections, axis=0, *, mode=None, out=None) -> list\n"
                        "\n"
                        "Cut x along axis into parts, copied in one call. sizes_or_sections is a\n"
                        "sequence of sizes (each >= 0, summing to the axis length: PyTorch's\n"
                        "split(x, [a, b]), ONNX Split's split input; not NumPy's indices) or an\n"
                        "integer N read by mode=: \"onnx\" (the default: ONNX Split-18 num_outputs,\n"
                        "N-1 parts of ceil(d/N) and the rest last, 9 into 4 gives 3, 3, 3, 0 and 5\n"
                        "into 4 is an error), \"array_split\" / \"tensor_split\" (NumPy array_split,\n"
                        "PyTorch tensor_split: the first d % N parts one longer), \"chunk\" (PyTorch\n"
                        "chunk: parts of ceil(d/N), at most N) or \"split_size\" (PyTorch split(x, N):\n"
                        "parts of N, the last shorter). out= takes one C-contiguous array per part.");

PyDoc_STRVAR(doc_crops, "crops(x, starts, size, *, out=None)\n"
                        "\n"
                        "N windows of one size from x, stacked into an array of shape (N, *size):\n"
                        "result[i] == x[starts[i][0]:starts[i][0]+size[0], ...]. starts is an (N, x.ndim)\n"
                        "integer array. Given by the host (NumPy, a list, a CPU tensor), every window\n"
                        "must lie inside x (OutOfBoundsError naming the crop and the axis otherwise).\n"
                        "For a CUDA x, starts may be a CUDA array (int32 or int64, C-contiguous) on x's\n"
                        "device, read by the kernel with no host round trip: each start is then\n"
                        "clamped to [0, x.shape[k] - size[k]], as jax.lax.dynamic_slice does. out=\n"
                        "takes a C-contiguous array of the result's shape.");

static PyMethodDef batch_methods[] = {
    {"split", (PyCFunction)(void (*)(void))fn_split, METH_VARARGS | METH_KEYWORDS, doc_split},
    {"crops", (PyCFunction)(void (*)(void))fn_crops, METH_VARARGS | METH_KEYWORDS, doc_crops},
    {"_plan_batch", fn_plan_batch, METH_VARARGS, NULL},
    {"_batch_init", fn_batch_init, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};

int batch_add_functions(PyObject *m) {
    if (PyModule_AddFunctions(m, batch_methods) < 0) return -1;
    batch_type = PyType_FromSpec(&batch_spec);
    if (!batch_type || PyModule_AddObject(m, "Batch", batch_type) < 0) return -1;
    Py_INCREF(batch_type); /* AddObject stole one; this file keeps one too */
    return 0;
}
