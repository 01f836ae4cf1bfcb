/*
 * module.c: the Python surface of dmlslice._dmlslice: each function's
 * arguments parsed (by position or by name, as Python's own functions
 * take them) and handed to its step: the one-shot slicing functions to
 * call.c, plan() to operator.c, check_dml to dml.c, the thread pool
 * settings to pool.c.
 */
#include "array_view.h"
#include "call.h"
#include "dml_params.h"
#include "errors.h"
#include "frameworks.h"
#include "lowering.h"
#include "numpy_abi.h"
#include "operator.h"
#include "params.h"
#include "prepared.h"
#include "run.h"

#include "batch_plan.h"
#include "crops.h"
#include "devices.h"
#include "dlpack.h"
#include "library_loops.h"
#include "split.h"

#include <stdio.h>
#include <string.h>

/* A vectorcall's arguments into slots[0..n) by position (the first npos)
 * or by name, NULL where not given; the first nreq are required. Mistakes
 * are TypeErrors worded as Python's own. */
static int parse_args(const char *fname, const char *const *names, int n, int npos, int nreq, PyObject *const *args,
                      Py_ssize_t nargs, PyObject *kwnames, PyObject **slots) {
    if (nargs > npos) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d positional arguments (%zd given)", fname, npos, nargs);
        return -1;
    }
    for (int i = 0; i < n; i++) slots[i] = i < nargs ? args[i] : NULL;
    Py_ssize_t nk = kwnames ? PyTuple_Size(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nk; k++) {
        PyObject *name = PyTuple_GetItem(kwnames, k);
        int i = 0;
        while (i < n && PyUnicode_CompareWithASCIIString(name, names[i]) != 0) i++;
        if (i == n) {
            PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", fname, name);
            return -1;
        }
        if (slots[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%s'", fname, names[i]);
            return -1;
        }
        slots[i] = args[nargs + k];
    }
    for (int i = 0; i < nreq; i++)
        if (!slots[i]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s' (pos %d)", fname, names[i], i + 1);
            return -1;
        }
    return 0;
}

/* Each function's parameters: positional-or-keyword, then out= (and
 * feature_level= for DirectML's) by keyword only. */
static const char *const kind_args[K_COUNT][8] = {
    {"x", "key", "out"},
    {"x", "offsets", "sizes", "strides", "out", "feature_level"},
    {"x", "offsets", "sizes", "strides", "out", "feature_level"},
    {"grad", "input_shape", "offsets", "sizes", "strides", "out", "feature_level"},
    {"x", "starts", "ends", "axes", "steps", "out"},
    {"x", "starts", "sizes", "strides", "out"},
    {"x", "axes", "out"},
    {"x", "axes", "out"},
};
static const int kind_npos[K_COUNT] = {2, 4, 4, 5, 5, 4, 2, 2};
static const int kind_nreq[K_COUNT] = {2, 4, 4, 5, 3, 3, 1, 1};

static PyObject *one_shot(int kind, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    PyObject *slots[8];
    int npos = kind_npos[kind], dml = kind == K_SLICE || kind == K_SLICE1 || kind == K_SLICE_GRAD;
    if (parse_args(kind_names[kind], kind_args[kind], npos + 1 + dml, npos, kind_nreq[kind], args, nargs, kwnames,
                   slots) < 0)
        return ext_own_error();
    for (int i = 1; i < npos; i++)
        if (!slots[i]) slots[i] = Py_None; /* an optional parameter left out */
    call k = {.kind = kind,
              .x = slots[0],
              .params = slots + 1,
              .nparams = npos - 1,
              .out = slots[npos],
              .level = dml ? slots[npos + 1] : NULL};
    return ext_own(call_run(&k));
}

#define ONE_SHOT(name, kind)                                                                                           \
    static PyObject *fn_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {           \
        (void)self;                                                                                                    \
        return one_shot(kind, args, nargs, kwnames);                                                                   \
    }
ONE_SHOT(index, K_INDEX)
ONE_SHOT(slice, K_SLICE)
ONE_SHOT(slice1, K_SLICE1)
ONE_SHOT(slice_grad, K_SLICE_GRAD)
ONE_SHOT(onnx_slice, K_ONNX)
ONE_SHOT(webnn_slice, K_WEBNN_SLICE)
ONE_SHOT(webnn_reverse, K_WEBNN_REVERSE)
ONE_SHOT(transpose, K_TRANSPOSE)

/* _plan(kind, shape, dtype, params, feature_level) */
static PyObject *plan_impl(PyObject *self, PyObject *args) {
    (void)self;
    const char *kname;
    PyObject *shape_obj, *dtype, *params, *level;
    if (!PyArg_ParseTuple(args, "sOOO!O", &kname, &shape_obj, &dtype, &PyTuple_Type, &params, &level))
        return ext_own_error();
    int kind = -1;
    for (int i = 0; i < K_COUNT; i++)
        if (strcmp(kname, kind_names[i]) == 0) kind = i;
    if (kind < 0) return PyErr_Format(PyExc_ValueError, "unknown slice kind '%s'", kname);
    int64_t shape[EXT_ARRAY_MAX_RANK], itemsize;
    int cls;
    int ndim = params_int_list(shape_obj, "shape", "R-T-SIZES", shape, EXT_ARRAY_MAX_RANK, 1);
    if (ndim < 0 || frameworks_dtype_info(dtype, &itemsize, &cls) < 0) return NULL;
    Py_ssize_t n = PyTuple_Size(params);
    PyObject *a[4];
    for (Py_ssize_t i = 0; i < n && i < 4; i++) a[i] = PyTuple_GetItem(params, i);
    lowered p;
    if (params_lower(kind, ndim, shape, itemsize, cls, a, (int)(n > 4 ? 5 : n), level, &p) < 0) return NULL;
    PyObject *op = operator_new(kind, &p, itemsize, dtype);
    PyMem_Free((void *)p.expr);
    return op;
}

static PyObject *fn_plan(PyObject *self, PyObject *args) { return ext_own(plan_impl(self, args)); }

/* ------------------------------------------------------------ check_dml */

static int tensor_args(PyObject *sizes, PyObject *strides, PyObject *total, PyObject *align, const char *what,
                       dml_tensor_args *t) {
    char name[64];
    memset(t, 0, sizeof *t);
    snprintf(name, sizeof name, "%s sizes", what);
    if ((t->ndim = params_int_list(sizes, name, "R-T-SIZES", t->sizes, EXT_MAX_RANK, 0)) < 0) return -1;
    if (strides && strides != Py_None) {
        snprintf(name, sizeof name, "%s strides", what);
        int n = params_int_list(strides, name, "R-T-OUTLAYOUT", t->strides, EXT_MAX_RANK, 0);
        if (n < 0) return -1;
        if (n != t->ndim) {
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-OP-RANK",
                      "%s: %d strides for %d sizes (R-OP-RANK)", what, n, t->ndim);
            return -1;
        }
        t->has_strides = 1;
    }
    if (total && total != Py_None) {
        t->total_bytes = PyLong_AsUnsignedLongLong(total);
        if (PyErr_Occurred()) return -1;
    }
    if (align && align != Py_None) {
        t->alignment = PyLong_AsUnsignedLongLong(align);
        if (PyErr_Occurred()) return -1;
    }
    return 0;
}

static PyObject *check_dml_impl(PyObject *self, PyObject *args, PyObject *kw) {
    (void)self;
    static const char *kwlist[] = {"operator",
                                   "input_sizes",
                                   "output_sizes",
                                   "offsets",
                                   "sizes",
                                   "strides",
                                   "dtype",
                                   "feature_level",
                                   "input_strides",
                                   "output_strides",
                                   "input_total_bytes",
                                   "output_total_bytes",
                                   "alignment",
                                   NULL};
    const char *opname;
    PyObject *isz, *osz, *offs, *sizes, *strides, *dtype = NULL, *level = NULL, *istr = NULL, *ostr = NULL,
                                                  *itot = NULL, *otot = NULL, *align = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sOOOOO|$OOOOOOO:check_dml", (char **)kwlist, &opname, &isz, &osz, &offs,
                                     &sizes, &strides, &dtype, &level, &istr, &ostr, &itot, &otot, &align))
        return NULL;
    dml_params d = {0};
    if (strcmp(opname, "SLICE") == 0)
        d.op = DML_SLICE;
    else if (strcmp(opname, "SLICE1") == 0)
        d.op = DML_SLICE1;
    else if (strcmp(opname, "SLICE_GRAD") == 0)
        d.op = DML_SLICE_GRAD;
    else
        return ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", NULL, /* no rule: as create_dml's */
                         "operator '%s' is not SLICE, SLICE1 or SLICE_GRAD", opname);
    if (params_feature_level(level, &d.level) < 0) return NULL;
    PyObject *dflt = NULL;
    if (!dtype) dtype = dflt = PyUnicode_FromString("float32");
    int rc = dtype ? frameworks_dtype_info(dtype, &d.itemsize, &d.dtype_class) : -1;
    Py_XDECREF(dflt);
    if (rc < 0) return NULL;
    int n[3];
    int64_t *dst[3] = {d.offsets, d.sizes, d.strides};
    PyObject *src[3] = {offs, sizes, strides};
    static const char *const names[] = {"offsets", "sizes", "strides"};
    for (int i = 0; i < 3; i++)
        if ((n[i] = params_int_list(src[i], names[i], params_dml_rule(d.op, i), dst[i], EXT_MAX_RANK, 0)) < 0)
            return NULL;
    if (n[0] != n[1] || n[1] != n[2])
        return ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-OP-RANK",
                         "%s: offsets, sizes and strides have %d, %d and %d values; DimensionCount "
                         "needs one count (R-OP-RANK)",
                         opname, n[0], n[1], n[2]);
    d.n = n[0];
    dml_tensor_args ti, to;
    if (tensor_args(isz, istr, itot, align, "input", &ti) < 0 || tensor_args(osz, ostr, otot, align, "output", &to) < 0)
        return NULL;
    int rank;
    int64_t shape[EXT_MAX_RANK];
    if (dml_check(&d, &ti, &to, &rank, shape) < 0) return NULL;
    return ext_shape_tuple(rank, shape);
}

static PyObject *fn_check_dml(PyObject *self, PyObject *args, PyObject *kw) {
    return ext_own(check_dml_impl(self, args, kw));
}

/* ------------------------------------------------------------ settings */

/* ds.cuda_built: whether this build has the CUDA backend (a build fact the
 * device interface does not tell apart from a machine without a GPU). */
#ifdef DMLS_HAVE_CUDA
#define CUDA_BUILT 1
#else
#define CUDA_BUILT 0
#endif

static PyObject *set_num_threads_impl(PyObject *self, PyObject *arg) {
    (void)self;
    long n = PyLong_AsLong(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    if (n < 0 || n > 1024)
        return ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-THREADS",
                         "num_threads %ld is not 0 (the default) or 1 to 1024", n);
    if (devices_set_threads((int)n) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *fn_set_num_threads(PyObject *self, PyObject *arg) { return ext_own(set_num_threads_impl(self, arg)); }

static PyObject *get_num_threads_impl(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    int n = devices_threads();
    return n < 0 ? NULL : PyLong_FromLong(n);
}

static PyObject *fn_get_num_threads(PyObject *self, PyObject *unused) {
    return ext_own(get_num_threads_impl(self, unused));
}

static PyObject *fn_after_fork_child(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    devices_after_fork_child();
    Py_RETURN_NONE;
}

static PyObject *fn_cuda_available(PyObject *self, PyObject *unused) {
    (void)self, (void)unused;
    return PyBool_FromLong(devices_available(DL_CUDA));
}

static PyObject *fn_init(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *errors, *np, *kinds;
    if (!PyArg_ParseTuple(args, "O!OO", &PyTuple_Type, &errors, &np, &kinds)) return NULL;
    if (ext_set_errors(errors) < 0 || numpy_init(np) < 0 || frameworks_init(kinds) < 0) return NULL;
    Py_RETURN_NONE;
}

/* ------------------------------------------------------------ docstrings */

PyDoc_STRVAR(doc_index, "index(x, key, *, out=None)\n"
                        "\n"
                        "NumPy basic indexing: key is a string such as \"[1:3, ::-1, None, ...]\" or\n"
                        "what x[...] takes (an int, a slice, Ellipsis, None, a boolean scalar, or a\n"
                        "tuple of them, e.g. np.s_[1:3, ::-1]). The same result as x[key].copy(), bit\n"
                        "for bit.");

PyDoc_STRVAR(doc_slice1, "slice1(x, offsets, sizes, strides, *, out=None, feature_level=None)\n"
                         "\n"
                         "DirectML SLICE1: a window (offsets, sizes) over x walked with non-zero\n"
                         "strides; a negative stride starts at the window's end. The result has\n"
                         "1 + (size - 1) // |stride| elements per axis. The parameters are validated as\n"
                         "DirectML validates them at feature_level (default: the latest).");

PyDoc_STRVAR(doc_slice, "slice(x, offsets, sizes, strides, *, out=None, feature_level=None)\n"
                        "\n"
                        "DirectML SLICE: out[c] = x[offsets + strides * c]; sizes are the output's\n"
                        "sizes, strides >= 1. Validated as DirectML does at feature_level.");

PyDoc_STRVAR(doc_slice_grad, "slice_grad(grad, input_shape, offsets, sizes, strides, *, out=None, feature_level=None)\n"
                             "\n"
                             "DirectML SLICE_GRAD: a zero array of input_shape with grad's elements\n"
                             "written where slice1(..., offsets, sizes, strides) would read them.");

PyDoc_STRVAR(doc_onnx_slice, "onnx_slice(x, starts, ends, axes=None, steps=None, *, out=None)\n"
                             "\n"
                             "ONNX Slice (opsets 1-13): negative values count from the end and clamp.");

PyDoc_STRVAR(doc_webnn_slice, "webnn_slice(x, starts, sizes, strides=None, *, out=None)\n"
                              "\n"
                              "WebNN slice(input, starts, sizes, {strides}) with WebNN's validation.");

PyDoc_STRVAR(doc_webnn_reverse, "webnn_reverse(x, axes=None, *, out=None)\n"
                                "\n"
                                "WebNN reverse(input, {axes}); axes=None reverses every axis.");

PyDoc_STRVAR(doc_transpose, "transpose(x, axes=None, *, out=None)\n"
                            "\n"
                            "numpy.transpose(x, axes) as a contiguous array of the input's kind (ONNX\n"
                            "Transpose, WebNN transpose): axes=None reverses the axes; negative axes count\n"
                            "from the back; each axis once (rule R-PERM).");

PyDoc_STRVAR(doc_check_dml,
             "check_dml(operator, input_sizes, output_sizes, offsets, sizes, strides, *,\n"
             "          dtype=\"float32\", feature_level=None, input_strides=None, output_strides=None,\n"
             "          input_total_bytes=None, output_total_bytes=None, alignment=0) -> tuple\n"
             "\n"
             "Validate a DirectML SLICE, SLICE1 or SLICE_GRAD descriptor without data, as\n"
             "DirectML does at feature_level (default: the latest). For SLICE_GRAD the input\n"
             "is the input gradient and the output the output gradient. Total sizes default\n"
             "to the least the tensor needs. Returns the output shape; raises Error naming\n"
             "the rule otherwise.");

PyDoc_STRVAR(doc_set_num_threads, "set_num_threads(n, /)\n"
                                  "\n"
                                  "Resize the process's shared copy pool: n threads in all (the caller\n"
                                  "included), or 0 for the library's default (DMLSLICE_THREADS, else the number\n"
                                  "of online CPUs).");

PyDoc_STRVAR(doc_get_num_threads, "get_num_threads() -> int\n"
                                  "\n"
                                  "The shared pool's thread count (the calling thread included).");

PyDoc_STRVAR(doc_cuda_available, "cuda_available() -> bool\n"
                                 "\n"
                                 "True when this build has the CUDA backend and a CUDA GPU is present.");

#define FASTKW(name, doc)                                                                                              \
    { #name, (PyCFunction)(void (*)(void))fn_##name, METH_FASTCALL | METH_KEYWORDS, doc }

#define VARKW(name, fn, doc)                                                                                           \
    { name, (PyCFunction)(void (*)(void))fn, METH_VARARGS | METH_KEYWORDS, doc }

/* Every function of the module but batch_plan.c's (added with its type). */
static PyMethodDef methods[] = {
    FASTKW(index, doc_index),
    FASTKW(slice, doc_slice),
    FASTKW(slice1, doc_slice1),
    FASTKW(slice_grad, doc_slice_grad),
    FASTKW(onnx_slice, doc_onnx_slice),
    FASTKW(webnn_slice, doc_webnn_slice),
    FASTKW(webnn_reverse, doc_webnn_reverse),
    FASTKW(transpose, doc_transpose),
    VARKW("check_dml", fn_check_dml, doc_check_dml),
    VARKW("split", split_fn, split_doc),
    VARKW("crops", crops_fn, crops_doc),
    {"_batch_init", crops_batch_init, METH_O, NULL},
    VARKW("_library_loop", library_loop_fn, NULL),
    {"_plan", fn_plan, METH_VARARGS, NULL},
    {"_init", fn_init, METH_VARARGS, NULL},
    {"_after_fork_child", fn_after_fork_child, METH_NOARGS, NULL},
    {"set_num_threads", fn_set_num_threads, METH_O, doc_set_num_threads},
    {"get_num_threads", fn_get_num_threads, METH_NOARGS, doc_get_num_threads},
    {"cuda_available", fn_cuda_available, METH_NOARGS, doc_cuda_available},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef moduledef = {PyModuleDef_HEAD_INIT,
                                       "_dmlslice",
                                       "The C half of dmlslice; use the dmlslice package.",
                                       -1,
                                       methods,
                                       NULL,
                                       NULL,
                                       NULL,
                                       NULL};

PyMODINIT_FUNC PyInit__dmlslice(void) {
    PyObject *m = PyModule_Create(&moduledef);
    if (!m) return NULL;
    PyObject *type = operator_type_new();
    if (!type || PyModule_AddObject(m, "Operator", type) < 0) {
        Py_XDECREF(type);
        goto fail;
    }
    if (PyModule_AddStringConstant(m, "library_version", run_library_version()) < 0 ||
        PyModule_AddIntConstant(m, "cuda_built", CUDA_BUILT) < 0 ||
        PyModule_AddIntConstant(m, "MAX_RANK", EXT_MAX_RANK) < 0 || batch_add_functions(m) < 0)
        goto fail;
    return m;
fail:
    Py_DECREF(m);
    return NULL;
}
