/* The copy plan: the backend-neutral contract between planning (plan.c) and
 * the backends, which each prepare their own form of it once, at create
 * (cpu/prepare.c, cuda/prepare.c). */
#ifndef DMLS_COPY_PLAN_H
#define DMLS_COPY_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "problem.h"

/* A normalized strided copy (or fill, when src_stride is unused):
 *   for c in shape: dst[dst_offset + esize * dot(c, dst_stride)]
 *                     = src[src_offset + esize * dot(c, src_stride)]
 * Offsets are in bytes from the bound bases, strides in elements. After
 * dmls_normalize: no size-1 dims, all dst strides > 0, dims ordered by
 * decreasing dst stride, no two neighbours that could merge,
 * count == product(shape), and tile_dim set. ndim 0 with count 1 is a single element;
 * count 0 means there is nothing to do. */
typedef struct dmls_copy_plan {
    int32_t esize;
    int32_t ndim;
    int64_t shape[DMLS_MAX_RANK];
    int64_t src_stride[DMLS_MAX_RANK];
    int64_t dst_stride[DMLS_MAX_RANK];
    int64_t src_offset;
    int64_t dst_offset;
    uint64_t count;
    /* A transposed copy: the dim the input walks fastest (the smallest
     * non-zero |src_stride|) is not the innermost one, which the output walks
     * fastest (dst_stride 1). tile_dim names that dim, so a backend can copy
     * tiles over the two fast dims, reading and writing whole lines on both
     * sides (docs/backends.md); -1 when the copy is not transposed. */
    int32_t tile_dim;
} dmls_copy_plan;

/* The copy plans of a problem: the copy itself, and for SLICE_GRAD the zero
 * fill of every output element (src unused). *zero_fill says whether the
 * fill runs (before the copy); when it does not, *fill is all zeros. */
void dmls_plan_copies(const dmls_problem *problem, dmls_copy_plan *copy, dmls_copy_plan *fill,
                      bool *zero_fill);

/* Normalizes a copy plan in place; see dmls_copy_plan. */
void dmls_normalize(dmls_copy_plan *plan);

#endif
