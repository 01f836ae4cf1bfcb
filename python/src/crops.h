/* crops.h: ds.crops (crops.c). */
#ifndef DMLSLICE_PY_CROPS_H
#define DMLSLICE_PY_CROPS_H

#include <Python.h>

/* Adds crops and _batch_init (its helpers from dmlslice._kinds) to m. */
int crops_add_functions(PyObject *m);

#endif /* DMLSLICE_PY_CROPS_H */
