/* Shared front-end helpers; see lower.h. */
#include "lower.h"

#include <inttypes.h>
#include <string.h>

#include "../checked.h"
#include "../error.h"

dmls_status dmls_fe_init(const char *name, int32_t ndim, const int64_t *shape, dmls_lowered *out) {
    RETURN_IF(out == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-FE-INPUT", "%s: the result pointer is NULL", name);
    memset(out, 0, sizeof *out);
    RETURN_IF(ndim < 0 || ndim > DMLS_MAX_RANK, DMLS_ERROR_UNSUPPORTED, "R-FE-INPUT",
              "%s: input rank %d is outside 0 to %d", name, (int)ndim, DMLS_MAX_RANK);
    RETURN_IF(ndim > 0 && shape == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-FE-INPUT",
              "%s: input shape is NULL with rank %d", name, (int)ndim);
    for (int32_t i = 0; i < ndim; i++) {
        RETURN_IF(shape[i] < 0, DMLS_ERROR_INVALID_ARGUMENT, "R-FE-INPUT", "%s: input shape[%d] = %" PRId64 " is negative",
                  name, (int)i, shape[i]);
        out->offsets[i] = 0;
        out->sizes[i] = shape[i];
        out->strides[i] = 1;
        out->out_sizes[i] = shape[i];
        out->final_shape[i] = shape[i];
    }
    out->ndim = ndim;
    out->final_ndim = ndim;
    return DMLS_OK;
}

void dmls_fe_set_axis(dmls_lowered *out, int32_t axis, int64_t first, int64_t count, int64_t step) {
    if (count == 0) {
        out->offsets[axis] = 0;
        out->sizes[axis] = 0;
        out->strides[axis] = 1;
        out->out_sizes[axis] = 0;
        return;
    }
    /* One element: the step is never taken, so a unit stride of the same
     * sign says the same thing and keeps a huge step (INT64_MIN included)
     * away from every later multiplication. */
    if (count == 1) step = step > 0 ? 1 : -1;
    /* (count - 1) * |step| <= the distance first travels, which is < dim:
     * no overflow once count elements are known to lie inside the axis. */
    const int64_t span = (int64_t)((uint64_t)(count - 1) * dmls_abs_i64(step));
    out->offsets[axis] = step > 0 ? first : first - span;
    out->sizes[axis] = span + 1;
    out->strides[axis] = step;
    out->out_sizes[axis] = count;
}

dmls_status dmls_fe_fail(dmls_lowered *out, dmls_status status) {
    if (out != NULL) memset(out, 0, sizeof *out);
    return status;
}

dmls_window dmls_lowered_window(const dmls_lowered *lowered) {
    if (lowered == NULL) return (dmls_window){NULL, NULL, NULL};
    dmls_window w = {lowered->offsets, lowered->sizes, lowered->strides};
    return w;
}
