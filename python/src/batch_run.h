/*
 * batch_run.h: every call into the batch library (<dmlslice/batch.h>):
 * arrays described in copy units, batches made, run on the CPU pool or on
 * a CUDA stream. Many slices in one call from Python (docs/spec.md section
 * 7) sit on top of it, a file each:
 *
 *   batch_cache.c   split's and crops' batches kept and reused
 *   batch_arrays.c  a call's arrays taken in, out= checked, slots bound
 *   split.c         ds.split
 *   crops.c         ds.crops
 *   batch_plan.c    the Batch type ds.plan_batch makes
 *   batch_call.c    a Batch called
 *
 * module.c adds their functions to the module (*_add_functions).
 */
#ifndef DMLSLICE_PY_BATCH_RUN_H
#define DMLSLICE_PY_BATCH_RUN_H

#include "array_view.h"
#include <dmlslice/batch.h>

#include "devices.h"

/* An array as the batch library takes it: strides in copy units of `unit`
 * bytes (the largest of 8, 4, 2, 1 dividing the item size and every stride
 * that moves an address), an element being k units; where k > 1 a last
 * axis of k units is added. base is the lowest byte the array touches,
 * offset the bytes from there to element 0, bytes the span. */
typedef struct bt_tensor {
    int ndim;
    int64_t shape[EXT_MAX_RANK];
    int64_t strides[EXT_MAX_RANK];
    int64_t unit, k;
    char *base;
    uint64_t offset, bytes;
} bt_tensor;

/* Describes v for the batch library (what: the argument's name, for the
 * error). 0, or -1 with an exception (too many axes). */
int bt_describe(const array_view *v, const char *what, bt_tensor *t);
/* The sizes of a split of d by count n under rule (DMLS_SPLIT_*), into a
 * PyMem array the caller frees. 0, or -1 with an exception. */
int bt_split_sizes(int64_t d, int64_t n, int rule, int64_t **sizes, size_t *count);
/* A batch (dmls_batch *) or NULL with an exception. axis: non-negative. */
void *bt_split(const bt_tensor *t, int axis, const int64_t *sizes, size_t n, int one_output);
/* Crops with starts bound at execute (input slot 1), width 4 or 8 bytes. */
void *bt_crops(const bt_tensor *t, const int64_t *size, size_t n, int width);
/* A batch of planned operators (dmls_operator *), item i reading input slot
 * in_slot[i] and writing output slot out_slot[i], each at offset 0. */
void *bt_items(void *const *ops, const uint32_t *in_slot, const uint32_t *out_slot, size_t n, uint32_t n_in,
               uint32_t n_out);
void bt_free(void *batch);
/* Runs a batch where w says (devices_batch). 0, or -1 with an exception. */
int bt_run(void *batch, const dmls_batch_input *in, uint32_t n_in, const dmls_batch_output *out, uint32_t n_out,
           uint64_t out_bytes, const run_where *w);

#endif /* DMLSLICE_PY_BATCH_RUN_H */
