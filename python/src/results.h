/* results.h: the result array made by the input's library, handed back (results.c). */
#ifndef DMLSLICE_PY_RESULTS_H
#define DMLSLICE_PY_RESULTS_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "array_view.h"
#include "lowering.h"

/* Takes numpy and dmlslice._kinds. 0 or -1. */
int results_init(PyObject *np, PyObject *kinds);
/* A new array of in's kind, dtype and device with the lowered slice's result shape
 * (shape: that shape as a tuple, or NULL), described in out. x is the
 * array in came from. A new reference, or NULL. */
PyObject *results_new(PyObject *x, const array_view *in, const lowered *p, PyObject *shape, PyObject *stream_arg,
                      array_view *out);
/* What the caller gets for input x written into target. */
PyObject *results_finish(PyObject *x, const array_view *in, PyObject *target);

#endif /* DMLSLICE_PY_RESULTS_H */
