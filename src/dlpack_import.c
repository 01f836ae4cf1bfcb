/* dlpack_import.c: a DLPack tensor as a byte-strided view
 * (include/dmlslice/view.h; docs/spec.md §5, R-V-DLPACK). */
#include <string.h>

#include "checked.h"
#include "error.h"

#include "dmlslice/view.h"

/* DLPack's integer and float codes by width; 0 where dmlslice names none. */
static dmls_dtype dtype_of(unsigned code, unsigned bits, unsigned lanes) {
    static const dmls_dtype by_code[3][4] = {
        {DMLS_INT8, DMLS_INT16, DMLS_INT32, DMLS_INT64},
        {DMLS_UINT8, DMLS_UINT16, DMLS_UINT32, DMLS_UINT64},
        {(dmls_dtype)0, DMLS_FLOAT16, DMLS_FLOAT32, DMLS_FLOAT64},
    };
    const int width = bits == 8 ? 0 : bits == 16 ? 1 : bits == 32 ? 2 : bits == 64 ? 3 : -1;
    return lanes == 1 && code < 3 && width >= 0 ? by_code[code][width] : (dmls_dtype)0;
}

static dmls_status import(const dmls_dlpack_tensor *t, dmls_dlpack_view *out) {
    RETURN_IF(!t || !out, DMLS_ERROR_INVALID_ARGUMENT, "R-V-DLPACK", "dlpack: the %s is NULL",
              t ? "result" : "tensor");
    RETURN_IF(t->ndim < 0 || t->ndim > DMLS_NUMPY_MAX_RANK, DMLS_ERROR_INVALID_ARGUMENT, "R-V-RANK",
              "dlpack: rank %d is outside [0, %d]", (int)t->ndim, DMLS_NUMPY_MAX_RANK);
    RETURN_IF(t->ndim > 0 && !t->shape, DMLS_ERROR_INVALID_ARGUMENT, "R-V-DLPACK", "dlpack: rank %d with a NULL shape",
              (int)t->ndim);
    const uint64_t bits = (uint64_t)t->dtype.bits * t->dtype.lanes;
    RETURN_IF(bits == 0 || bits % 8 != 0, DMLS_ERROR_INVALID_ARGUMENT, "R-V-DLPACK-TYPE",
              "dlpack: an element of %u bits x %u lanes is not whole bytes (type code %u)", t->dtype.bits,
              t->dtype.lanes, t->dtype.code);
    out->item_size = (int64_t)(bits / 8);
    out->dtype = dtype_of(t->dtype.code, t->dtype.bits, t->dtype.lanes);
    out->ndim = t->ndim;
    for (int i = 0; i < t->ndim; i++)
        RETURN_IF(t->shape[i] < 0, DMLS_ERROR_INVALID_ARGUMENT, "R-V-SIZES", "dlpack: shape[%d] = %lld is negative", i,
                  (long long)t->shape[i]);
    /* Without strides, axis i's is the product of the later sizes (a size
     * of 0 counted as 1, as the tensor is then empty anyway): that product
     * is checked as it grows, since a producer's sizes are untrusted. */
    int64_t packed = 1;
    for (int i = t->ndim - 1; i >= 0; i--) {
        const int64_t elements = t->strides ? t->strides[i] : packed;
        RETURN_IF(dmls_mul_i64(elements, out->item_size, &out->byte_strides[i]), DMLS_ERROR_OVERFLOW, "R-V-EXTENT",
                  "dlpack: stride[%d] = %lld elements of %lld bytes does not fit 64 bits", i, (long long)elements,
                  (long long)out->item_size);
        out->shape[i] = t->shape[i];
        if (!t->strides && dmls_mul_i64(packed, t->shape[i] > 0 ? t->shape[i] : 1, &packed))
            RETURN_IF(i > 0, DMLS_ERROR_OVERFLOW, "R-V-EXTENT", "dlpack: the sizes from axis %d on exceed 2^63 elements",
                      i);
    }
    const uintptr_t base = (uintptr_t)t->data;
    RETURN_IF(t->byte_offset > (uint64_t)(UINTPTR_MAX - base), DMLS_ERROR_OVERFLOW, "R-V-EXTENT",
              "dlpack: data %p + byte_offset %llu wraps around the address space", t->data,
              (unsigned long long)t->byte_offset);
    out->data = (void *)(base + (uintptr_t)t->byte_offset);
    out->device_type = t->device.device_type;
    out->device_id = t->device.device_id;
    return DMLS_OK;
}

dmls_status dmls_dlpack_import(const dmls_dlpack_tensor *t, dmls_dlpack_view *out) {
    dmls_clear_error();
    if (out) memset(out, 0, sizeof *out);
    const dmls_status s = import(t, out);
    if (s != DMLS_OK && out) memset(out, 0, sizeof *out);
    return s;
}
