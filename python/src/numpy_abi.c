/*
 * numpy_abi.c: NumPy arrays read and made without a Python-level call.
 *
 * An array is read through the leading fields of NumPy's array object, and
 * a result is made through NumPy's C API table (the _ARRAY_API capsule),
 * both part of NumPy's ABI from 1.7 through 2.x. The extension builds
 * without NumPy's headers: the few slots it uses are declared here. Where
 * the table cannot be had (an ABI this file does not know), numpy.empty
 * makes the result instead.
 */
#include "numpy_abi.h"
#include "array_view.h"
#include "errors.h"

#include <string.h>

#include "dlpack.h"

/* NumPy's array object: the leading fields every NumPy from 1.7 on shares.
 * Reading them takes an array in without the buffer protocol, whose export
 * costs more than a tiny slice (it formats the dtype for every new array). */
typedef struct {
    PyObject_HEAD char *data;
    int nd;
    Py_ssize_t *dimensions;
    Py_ssize_t *strides;
    PyObject *base;
    PyObject *descr;
    int flags;
} numpy_fields;
#define NUMPY_WRITEABLE 0x0400

/* Slots of NumPy's C API table, numbered as NumPy numbers them (the same in
 * NumPy 1.x and 2.x). */
#define API_ABI_VERSION       0   /* unsigned PyArray_GetNDArrayCVersion(void) */
#define API_ARRAY_TYPE        2   /* PyArray_Type */
#define API_NEW_FROM_DESCR    94  /* PyArray_NewFromDescr */
#define API_SET_BASE          282 /* PyArray_SetBaseObject */
#define NUMPY_ARRAY_WRITEABLE 0x0400
typedef unsigned (*abi_version_fn)(void);
typedef PyObject *(*new_from_descr_fn)(PyTypeObject *type, PyObject *descr, int nd, const Py_ssize_t *dims,
                                       const Py_ssize_t *strides, void *data, int flags, PyObject *obj);

static PyTypeObject *ndarray_type;
static PyObject *bool_type;             /* numpy.bool_ */
static PyObject *np_empty, *np_asarray; /* numpy.empty, numpy.asarray */
typedef int (*set_base_fn)(PyObject *arr, PyObject *base);
static new_from_descr_fn new_from_descr; /* NULL: numpy.empty makes results */
static set_base_fn set_base;             /* NULL: views are made by indexing */

/* What the slice needs of a NumPy dtype, asked once per dtype object. */
typedef struct {
    PyObject *descr; /* a strong reference: the pointer stays this dtype's */
    int64_t itemsize;
    int cls; /* -1: holds Python objects */
} dtype_entry;
static dtype_entry dtype_cache[32];
static unsigned dtype_next;

/* The C API table of the NumPy already imported, where its ABI is one whose
 * slots this file knows (1.x: 0x01000009, 2.x: 0x02000000). */
static void **find_api(void) {
    static const char *const homes[] = {"numpy._core._multiarray_umath", "numpy.core._multiarray_umath"};
    for (size_t i = 0; i < sizeof homes / sizeof *homes; i++) {
        PyObject *mod = PyImport_ImportModule(homes[i]);
        PyObject *cap = mod ? PyObject_GetAttrString(mod, "_ARRAY_API") : NULL;
        Py_XDECREF(mod);
        void **api = cap && PyCapsule_CheckExact(cap) ? PyCapsule_GetPointer(cap, NULL) : NULL;
        Py_XDECREF(cap); /* the table lives as long as NumPy's module */
        PyErr_Clear();
        if (!api) continue;
        unsigned abi = ((abi_version_fn)api[API_ABI_VERSION])();
        if ((abi == 0x01000009 || abi == 0x02000000) && api[API_ARRAY_TYPE] == (void *)ndarray_type) return api;
        return NULL;
    }
    return NULL;
}

int numpy_init(PyObject *np) {
    PyObject *nd = PyObject_GetAttrString(np, "ndarray");
    PyObject *b = nd ? PyObject_GetAttrString(np, "bool_") : NULL;
    PyObject *e = b ? PyObject_GetAttrString(np, "empty") : NULL;
    PyObject *a = e ? PyObject_GetAttrString(np, "asarray") : NULL;
    if (!a || !PyType_Check(nd)) {
        Py_XDECREF(nd), Py_XDECREF(b), Py_XDECREF(e), Py_XDECREF(a);
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "numpy.ndarray is not a type");
        return -1;
    }
    Py_XDECREF((PyObject *)ndarray_type), Py_XDECREF(bool_type), Py_XDECREF(np_empty), Py_XDECREF(np_asarray);
    ndarray_type = (PyTypeObject *)nd, bool_type = b, np_empty = e, np_asarray = a;
    void **api = find_api();
    new_from_descr = api ? (new_from_descr_fn)api[API_NEW_FROM_DESCR] : NULL;
    set_base = api ? (set_base_fn)api[API_SET_BASE] : NULL;
    return 0;
}

int numpy_is_array(PyObject *obj) { return ndarray_type && PyObject_TypeCheck(obj, ndarray_type); }

int numpy_is_exact(PyObject *obj) { return Py_TYPE(obj) == ndarray_type; }

int numpy_is_bool(PyObject *obj) { return bool_type && Py_TYPE(obj) == (PyTypeObject *)bool_type; }

PyObject *numpy_descr(PyObject *arr) { return ((const numpy_fields *)arr)->descr; }

PyObject *numpy_asarray(PyObject *obj) { return PyObject_CallFunctionObjArgs(np_asarray, obj, NULL); }

static long attr_long(PyObject *obj, const char *name) {
    PyObject *v = PyObject_GetAttrString(obj, name);
    long r = v ? PyLong_AsLong(v) : -1;
    Py_XDECREF(v);
    return r;
}

static const dtype_entry *dtype_lookup(PyObject *descr) {
    for (unsigned i = 0; i < sizeof dtype_cache / sizeof *dtype_cache; i++)
        if (dtype_cache[i].descr == descr) return &dtype_cache[i];
    long itemsize = attr_long(descr, "itemsize");
    long hasobject = attr_long(descr, "hasobject");
    PyObject *kind = PyObject_GetAttrString(descr, "kind");
    const char *k = kind ? PyUnicode_AsUTF8AndSize(kind, NULL) : NULL;
    char kc = k ? k[0] : 0;
    Py_XDECREF(kind);
    if (PyErr_Occurred()) return NULL;
    dtype_entry *e = &dtype_cache[dtype_next++ % (sizeof dtype_cache / sizeof *dtype_cache)];
    Py_XDECREF(e->descr);
    Py_INCREF(descr);
    e->descr = descr;
    e->itemsize = itemsize;
    e->cls = hasobject                                                        ? -1
             : kc == 'f' && (itemsize == 2 || itemsize == 4 || itemsize == 8) ? CLS_FLOAT
             : kc == 'i'                                                      ? CLS_INT
             : kc == 'u'                                                      ? CLS_UINT
                                                                              : CLS_OTHER;
    return e;
}

int numpy_dtype(PyObject *descr, int64_t *itemsize, int *cls) {
    const dtype_entry *d = dtype_lookup(descr);
    if (!d) return -1;
    *itemsize = d->itemsize;
    *cls = d->cls;
    return 0;
}

int view_host(array_view *v, int source, void *data, int ndim, int64_t itemsize, int cls, int readonly, int writable) {
    if (itemsize < 1) {
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-V-SIZES", "elements of %lld bytes cannot be sliced",
                  (long long)itemsize);
        return -1;
    }
    if (writable && readonly) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-OUT", "out= is read-only");
        return -1;
    }
    v->source = source;
    v->data = data;
    v->ndim = ndim;
    v->itemsize = itemsize;
    v->dtype_class = cls;
    v->device_type = DL_CPU;
    v->dl_code = -1;
    v->readonly = readonly;
    return 0;
}

int numpy_view(PyObject *arr, int writable, array_view *v) {
    const numpy_fields *a = (const numpy_fields *)arr;
    if (a->nd > EXT_ARRAY_MAX_RANK) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-V-RANK",
                  "the array has %d dimensions; dmlslice takes at most %d", a->nd, EXT_ARRAY_MAX_RANK);
        return -1;
    }
    const dtype_entry *d = dtype_lookup(a->descr);
    if (!d) return -1;
    if (d->cls < 0) {
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY",
                  "arrays of Python objects cannot be sliced by copying bits");
        return -1;
    }
    const int readonly = !(a->flags & NUMPY_WRITEABLE);
    if (view_host(v, SRC_NUMPY, a->data, a->nd, d->itemsize, d->cls, readonly, writable) < 0) return -1;
    for (int i = 0; i < a->nd; i++) {
        v->shape[i] = a->dimensions[i];
        v->strides[i] = a->strides[i];
    }
    return 0;
}

PyObject *numpy_new(PyObject *descr, int ndim, const int64_t *shape, array_view *v) {
    const dtype_entry *d = dtype_lookup(descr);
    if (!d) return NULL;
    Py_ssize_t dims[EXT_ARRAY_MAX_RANK];
    for (int i = 0; i < ndim; i++) dims[i] = (Py_ssize_t)shape[i];
    PyObject *arr;
    if (new_from_descr) {
        Py_INCREF(descr); /* the slot steals it */
        arr = new_from_descr(ndarray_type, descr, ndim, dims, NULL, NULL, 0, NULL);
    } else {
        PyObject *t = ext_shape_tuple(ndim, shape);
        arr = t ? PyObject_CallFunctionObjArgs(np_empty, t, descr, NULL) : NULL;
        Py_XDECREF(t);
    }
    if (!arr) return NULL;
    memset(v, 0, VIEW_HEAD_BYTES);
    v->source = SRC_FRESH_NUMPY;
    v->data = ((const numpy_fields *)arr)->data;
    v->itemsize = d->itemsize;
    v->dtype_class = d->cls;
    v->dl_code = -1;
    v->device_type = DL_CPU;
    numpy_c_order(v, ndim, shape);
    return arr;
}

int numpy_can_view(void) { return new_from_descr && set_base; }

PyObject *numpy_view_of(PyObject *base, int ndim, const int64_t *shape, char *data) {
    const numpy_fields *b = (const numpy_fields *)base;
    const dtype_entry *d = dtype_lookup(b->descr);
    if (!d) return NULL;
    Py_ssize_t dims[EXT_ARRAY_MAX_RANK], strides[EXT_ARRAY_MAX_RANK], packed = (Py_ssize_t)d->itemsize;
    for (int i = ndim - 1; i >= 0; i--) {
        dims[i] = (Py_ssize_t)shape[i];
        strides[i] = packed;
        packed *= dims[i];
    }
    Py_INCREF(b->descr); /* the slot steals it */
    /* Strides given: NumPy works out the contiguity and alignment flags. */
    PyObject *arr = new_from_descr(ndarray_type, b->descr, ndim, dims, strides, data, NUMPY_ARRAY_WRITEABLE, NULL);
    if (!arr) return NULL;
    Py_INCREF(base); /* the slot steals it, failing or not */
    if (set_base(arr, base) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

void numpy_c_order(array_view *v, int ndim, const int64_t *shape) {
    v->ndim = ndim;
    int64_t packed = v->itemsize;
    for (int i = ndim - 1; i >= 0; i--) {
        v->shape[i] = shape[i];
        v->strides[i] = packed;
        packed *= shape[i];
    }
}
