/*
 * frameworks.c: PyTorch and CuPy arrays, read through their own attributes,
 * and the calls into dmlslice/_kinds.py for everything else a library
 * answers (dtype objects, devices, streams, results of other producers).
 *
 * A tensor's __dlpack__ is Python code that costs more than a tiny slice
 * (and on the GPU compares streams and may record events), where
 * data_ptr(), shape and stride() answer in tens of nanoseconds; and DLPack
 * refuses what torch's own indexing reads: bool tensors (torch 1.13),
 * tensors that require grad. Every strided tensor on the CPU or a CUDA
 * device takes this path, a subclass too; only other layouts and devices
 * go through DLPack, which refuses or reads them. CuPy arrays likewise:
 * data.ptr, shape, strides and dtype, read in a fraction of __dlpack__'s
 * time. Neither library is ever imported here: each is looked for only
 * once its module is in sys.modules.
 */
#include "frameworks.h"
#include "array_view.h"
#include "errors.h"
#include "numpy_abi.h"

#include <string.h>

#include "dlpack.h"

static PyObject *k_dtype_info, *k_device_of, *k_stream_of, *k_empty_like, *k_finish; /* dmlslice._kinds */
static PyObject *k_cupy_stream, *k_cupy_empty;

int frameworks_init(PyObject *kinds) {
    static const char *const names[] = {"dtype_info", "device_of",   "stream_of", "empty_like",
                                        "finish",     "cupy_stream", "cupy_empty"};
    PyObject **slots[] = {&k_dtype_info, &k_device_of,   &k_stream_of, &k_empty_like,
                          &k_finish,     &k_cupy_stream, &k_cupy_empty};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        PyObject *f = PyObject_GetAttrString(kinds, names[i]);
        if (!f) return -1;
        Py_XDECREF(*slots[i]);
        *slots[i] = f;
    }
    return 0;
}

int frameworks_dtype_info(PyObject *dtype, int64_t *itemsize, int *cls) {
    PyObject *r = PyObject_CallFunctionObjArgs(k_dtype_info, dtype, NULL);
    if (!r) return -1;
    long long a = PyLong_AsLongLong(PyTuple_GetItem(r, 0));
    long b = PyLong_AsLong(PyTuple_GetItem(r, 1));
    Py_DECREF(r);
    if (PyErr_Occurred()) return -1;
    *itemsize = a;
    *cls = (int)b;
    return 0;
}

static int too_many_dims(Py_ssize_t ndim) {
    ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "R-V-RANK",
              "the array has %zd dimensions; dmlslice takes at most %d", ndim, EXT_ARRAY_MAX_RANK);
    return -1;
}

/* A shape and strides (in units of `scale` bytes) as tuples into v: 0, 1
 * where they are not two tuples of one length, -1 with an exception. */
static int tuple_dims(PyObject *shape, PyObject *strides, int64_t scale, array_view *v) {
    Py_ssize_t n = PyTuple_Check(shape) ? PyTuple_Size(shape) : -1;
    if (n < 0 || !PyTuple_Check(strides) || PyTuple_Size(strides) != n) return 1;
    if (n > EXT_ARRAY_MAX_RANK) return too_many_dims(n);
    v->ndim = (int)n;
    for (Py_ssize_t i = 0; i < n; i++) {
        v->shape[i] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
        v->strides[i] = PyLong_AsLongLong(PyTuple_GetItem(strides, i)) * scale;
    }
    return PyErr_Occurred() ? -1 : 0;
}

/* A module's attribute once the module is imported, else NULL (never raises). */
static PyObject *imported_attr(const char *module, const char *name) {
    PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), module);
    PyObject *a = mod ? PyObject_GetAttrString(mod, name) : NULL;
    if (!a) PyErr_Clear();
    return a;
}

static PyTypeObject *torch_tensor; /* torch.Tensor, once torch is imported */
static PyObject *torch_strided;    /* torch.strided */
static PyObject *torch_raw_stream; /* torch._C._cuda_getCurrentRawStream, or NULL */
static PyObject *s_layout, *s_is_neg, *s_is_conj, *s_is_cpu, *s_is_cuda, *s_get_device, *s_dtype, *s_data_ptr, *s_shape,
    *s_stride, *s_new_empty, *s_is_complex;

/* What a torch dtype is, asked once per dtype. */
typedef struct {
    PyObject *dtype; /* a strong reference; NULL: free slot */
    int64_t itemsize;
    int cls, dl_code;
} torch_dtype_entry;
static torch_dtype_entry torch_dtypes[32];
static unsigned torch_dtype_next;

static int torch_names(void) {
    static const char *const names[] = {"layout", "is_neg",   "is_conj", "is_cpu", "is_cuda",   "get_device",
                                        "dtype",  "data_ptr", "shape",   "stride", "new_empty", "is_complex"};
    PyObject **slots[] = {&s_layout, &s_is_neg,   &s_is_conj, &s_is_cpu, &s_is_cuda,   &s_get_device,
                          &s_dtype,  &s_data_ptr, &s_shape,   &s_stride, &s_new_empty, &s_is_complex};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!*slots[i] && !(*slots[i] = PyUnicode_InternFromString(names[i]))) return -1;
    return 0;
}

int frameworks_is_torch(PyObject *obj) {
    if (!torch_tensor) {
        PyObject *t = imported_attr("torch", "Tensor");
        PyObject *st = t ? imported_attr("torch", "strided") : NULL;
        if (!st || !PyType_Check(t) || torch_names() < 0) {
            Py_XDECREF(t);
            Py_XDECREF(st);
            PyErr_Clear();
            return 0;
        }
        PyObject *c = imported_attr("torch", "_C");
        torch_raw_stream = c ? PyObject_GetAttrString(c, "_cuda_getCurrentRawStream") : NULL;
        Py_XDECREF(c);
        PyErr_Clear(); /* a build without CUDA lacks it */
        torch_strided = st;
        torch_tensor = (PyTypeObject *)t;
    }
    return PyObject_TypeCheck(obj, torch_tensor);
}

/* The stream get(device) returns as an integer (PyTorch's and CuPy's
 * current-stream getters alike): 0, or -1 with an exception set. */
static int stream_from(PyObject *get, int device, uintptr_t *stream) {
    PyObject *r = PyObject_CallFunction(get, "i", device);
    if (!r) return -1;
    unsigned long long v = PyLong_AsUnsignedLongLong(r);
    Py_DECREF(r);
    if (PyErr_Occurred()) return -1;
    *stream = (uintptr_t)v;
    return 0;
}

int frameworks_torch_stream(int device, uintptr_t *stream) {
    return torch_raw_stream ? stream_from(torch_raw_stream, device, stream) : 1;
}

PyObject *frameworks_torch_empty(PyObject *x, PyObject *shape) {
    return PyObject_CallMethodObjArgs(x, s_new_empty, shape, NULL);
}

/* 1 or 0 for a bool attribute (call: a method), -1 with an exception. */
static int torch_bool(PyObject *obj, PyObject *name, int call) {
    PyObject *r = call ? PyObject_CallMethodObjArgs(obj, name, NULL) : PyObject_GetAttr(obj, name);
    if (!r) return -1;
    int b = PyObject_IsTrue(r);
    Py_DECREF(r);
    return b;
}

static const torch_dtype_entry *torch_dtype(PyObject *dtype) {
    for (unsigned i = 0; i < sizeof torch_dtypes / sizeof *torch_dtypes; i++)
        if (torch_dtypes[i].dtype == dtype) return &torch_dtypes[i];
    torch_dtype_entry e = {.dtype = dtype};
    if (frameworks_dtype_info(dtype, &e.itemsize, &e.cls) < 0) return NULL;
    int complex = torch_bool(dtype, s_is_complex, 0);
    if (complex < 0) return NULL;
    e.dl_code = complex              ? 5
                : e.cls == CLS_INT   ? DL_INT
                : e.cls == CLS_UINT  ? DL_UINT
                : e.cls == CLS_FLOAT ? DL_FLOAT
                                     : -1;
    torch_dtype_entry *slot = &torch_dtypes[torch_dtype_next++ % (sizeof torch_dtypes / sizeof *torch_dtypes)];
    Py_XDECREF(slot->dtype);
    Py_INCREF(dtype);
    *slot = e;
    return slot;
}

/* Reads a torch tensor into v: 0, 1 when it must go through DLPack, or -1
 * with an exception. */
int frameworks_torch_view(PyObject *obj, array_view *v) {
    PyObject *layout = PyObject_GetAttr(obj, s_layout);
    if (!layout) return -1;
    Py_DECREF(layout); /* torch.strided is a singleton */
    if (layout != torch_strided) return 1;
    int cpu = torch_bool(obj, s_is_cpu, 0);
    int cuda = cpu == 0 ? torch_bool(obj, s_is_cuda, 0) : 0;
    if (cpu < 0 || cuda < 0) return -1;
    if (!cpu && !cuda) return 1;
    PyObject *dtype = PyObject_GetAttr(obj, s_dtype);
    if (!dtype) return -1;
    const torch_dtype_entry *d = torch_dtype(dtype);
    Py_DECREF(dtype);
    if (!d) return -1;
    /* A lazily negated or conjugated view's memory holds the values before
     * the negation or conjugation, which a copy of bits cannot apply. */
    int neg = torch_bool(obj, s_is_neg, 1);
    int conj = neg == 0 && d->dl_code == 5 ? torch_bool(obj, s_is_conj, 1) : 0;
    if (neg != 0 || conj != 0) {
        if (neg > 0 || conj > 0)
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY",
                      "the tensor has PyTorch's %s bit set (a lazily %s view, e.g. %s): its memory does "
                      "not hold its values; pass x.%s()",
                      neg > 0 ? "negative" : "conjugate", neg > 0 ? "negated" : "conjugated",
                      neg > 0 ? "z.conj().imag" : "z.conj()", neg > 0 ? "resolve_neg" : "resolve_conj");
        return -1;
    }
    v->device_type = cpu ? DL_CPU : DL_CUDA;
    if (cuda) {
        PyObject *dev = PyObject_CallMethodObjArgs(obj, s_get_device, NULL);
        long id = dev ? PyLong_AsLong(dev) : -1;
        Py_XDECREF(dev);
        if (id < 0) return PyErr_Occurred() ? -1 : 1;
        v->device_id = (int)id;
    }
    PyObject *shape = PyObject_GetAttr(obj, s_shape);
    PyObject *strides = shape ? PyObject_CallMethodObjArgs(obj, s_stride, NULL) : NULL;
    PyObject *ptr = strides ? PyObject_CallMethodObjArgs(obj, s_data_ptr, NULL) : NULL;
    int rc = ptr ? tuple_dims(shape, strides, d->itemsize, v) : -1;
    if (rc == 0) {
        v->source = SRC_TORCH;
        v->data = PyLong_AsVoidPtr(ptr);
        v->itemsize = d->itemsize;
        v->dtype_class = d->cls;
        v->dl_code = d->dl_code;
        rc = PyErr_Occurred() ? -1 : 0;
    }
    Py_XDECREF(ptr);
    Py_XDECREF(strides);
    Py_XDECREF(shape);
    return rc;
}

int frameworks_torch_device(PyObject *obj, int *type, int *id) {
    int cpu = torch_bool(obj, s_is_cpu, 0);
    if (cpu < 0) return -1;
    if (cpu) {
        *type = DL_CPU, *id = 0;
        return 0;
    }
    int cuda = torch_bool(obj, s_is_cuda, 0);
    if (cuda <= 0) return cuda < 0 ? -1 : 1;
    PyObject *dev = PyObject_CallMethodObjArgs(obj, s_get_device, NULL);
    long i = dev ? PyLong_AsLong(dev) : -1;
    Py_XDECREF(dev);
    if (i == -1 && PyErr_Occurred()) return -1;
    *type = DL_CUDA, *id = (int)i;
    return 0;
}

/* ---- CuPy */

static PyTypeObject *cupy_ndarray; /* cupy.ndarray, once cupy is imported */
static PyObject *s_data, *s_ptr, *s_device_id, *s_strides;

int frameworks_is_cupy(PyObject *obj) {
    if (!cupy_ndarray) {
        PyObject *t = imported_attr("cupy", "ndarray");
        static const char *const names[] = {"data", "ptr", "device_id", "strides"};
        PyObject **slots[] = {&s_data, &s_ptr, &s_device_id, &s_strides};
        for (size_t i = 0; t && i < sizeof names / sizeof *names; i++)
            if (!*slots[i] && !(*slots[i] = PyUnicode_InternFromString(names[i]))) Py_CLEAR(t);
        if (!t || !PyType_Check(t) || torch_names() < 0) { /* torch_names interns dtype and shape too */
            Py_XDECREF(t);
            PyErr_Clear();
            return 0;
        }
        cupy_ndarray = (PyTypeObject *)t;
    }
    return PyObject_TypeCheck(obj, cupy_ndarray);
}

/* x.data.ptr and x.data.device_id: 0, 1 where x.data is not CuPy's memory
 * pointer (then DLPack reads x), -1. */
static int cupy_memory(PyObject *obj, array_view *v) {
    PyObject *mem = PyObject_GetAttr(obj, s_data);
    PyObject *ptr = mem ? PyObject_GetAttr(mem, s_ptr) : NULL;
    PyObject *dev = ptr ? PyObject_GetAttr(mem, s_device_id) : NULL;
    int rc = 1;
    if (dev && PyLong_Check(ptr) && PyLong_Check(dev)) {
        v->data = PyLong_AsVoidPtr(ptr);
        v->device_id = (int)PyLong_AsLong(dev);
        rc = PyErr_Occurred() ? -1 : 0;
    } else if (PyErr_Occurred()) {
        rc = PyErr_ExceptionMatches(PyExc_AttributeError) ? 1 : -1;
        if (rc == 1) PyErr_Clear();
    }
    Py_XDECREF(dev);
    Py_XDECREF(ptr);
    Py_XDECREF(mem);
    return rc;
}

int frameworks_cupy_view(PyObject *obj, array_view *v) {
    int rc = cupy_memory(obj, v);
    if (rc != 0) return rc;
    PyObject *dtype = PyObject_GetAttr(obj, s_dtype);
    int cls = 0;
    rc = dtype ? numpy_dtype(dtype, &v->itemsize, &cls) : -1;
    Py_XDECREF(dtype);
    if (rc < 0) return -1;
    if (cls < 0 || v->itemsize < 1) return 1; /* DLPack refuses it, saying why */
    PyObject *shape = PyObject_GetAttr(obj, s_shape);
    PyObject *strides = shape ? PyObject_GetAttr(obj, s_strides) : NULL;
    rc = strides ? tuple_dims(shape, strides, 1, v) : -1;
    Py_XDECREF(strides);
    Py_XDECREF(shape);
    v->source = SRC_CUPY;
    v->dtype_class = cls;
    v->dl_code = -1;
    v->device_type = DL_CUDA;
    return rc;
}

int frameworks_cupy_stream(int device, uintptr_t *stream) { return stream_from(k_cupy_stream, device, stream); }

PyObject *frameworks_cupy_empty(PyObject *x, PyObject *shape, int device) {
    return PyObject_CallFunction(k_cupy_empty, "OOi", x, shape, device);
}

int frameworks_fresh_view(PyObject *made, const array_view *in, int ndim, const int64_t *shape, array_view *v) {
    PyObject *ptr;
    if (in->source == SRC_TORCH) {
        ptr = PyObject_CallMethodObjArgs(made, s_data_ptr, NULL);
    } else {
        PyObject *mem = PyObject_GetAttr(made, s_data);
        ptr = mem ? PyObject_GetAttr(mem, s_ptr) : NULL;
        Py_XDECREF(mem);
    }
    if (!ptr) return -1;
    memset(v, 0, VIEW_HEAD_BYTES);
    v->data = PyLong_AsVoidPtr(ptr);
    Py_DECREF(ptr);
    v->source = in->source;
    v->itemsize = in->itemsize;
    v->dtype_class = in->dtype_class;
    v->dl_code = in->dl_code;
    v->device_type = in->device_type;
    v->device_id = in->device_id;
    numpy_c_order(v, ndim, shape);
    return PyErr_Occurred() ? -1 : 0;
}

/* ---- other producers: dmlslice/_kinds.py */

/* R-PY-ARRAY for obj in place of the exception raised, fmt naming obj's
 * type with its one %s; -1. */
static int not_an_array(PyObject *obj, const char *fmt) {
    PyErr_Clear();
    char name[128];
    ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY", fmt, ext_type_name(obj, name, sizeof name));
    return -1;
}

int frameworks_device_of(PyObject *obj, int *type, int *id) {
    PyObject *r = PyObject_CallFunctionObjArgs(k_device_of, obj, NULL);
    if (!r && !PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
    if (!r) return not_an_array(obj, "expected an array (the buffer protocol or __dlpack__), got %s");
    PyObject *t0 = PyTuple_Check(r) && PyTuple_Size(r) == 2 ? PyTuple_GetItem(r, 0) : NULL;
    PyObject *t1 = t0 ? PyTuple_GetItem(r, 1) : NULL;
    long a = t0 ? PyLong_AsLong(t0) : -1, b = t1 ? PyLong_AsLong(t1) : -1;
    Py_DECREF(r);
    if (!t0 || PyErr_Occurred())
        return not_an_array(obj, "__dlpack_device__ of %s did not return (device_type, device_id)");
    *type = (int)a;
    *id = (int)b;
    return 0;
}

int frameworks_stream_of(PyObject *obj, int device, uintptr_t *stream, PyObject **stream_arg, int *sync) {
    PyObject *r = PyObject_CallFunction(k_stream_of, "Oi", obj, device);
    if (!r) return -1;
    PyObject *ptr = PyTuple_GetItem(r, 0);
    *stream = ptr ? (uintptr_t)PyLong_AsUnsignedLongLong(ptr) : 0;
    *stream_arg = Py_XNewRef(PyTuple_GetItem(r, 1));
    *sync = PyObject_IsTrue(PyTuple_GetItem(r, 2)) == 1;
    Py_DECREF(r);
    return PyErr_Occurred() ? -1 : 0;
}

PyObject *frameworks_empty_like(PyObject *x, PyObject *shape, const char *dtype_hint) {
    return PyObject_CallFunction(k_empty_like, "OOs", x, shape, dtype_hint);
}

PyObject *frameworks_finish(PyObject *x, PyObject *target) {
    return PyObject_CallFunctionObjArgs(k_finish, x, target, NULL);
}
