/* operator.h: the Operator type (operator.c). */
#ifndef DMLSLICE_PY_OPERATOR_H
#define DMLSLICE_PY_OPERATOR_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "lowering.h"
#include "prepared.h"

/* Makes the Operator type; NULL with an exception. */
PyObject *operator_type_new(void);
/* A new Operator for lowered slice p. */
PyObject *operator_new(int kind, const lowered *p, int64_t itemsize, PyObject *dtype);
/* An Operator's prepared slice (borrowed: the Operator holds it), or NULL
 * where obj is no Operator. */
prepared *operator_prepared(PyObject *obj);

#endif /* DMLSLICE_PY_OPERATOR_H */
