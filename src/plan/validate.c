/* The rules both validators share: the SLICE1 window (SLICE1 and SLICE_GRAD
 * on both paths) and the output layout (R-T-OUTLAYOUT). */
#include <inttypes.h>

#include "checked.h"
#include "error.h"
#include "validate.h"

dmls_status dmls_check_window(const dmls_names *nm, int32_t ndim, const int64_t *offsets,
                              const int64_t *sizes, const int64_t *strides,
                              const int64_t *windowed_shape, const int64_t *walked_shape,
                              bool allow_empty, int64_t *start, int64_t *step) {
    for (int i = 0; i < ndim; i++) {
        const int64_t off = offsets[i], size = sizes[i], stride = strides[i];
        const int64_t dim = windowed_shape[i], count = walked_shape[i];
        RETURN_IF(off < 0, DMLS_ERROR_OUT_OF_BOUNDS, "R-WIN-BOUNDS", "%s: %s[%d] = %" PRId64 " is negative",
                  nm->op, nm->offsets, i, off);
        RETURN_IF(size < 0, DMLS_ERROR_INVALID_ARGUMENT, "R-WIN-NONEMPTY", "%s: %s[%d] = %" PRId64 " is negative",
                  nm->op, nm->sizes, i, size);
        RETURN_IF(size == 0 && !(allow_empty && count == 0), DMLS_ERROR_INVALID_ARGUMENT, "R-WIN-NONEMPTY",
                  "%s: %s[%d] = 0; a window must hold at least one element", nm->op, nm->sizes, i);
        RETURN_IF(stride == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-WIN-STRIDE", "%s: %s[%d] = 0; strides must be non-zero",
                  nm->op, nm->strides, i);
        int64_t end;
        RETURN_IF(dmls_add_i64(off, size, &end), DMLS_ERROR_OVERFLOW, "R-WIN-BOUNDS",
                  "%s: %s[%d] + %s[%d] = %" PRId64 " + %" PRId64 " overflows 64 bits", nm->op,
                  nm->offsets, i, nm->sizes, i, off, size);
        RETURN_IF(end > dim, DMLS_ERROR_OUT_OF_BOUNDS, "R-WIN-BOUNDS",
                  "%s: %s[%d] + %s[%d] = %" PRId64 " + %" PRId64 " = %" PRId64 " exceeds %s size %" PRId64,
                  nm->op, nm->offsets, i, nm->sizes, i, off, size, end, nm->windowed, dim);
        /* |stride|: a negative stride walks the same window backwards
         * (docs/spec.md section 2, R-WIN-COUNT). */
        const uint64_t reach = size == 0 ? 0 : 1 + (uint64_t)(size - 1) / dmls_abs_i64(stride);
        RETURN_IF(count < (allow_empty ? 0 : 1) || (uint64_t)count > reach, DMLS_ERROR_SHAPE_MISMATCH,
                  "R-WIN-COUNT",
                  "%s: %s size %" PRId64 " in dimension %d is outside [%d, %" PRIu64
                  "], the elements a window of %" PRId64 " with stride %" PRId64 " holds",
                  nm->op, nm->walked, count, i, allow_empty ? 0 : 1, reach, size, stride);
        start[i] = stride > 0 || size == 0 ? off : off + size - 1;
        step[i] = stride;
    }
    return DMLS_OK;
}

bool dmls_layout_injective(int32_t ndim, const int64_t *shape, const int64_t *strides) {
    uint64_t stride[DMLS_MAX_RANK], size[DMLS_MAX_RANK];
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0) return true; /* no elements, nothing can collide, whatever the strides */
    int n = 0;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 1) continue;
        if (strides[i] == 0) return false;
        stride[n] = dmls_abs_i64(strides[i]);
        size[n] = (uint64_t)shape[i];
        n++;
    }
    /* Decision (R-T-OUTLAYOUT): accept a layout when its dims, taken by
     * increasing |stride|, nest: each stride steps past everything the smaller
     * ones reach. That covers packed, padded, transposed and reversed layouts;
     * an interleaved layout that happens to be injective is rejected too,
     * because proving it in general is a knapsack problem. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && stride[j - 1] > stride[j]; j--) {
            uint64_t t = stride[j]; stride[j] = stride[j - 1]; stride[j - 1] = t;
            t = size[j]; size[j] = size[j - 1]; size[j - 1] = t;
        }
    uint64_t reach = 0; /* highest |offset| the smaller dims reach */
    for (int i = 0; i < n; i++) {
        if (stride[i] <= reach) return false;
        uint64_t extent;
        if (dmls_mul_u64(stride[i], size[i] - 1, &extent) || dmls_add_u64(reach, extent, &reach))
            return false;
    }
    return true;
}
