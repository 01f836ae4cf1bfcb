/* DirectML's data types and feature levels as the DirectML path needs them:
 * the feature level table (docs/spec.md section 4) and the buffer size rule
 * (R-T-TOTAL, section 2). Used by validate_dml.c; the public entry points
 * they back are dmls_feature_level_name and dmls_calc_buffer_tensor_size. */
#ifndef DMLS_DML_TYPES_H
#define DMLS_DML_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "dmlslice/dml.h"

#define DMLS_TYPE_BIT(t) (1u << (t))

/* One row of the feature level table: from this level on, these ranks and
 * types (a mask of DMLS_TYPE_BIT(DML_TENSOR_DATA_TYPE)). */
typedef struct dmls_dml_support {
    DML_FEATURE_LEVEL from;
    int min_rank, max_rank;
    unsigned types;
} dmls_dml_support;

/* The row in force for operator type op at level, or NULL when the operator
 * does not exist yet there; *introduced (may be NULL) gets the level that
 * brought the operator in. */
const dmls_dml_support *dmls_dml_support_at(DML_OPERATOR_TYPE op, DML_FEATURE_LEVEL level,
                                            DML_FEATURE_LEVEL *introduced);

/* "FLOAT32", or "?" for a value not listed. */
const char *dmls_dml_type_name(unsigned type);

/* "FLOAT64, FLOAT32, ..." for a type mask, into buf (truncated to cap). */
const char *dmls_dml_type_list(unsigned mask, char *buf, size_t cap);

/* Bits per element, or 0 for a value that is not a data type. */
unsigned dmls_dml_bits(DML_TENSOR_DATA_TYPE type);

/* R-T-TOTAL in 64 bits: the minimum TotalTensorSizeInBytes of a buffer
 * tensor. Fails with DMLS_ERROR_OVERFLOW, naming op and (when not NULL)
 * tensor, where the size would not fit the planner's signed 64 bits. */
dmls_status dmls_dml_implied_size(const char *op, const char *tensor, DML_TENSOR_DATA_TYPE type, UINT n,
                                  const UINT *sizes, const UINT *strides, uint64_t *bytes);

#endif
