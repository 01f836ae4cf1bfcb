/* The validators: each turns a descriptor into a problem and its buffer
 * needs, checking every rule of docs/spec.md sections 2 to 4, and allocates
 * nothing. Also the rules both of them share. */
#ifndef DMLS_VALIDATE_H
#define DMLS_VALIDATE_H

#include <stdbool.h>

#include "dmlslice/dml.h"
#include "problem.h"

/* The DirectML path (validate_dml.c). */
dmls_status dmls_validate_dml(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level, dmls_problem *problem,
                              dmls_buffer_needs *needs);

/* The native path (validate_native.c); grad selects SLICE_GRAD. */
dmls_status dmls_validate_native(bool grad, const dmls_tensor *input, const dmls_tensor *output,
                                 const dmls_window *window, dmls_problem *problem, dmls_buffer_needs *needs);

/* Field names as the caller's API spells them, for messages. */
typedef struct dmls_names {
    const char *op;                        /* "SLICE1", "slice", ... */
    const char *offsets, *sizes, *strides; /* window fields */
    const char *windowed, *walked;         /* tensor the window lies over, and the other */
} dmls_names;

/* The SLICE1 window rules (R-WIN-*) for every dim, in 64 bits, and the
 * start/step they give. allow_empty (native API only) lets a window size of 0
 * stand where the walked tensor's size is 0. */
dmls_status dmls_check_window(const dmls_names *names, int32_t ndim, const int64_t *offsets,
                              const int64_t *sizes, const int64_t *strides, const int64_t *windowed_shape,
                              const int64_t *walked_shape, bool allow_empty, int64_t *start, int64_t *step);

/* R-T-OUTLAYOUT: true when the layout maps distinct coordinates to distinct
 * elements. Only sizes > 1 matter. */
bool dmls_layout_injective(int32_t ndim, const int64_t *shape, const int64_t *strides);

#endif
