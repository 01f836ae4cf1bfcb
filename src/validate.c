/* The SLICE1 window rules, shared by SLICE1 and SLICE_GRAD on both paths. */
#include <inttypes.h>

#include "checked.h"
#include "error.h"
#include "validate.h"

dmls_status dmls_check_window(const dmls_names *nm, int32_t ndim, const int64_t *offsets,
                              const int64_t *sizes, const int64_t *strides,
                              const int64_t *big_shape, const int64_t *small_shape,
                              bool allow_empty, int64_t *start, int64_t *step) {
    for (int i = 0; i < ndim; i++) {
        const int64_t off = offsets[i], size = sizes[i], stride = strides[i];
        const int64_t dim = big_shape[i], count = small_shape[i];
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
                  nm->op, nm->offsets, i, nm->sizes, i, off, size, end, nm->big, dim);
        /* |stride| is meant where the seed writes the raw stride. */
        const uint64_t reach = size == 0 ? 0 : 1 + (uint64_t)(size - 1) / dmls_abs_i64(stride);
        RETURN_IF(count < (allow_empty ? 0 : 1) || (uint64_t)count > reach, DMLS_ERROR_SHAPE_MISMATCH,
                  "R-WIN-COUNT",
                  "%s: %s size %" PRId64 " in dimension %d is outside [%d, %" PRIu64
                  "], the elements a window of %" PRId64 " with stride %" PRId64 " holds",
                  nm->op, nm->small, count, i, allow_empty ? 0 : 1, reach, size, stride);
        start[i] = stride > 0 || size == 0 ? off : off + size - 1;
        step[i] = stride;
    }
    return DMLS_OK;
}
