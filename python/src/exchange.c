/*
 * exchange.c: DLPack's tensors read into array views, and DLPack's C
 * exchange API. A producer whose type carries
 * __dlpack_c_exchange_api__ hands over its arrays, its current stream and
 * new arrays of its kind through C function pointers: no __dlpack__ call,
 * no capsule, no Python frame. The table is looked up once per type; a
 * type without one (or with only a major version other than 1) takes the
 * other paths of arrays.c and results.c.
 */
#include "exchange.h"
#include "array_view.h"
#include "errors.h"

#include <stdio.h>
#include <string.h>

#include "dlpack.h"
#include "dmlslice/view.h"

/* Types asked, with their table or NULL: a strong reference keeps each
 * type's pointer its own. */
typedef struct {
    PyTypeObject *type;
    const DLPackExchangeAPI *api;
} type_entry;
static type_entry types[16];
static unsigned types_next;

/* The table of major version 1 in the chain a type offers, or NULL. */
static const DLPackExchangeAPI *table_of(PyTypeObject *type) {
    PyObject *attr = PyObject_GetAttrString((PyObject *)type, "__dlpack_c_exchange_api__");
    if (!attr) {
        PyErr_Clear();
        return NULL;
    }
    const DLPackExchangeAPIHeader *h = NULL;
    if (PyCapsule_CheckExact(attr))
        h = PyCapsule_GetPointer(attr, "dlpack_exchange_api");
    else if (PyLong_Check(attr))
        h = PyLong_AsVoidPtr(attr);
    Py_DECREF(attr); /* the table lives as long as the process */
    PyErr_Clear();
    while (h && h->version.major > 1) h = h->prev_api;
    const DLPackExchangeAPI *api = h && h->version.major == 1 ? (const DLPackExchangeAPI *)h : NULL;
    if (api && (!api->managed_tensor_from_py_object_no_sync || !api->current_work_stream)) api = NULL;
    return api;
}

const void *exchange_api(PyObject *obj) {
    PyTypeObject *type = Py_TYPE(obj);
    for (unsigned i = 0; i < sizeof types / sizeof *types; i++)
        if (types[i].type == type) return types[i].api;
    const DLPackExchangeAPI *api = table_of(type);
    type_entry *e = &types[types_next++ % (sizeof types / sizeof *types)];
    Py_XDECREF((PyObject *)e->type);
    Py_INCREF((PyObject *)type);
    e->type = type;
    e->api = api;
    return api;
}

/* The library reads the tensor (R-V-DLPACK: rank, shape, whole-byte
 * elements, strides that fit); the binding adds what only Python asks:
 * read-only tensors refused as out=, and the type's class for DirectML's
 * checks. The library's struct is DLTensor field for field. */
_Static_assert(sizeof(dmls_dlpack_tensor) == sizeof(DLTensor), "dmls_dlpack_tensor is DLTensor's layout");
int dlpack_read(const void *tensor, uint64_t flags, int writable, array_view *v) {
    const DLTensor *t = tensor;
    dmls_dlpack_tensor lt;
    memcpy(&lt, t, sizeof lt);
    dmls_dlpack_view d;
    const dmls_status st = dmls_dlpack_import(&lt, &d);
    if (st != DMLS_OK) {
        /* An element that is not whole bytes is a type the package cannot take. */
        if (strcmp(dmls_last_error_rule(), "R-V-DLPACK-TYPE") == 0)
            ext_raise(ERR_DTYPE, dmls_status_name(st), "R-V-DLPACK-TYPE", "%s", dmls_last_error());
        else
            ext_raise_status(st);
        return -1;
    }
    v->readonly = (flags & DLPACK_FLAG_BITMASK_READ_ONLY) != 0;
    if (writable && v->readonly) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-OUT", "out= is read-only");
        return -1;
    }
    v->itemsize = d.item_size;
    v->dtype_class = t->dtype.lanes != 1         ? CLS_OTHER
                     : t->dtype.code == DL_INT   ? CLS_INT
                     : t->dtype.code == DL_UINT  ? CLS_UINT
                     : t->dtype.code == DL_FLOAT ? CLS_FLOAT
                                                 : CLS_OTHER;
    v->dl_code = t->dtype.lanes == 1 ? t->dtype.code : -1;
    v->device_type = d.device_type;
    v->device_id = d.device_id;
    v->data = d.data;
    v->ndim = d.ndim;
    memcpy(v->shape, d.shape, sizeof(int64_t) * (size_t)d.ndim);
    memcpy(v->strides, d.byte_strides, sizeof(int64_t) * (size_t)d.ndim);
    return 0;
}

/* Read the versioned tensor into v; v keeps it (released by view_release). */
static int from_managed(DLManagedTensorVersioned *m, int writable, array_view *v) {
    v->managed = m;
    v->versioned = 1;
    if (m->version.major != 1) {
        ext_raise(ERR_DTYPE, "DMLS_ERROR_INVALID_ARGUMENT", "R-PY-ARRAY",
                  "DLPack version %u.%u is not supported (1.x is)", m->version.major, m->version.minor);
        return -1;
    }
    return dlpack_read(&m->dl_tensor, m->flags, writable, v);
}

int exchange_view(const void *table, PyObject *obj, array_view *v) {
    const DLPackExchangeAPI *api = table;
    v->source = SRC_EXCHANGE;
    if (api->dltensor_from_py_object_no_sync) {
        /* No ownership, no allocation: the view lives while obj does. Its
         * flags are not told: an out= takes the managed path below. */
        DLTensor t;
        if (api->dltensor_from_py_object_no_sync(obj, &t) < 0) return -1;
        return dlpack_read(&t, 0, 0, v);
    }
    DLManagedTensorVersioned *m = NULL;
    if (api->managed_tensor_from_py_object_no_sync(obj, &m) < 0) return -1;
    return from_managed(m, 0, v);
}

/* out= through the exchange: the managed tensor, whose flags say whether
 * it may be written. */
int exchange_writable_view(const void *table, PyObject *obj, array_view *v) {
    const DLPackExchangeAPI *api = table;
    v->source = SRC_EXCHANGE;
    DLManagedTensorVersioned *m = NULL;
    if (api->managed_tensor_from_py_object_no_sync(obj, &m) < 0) return -1;
    return from_managed(m, 1, v);
}

int exchange_stream(const void *table, int device_type, int device_id, uintptr_t *stream) {
    const DLPackExchangeAPI *api = table;
    void *s = NULL;
    if (api->current_work_stream(device_type, device_id, &s) < 0) return -1;
    *stream = (uintptr_t)s;
    return 0;
}

/* The allocator's error callback: its message as the package's exception. */
static void set_error(void *ctx, const char *kind, const char *message) {
    (void)ctx;
    int memory = kind && strstr(kind, "Memory");
    ext_raise(memory ? ERR_MEMORY : ERR_FOREIGN, memory ? "DMLS_ERROR_OUT_OF_MEMORY" : "DMLS_ERROR_INVALID_ARGUMENT",
              "R-PY-ARRAY", "the array's library could not make the result: %s: %s", kind ? kind : "error",
              message ? message : "");
}

PyObject *exchange_empty(const void *table, const array_view *proto, int ndim, const int64_t *shape) {
    const DLPackExchangeAPI *api = table;
    if (!api->managed_tensor_allocator || !api->managed_tensor_to_py_object_no_sync || proto->dl_code < 0) {
        PyErr_SetString(PyExc_TypeError, "the producer's exchange API makes no arrays");
        return NULL;
    }
    int64_t dims[EXT_ARRAY_MAX_RANK];
    memcpy(dims, shape, sizeof(int64_t) * (size_t)ndim);
    DLTensor t = {.data = NULL,
                  .device = {proto->device_type, proto->device_id},
                  .ndim = ndim,
                  .dtype = {(uint8_t)proto->dl_code, (uint8_t)(proto->itemsize * 8), 1},
                  .shape = dims};
    DLManagedTensorVersioned *m = NULL;
    if (api->managed_tensor_allocator(&t, &m, NULL, set_error) < 0 || !m) {
        if (!PyErr_Occurred()) set_error(NULL, "RuntimeError", "no tensor");
        return NULL;
    }
    void *obj = NULL;
    if (api->managed_tensor_to_py_object_no_sync(m, &obj) < 0) return NULL; /* m stolen, even on failure */
    return obj;
}
