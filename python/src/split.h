/* split.h: ds.split (split.c), a row of module.c's function table. */
#ifndef DMLSLICE_PY_SPLIT_H
#define DMLSLICE_PY_SPLIT_H

#include <Python.h>

/* split(x, sizes_or_sections, axis=0, *, mode=None, out=None), taking
 * keywords; split_doc its docstring. */
PyObject *split_fn(PyObject *self, PyObject *args, PyObject *kw);
extern const char split_doc[];

#endif /* DMLSLICE_PY_SPLIT_H */
