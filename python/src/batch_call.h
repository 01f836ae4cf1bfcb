/* batch_call.h: a Batch called, b(inputs, *, out=None) (batch_call.c). */
#ifndef DMLSLICE_PY_BATCH_CALL_H
#define DMLSLICE_PY_BATCH_CALL_H

#include <Python.h>

/* The Batch type's tp_call. */
PyObject *batch_call(PyObject *self, PyObject *args, PyObject *kw);

#endif /* DMLSLICE_PY_BATCH_CALL_H */
