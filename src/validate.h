/* Rules shared by the DirectML and native validators. */
#ifndef DMLS_VALIDATE_H
#define DMLS_VALIDATE_H

#include "operator.h"

/* Field names as the caller's API spells them, for messages. */
typedef struct dmls_names {
    const char *op;                      /* "SLICE1", "slice", ... */
    const char *offsets, *sizes, *strides; /* window fields */
    const char *big, *small;             /* tensor the window lies over, and the other */
} dmls_names;

/* The SLICE1 window rules (R-WIN-*) for every dim, in 64 bits, and the
 * start/step they give. allow_empty (native API only) lets a window size of 0
 * stand where the small tensor's size is 0. */
dmls_status dmls_check_window(const dmls_names *names, int32_t ndim, const int64_t *offsets,
                              const int64_t *sizes, const int64_t *strides,
                              const int64_t *big_shape, const int64_t *small_shape,
                              bool allow_empty, int64_t *start, int64_t *step);

#endif
