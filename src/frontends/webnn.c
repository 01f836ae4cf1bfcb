/* WebNN slice() and reverse() lowered onto SLICE1 (docs/spec.md §6). The
 * checks are the WebNN specification's validation steps, in its order; its
 * errors are TypeErrors, ours DMLS_ERROR_INVALID_ARGUMENT or
 * DMLS_ERROR_OUT_OF_BOUNDS. */
#include <inttypes.h>
#include <stdbool.h>

#include "../error.h"
#include "lower.h"

#define SLICE "WebNN slice"
#define REVERSE "WebNN reverse"

static dmls_status lower_slice(int32_t ndim, const int64_t *shape, const uint64_t *starts, int32_t n_starts,
                               const uint64_t *sizes, int32_t n_sizes, const uint64_t *strides, int32_t n_strides,
                               dmls_lowered *out) {
    RETURN_IF_ERROR(dmls_fe_init(SLICE, ndim, shape, out));
    RETURN_IF(n_starts != ndim, DMLS_ERROR_INVALID_ARGUMENT, "R-WEBNN-ARGS",
              SLICE ": starts has %d values but the input has rank %d", (int)n_starts, (int)ndim);
    RETURN_IF(n_sizes != ndim, DMLS_ERROR_INVALID_ARGUMENT, "R-WEBNN-ARGS",
              SLICE ": sizes has %d values but the input has rank %d", (int)n_sizes, (int)ndim);
    RETURN_IF(strides != NULL && n_strides != ndim, DMLS_ERROR_INVALID_ARGUMENT, "R-WEBNN-ARGS",
              SLICE ": strides has %d values but the input has rank %d", (int)n_strides, (int)ndim);
    RETURN_IF(ndim > 0 && (starts == NULL || sizes == NULL), DMLS_ERROR_INVALID_ARGUMENT, "R-WEBNN-ARGS",
              SLICE ": %s is NULL with rank %d", starts == NULL ? "starts" : "sizes", (int)ndim);
    for (int32_t i = 0; i < ndim; i++) {
        const uint64_t dim = (uint64_t)shape[i], start = starts[i], size = sizes[i];
        const uint64_t stride = strides ? strides[i] : 1;
        RETURN_IF(size == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-WEBNN-SIZE", SLICE ": sizes[%d] = 0; sizes must be at least 1",
                  (int)i);
        RETURN_IF(stride == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-WEBNN-SIZE",
                  SLICE ": strides[%d] = 0; strides must be at least 1", (int)i);
        RETURN_IF(start >= dim, DMLS_ERROR_OUT_OF_BOUNDS, "R-WEBNN-BOUNDS",
                  SLICE ": starts[%d] = %" PRIu64 " is not less than the input's size %" PRIu64 " in that axis",
                  (int)i, start, dim);
        /* start < dim, so dim - start cannot wrap, and the sum is never formed. */
        RETURN_IF(size > dim - start, DMLS_ERROR_OUT_OF_BOUNDS, "R-WEBNN-BOUNDS",
                  SLICE ": starts[%d] + sizes[%d] = %" PRIu64 " + %" PRIu64 " exceeds the input's size %" PRIu64
                  " in that axis",
                  (int)i, (int)i, start, size, dim);
        RETURN_IF(stride > size, DMLS_ERROR_INVALID_ARGUMENT, "R-WEBNN-SIZE",
                  SLICE ": strides[%d] = %" PRIu64 " is greater than sizes[%d] = %" PRIu64
                  ", the window it steps through (docs/spec.md section 6)",
                  (int)i, stride, (int)i, size);
        /* ceil(size / stride) elements; stride <= size <= dim <= INT64_MAX,
         * so every value below fits int64. */
        const int64_t count = (int64_t)((size - 1) / stride + 1);
        dmls_fe_set_axis(out, i, (int64_t)start, count, (int64_t)stride);
        out->final_shape[i] = count;
    }
    return DMLS_OK;
}

dmls_status dmls_lower_webnn_slice(int32_t ndim, const int64_t *shape, const uint64_t *starts, int32_t n_starts,
                                   const uint64_t *sizes, int32_t n_sizes, const uint64_t *strides,
                                   int32_t n_strides, dmls_lowered *out) {
    dmls_clear_error();
    dmls_status s = lower_slice(ndim, shape, starts, n_starts, sizes, n_sizes, strides, n_strides, out);
    return s == DMLS_OK ? s : dmls_fe_fail(out, s);
}

static dmls_status lower_reverse(int32_t ndim, const int64_t *shape, const uint64_t *axes, int32_t n_axes,
                                 dmls_lowered *out) {
    RETURN_IF_ERROR(dmls_fe_init(REVERSE, ndim, shape, out));
    bool reverse[DMLS_MAX_RANK] = {false};
    if (axes == NULL) {
        for (int32_t i = 0; i < ndim; i++) reverse[i] = true;
    } else {
        RETURN_IF(n_axes < 0 || n_axes > ndim, DMLS_ERROR_INVALID_ARGUMENT, "R-WEBNN-AXES",
                  REVERSE ": %d axes for an input of rank %d", (int)n_axes, (int)ndim);
        for (int32_t k = 0; k < n_axes; k++) {
            RETURN_IF(axes[k] >= (uint64_t)ndim, DMLS_ERROR_INVALID_ARGUMENT, "R-WEBNN-AXES",
                      REVERSE ": axes[%d] = %" PRIu64 " is not less than the input's rank %d", (int)k, axes[k],
                      (int)ndim);
            RETURN_IF(reverse[axes[k]], DMLS_ERROR_INVALID_ARGUMENT, "R-WEBNN-AXES",
                      REVERSE ": axes[%d] = %" PRIu64 " names that axis a second time", (int)k, axes[k]);
            reverse[axes[k]] = true;
        }
    }
    for (int32_t i = 0; i < ndim; i++)
        if (reverse[i]) dmls_fe_set_axis(out, i, shape[i] - 1, shape[i], -1);
    return DMLS_OK;
}

dmls_status dmls_lower_webnn_reverse(int32_t ndim, const int64_t *shape, const uint64_t *axes, int32_t n_axes,
                                     dmls_lowered *out) {
    dmls_clear_error();
    dmls_status s = lower_reverse(ndim, shape, axes, n_axes, out);
    return s == DMLS_OK ? s : dmls_fe_fail(out, s);
}
