/* The internal shape of an operator: what validation produces (the problem,
 * in the operator's own terms) and what planning produces (normalized copy
 * plans that every backend executes). */
#ifndef DMLS_OPERATOR_H
#define DMLS_OPERATOR_H

#include <stdbool.h>
#include <stdint.h>

#include "cpu/cpu.h"
#include "dmlslice/dmlslice.h"
#include "cuda/launch.h"

typedef enum dmls_kind {
    DMLS_KIND_SLICE = 0, /* SLICE and SLICE1: gather from the big tensor */
    DMLS_KIND_GRAD = 1   /* SLICE_GRAD: zero the big tensor, scatter into it */
} dmls_kind;

/* A tensor with its strides resolved (packed strides filled in). */
typedef struct dmls_layout {
    int64_t shape[DMLS_MAX_RANK];
    int64_t strides[DMLS_MAX_RANK]; /* elements */
    int64_t byte_offset;            /* bytes from the bound base to element 0 */
} dmls_layout;

/* A validated slice in its own terms. The "big" tensor is the one the window
 * lies over: the input for SLICE, the output gradient for SLICE_GRAD. For
 * each coordinate c of the "small" tensor, big index = start + step * c. */
typedef struct dmls_problem {
    dmls_kind kind;
    int32_t ndim;
    int32_t esize;       /* bytes per element */
    dmls_layout in, out; /* the bound input and output */
    int64_t start[DMLS_MAX_RANK];
    int64_t step[DMLS_MAX_RANK];
} dmls_problem;

/* A normalized strided copy (or fill, when src_stride is unused):
 *   for c in shape: dst[dst_offset + esize * dot(c, dst_stride)]
 *                     = src[src_offset + esize * dot(c, src_stride)]
 * Offsets are in bytes from the bound bases, strides in elements. After
 * dmls_normalize: no size-1 dims, all dst strides > 0, dims ordered by
 * decreasing dst stride, no two neighbours that could merge, and
 * count == product(shape). ndim 0 with count 1 is a single element;
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
} dmls_copy_plan;

struct dmls_operator {
    const char *name; /* "SLICE", "SLICE1", "SLICE_GRAD", "slice", "slice_grad" */
    dmls_problem problem;
    uint64_t in_bytes, out_bytes; /* R-X-BOUNDS minimums, also the ranges for R-X-OVERLAP */
    uint64_t in_align, out_align; /* R-X-ALIGN; 0 = no promise */
    bool zero_fill;               /* SLICE_GRAD: run fill before copy */
    dmls_copy_plan fill;          /* every element of the output (src unused) */
    dmls_copy_plan copy;
    dmls_cpu_plan cpu;            /* copy, recast for the CPU kernels */
    dmls_cuda_state cuda;         /* CUDA launches; filled only when the CUDA backend is built */
};

/* Builds the plans of op from op->problem (planning runs once, at create). */
void dmls_plan(dmls_operator *op);

/* Derives op->cuda from op's plans (src/cuda/prepare.c). dmls_plan calls it
 * only in builds with the CUDA backend (DMLS_HAVE_CUDA). */
void dmls_cuda_prepare(dmls_operator *op);

/* Normalizes a copy plan in place; see dmls_copy_plan. */
void dmls_normalize(dmls_copy_plan *plan);

/* Allocates an operator for a validated problem, plans it and stores it in
 * *out. Returns DMLS_ERROR_OUT_OF_MEMORY on allocation failure. */
dmls_status dmls_operator_new(const char *name, const dmls_problem *problem, uint64_t in_bytes,
                              uint64_t out_bytes, uint64_t in_align, uint64_t out_align,
                              dmls_operator **out);

/* The checks every backend runs before writing (R-X-*). */
dmls_status dmls_check_binding(const dmls_operator *op, const void *input, uint64_t input_bytes,
                               const void *output, uint64_t output_bytes);

/* The CPU zero fill of SLICE_GRAD (the copy runs through op->cpu): all of
 * it, or elements [first, last) in row-major order over plan->shape. */
void dmls_cpu_fill_zero(const dmls_copy_plan *plan, void *dst_base);
void dmls_cpu_fill_zero_range(const dmls_copy_plan *plan, void *dst_base, uint64_t first, uint64_t last);

/* Checks shared by the DirectML and native validators. */

/* R-T-OUTLAYOUT: true when the layout maps distinct coordinates to distinct
 * elements. Only sizes > 1 matter. */
bool dmls_layout_injective(int32_t ndim, const int64_t *shape, const int64_t *strides);

#endif
