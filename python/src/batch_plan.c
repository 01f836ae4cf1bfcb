/*
 * batch_plan.c: the Batch type ds.plan_batch makes: planned Operators over
 * lists of arrays, checked and grouped once (which input each item reads,
 * the runs of results one array can hold); calling one is batch_call.c.
 */
#include "batch_plan.h"

#include <string.h>

#include "batch_arrays.h"
#include "batch_call.h"
#include "errors.h"
#include "layout.h"
#include "lowering.h"
#include "operator.h"
#include "prepared.h"

static PyObject *batch_type;

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
    ext_free_instance(self);
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
    return ext_own(plan_batch_impl(args));
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
    EXT_CALLABLE_SLOTS(batch),
    {Py_sq_length, batch_len},
    {Py_tp_doc, "Planned slices run together: b(inputs, *, out=None) -> list, one result per item.\n"
                "One pass of the CPU pool, or one launch on the arrays' current CUDA stream.\n"
                "Safe to call from several threads at once. Made by dmlslice.plan_batch(...)."},
    {0, NULL},
};

static PyType_Spec batch_spec = {"dmlslice.Batch", sizeof(BatchObject), 0, Py_TPFLAGS_DEFAULT, batch_slots};

static PyMethodDef batch_methods[] = {
    {"_plan_batch", fn_plan_batch, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

int batch_add_functions(PyObject *m) {
    if (PyModule_AddFunctions(m, batch_methods) < 0) return -1;
    batch_type = PyType_FromSpec(&batch_spec);
    if (!batch_type || PyModule_AddObject(m, "Batch", batch_type) < 0) return -1;
    Py_INCREF(batch_type); /* AddObject stole one; this file keeps one too */
    return 0;
}
