/* Helpers every front end shares: the identity lowering, and turning
 * "count elements from first, every step" into a SLICE1 window. */
#ifndef DMLS_FRONTENDS_LOWER_H
#define DMLS_FRONTENDS_LOWER_H

#include "dmlslice/frontends.h"

/* Checks the input's rank and sizes (name is the front end, for messages)
 * and fills *out with the identity slice: every axis whole, final shape =
 * input shape. Zeroes *out first, so a failure leaves it zeroed. */
dmls_status dmls_fe_init(const char *name, int32_t ndim, const int64_t *shape, dmls_lowered *out);

/* Sets axis to the elements first, first + step, ... (count of them), all
 * inside [0, dim). count 0 makes the empty window (offset 0, size 0). */
void dmls_fe_set_axis(dmls_lowered *out, int32_t axis, int64_t first, int64_t count, int64_t step);

/* Zeroes *out and returns status: the single exit of a failed lowering. */
dmls_status dmls_fe_fail(dmls_lowered *out, dmls_status status);

#endif
