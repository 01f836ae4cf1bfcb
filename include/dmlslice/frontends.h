/*
 * dmlslice/frontends.h: ONNX, NumPy and WebNN slicing, lowered onto SLICE1,
 * and their transposes, lowered to permuted views of the input.
 *
 * Each front end applies its own rules (negative indices, clamping, dropped
 * and inserted axes, its own validation) and produces a dmls_lowered: a
 * SLICE1 window over the input plus the per-axis output sizes that
 * dmls_create takes, and the shape the front end says its result has. The
 * core never sees a front end's rules (docs/spec.md section 6).
 *
 * The SLICE1 output, packed row-major, holds the elements in the order the
 * front end's result does: dropped axes (NumPy integers) have size 1 there,
 * inserted axes (NumPy None) are size 1 in the final shape only. So a packed
 * output buffer of dmls_lowered.out_sizes *is* the result, reshaped to
 * final_shape without moving a byte.
 *
 * Empty results are answers, not errors: an axis whose result is empty gets
 * window offset 0, window size 0 and output size 0, which dmls_create accepts
 * (an operator that copies nothing).
 *
 * Errors: each function returns DMLS_OK or a status, with dmls_last_error()
 * naming the front end, the argument, the axis and the values, e.g.
 *   ONNX Slice: axes[1] = 3 is outside [-3, 2] for an input of rank 3
 * DMLS_ERROR_FORMAT is a NumPy expression that does not parse;
 * DMLS_ERROR_INVALID_ARGUMENT a value the front end rejects;
 * DMLS_ERROR_OUT_OF_BOUNDS an index or window outside the input;
 * DMLS_ERROR_UNSUPPORTED a rank above DMLS_MAX_RANK.
 * On failure *out is left zeroed. All functions are thread-safe and keep
 * nothing of their arguments.
 */
#ifndef DMLSLICE_FRONTENDS_H
#define DMLSLICE_FRONTENDS_H

#include <stdint.h>

#include "dmlslice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A front end's slice, as SLICE1 parameters plus the result's shape. */
typedef struct dmls_lowered {
    int32_t ndim;                          /* rank of the input, and of the SLICE1 output */
    int64_t offsets[DMLS_MAX_RANK];        /* window offsets, >= 0 */
    int64_t sizes[DMLS_MAX_RANK];          /* window sizes, >= 1, or 0 where out_sizes is 0 */
    int64_t strides[DMLS_MAX_RANK];        /* window strides, != 0 */
    int64_t out_sizes[DMLS_MAX_RANK];      /* the SLICE1 output's sizes, for dmls_create */
    int32_t final_ndim;                    /* rank of the front end's result, 0..DMLS_MAX_RANK */
    int64_t final_shape[DMLS_MAX_RANK];    /* its shape; product == product(out_sizes) */
} dmls_lowered;

/* The window as dmls_create takes it; it points into *lowered. For a NULL
 * lowered, a window of NULL arrays (what a rank-0 slice takes). */
DMLS_API dmls_window dmls_lowered_window(const dmls_lowered *lowered);

/*
 * dmls_lower_onnx: ONNX Slice (opsets 1, 10, 11, 13).
 *   ndim, shape      the input's rank (0..8) and sizes (>= 0).
 *   starts, ends     n values each; negative values count from the end; any
 *                    int64 (INT64_MIN and INT64_MAX included) is an ordinary
 *                    value that clamps.
 *   axes             n_axes values in [-ndim, ndim - 1], no axis twice; NULL
 *                    means axes 0..n-1 (then n <= ndim).
 *   steps            n_steps non-zero values; NULL means all 1. steps may be
 *                    given without axes.
 * Per axis, after adding the dimension to a negative start or end: a
 * positive step clamps start and end to [0, dim]; a negative step clamps
 * start to [0, dim - 1] and end to [-1, dim - 1]; the length is
 * max(0, ceil((end - start) / step)), computed without overflow for any
 * step. Axes not named are taken whole.
 *
 * This follows the ONNX operator specification, including its one corner
 * that implementations disagree on: with a negative step, an end of INT_MAX
 * (int32 or int64) clamps to dim - 1 like any other large value, so the axis
 * comes out empty. ONNX Runtime's CPU kernel special-cases that end value
 * and does not return an empty axis there (docs/spec.md section 6); a model that
 * relies on its behaviour should pass INT64_MIN as the end ("to the
 * beginning"), which both agree on.
 */
DMLS_API dmls_status dmls_lower_onnx(int32_t ndim, const int64_t *shape, const int64_t *starts,
                                     const int64_t *ends, int32_t n, const int64_t *axes,
                                     int32_t n_axes, const int64_t *steps, int32_t n_steps,
                                     dmls_lowered *out);

/*
 * dmls_lower_numpy: NumPy basic indexing, written as Python writes it:
 *   "[1:3, ::-2, ..., None, 0]"  (the brackets are optional)
 * Items: an integer (negative counts from the end; out of range is an error,
 * as NumPy's IndexError; the axis is dropped), a slice start:stop:step with
 * any part omitted (clamped as Python's slice.indices() does; a step of 0 is
 * an error), "..." (at most one; it stands for as many whole axes as
 * needed), and "None" or "newaxis" (np.newaxis also accepted) which insert an
 * axis of size 1. Axes not named are taken whole. A trailing comma is
 * allowed; "", "()" and "[()]" take everything ("[()]" is x[()]: a tuple
 * that is the whole subscript stands for its items, so "[(1, 2)]" is
 * "[1, 2]"); "[]" is a syntax error, as in Python. Slice bounds beyond int64
 * saturate, as Python's do; an integer index beyond int64 is an error.
 */
DMLS_API dmls_status dmls_lower_numpy(int32_t ndim, const int64_t *shape, const char *expr,
                                      dmls_lowered *out);

/* The most axes NumPy gives an array (NPY_MAXDIMS of NumPy 2). */
#define DMLS_NUMPY_MAX_RANK 64

/*
 * The result of dmls_lower_numpy_view: a SLICE1 (slice) over a view of the
 * input (in_shape, in_strides, in_offset), and NumPy's shape for the result.
 *   slice            the window over the view; slice.ndim (<= DMLS_MAX_RANK)
 *                    is the view's rank; slice.final_ndim/final_shape repeat
 *                    slice.ndim/out_sizes (NumPy's shape is below).
 *   in_shape, in_strides  the view's sizes and element strides (>= 0), for
 *                    dmls_create's input tensor.
 *   in_offset        elements from the array's first element to the view's
 *                    element (0, ..., 0): dmls_tensor.byte_offset is
 *                    in_offset times the element size.
 *   final_ndim, final_shape  NumPy's result, up to DMLS_NUMPY_MAX_RANK axes;
 *                    the packed SLICE1 output is that result, reshaped.
 */
typedef struct dmls_lowered_view {
    dmls_lowered slice;
    int64_t in_shape[DMLS_MAX_RANK];
    int64_t in_strides[DMLS_MAX_RANK];
    int64_t in_offset;
    int32_t final_ndim;
    int64_t final_shape[DMLS_NUMPY_MAX_RANK];
} dmls_lowered_view;

/*
 * dmls_lower_numpy_view: dmls_lower_numpy for inputs of any rank NumPy
 * writes (0..DMLS_NUMPY_MAX_RANK) and results of up to DMLS_NUMPY_MAX_RANK
 * axes. strides: the input's element strides (>= 0), or NULL for packed C
 * order. Up to DMLS_MAX_RANK input axes the view is the input itself
 * (in_offset 0) and slice is what dmls_lower_numpy gives. Above that, the
 * axes that vanish do not count: an axis the index takes one element of
 * (an integer, a size-1 axis) moves into in_offset, None adds nothing, and
 * neighbouring axes whose elements lie one contiguous stride apart merge;
 * only an index that still needs more than DMLS_MAX_RANK strided dimensions
 * is refused (DMLS_ERROR_UNSUPPORTED, saying so). An empty result is a view
 * of one empty axis. Errors as dmls_lower_numpy's, plus DMLS_ERROR_OVERFLOW
 * for a shape and strides whose element offsets do not fit 64 bits.
 */
DMLS_API dmls_status dmls_lower_numpy_view(int32_t ndim, const int64_t *shape, const int64_t *strides,
                                           const char *expr, dmls_lowered_view *out);

/*
 * dmls_lower_webnn_slice: WebNN MLGraphBuilder.slice(input, starts, sizes,
 * {strides}). starts and sizes (and strides, when not NULL) hold exactly
 * ndim values; strides NULL means all 1. Per axis, following the WebNN
 * specification's validation: sizes[i] >= 1, strides[i] >= 1,
 * starts[i] < dim, starts[i] + sizes[i] <= dim. The output size is
 * ceil(sizes[i] / strides[i]). A rank-0 input with empty starts and sizes
 * gives the scalar.
 */
DMLS_API dmls_status dmls_lower_webnn_slice(int32_t ndim, const int64_t *shape,
                                            const uint64_t *starts, int32_t n_starts,
                                            const uint64_t *sizes, int32_t n_sizes,
                                            const uint64_t *strides, int32_t n_strides,
                                            dmls_lowered *out);

/*
 * dmls_lower_webnn_reverse: WebNN MLGraphBuilder.reverse(input, {axes}).
 * axes NULL means every axis (the option omitted); otherwise n_axes values
 * each < ndim, none twice (an empty list reverses nothing). Reversed axes get
 * stride -1 over the whole axis.
 */
DMLS_API dmls_status dmls_lower_webnn_reverse(int32_t ndim, const int64_t *shape,
                                              const uint64_t *axes, int32_t n_axes,
                                              dmls_lowered *out);

/*
 * Transposes (docs/spec.md section 9): ONNX Transpose, WebNN transpose and
 * NumPy np.transpose name a permutation of the input's axes. Each lowering
 * checks it (R-PERM) and gives the permuted view of the input: axis i of the
 * view is input axis perm[i], with that axis's size and element stride. The
 * view reads the input's own bytes (the same bound buffer and byte_offset),
 * so a transpose is dmls_create with the view as the input tensor and a
 * packed (C order) output of the view's shape, or the caller's output view;
 * a slice of the transposed array, np.transpose(x, P)[key] (ONNX's
 * Transpose followed by Slice), lowers with any front end above over the
 * view's rank and shape:
 *
 *   dmls_transposed t;
 *   dmls_lower_numpy_transpose(3, shape, NULL, axes, 3, &t);
 *   dmls_lowered lw;
 *   dmls_lower_numpy(t.ndim, t.shape, "[1:, ::-1]", &lw);
 *   dmls_tensor in = dmls_transposed_tensor(&t, DMLS_FLOAT32, 0);
 *   dmls_tensor out = {DMLS_FLOAT32, lw.ndim, lw.out_sizes, NULL, 0};
 *   dmls_window w = dmls_lowered_window(&lw);
 *   dmls_create(&in, &out, &w, &op);
 *
 * Inputs of up to DMLS_NUMPY_MAX_RANK axes are taken (dmls_lower_numpy_view
 * takes such a view; dmls_create up to DMLS_MAX_RANK). A rank-0 input takes
 * the empty permutation.
 */
typedef struct dmls_transposed {
    int32_t ndim;                            /* the input's rank, and the view's */
    int32_t perm[DMLS_NUMPY_MAX_RANK];       /* view axis i is input axis perm[i], in [0, ndim - 1] */
    int64_t shape[DMLS_NUMPY_MAX_RANK];      /* the view's sizes: shape[perm[i]] */
    int64_t strides[DMLS_NUMPY_MAX_RANK];    /* its element strides: the input's strides[perm[i]] */
} dmls_transposed;

/*
 * The three lowerings share their arguments:
 *   ndim, shape   the input's rank (0..DMLS_NUMPY_MAX_RANK) and sizes (>= 0).
 *   strides       the input's element strides (any sign), or NULL for packed
 *                 C order.
 *   perm, n_perm  the permutation, n_perm values; NULL means the axes
 *                 reversed (every front end's default; n_perm is then
 *                 ignored).
 * R-PERM: n_perm == ndim, each value in range, no axis twice; the error
 * (DMLS_ERROR_INVALID_ARGUMENT) names the front end, the entry and its value,
 * e.g. "ONNX Transpose: perm[1] = 3 is outside [0, 2] for an input of rank 3
 * (R-PERM)". DMLS_ERROR_OVERFLOW: packed strides of a non-empty shape whose
 * element count overflows 64 bits. Errors otherwise as above; on failure
 * *out is left zeroed.
 */

/* ONNX Transpose (opsets 1, 13, 21): perm values in [0, ndim - 1]. */
DMLS_API dmls_status dmls_lower_onnx_transpose(int32_t ndim, const int64_t *shape, const int64_t *strides,
                                               const int64_t *perm, int32_t n_perm, dmls_transposed *out);

/* WebNN MLGraphBuilder.transpose(input, {permutation}): unsigned values,
 * each < ndim. */
DMLS_API dmls_status dmls_lower_webnn_transpose(int32_t ndim, const int64_t *shape, const int64_t *strides,
                                                const uint64_t *permutation, int32_t n_perm, dmls_transposed *out);

/* NumPy np.transpose(x, axes): values in [-ndim, ndim - 1], a negative one
 * counting from the back (-1 is the last axis). */
DMLS_API dmls_status dmls_lower_numpy_transpose(int32_t ndim, const int64_t *shape, const int64_t *strides,
                                                const int64_t *axes, int32_t n_axes, dmls_transposed *out);

/* The view as dmls_create's input tensor (it points into *t): t's rank,
 * shape and strides, the given dtype and byte_offset (the input's own). */
DMLS_API dmls_tensor dmls_transposed_tensor(const dmls_transposed *t, dmls_dtype dtype, uint64_t byte_offset);

#ifdef __cplusplus
}
#endif

#endif /* DMLSLICE_FRONTENDS_H */
