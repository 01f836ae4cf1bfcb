/*
 * split.c: ds.split, one input cut along an axis into many outputs in one
 * batch (one pass of the CPU pool, one launch on the array's current CUDA
 * stream); the batch is kept (batch_cache.c) for the next call alike.
 */
#include "split.h"

#include <stdio.h>
#include <string.h>

#include "arrays.h"
#include "batch_arrays.h"
#include "batch_cache.h"
#include "errors.h"
#include "numpy_abi.h"
#include "params.h"
#include "results.h"

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
                     dmls_batch_output *slot) {
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
                      dmls_batch_output *slots, PyObject *list) {
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
    dmls_batch_output *outs = PyMem_Calloc(a->n ? a->n : 1, sizeof *outs);
    /* Not zeroed: view_import fills each (a view is over 1 KiB, mostly its shape arrays). */
    array_view *views = a->one_output ? NULL : PyMem_Malloc((a->n ? a->n : 1) * sizeof *views);
    array_view flat;
    int bound = list && outs && (a->one_output || views) ? 0 : -1;
    if (bound < 0 && !PyErr_Occurred()) PyErr_NoMemory();
    if (bound == 0)
        bound = a->one_output ? split_new(d, in, a, &flat, list, outs) : split_outs(out, d, in, a, views, outs, list);
    if (bound == 0) {
        dmls_batch_input src = {t->base, t->bytes};
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

EXT_ENTRY_KW(split_fn, split_impl)

const char split_doc[] = PyDoc_STR("split(x, sizes_or_sections, axis=0, *, mode=None, out=None) -> list\n"
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
