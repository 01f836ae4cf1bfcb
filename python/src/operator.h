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

/* The type slots both of the package's callable objects (Operator, Batch)
 * have alike: prefix_dealloc, prefix_call, prefix_repr and prefix_getset. */
#define EXT_CALLABLE_SLOTS(prefix)                                                                                     \
    {Py_tp_dealloc, prefix##_dealloc}, {Py_tp_call, prefix##_call}, {Py_tp_repr, prefix##_repr},                       \
        {Py_tp_getset, prefix##_getset}

/* The end of a callable object's dealloc: its type's tp_free, then the
 * reference to its heap type that each instance holds. */
static inline void ext_free_instance(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

#endif /* DMLSLICE_PY_OPERATOR_H */
