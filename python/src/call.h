/* call.h: one call's straight path: array in, lowering, result, run (call.c). */
#ifndef DMLSLICE_PY_CALL_H
#define DMLSLICE_PY_CALL_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "prepared.h"

/* One call of any entry point. */
typedef struct call {
    int kind;
    PyObject *x, *out, *level; /* out, level: NULL or None where not given */
    PyObject *const *params;
    int nparams;
    prepared *pr; /* an Operator's slice, or NULL */
} call;
PyObject *call_run(call *k);

#endif /* DMLSLICE_PY_CALL_H */
