/*
 * operator.c: the Operator type: a lowered slice made once for one input shape and
 * element size (a prepared slice), called on arrays as op(x, out=None).
 * Immutable, so any number of threads may call one at once.
 */
#include "operator.h"
#include "call.h"
#include "errors.h"
#include "lowering.h"
#include "prepared.h"

typedef struct OperatorObject {
    PyObject_HEAD prepared *pr;
    PyObject *dtype; /* as the lowered slice was asked for, for repr and .dtype */
} OperatorObject;

static PyObject *operator_type;
static PyObject *s_out; /* "out", interned as the keyword names of calls are */

static void op_dealloc(PyObject *self) {
    OperatorObject *o = (OperatorObject *)self;
    prepared_unref(o->pr);
    Py_XDECREF(o->dtype);
    ext_free_instance(self);
}

/* op(x, *, out=None); x may be named too. */
static int op_args(PyObject *args, PyObject *kw, PyObject **x, PyObject **out) {
    Py_ssize_t n = PyTuple_Size(args);
    if (n > 1) {
        PyErr_Format(PyExc_TypeError, "Operator() takes at most 1 positional argument (%zd given)", n);
        return -1;
    }
    *x = n ? PyTuple_GetItem(args, 0) : NULL;
    *out = NULL;
    if (*x && kw && PyDict_Size(kw) == 1 && (*out = PyDict_GetItemWithError(kw, s_out))) return 0; /* op(x, out=y) */
    if (PyErr_Occurred()) return -1;
    PyObject *name, *value;
    Py_ssize_t pos = 0;
    while (kw && PyDict_Next(kw, &pos, &name, &value)) {
        PyObject **slot = PyUnicode_CompareWithASCIIString(name, "x") == 0     ? x
                          : PyUnicode_CompareWithASCIIString(name, "out") == 0 ? out
                                                                               : NULL;
        if (!slot || *slot) {
            PyErr_Format(PyExc_TypeError,
                         slot ? "Operator() got multiple values for argument '%U'"
                              : "Operator() got an unexpected keyword argument '%U'",
                         name);
            return -1;
        }
        *slot = value;
    }
    if (!*x) {
        PyErr_SetString(PyExc_TypeError, "Operator() missing required argument 'x' (pos 1)");
        return -1;
    }
    return 0;
}

static PyObject *op_call(PyObject *self, PyObject *args, PyObject *kw) {
    OperatorObject *o = (OperatorObject *)self;
    call k = {.kind = o->pr->kind, .pr = o->pr};
    if (op_args(args, kw, &k.x, &k.out) < 0) return ext_own_error();
    return ext_own(call_run(&k));
}

static PyObject *op_get(PyObject *self, void *which) {
    OperatorObject *o = (OperatorObject *)self;
    const lowered *p = &o->pr->c.p;
    switch ((intptr_t)which) {
    case 0: return ext_shape_tuple(p->ndim, p->in_shape);
    case 1: return ext_shape_tuple(p->final_ndim, p->final_shape);
    case 2: Py_INCREF(o->dtype); return o->dtype;
    case 3: return PyUnicode_FromString(kind_names[o->pr->kind]);
    case 5:
        /* The SLICE1 window (dmlslice.dask cuts it chunk by chunk); None where
         * the result is no window of the input's own axes. */
        if (p->grad || p->transposed || p->expr) Py_RETURN_NONE;
        return Py_BuildValue("(NNN)", ext_shape_tuple(p->ndim, p->offsets), ext_shape_tuple(p->ndim, p->wsizes),
                             ext_shape_tuple(p->ndim, p->wstrides));
    default: return ext_shape_tuple(p->ndim, p->out_sizes);
    }
}

static PyObject *op_repr(PyObject *self) {
    OperatorObject *o = (OperatorObject *)self;
    const lowered *p = &o->pr->c.p;
    char a[256], b[256];
    ext_shape_text(a, sizeof a, p->ndim, p->in_shape);
    ext_shape_text(b, sizeof b, p->final_ndim, p->final_shape);
    return PyUnicode_FromFormat("<dmlslice.Operator %s %s -> %s, dtype=%R>", kind_names[o->pr->kind], a, b, o->dtype);
}

static PyGetSetDef op_getset[] = {
    {"input_shape", op_get, NULL, "The shape the input array must have.", (void *)0},
    {"output_shape", op_get, NULL, "The shape of the result.", (void *)1},
    {"dtype", op_get, NULL, "The dtype the operator was planned for.", (void *)2},
    {"kind", op_get, NULL, "The vocabulary it was made from (\"index\", \"slice1\", ...).", (void *)3},
    {"window_shape", op_get, NULL, "The SLICE1 output sizes (one per input axis).", (void *)4},
    {"window", op_get, NULL, "The SLICE1 (offsets, sizes, strides), or None for a gradient or a transpose.",
     (void *)5},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot op_slots[] = {
    EXT_CALLABLE_SLOTS(op),
    {Py_tp_doc, "A slice planned once for one input shape and dtype; call it on arrays:\n"
                "op(x, out=None). Safe to call from several threads at once.\n"
                "Made by dmlslice.plan(...)."},
    {0, NULL},
};

static PyType_Spec op_spec = {"dmlslice.Operator", sizeof(OperatorObject), 0, Py_TPFLAGS_DEFAULT, op_slots};

PyObject *operator_type_new(void) {
    if (!s_out && !(s_out = PyUnicode_InternFromString("out"))) return NULL;
    if (!operator_type) operator_type = PyType_FromSpec(&op_spec);
    return Py_XNewRef(operator_type);
}

prepared *operator_prepared(PyObject *obj) {
    return operator_type && PyObject_TypeCheck(obj, (PyTypeObject *)operator_type) ? ((OperatorObject *)obj)->pr : NULL;
}

PyObject *operator_new(int kind, const lowered *p, int64_t itemsize, PyObject *dtype) {
    prepared *pr = prepared_new(kind, p, itemsize);
    if (!pr) return NULL;
    OperatorObject *o = PyObject_New(OperatorObject, (PyTypeObject *)operator_type);
    if (!o) {
        prepared_unref(pr);
        return NULL;
    }
    o->pr = pr;
    o->dtype = Py_NewRef(dtype);
    return (PyObject *)o;
}
