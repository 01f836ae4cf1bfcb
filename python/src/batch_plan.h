/* batch_plan.h: the Batch type (batch_plan.c), read by batch_call.c. */
#ifndef DMLSLICE_PY_BATCH_PLAN_H
#define DMLSLICE_PY_BATCH_PLAN_H

#include "layout.h"
#include "operator.h"

/* Consecutive items reading one input slot with results of one shape:
 * their results are the rows of one (count, *shape) array. */
typedef struct brun {
    Py_ssize_t first, count;
    uint32_t slot;
    int64_t per;     /* elements of one result */
    int64_t off;     /* elements before the run in its slot's array */
    PyObject *shape; /* (count, *shape) */
} brun;

/* Planned Operators run together: item i reads input in_slot[i] and writes
 * output i. Inputs and outputs are packed arrays of the shapes planned (the
 * operators' packed plans). Immutable but for the device its table was
 * prepared for; callable from many threads at once. */
typedef struct BatchObject {
    PyObject_HEAD void *batch; /* the non-empty items; NULL when there are none */
    PyObject *ops;             /* tuple of the Operators, kept alive */
    Py_ssize_t n;
    uint32_t n_in;
    uint32_t *in_slot;   /* per item */
    Py_ssize_t *slot_op; /* per input slot: an item reading it (its shape and dtype) */
    int device;          /* the CUDA device the batch was prepared for, or -1 */
    /* Fresh results come from one array per input slot, cut into views:
     * one allocation where a loop of new arrays would make one per item. */
    brun *runs;
    Py_ssize_t n_runs;
    int64_t *slot_total;              /* per slot: the elements of its results */
    Py_ssize_t *slot_runs, *slot_run; /* per slot: its runs, and one of them */
    int grouped;                      /* 0: a new array per item (ranks or sizes too large) */
} BatchObject;

/* Item i's compiled slice, and its result shape as a tuple (made once
 * with its lowered slice). Inline: batch_plan.c and batch_call.c both
 * read them, and neither file calls into the other for them. */
static inline const compiled *item_plan(const BatchObject *b, Py_ssize_t i) {
    return &operator_prepared(PyTuple_GetItem(b->ops, i))->c;
}
static inline PyObject *item_shape(const BatchObject *b, Py_ssize_t i) {
    return operator_prepared(PyTuple_GetItem(b->ops, i))->shape;
}

/* Adds _plan_batch and the Batch type to m. */
int batch_add_functions(PyObject *m);

#endif /* DMLSLICE_PY_BATCH_PLAN_H */
