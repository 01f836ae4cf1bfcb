/* The native path's validator: DLPack-shaped views with 64-bit sizes and
 * signed 64-bit strides (docs/spec.md section 5). Same semantics as SLICE1,
 * DirectML's size limits lifted, every address computed with overflow
 * checks. Turns the views into a problem and its buffer needs and allocates
 * nothing; create.c builds the operator. */
#include <inttypes.h>
#include <string.h>

#include "checked.h"
#include "error.h"
#include "validate.h"

/* Resolves a view into a layout and the bytes a buffer needs to hold it. */
static dmls_status check_view(const char *op, const char *role, bool is_output, const dmls_tensor *t,
                              size_t esize, dmls_layout *layout, uint64_t *needed) {
    memset(layout, 0, sizeof *layout);
    RETURN_IF(t->ndim > 0 && t->shape == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "%s: %s.shape is NULL with ndim %d", op, role, (int)t->ndim);
    RETURN_IF(t->byte_offset > (uint64_t)INT64_MAX, DMLS_ERROR_OVERFLOW, "R-T-TOTAL",
              "%s: %s.byte_offset = %" PRIu64 " exceeds 2^63-1", op, role, t->byte_offset);
    bool empty = false;
    int64_t count = 1;
    for (int i = 0; i < t->ndim; i++) {
        RETURN_IF(t->shape[i] < 0, DMLS_ERROR_INVALID_ARGUMENT, "R-T-SIZES",
                  "%s: %s.shape[%d] = %" PRId64 " is negative", op, role, i, t->shape[i]);
        RETURN_IF(dmls_mul_i64(count, t->shape[i], &count), DMLS_ERROR_OVERFLOW, "R-T-ELEMS",
                  "%s: %s has more than 2^63-1 elements", op, role);
        empty |= t->shape[i] == 0;
        layout->shape[i] = t->shape[i];
    }
    /* Packed strides are computed even for empty tensors, for the planner. */
    int64_t packed = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        layout->strides[i] = t->strides ? t->strides[i] : packed;
        int64_t extent = t->shape[i] > 0 ? t->shape[i] : 1;
        if (dmls_mul_i64(packed, extent, &packed)) packed = INT64_MAX; /* only reached when empty */
    }
    layout->byte_offset = (int64_t)t->byte_offset;
    if (empty) {
        *needed = 0;
        return DMLS_OK;
    }
    /* lo/hi: the lowest and highest element offsets the view reaches. */
    int64_t lo = 0, hi = 0, reach;
    for (int i = 0; i < t->ndim; i++) {
        bool bad = dmls_mul_i64(layout->strides[i], t->shape[i] - 1, &reach) ||
                   (reach < 0 ? dmls_add_i64(lo, reach, &lo) : dmls_add_i64(hi, reach, &hi));
        RETURN_IF(bad, DMLS_ERROR_OVERFLOW, "R-T-TOTAL",
                  "%s: %s.strides[%d] = %" PRId64 " times shape - 1 = %" PRId64 " overflows 64 bits", op, role,
                  i, layout->strides[i], t->shape[i] - 1);
    }
    int64_t lo_bytes, hi_elements, hi_bytes, end;
    RETURN_IF(dmls_mul_i64(lo, (int64_t)esize, &lo_bytes) || dmls_add_i64(hi, 1, &hi_elements) ||
                  dmls_mul_i64(hi_elements, (int64_t)esize, &hi_bytes) ||
                  dmls_add_i64(hi_bytes, layout->byte_offset, &end),
              DMLS_ERROR_OVERFLOW, "R-T-TOTAL", "%s: %s spans more bytes than 64 bits address", op, role);
    RETURN_IF(layout->byte_offset + lo_bytes < 0, DMLS_ERROR_OUT_OF_BOUNDS, "R-T-TOTAL",
              "%s: %s reaches %" PRId64 " bytes before its base (byte_offset %" PRIu64
              " is too small for its negative strides)",
              op, role, -(layout->byte_offset + lo_bytes), t->byte_offset);
    RETURN_IF(is_output && !dmls_layout_injective(t->ndim, layout->shape, layout->strides),
              DMLS_ERROR_INVALID_ARGUMENT, "R-T-OUTLAYOUT",
              "%s: %s.strides map two coordinates to one element (zero or overlapping strides)", op, role);
    *needed = (uint64_t)end;
    return DMLS_OK;
}

dmls_status dmls_validate_native(bool grad, const dmls_tensor *input, const dmls_tensor *output,
                                 const dmls_window *w, dmls_problem *p, dmls_buffer_needs *needs) {
    const char *name = grad ? "slice_grad" : "slice";
    const char *in_role = grad ? "input_grad" : "input", *out_role = grad ? "output_grad" : "output";
    RETURN_IF(input == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: %s is NULL", name, in_role);
    RETURN_IF(output == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: %s is NULL", name, out_role);
    const size_t esize = dmls_dtype_size(input->dtype);
    RETURN_IF(esize == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-T-DTYPE", "%s: %s.dtype = %d is not a known data type",
              name, in_role, (int)input->dtype);
    RETURN_IF(dmls_dtype_size(output->dtype) == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-T-DTYPE",
              "%s: %s.dtype = %d is not a known data type", name, out_role, (int)output->dtype);
    RETURN_IF(input->dtype != output->dtype, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-TYPE",
              "%s: %s.dtype %s differs from %s.dtype %s", name, in_role, dmls_dtype_name(input->dtype), out_role,
              dmls_dtype_name(output->dtype));
    RETURN_IF(input->ndim < 0 || input->ndim > DMLS_MAX_RANK, DMLS_ERROR_UNSUPPORTED, "R-OP-RANK",
              "%s: %s.ndim = %d is outside 0 to %d", name, in_role, (int)input->ndim, DMLS_MAX_RANK);
    RETURN_IF(output->ndim != input->ndim, DMLS_ERROR_SHAPE_MISMATCH, "R-OP-RANK",
              "%s: %s.ndim = %d differs from %s.ndim = %d", name, out_role, (int)output->ndim, in_role,
              (int)input->ndim);
    const int32_t n = input->ndim;
    RETURN_IF(n > 0 && (w == NULL || w->offsets == NULL || w->sizes == NULL || w->strides == NULL),
              DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: %s is NULL with ndim %d", name,
              w == NULL                ? "window"
              : w->offsets == NULL     ? "window offsets"
              : w->sizes == NULL       ? "window sizes"
                                       : "window strides",
              (int)n);

    memset(p, 0, sizeof *p);
    memset(needs, 0, sizeof *needs); /* no alignment promise on this path */
    p->name = name;
    p->kind = grad ? DMLS_KIND_GRAD : DMLS_KIND_SLICE;
    p->ndim = n;
    p->esize = (int32_t)esize;
    RETURN_IF_ERROR(check_view(name, in_role, false, input, esize, &p->in, &needs->in_bytes));
    RETURN_IF_ERROR(check_view(name, out_role, true, output, esize, &p->out, &needs->out_bytes));
    const dmls_names nm = {name, "window.offsets", "window.sizes", "window.strides",
                           grad ? out_role : in_role, grad ? in_role : out_role};
    const dmls_layout *windowed = grad ? &p->out : &p->in, *walked = grad ? &p->in : &p->out;
    if (n > 0)
        RETURN_IF_ERROR(dmls_check_window(&nm, n, w->offsets, w->sizes, w->strides, windowed->shape,
                                          walked->shape, true, p->start, p->step));
    return DMLS_OK;
}
