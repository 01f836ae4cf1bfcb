/* prepared.h: a lowered slice compiled once and shared (prepared.c). */
#ifndef DMLSLICE_PY_PREPARED_H
#define DMLSLICE_PY_PREPARED_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "lowering.h"

enum { K_INDEX, K_SLICE, K_SLICE1, K_SLICE_GRAD, K_ONNX, K_WEBNN_SLICE, K_WEBNN_REVERSE, K_TRANSPOSE, K_COUNT };
extern const char *const kind_names[K_COUNT];

/* A compiled slice with its result shape as a tuple, shared by reference
 * count (under the GIL) between Operators, the key cache and calls in
 * flight. */
typedef struct prepared {
    Py_ssize_t refs;
    int kind;
    compiled c;
    PyObject *shape; /* the result's shape */
} prepared;
/* Compiles p (its expr copied): a prepared with one reference, or NULL. */
prepared *prepared_new(int kind, const lowered *p, int64_t itemsize);
void prepared_ref(prepared *pr);
void prepared_unref(prepared *pr);

#endif /* DMLSLICE_PY_PREPARED_H */
