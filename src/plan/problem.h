/* The problem: what validation makes of a descriptor, in the operator's own
 * terms, and the buffer needs execute checks a binding against. Both
 * validators (validate_dml.c, validate_native.c) produce exactly this and
 * allocate nothing; create.c turns it into an operator. */
#ifndef DMLS_PROBLEM_H
#define DMLS_PROBLEM_H

#include <stdint.h>

#include "dmlslice/dmlslice.h"

typedef enum dmls_kind {
    DMLS_KIND_SLICE = 0, /* SLICE and SLICE1: gather from the windowed tensor */
    DMLS_KIND_GRAD = 1   /* SLICE_GRAD: zero the windowed tensor, scatter into it */
} dmls_kind;

/* A tensor with its strides resolved (packed strides filled in). */
typedef struct dmls_layout {
    int64_t shape[DMLS_MAX_RANK];
    int64_t strides[DMLS_MAX_RANK]; /* elements */
    int64_t byte_offset;            /* bytes from the bound base to element 0 */
} dmls_layout;

/* A validated slice. The "windowed" tensor is the one the window lies over:
 * the input for SLICE, the output gradient for SLICE_GRAD; the other one is
 * walked densely. For each coordinate c of the walked tensor,
 * windowed index = start + step * c. */
typedef struct dmls_problem {
    const char *name; /* "SLICE", "SLICE1", "SLICE_GRAD", "slice", "slice_grad": for messages */
    dmls_kind kind;
    int32_t ndim;
    int32_t esize;       /* bytes per element */
    dmls_layout in, out; /* the bound input and output */
    int64_t start[DMLS_MAX_RANK];
    int64_t step[DMLS_MAX_RANK];
} dmls_problem;

/* What a binding must offer (docs/spec.md section 2, R-X-*). */
typedef struct dmls_buffer_needs {
    uint64_t in_bytes, out_bytes; /* R-X-BOUNDS minimums, also the ranges for R-X-OVERLAP */
    uint64_t in_align, out_align; /* R-X-ALIGN: the multiple a bound address must be; 0 = any */
    const char *in_align_why, *out_align_why; /* where that multiple comes from, for messages */
} dmls_buffer_needs;

#endif
