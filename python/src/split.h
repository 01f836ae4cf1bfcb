/* split.h: ds.split (split.c). */
#ifndef DMLSLICE_PY_SPLIT_H
#define DMLSLICE_PY_SPLIT_H

#include <Python.h>

/* Adds split to m. */
int split_add_functions(PyObject *m);

#endif /* DMLSLICE_PY_SPLIT_H */
