/* ONNX Slice (opsets 1, 10, 11, 13) lowered onto SLICE1 (docs/spec.md section 6).
 * The clamping follows the ONNX operator page, not any one runtime. */
#include <inttypes.h>
#include <stdbool.h>

#include "../checked.h"
#include "../error.h"
#include "lower.h"

#define ONNX "ONNX Slice"

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

static dmls_status lower_onnx(int32_t ndim, const int64_t *shape, const int64_t *starts, const int64_t *ends,
                              int32_t n, const int64_t *axes, int32_t n_axes, const int64_t *steps,
                              int32_t n_steps, dmls_lowered *out) {
    RETURN_IF_ERROR(dmls_fe_init(ONNX, ndim, shape, out));
    RETURN_IF(n < 0, DMLS_ERROR_INVALID_ARGUMENT, "R-ONNX-ARGS", ONNX ": %d starts", (int)n);
    RETURN_IF(n > 0 && (starts == NULL || ends == NULL), DMLS_ERROR_INVALID_ARGUMENT, "R-ONNX-ARGS",
              ONNX ": %s is NULL with %d values", starts == NULL ? "starts" : "ends", (int)n);
    RETURN_IF(axes != NULL && n_axes != n, DMLS_ERROR_INVALID_ARGUMENT, "R-ONNX-ARGS",
              ONNX ": axes has %d values but starts and ends have %d", (int)n_axes, (int)n);
    RETURN_IF(steps != NULL && n_steps != n, DMLS_ERROR_INVALID_ARGUMENT, "R-ONNX-ARGS",
              ONNX ": steps has %d values but starts and ends have %d", (int)n_steps, (int)n);
    RETURN_IF(axes == NULL && n > ndim, DMLS_ERROR_INVALID_ARGUMENT, "R-ONNX-ARGS",
              ONNX ": %d starts and ends without axes, but the input has rank %d", (int)n, (int)ndim);

    bool seen[DMLS_MAX_RANK] = {false};
    for (int32_t i = 0; i < n; i++) {
        int64_t axis = axes ? axes[i] : i;
        RETURN_IF(axis < -(int64_t)ndim || axis >= ndim, DMLS_ERROR_INVALID_ARGUMENT, "R-ONNX-AXES",
                  ONNX ": axes[%d] = %" PRId64 " is outside [%d, %d] for an input of rank %d", (int)i, axis,
                  -(int)ndim, (int)ndim - 1, (int)ndim);
        if (axis < 0) axis += ndim;
        RETURN_IF(seen[axis], DMLS_ERROR_INVALID_ARGUMENT, "R-ONNX-AXES",
                  ONNX ": axes[%d] = %" PRId64 " names axis %d a second time", (int)i, axes[i], (int)axis);
        seen[axis] = true;

        const int64_t step = steps ? steps[i] : 1;
        RETURN_IF(step == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-ONNX-STEP", ONNX ": steps[%d] = 0 (axis %d); steps must be non-zero",
                  (int)i, (int)axis);
        const int64_t dim = shape[axis];
        /* dim >= 0 and the value < 0: the sum cannot overflow. */
        int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
        int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
        int64_t count;
        if (dim == 0) {
            count = 0; /* [0, dim - 1] would be an empty range to clamp into */
        } else if (step > 0) {
            start = clamp(start, 0, dim);
            end = clamp(end, 0, dim);
            count = end > start ? (int64_t)((uint64_t)(end - start - 1) / (uint64_t)step) + 1 : 0;
        } else {
            start = clamp(start, 0, dim - 1);
            end = clamp(end, -1, dim - 1);
            count = start > end ? (int64_t)((uint64_t)(start - end - 1) / dmls_abs_i64(step)) + 1 : 0;
        }
        dmls_fe_set_axis(out, (int32_t)axis, start, count, step);
        out->final_shape[axis] = count;
    }
    return DMLS_OK;
}

dmls_status dmls_lower_onnx(int32_t ndim, const int64_t *shape, const int64_t *starts, const int64_t *ends,
                            int32_t n, const int64_t *axes, int32_t n_axes, const int64_t *steps, int32_t n_steps,
                            dmls_lowered *out) {
    dmls_clear_error();
    dmls_status s = lower_onnx(ndim, shape, starts, ends, n, axes, n_axes, steps, n_steps, out);
    return s == DMLS_OK ? s : dmls_fe_fail(out, s);
}
