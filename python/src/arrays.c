/*
 * arrays.c: any array taken in as an array_view, without copying. NumPy
 * arrays through their fields, PyTorch and CuPy arrays through their own
 * attributes, producers of DLPack's C exchange API through it, other
 * exporters of the buffer protocol through it, and anything else through
 * __dlpack__ (the versioned capsule first, the legacy one when the producer
 * predates it). Strides are kept as they are, in bytes, whatever their sign.
 */
#include "arrays.h"
#include "array_view.h"
#include "errors.h"
#include "exchange.h"
#include "frameworks.h"
#include "numpy_abi.h"

#include <string.h>

#include "dlpack.h"

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
            ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY",
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

static int from_buffer(PyObject *obj, int writable, array_view *v) {
    if (PyObject_GetBuffer(obj, &v->buffer, PyBUF_RECORDS_RO) < 0) return -1;
    v->has_buffer = 1;
    Py_buffer *b = &v->buffer;
    if (b->ndim > EXT_ARRAY_MAX_RANK) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-V-RANK", "buffer: rank %d is outside [0, %d]",
                  b->ndim, EXT_ARRAY_MAX_RANK);
        return -1;
    }
    int cls = format_class(b->format);
    if (cls < 0) return -1;
    if (view_host(v, SRC_BUFFER, b->buf, b->ndim, b->itemsize, cls, b->readonly, writable) < 0) return -1;
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
        return ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY",
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
            ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY",
                      "DLPack version %u.%u is not supported (1.x is)", m->version.major, m->version.minor);
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
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY", "__dlpack__ of %s returned no DLPack capsule",
                  ext_type_name(obj, name, sizeof name));
        return -1;
    }
    Py_DECREF(cap); /* renamed: its destructor leaves the tensor to us */
    v->source = SRC_DLPACK;
    return dlpack_read(t, flags, writable, v);
}

int view_is_buffer(PyObject *obj) {
    /* Some GPU arrays (CuPy's) answer the buffer protocol's check yet refuse
     * host access: an object that speaks DLPack is read through DLPack. */
    if (numpy_is_array(obj) || !PyObject_CheckBuffer(obj)) return 0;
    int dlpack = PyObject_HasAttrString(obj, "__dlpack__");
    return !dlpack;
}

int view_import_known(PyObject *obj, int writable, array_view *v) {
    memset(v, 0, VIEW_HEAD_BYTES);
    int rc = 1;
    const void *api;
    if (numpy_is_array(obj))
        rc = numpy_view(obj, writable, v);
    else if (frameworks_is_torch(obj))
        rc = frameworks_torch_view(obj, v);
    else if ((api = exchange_api(obj)) != NULL)
        rc = writable ? exchange_writable_view(api, obj, v) : exchange_view(api, obj, v);
    else if (frameworks_is_cupy(obj))
        rc = frameworks_cupy_view(obj, v);
    if (rc < 0) view_release(v);
    if (rc != 0) memset(v, 0, VIEW_HEAD_BYTES);
    return rc;
}

int view_import(PyObject *obj, int writable, PyObject *stream, array_view *v) {
    int rc = view_import_known(obj, writable, v);
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

int view_device(PyObject *obj, int *type, int *id) {
    if (numpy_is_array(obj) || view_is_buffer(obj)) {
        *type = DL_CPU, *id = 0;
        return 0;
    }
    if (frameworks_is_torch(obj)) { /* what _kinds.device_of asks, without the call */
        int rc = frameworks_torch_device(obj, type, id);
        if (rc <= 0) return rc;
    }
    const void *api = exchange_api(obj);
    if (api || frameworks_is_cupy(obj)) {
        array_view v;
        memset(&v, 0, VIEW_HEAD_BYTES);
        int rc = api ? exchange_view(api, obj, &v) : frameworks_cupy_view(obj, &v);
        *type = v.device_type, *id = v.device_id;
        view_release(&v);
        if (rc <= 0) return rc;
    }
    /* _kinds.device_of: __dlpack_device__, or a faster question for
     * libraries whose __dlpack_device__ is slow. */
    return frameworks_device_of(obj, type, id);
}
