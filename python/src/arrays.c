/*
 * arrays.c: arrays in, without copying: the buffer protocol (NumPy and
 * anything else that exports one) and DLPack (__dlpack__, the versioned
 * capsule first, the legacy one when the producer predates it). Strides are
 * kept as they are, in bytes, whatever their sign.
 */
#include "ext.h"

#include <stddef.h>
#include <string.h>

#include "dlpack.h"

static PyObject *numpy_ndarray; /* set by view_set_kinds */

/* NumPy's array object as NumPy's C API lays it out: the leading fields,
 * which every NumPy from 1.7 through 2.x shares (its ABI). Reading them
 * takes a NumPy array in without the buffer protocol, whose export costs
 * more than a tiny slice (it formats the dtype for every new array). */
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

/* What the slice needs of a NumPy dtype, asked once per dtype object. */
typedef struct {
    PyObject *descr; /* a strong reference: the pointer stays this dtype's */
    int64_t itemsize;
    int cls; /* -1: holds Python objects */
} dtype_entry;
static dtype_entry dtype_cache[32];
static unsigned dtype_next;

int view_is_numpy(PyObject *obj) { return numpy_ndarray && PyObject_TypeCheck(obj, (PyTypeObject *)numpy_ndarray); }

PyObject *view_numpy_descr(PyObject *obj) { return ((const numpy_fields *)obj)->descr; }

/* The class of a PEP 3118 format; -1 (TypeError raised) for Python objects,
 * whose pointers must never be copied without their reference counts. */
static int format_class(const char *fmt) {
    if (!fmt) return CLS_UINT; /* "B" */
    for (const char *c = fmt; *c; c++) {
        if (*c == ':') { /* a field name: skip to its closing colon */
            const char *end = strchr(c + 1, ':');
            if (!end) break;
            c = end;
        } else if (*c == 'O') {
            ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "",
                      "arrays of Python objects (format '%s') cannot be sliced by copying bits", fmt);
            return -1;
        }
    }
    while (*fmt && strchr("@=<>!", *fmt)) fmt++;
    if (fmt[0] && !fmt[1]) {
        if (strchr("efd", fmt[0])) return CLS_FLOAT;
        if (strchr("bhilqn", fmt[0])) return CLS_INT;
        if (strchr("BHILQN", fmt[0])) return CLS_UINT;
    }
    return CLS_OTHER;
}

static long attr_long(PyObject *obj, const char *name) {
    PyObject *v = PyObject_GetAttrString(obj, name);
    long r = v ? PyLong_AsLong(v) : -1;
    Py_XDECREF(v);
    return r;
}

static const dtype_entry *numpy_dtype(PyObject *descr) {
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

static int no_elements(int64_t itemsize) {
    ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "", "elements of %lld bytes cannot be sliced",
              (long long)itemsize);
    return -1;
}

static int too_many_dims(int ndim) {
    ext_raise(ERR_ARGUMENT, "DMLS_ERROR_UNSUPPORTED", "", "the array has %d dimensions; dmlslice takes at most %d",
              ndim, EXT_ARRAY_MAX_RANK);
    return -1;
}

static int from_numpy(PyObject *obj, int writable, array_view *v) {
    const numpy_fields *a = (const numpy_fields *)obj;
    if (a->nd > EXT_ARRAY_MAX_RANK) return too_many_dims(a->nd);
    const dtype_entry *d = numpy_dtype(a->descr);
    if (!d) return -1;
    if (d->cls < 0) {
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "",
                  "arrays of Python objects cannot be sliced by copying bits");
        return -1;
    }
    if (d->itemsize < 1) return no_elements(d->itemsize);
    v->readonly = !(a->flags & NUMPY_WRITEABLE);
    if (writable && v->readonly) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "", "out= is read-only");
        return -1;
    }
    v->data = a->data;
    v->ndim = a->nd;
    v->itemsize = d->itemsize;
    v->dtype_class = d->cls;
    v->dl_code = -1;
    v->device_type = DL_CPU;
    for (int i = 0; i < a->nd; i++) {
        v->shape[i] = a->dimensions[i];
        v->strides[i] = a->strides[i];
    }
    return 0;
}

static int from_buffer(PyObject *obj, int writable, array_view *v) {
    if (PyObject_GetBuffer(obj, &v->buffer, PyBUF_RECORDS_RO) < 0) return -1;
    v->has_buffer = 1;
    Py_buffer *b = &v->buffer;
    if (b->ndim > EXT_ARRAY_MAX_RANK) return too_many_dims(b->ndim);
    int cls = format_class(b->format);
    if (cls < 0) return -1;
    if (b->itemsize < 1) return no_elements(b->itemsize);
    if (writable && b->readonly) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "", "out= is read-only");
        return -1;
    }
    v->data = b->buf;
    v->ndim = b->ndim;
    v->itemsize = b->itemsize;
    v->dtype_class = cls;
    v->device_type = DL_CPU;
    v->dl_code = -1;
    v->readonly = b->readonly;
    int64_t packed = b->itemsize;
    for (int i = b->ndim - 1; i >= 0; i--) {
        v->shape[i] = b->shape[i];
        v->strides[i] = b->strides ? b->strides[i] : packed;
        packed *= b->shape[i];
    }
    return 0;
}

/* Producer types that take no max_version (DLPack before 1.0): asked
 * without it from then on, sparing a raised TypeError per call. */
static PyTypeObject *legacy_types[16];
static unsigned legacy_next;

static int is_legacy(PyTypeObject *t) {
    for (unsigned i = 0; i < sizeof legacy_types / sizeof *legacy_types; i++)
        if (legacy_types[i] == t) return 1;
    return 0;
}

/* Calls obj.__dlpack__, asking for the versioned capsule and falling back to
 * the legacy call for producers that take no max_version. */
static PyObject *call_dlpack(PyObject *obj, PyObject *stream) {
    PyObject *meth = PyObject_GetAttrString(obj, "__dlpack__");
    if (!meth) {
        PyErr_Clear();
        char name[128];
        return ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "",
                         "expected an array (the buffer protocol or __dlpack__), got %s",
                         ext_type_name(obj, name, sizeof name));
    }
    PyTypeObject *type = Py_TYPE(obj);
    int legacy = is_legacy(type);
    PyObject *args = PyTuple_New(0), *kw = PyDict_New(), *cap = NULL;
    PyObject *ver = Py_BuildValue("(ii)", 1, 0);
    if (!args || !kw || !ver) goto done;
    if (stream && PyDict_SetItemString(kw, "stream", stream) < 0) goto done;
    if (!legacy && PyDict_SetItemString(kw, "max_version", ver) < 0) goto done;
    cap = PyObject_Call(meth, args, PyDict_Size(kw) ? kw : NULL);
    if (!cap && !legacy && PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        if (PyDict_DelItemString(kw, "max_version") < 0) goto done;
        cap = PyObject_Call(meth, args, PyDict_Size(kw) ? kw : NULL);
        if (cap) { /* a reference kept: the pointer stays this type's */
            unsigned slot = legacy_next++ % (sizeof legacy_types / sizeof *legacy_types);
            Py_INCREF((PyObject *)type);
            Py_XDECREF((PyObject *)legacy_types[slot]);
            legacy_types[slot] = type;
        }
    }
done:
    Py_XDECREF(ver);
    Py_XDECREF(kw);
    Py_XDECREF(args);
    Py_DECREF(meth);
    return cap;
}

static int from_dlpack(PyObject *obj, int writable, PyObject *stream, array_view *v) {
    PyObject *cap = call_dlpack(obj, stream);
    if (!cap) return -1;
    DLTensor *t;
    uint64_t flags = 0;
    if (PyCapsule_IsValid(cap, "dltensor_versioned")) {
        DLManagedTensorVersioned *m = PyCapsule_GetPointer(cap, "dltensor_versioned");
        if (m->version.major != 1) {
            Py_DECREF(cap); /* still named: its destructor frees it */
            ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "", "DLPack version %u.%u is not supported (1.x is)",
                      m->version.major, m->version.minor);
            return -1;
        }
        if (PyCapsule_SetName(cap, "used_dltensor_versioned") < 0) {
            Py_DECREF(cap);
            return -1;
        }
        v->managed = m;
        v->versioned = 1;
        t = &m->dl_tensor;
        flags = m->flags;
    } else if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *m = PyCapsule_GetPointer(cap, "dltensor");
        if (PyCapsule_SetName(cap, "used_dltensor") < 0) {
            Py_DECREF(cap);
            return -1;
        }
        v->managed = m;
        t = &m->dl_tensor;
    } else {
        Py_DECREF(cap);
        char name[128];
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "", "__dlpack__ of %s returned no DLPack capsule",
                  ext_type_name(obj, name, sizeof name));
        return -1;
    }
    Py_DECREF(cap); /* renamed: its destructor leaves the tensor to us */

    if (t->ndim < 0 || t->ndim > EXT_ARRAY_MAX_RANK) return too_many_dims(t->ndim);
    uint64_t bits = (uint64_t)t->dtype.bits * t->dtype.lanes;
    if (bits == 0 || bits % 8) {
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "", "elements of %u bits x %u lanes are not whole bytes",
                  t->dtype.bits, t->dtype.lanes);
        return -1;
    }
    if (writable && (flags & DLPACK_FLAG_BITMASK_READ_ONLY)) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "", "out= is read-only");
        return -1;
    }
    v->readonly = (flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    v->itemsize = (int64_t)(bits / 8);
    v->dtype_class = t->dtype.lanes != 1         ? CLS_OTHER
                     : t->dtype.code == DL_INT   ? CLS_INT
                     : t->dtype.code == DL_UINT  ? CLS_UINT
                     : t->dtype.code == DL_FLOAT ? CLS_FLOAT
                                                 : CLS_OTHER;
    v->dl_code = t->dtype.lanes == 1 ? t->dtype.code : -1;
    v->device_type = t->device.device_type;
    v->device_id = t->device.device_id;
    v->data = (char *)t->data + t->byte_offset;
    v->ndim = t->ndim;
    int64_t packed = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        v->shape[i] = t->shape[i];
        v->strides[i] = (t->strides ? t->strides[i] : packed) * v->itemsize;
        packed *= t->shape[i];
    }
    return 0;
}

/* ---- PyTorch tensors, read through their own attributes: a tensor's
 * __dlpack__ is Python code that costs more than a tiny slice (and on the
 * GPU compares streams and may record events), where data_ptr(), shape and
 * stride() answer in tens of nanoseconds. And DLPack refuses what torch's
 * own indexing reads: bool tensors (torch 1.13), tensors that require grad.
 * Every strided tensor on the CPU or a CUDA device takes this path, a
 * subclass too; only other layouts and devices go through DLPack, which
 * refuses or reads them. */

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

int view_is_torch(PyObject *obj) {
    if (!torch_tensor) {
        /* Looked for only while torch is not known; never imported here. */
        PyObject *mod = PyDict_GetItemString(PyImport_GetModuleDict(), "torch");
        if (!mod) return 0;
        PyObject *t = PyObject_GetAttrString(mod, "Tensor");
        PyObject *st = t ? PyObject_GetAttrString(mod, "strided") : NULL;
        if (!t || !st || !PyType_Check(t) || torch_names() < 0) {
            Py_XDECREF(t);
            Py_XDECREF(st);
            PyErr_Clear();
            return 0;
        }
        PyObject *c = PyObject_GetAttrString(mod, "_C");
        torch_raw_stream = c ? PyObject_GetAttrString(c, "_cuda_getCurrentRawStream") : NULL;
        Py_XDECREF(c);
        PyErr_Clear(); /* a build without CUDA lacks it */
        torch_strided = st;
        torch_tensor = (PyTypeObject *)t;
    }
    return PyObject_TypeCheck(obj, torch_tensor);
}

int view_torch_stream(int device, uintptr_t *stream) {
    if (!torch_raw_stream) return 1;
    PyObject *r = PyObject_CallFunction(torch_raw_stream, "i", device);
    if (!r) return -1;
    unsigned long long v = PyLong_AsUnsignedLongLong(r);
    Py_DECREF(r);
    if (PyErr_Occurred()) return -1;
    *stream = (uintptr_t)v;
    return 0;
}

PyObject *view_torch_empty(PyObject *x, PyObject *shape) {
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
    if (view_dtype_info(dtype, &e.itemsize, &e.cls) < 0) return NULL;
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
static int from_torch(PyObject *obj, array_view *v) {
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
            ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "",
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
    int rc = -1;
    if (!ptr) goto done;
    Py_ssize_t n = PyTuple_Check(shape) ? PyTuple_Size(shape) : -1;
    if (n < 0 || !PyTuple_Check(strides) || PyTuple_Size(strides) != n) {
        rc = 1;
        goto done;
    }
    if (n > EXT_ARRAY_MAX_RANK) {
        rc = too_many_dims((int)n);
        goto done;
    }
    v->data = PyLong_AsVoidPtr(ptr);
    v->ndim = (int)n;
    v->itemsize = d->itemsize;
    v->dtype_class = d->cls;
    v->dl_code = d->dl_code;
    for (Py_ssize_t i = 0; i < n; i++) {
        v->shape[i] = PyLong_AsLongLong(PyTuple_GetItem(shape, i));
        v->strides[i] = PyLong_AsLongLong(PyTuple_GetItem(strides, i)) * d->itemsize;
    }
    rc = PyErr_Occurred() ? -1 : 0;
done:
    Py_XDECREF(ptr);
    Py_XDECREF(strides);
    Py_XDECREF(shape);
    return rc;
}

int view_is_buffer(PyObject *obj) {
    /* Some GPU arrays (CuPy's) answer the buffer protocol's check yet refuse
     * host access: an object that speaks DLPack is read through DLPack. */
    if (view_is_numpy(obj) || !PyObject_CheckBuffer(obj)) return 0;
    int dlpack = PyObject_HasAttrString(obj, "__dlpack__");
    return !dlpack;
}

int view_import(PyObject *obj, int writable, PyObject *stream, array_view *v) {
    memset(v, 0, offsetof(array_view, shape));
    int rc = 1;
    if (view_is_numpy(obj))
        rc = from_numpy(obj, writable, v);
    else if (view_is_torch(obj) && (rc = from_torch(obj, v)) == 1)
        memset(v, 0, offsetof(array_view, shape));
    if (rc == 1) rc = view_is_buffer(obj) ? from_buffer(obj, writable, v) : from_dlpack(obj, writable, stream, v);
    if (rc < 0) view_release(v);
    return rc;
}

void view_release(array_view *v) {
    if (v->has_buffer) PyBuffer_Release(&v->buffer);
    if (v->managed) {
        /* A deleter may run Python code: keep a pending exception out of it. */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        if (v->versioned) {
            DLManagedTensorVersioned *m = v->managed;
            if (m->deleter) m->deleter(m);
        } else {
            DLManagedTensor *m = v->managed;
            if (m->deleter) m->deleter(m);
        }
        PyErr_Restore(type, value, tb);
    }
    v->has_buffer = 0;
    v->managed = NULL;
}

static PyObject *device_of;  /* dmlslice._kinds.device_of */
static PyObject *dtype_info; /* dmlslice._kinds.dtype_info */

int view_set_kinds(PyObject *ndarray_type, PyObject *kinds) {
    PyObject *dev = PyObject_GetAttrString(kinds, "device_of");
    PyObject *info = dev ? PyObject_GetAttrString(kinds, "dtype_info") : NULL;
    if (!info) {
        Py_XDECREF(dev);
        return -1;
    }
    Py_XDECREF(device_of);
    Py_XDECREF(dtype_info);
    device_of = dev, dtype_info = info;
    Py_XINCREF(ndarray_type);
    Py_XDECREF(numpy_ndarray);
    numpy_ndarray = ndarray_type;
    return 0;
}

/* (itemsize, class) of a dtype-like object, through dmlslice._kinds. */
int view_dtype_info(PyObject *dtype, int64_t *itemsize, int *cls) {
    PyObject *r = PyObject_CallFunctionObjArgs(dtype_info, dtype, NULL);
    if (!r) return -1;
    long long a = PyLong_AsLongLong(PyTuple_GetItem(r, 0));
    long b = PyLong_AsLong(PyTuple_GetItem(r, 1));
    Py_DECREF(r);
    if (PyErr_Occurred()) return -1;
    *itemsize = a;
    *cls = (int)b;
    return 0;
}

int view_device(PyObject *obj, int *type, int *id) {
    if (view_is_numpy(obj) || view_is_buffer(obj)) {
        *type = DL_CPU;
        *id = 0;
        return 0;
    }
    if (view_is_torch(obj)) { /* what _kinds.device_of asks, without the call */
        int cpu = torch_bool(obj, s_is_cpu, 0);
        if (cpu < 0) return -1;
        if (cpu) {
            *type = DL_CPU, *id = 0;
            return 0;
        }
        int cuda = torch_bool(obj, s_is_cuda, 0);
        if (cuda < 0) return -1;
        if (cuda) {
            PyObject *dev = PyObject_CallMethodObjArgs(obj, s_get_device, NULL);
            long i = dev ? PyLong_AsLong(dev) : -1;
            Py_XDECREF(dev);
            if (i == -1 && PyErr_Occurred()) return -1;
            *type = DL_CUDA, *id = (int)i;
            return 0;
        }
    }
    /* _kinds.device_of: __dlpack_device__, or a faster question for
     * libraries whose __dlpack_device__ is slow. */
    PyObject *r = PyObject_CallFunctionObjArgs(device_of, obj, NULL);
    if (!r) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) return -1;
        PyErr_Clear();
        char name[128];
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "",
                  "expected an array (the buffer protocol or __dlpack__), got %s",
                  ext_type_name(obj, name, sizeof name));
        return -1;
    }
    PyObject *t0 = PyTuple_Check(r) && PyTuple_Size(r) == 2 ? PyTuple_GetItem(r, 0) : NULL;
    PyObject *t1 = t0 ? PyTuple_GetItem(r, 1) : NULL;
    long a = t0 ? PyLong_AsLong(t0) : -1, b = t1 ? PyLong_AsLong(t1) : -1;
    Py_DECREF(r);
    if (!t0 || PyErr_Occurred()) {
        PyErr_Clear();
        char name[128];
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "",
                  "__dlpack_device__ of %s did not return (device_type, device_id)",
                  ext_type_name(obj, name, sizeof name));
        return -1;
    }
    *type = (int)a;
    *id = (int)b;
    return 0;
}
