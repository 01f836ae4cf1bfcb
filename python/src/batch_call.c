/*
 * batch_call.c: a Batch called: its inputs taken in and checked against
 * the plan, its outputs (out= or new arrays, one per input slot cut into
 * rows) bound, and the batch run where the arrays live.
 */
#include "batch_call.h"

#include <string.h>

#include "arrays.h"
#include "batch_arrays.h"
#include "batch_plan.h"
#include "errors.h"
#include "layout.h"
#include "lowering.h"
#include "numpy_abi.h"
#include "results.h"

/* One call of a Batch: its arrays, taken in, and the slots bound. */
typedef struct bcall {
    dev_state d;
    PyObject *objs;    /* list: the inputs (NumPy views of buffer exporters) */
    PyObject *results; /* list: the outputs */
    array_view *in, *out;
    uint32_t n_in_have;
    Py_ssize_t n_out_have;
    dmls_batch_input *in_slots;
    dmls_batch_output *out_slots;
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
    c->in_slots[s] = packed_input(v);
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
    c->out_slots[r->first + g] = (dmls_batch_output){bytes ? base + (r->off + g * r->per) * itemsize : NULL, bytes};
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

PyObject *batch_call(PyObject *self, PyObject *args, PyObject *kw) {
    return ext_own(batch_call_impl((BatchObject *)self, args, kw));
}
