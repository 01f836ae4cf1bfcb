/*
 * batch_cache.c: the batches split and crops make, kept by what they depend
 * on (kind, device, layout, parameters; never the array's address) and
 * reused, so a GPU call allocates, copies and synchronizes nothing after
 * the first.
 */
#include "batch_cache.h"

#include <string.h>

/* Batches of split and crops by (kind, device, layout, parameters): bytes ->
 * capsule. Bounded, emptied when full; a call holds its capsule while it
 * runs, so one dropped from here meanwhile lives until the call ends. */
#define BATCH_CACHE_MAX 128
static PyObject *batch_cache;

static void capsule_free(PyObject *cap) { bt_free(PyCapsule_GetPointer(cap, "dmlslice.batch")); }

void key_tensor(key_buf *k, int tag, const run_where *w, const bt_tensor *t) {
    k->n = 0;
    key_add(k, tag);
    key_add(k, devices_is_gpu(w->dl_type) ? w->dl_id : -1);
    key_add(k, t->unit);
    key_add(k, (int64_t)t->offset);
    key_add(k, t->ndim);
    for (int i = 0; i < t->ndim; i++) key_add(k, t->shape[i]), key_add(k, t->strides[i]);
}

/* Remembers (key, cap) as the last found, letting the previous pair go. */
static void keep_last(PyObject **last_key, PyObject **last_cap, PyObject *key, PyObject *cap) {
    PyObject *k = *last_key, *c = *last_cap;
    *last_key = Py_NewRef(key), *last_cap = Py_NewRef(cap);
    Py_XDECREF(k);
    Py_XDECREF(c);
}

/* The kept batch for key k + extra[0..n_extra) (a new reference to its
 * capsule), made by make(arg) on a miss; NULL with an exception. */
PyObject *kept_batch(const key_buf *k, const int64_t *extra, size_t n_extra, void *(*make)(void *), void *arg) {
    /* The last key found, with its capsule: a loop calling alike skips
     * making the key's bytes, hashing them and the dict. */
    static PyObject *last_key, *last_cap;
    size_t head = k->n * sizeof(int64_t);
    if (last_key && (size_t)PyBytes_Size(last_key) == head + n_extra * sizeof(int64_t) &&
        memcmp(PyBytes_AsString(last_key), k->v, head) == 0 &&
        (!n_extra || memcmp(PyBytes_AsString(last_key) + head, extra, n_extra * sizeof(int64_t)) == 0))
        return Py_NewRef(last_cap);
    PyObject *key = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(head + n_extra * sizeof(int64_t)));
    if (!key) return NULL;
    memcpy(PyBytes_AsString(key), k->v, head);
    if (n_extra) memcpy(PyBytes_AsString(key) + head, extra, n_extra * sizeof(int64_t));
    if (!batch_cache && !(batch_cache = PyDict_New())) {
        Py_DECREF(key);
        return NULL;
    }
    PyObject *cap = PyDict_GetItemWithError(batch_cache, key);
    if (cap) keep_last(&last_key, &last_cap, key, cap);
    if (cap || PyErr_Occurred()) {
        Py_XINCREF(cap);
        Py_DECREF(key);
        return cap;
    }
    void *b = make(arg);
    cap = b ? PyCapsule_New(b, "dmlslice.batch", capsule_free) : NULL;
    if (b && !cap) bt_free(b);
    if (cap && PyDict_Size(batch_cache) >= BATCH_CACHE_MAX) PyDict_Clear(batch_cache);
    if (cap && PyDict_SetItem(batch_cache, key, cap) < 0) Py_CLEAR(cap);
    if (cap) keep_last(&last_key, &last_cap, key, cap);
    Py_DECREF(key);
    return cap;
}
