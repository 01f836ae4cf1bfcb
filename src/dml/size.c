/* DirectML's buffer size rule (docs/spec.md section 2, R-T-TOTAL): the
 * minimum TotalTensorSizeInBytes of a buffer tensor, for validation and for
 * the public dmls_calc_buffer_tensor_size. */
#include "checked.h"
#include "types.h"
#include "error.h"

unsigned dmls_dml_bits(DML_TENSOR_DATA_TYPE t) {
    switch (t) {
    case DML_TENSOR_DATA_TYPE_UINT4: case DML_TENSOR_DATA_TYPE_INT4: return 4;
    case DML_TENSOR_DATA_TYPE_UINT8: case DML_TENSOR_DATA_TYPE_INT8: return 8;
    case DML_TENSOR_DATA_TYPE_FLOAT16: case DML_TENSOR_DATA_TYPE_UINT16: case DML_TENSOR_DATA_TYPE_INT16: return 16;
    case DML_TENSOR_DATA_TYPE_FLOAT32: case DML_TENSOR_DATA_TYPE_UINT32: case DML_TENSOR_DATA_TYPE_INT32: return 32;
    case DML_TENSOR_DATA_TYPE_FLOAT64: case DML_TENSOR_DATA_TYPE_UINT64: case DML_TENSOR_DATA_TYPE_INT64: return 64;
    case DML_TENSOR_DATA_TYPE_UNKNOWN: break;
    }
    return 0;
}


dmls_status dmls_dml_implied_size(const char *op, const char *tensor, DML_TENSOR_DATA_TYPE type,
                                UINT n, const UINT *sizes, const UINT *strides, uint64_t *bytes) {
    const unsigned bits = dmls_dml_bits(type);
    uint64_t elements = 1; /* packed: the count; strided: the last index + 1 */
    bool overflow = false;
    if (strides == NULL) {
        for (UINT i = 0; i < n; i++) overflow |= dmls_mul_u64(elements, sizes[i], &elements);
    } else {
        uint64_t last = 0, term;
        for (UINT i = 0; i < n; i++) {
            overflow |= dmls_mul_u64((uint64_t)sizes[i] - 1, strides[i], &term);
            overflow |= dmls_add_u64(last, term, &term);
            last = term;
        }
        overflow |= dmls_add_u64(last, 1, &elements);
    }
    uint64_t total_bits = 0;
    overflow |= dmls_mul_u64(elements, bits, &total_bits);
    uint64_t b = total_bits / 8 + (total_bits % 8 != 0);
    overflow |= dmls_add_u64(b, 3, &b);
    /* Byte addresses must also fit the planner's signed 64-bit arithmetic. */
    overflow |= (b & ~(uint64_t)3) > (uint64_t)INT64_MAX;
    RETURN_IF(overflow, DMLS_ERROR_OVERFLOW, "R-T-TOTAL",
              "%s: %s%sminimum buffer size overflows 64 bits (sizes and strides too large)", op,
              tensor ? tensor : "", tensor ? ": " : "");
    *bytes = b & ~(uint64_t)3;
    return DMLS_OK;
}

dmls_status dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE data_type, UINT dimension_count,
                                         const UINT *sizes, const UINT *strides, uint64_t *bytes) {
    dmls_clear_error();
    RETURN_IF(dmls_dml_bits(data_type) == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-T-DTYPE",
              "calc_buffer_tensor_size: DataType %u is not a known data type", (unsigned)data_type);
    RETURN_IF(dimension_count > 0 && sizes == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "calc_buffer_tensor_size: Sizes is NULL with DimensionCount %u", dimension_count);
    RETURN_IF(bytes == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "calc_buffer_tensor_size: bytes is NULL");
    for (UINT i = 0; i < dimension_count; i++)
        RETURN_IF(sizes[i] == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-T-SIZES",
                  "calc_buffer_tensor_size: Sizes[%u] = 0; every size must be at least 1", i);
    return dmls_dml_implied_size("calc_buffer_tensor_size", NULL, data_type, dimension_count, sizes, strides, bytes);
}

