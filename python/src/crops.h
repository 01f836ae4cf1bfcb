/* crops.h: ds.crops (crops.c), rows of module.c's function table. */
#ifndef DMLSLICE_PY_CROPS_H
#define DMLSLICE_PY_CROPS_H

#include <Python.h>

/* crops(x, starts, size, *, out=None), taking keywords; crops_doc its
 * docstring. */
PyObject *crops_fn(PyObject *self, PyObject *args, PyObject *kw);
extern const char crops_doc[];
/* _batch_init(dmlslice._kinds): the helpers crops takes host starts with. */
PyObject *crops_batch_init(PyObject *self, PyObject *kinds);

#endif /* DMLSLICE_PY_CROPS_H */
