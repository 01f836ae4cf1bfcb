/* lowering.h: the front ends' parameters lowered to a lowered slice (lowering.c). */
#ifndef DMLSLICE_PY_LOWERING_H
#define DMLSLICE_PY_LOWERING_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "array_view.h"

/* A slice as every vocabulary ends up: a SLICE1 window over the forward
 * input, the SLICE1 output sizes, and the shape of the result array. */
typedef struct lowered {
    int grad;                             /* SLICE_GRAD: scatter into zeros */
    int ndim;                             /* rank of the input, and (up to EXT_MAX_RANK) of the window */
    int64_t in_shape[EXT_ARRAY_MAX_RANK]; /* the shape the input array must have */
    /* A NumPy key over more than EXT_MAX_RANK input axes: its text, for the
     * library's view of each array (which depends on its strides); the
     * window fields are then unused. Borrowed from whoever lowered it until
     * layout_compile copies it. */
    const char *expr;
    int64_t offsets[EXT_MAX_RANK];
    int64_t wsizes[EXT_MAX_RANK];
    int64_t wstrides[EXT_MAX_RANK];
    int64_t out_sizes[EXT_MAX_RANK]; /* the SLICE1 output (grad: the input gradient) */
    int final_ndim;                  /* rank and shape of the result */
    int64_t final_shape[EXT_ARRAY_MAX_RANK];
    /* A transpose (R-PERM): the window is over the input's view whose axis
     * i is input axis perm[i] (lowered_view permutes an array's view);
     * in_shape stays the input's own. */
    int transposed;
    int perm[EXT_MAX_RANK];
} lowered;

int lowering_numpy(int ndim, const int64_t *shape, const char *expr, lowered *p);
/* Adds an axis of length len (1, or 0: the result is then empty) to the
 * result's shape at pos: NumPy's axis of boolean scalars. */
int lowering_add_axis(lowered *p, int pos, int64_t len);
int lowering_onnx(int ndim, const int64_t *shape, const int64_t *starts, const int64_t *ends, int n,
                  const int64_t *axes, int n_axes, const int64_t *steps, int n_steps, lowered *p);
int lowering_webnn_slice(int ndim, const int64_t *shape, const uint64_t *starts, int n_starts, const uint64_t *sizes,
                         int n_sizes, const uint64_t *strides, int n_strides, lowered *p);
int lowering_webnn_reverse(int ndim, const int64_t *shape, const uint64_t *axes, int n_axes, lowered *p);
/* np.transpose(x, axes) (axes NULL: reversed; negatives from the back)
 * for an input of at most EXT_MAX_RANK axes: the whole transposed array. */
int lowering_transpose(int ndim, const int64_t *shape, const int64_t *axes, int n_axes, lowered *p);
/* An array's view as the window reads it: its axes permuted for a
 * transpose, unchanged otherwise. */
void lowered_view(const lowered *p, array_view *v);
/* True where the result has no element. */
int lowered_empty(const lowered *p);
/* The library's message for a NumPy key it refused, as NumPy's class. */
int lowering_numpy_failed(int st);

#endif /* DMLSLICE_PY_LOWERING_H */
