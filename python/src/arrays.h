/* arrays.h: any array taken in as an array_view (arrays.c). */
#ifndef DMLSLICE_PY_ARRAYS_H
#define DMLSLICE_PY_ARRAYS_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "array_view.h"

/* Take obj in. stream: the consumer's stream for a CUDA producer, or NULL.
 * Returns 0, or -1 with an exception set. */
int view_import(PyObject *obj, int writable, PyObject *stream, array_view *v);
void view_release(array_view *v);
/* Take obj in where it is an array of a library read without DLPack's
 * stream handshake (NumPy, PyTorch, CuPy, a producer of the C exchange
 * API): 0, 1 where it is none of them (v then holds nothing), or -1. */
int view_import_known(PyObject *obj, int writable, array_view *v);
/* True for an exporter of the buffer protocol that is not a NumPy array and
 * does not speak DLPack (bytes, memoryview, array.array, ...). */
int view_is_buffer(PyObject *obj);
/* (device_type, device_id) without taking the array in. -1 with an
 * exception when obj is no array. */
int view_device(PyObject *obj, int *type, int *id);

#endif /* DMLSLICE_PY_ARRAYS_H */
