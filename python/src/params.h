/* params.h: each vocabulary's Python parameters read and lowered (params.c). */
#ifndef DMLSLICE_PY_PARAMS_H
#define DMLSLICE_PY_PARAMS_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "lowering.h"

/* An integer as NumPy's operator.index reads it (an int or __index__), a
 * bool or numpy.bool_ refused: 0, 1 when obj is no integer, 2 when it is
 * outside the 64-bit integers (no exception is left set). */
int params_index(PyObject *obj, int64_t *v);
/* seq as a tuple (a new reference), or NULL with the package's error of
 * `rule` naming `what`. */
PyObject *params_sequence(PyObject *seq, const char *what, const char *rule);
/* Item i of a params_sequence tuple into v: 0, or -1 with the error of
 * `rule` naming what[i], the value's type or why it cannot be taken. */
int params_item(PyObject *fast, Py_ssize_t i, const char *what, const char *rule, int is_unsigned, int64_t *v);
/* A sequence of at most `max` integers into out; errors carry `rule`. The
 * count, or -1. */
int params_int_list(PyObject *seq, const char *what, const char *rule, int64_t *out, int max, int is_unsigned);
/* The rule a DirectML list (field 0 offsets, 1 sizes, 2 strides) of
 * operator op is checked by: its errors' rule. */
const char *params_dml_rule(int op, int field);
/* feature_level= (None: the latest). 0 or -1. */
int params_feature_level(PyObject *obj, int *level);
/* The parameters a[0..na) of vocabulary `kind` lowered for an input of
 * `shape`; p->expr as keys_lower leaves it. 0 or -1. */
int params_lower(int kind, int ndim, const int64_t *shape, int64_t itemsize, int cls, PyObject *const *a, int na,
                 PyObject *level, lowered *p);

#endif /* DMLSLICE_PY_PARAMS_H */
