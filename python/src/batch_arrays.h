/* batch_arrays.h: the arrays of split, crops and Batch calls (batch_arrays.c). */
#ifndef DMLSLICE_PY_BATCH_ARRAYS_H
#define DMLSLICE_PY_BATCH_ARRAYS_H

#include "batch_run.h"

/* An array taken in with its device and, on a GPU, its stream, as call.c
 * takes one slice's input. x may become a NumPy view of a buffer exporter
 * (owned). */
typedef struct dev_state {
    PyObject *x, *owned, *stream_arg;
    run_where w;
} dev_state;

void dev_release(dev_state *d);
/* Takes obj in (into in, to view_release on success). 0, or -1. */
int take_input(PyObject *obj, dev_state *d, array_view *in);
/* obj (name, or name[idx] where idx >= 0) on d's device, or an error
 * naming both; view_on_device reads the device from a view taken in. */
int same_device(PyObject *obj, const dev_state *d, const char *name, Py_ssize_t idx);
int view_on_device(const array_view *v, const dev_state *d, const char *name, Py_ssize_t idx);
/* Row-major without gaps (an array without elements places none). */
int is_packed(const array_view *v);
uint64_t view_bytes(const array_view *v);
/* A packed array bound as an output slot, or as an input slot. */
dmls_batch_output packed_slot(const array_view *v);
dmls_batch_input packed_input(const array_view *v);
/* A new array of x's kind, dtype and device (in: x taken in), described
 * in v; shape_obj: the shape as a tuple where one is at hand, else NULL. */
PyObject *new_like(PyObject *x, const array_view *in, int ndim, const int64_t *shape, PyObject *shape_obj,
                   PyObject *stream_arg, array_view *v);
/* An out= array (name[idx]): x's device and dtype, the shape, packed. */
int take_out(PyObject *o, const dev_state *d, PyObject *x, const array_view *in, int ndim, const int64_t *shape,
             const char *name, Py_ssize_t idx, array_view *v);
/* A sequence of integers into a PyMem array; errors carry `rule`. Returns
 * the count, or -1. */
Py_ssize_t read_ints(PyObject *seq, const char *what, const char *rule, int64_t **out);

#endif /* DMLSLICE_PY_BATCH_ARRAYS_H */
