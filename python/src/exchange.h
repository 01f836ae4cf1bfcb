/* exchange.h: DLPack's tensors read; DLPack's C exchange API (exchange.c). */
#ifndef DMLSLICE_PY_EXCHANGE_H
#define DMLSLICE_PY_EXCHANGE_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "array_view.h"

/* A DLTensor (and the flags of a versioned one) read into v: 0, or -1
 * with an exception (a rank, element size or read-only out= refused). */
int dlpack_read(const void *dltensor, uint64_t flags, int writable, array_view *v);

/* The producer's DLPack C exchange API table for obj's type, or NULL where
 * its type offers none (asked once per type). Never raises. */
const void *exchange_api(PyObject *obj);
/* Reads obj through the table (to write into it: the writable form, which
 * asks for the tensor's read-only flag): 0, or -1 with an exception. */
int exchange_view(const void *api, PyObject *obj, array_view *v);
int exchange_writable_view(const void *api, PyObject *obj, array_view *v);
/* The producer's current stream of the device: 0, or -1. */
int exchange_stream(const void *api, int device_type, int device_id, uintptr_t *stream);
/* A new array of the producer's kind, like proto (its dtype and device)
 * with this shape, made by the producer's allocator: a new reference, or
 * NULL with an exception. */
PyObject *exchange_empty(const void *api, const array_view *proto, int ndim, const int64_t *shape);

#endif /* DMLSLICE_PY_EXCHANGE_H */
