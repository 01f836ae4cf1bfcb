/*
 * dmlslice/dml.h: the DirectML path of dmlslice.
 *
 * The functions that take DirectML's own descriptors (DML_OPERATOR_DESC and
 * the DML_*_OPERATOR_DESC it points to, DML_FEATURE_LEVEL, the buffer tensor
 * types). This is the only dmlslice header that includes
 * <dmlslice/directml.h>, and with it Windows' integer names (UINT, INT,
 * UINT64) on other systems: include it only where DirectML descriptors are
 * written. The operator it creates is the same dmls_operator as the native
 * path's: query, execute and destroy it with <dmlslice/dmlslice.h>.
 */
#ifndef DMLSLICE_DML_H
#define DMLSLICE_DML_H

#include "directml.h"
#include "dmlslice.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * dmls_create_dml: validate a DirectML operator description at a feature
 * level and plan it.
 *   desc   DML_OPERATOR_DESC whose Type is DML_OPERATOR_SLICE, _SLICE1 or
 *          _SLICE_GRAD and whose Desc points to the matching struct.
 *   level  the DML_FEATURE_LEVEL to validate against (docs/spec.md section 4); an
 *          unlisted value is DMLS_ERROR_INVALID_ARGUMENT.
 *   op     receives the operator; set to NULL on failure.
 * Returns DMLS_OK, or the status of the first rule broken (docs/spec.md section 2),
 * with dmls_last_error() naming it. Reads the descriptor only during the
 * call; nothing of it is kept. Thread-safe.
 */
DMLS_API dmls_status dmls_create_dml(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level,
                                     dmls_operator **op);

/* dmls_create_dml, dmls_execute and dmls_destroy in one call, through the
 * same helpers. On failure nothing is written. */
DMLS_API dmls_status dmls_slice_dml(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level,
                                    const void *input, uint64_t input_bytes, void *output,
                                    uint64_t output_bytes);

/* ----------------------------------------------------- from 64-bit lists */

/* A buffer tensor for dmls_create_dml_lists, its values in 64 bits. */
typedef struct dmls_dml_tensor_lists {
    int32_t dimension_count; /* DimensionCount, 0 to DMLS_MAX_RANK */
    const int64_t *sizes;    /* dimension_count values */
    const int64_t *strides;  /* dimension_count values, in elements; NULL = packed */
    uint64_t total_bytes;    /* TotalTensorSizeInBytes; 0 = the least DirectML accepts
                              * (dmls_calc_buffer_tensor_size) */
    uint64_t alignment;      /* GuaranteedBaseOffsetAlignment (0 = none promised) */
} dmls_dml_tensor_lists;

/* A SLICE, SLICE1 or SLICE_GRAD operator as lists (the tool's options, the
 * Python package's sequences): the fields of its DML_*_OPERATOR_DESC. */
typedef struct dmls_dml_lists {
    DML_OPERATOR_TYPE type;          /* DML_OPERATOR_SLICE, _SLICE1 or _SLICE_GRAD */
    DML_TENSOR_DATA_TYPE data_type;  /* both tensors' DataType (Flags are NONE) */
    dmls_dml_tensor_lists input;     /* InputTensor; SLICE_GRAD: InputGradientTensor */
    dmls_dml_tensor_lists output;    /* OutputTensor; SLICE_GRAD: OutputGradientTensor */
    int32_t dimension_count;         /* DimensionCount, 0 to DMLS_MAX_RANK */
    const int64_t *offsets;          /* Offsets, or InputWindowOffsets */
    const int64_t *sizes;            /* Sizes, or InputWindowSizes */
    const int64_t *strides;          /* Strides (UINT), or InputWindowStrides (INT) */
} dmls_dml_lists;

/*
 * dmls_create_dml_lists: dmls_create_dml on the descriptor the lists
 * describe. Each value must fit its DirectML field, else nothing is
 * truncated and the call fails naming the field, the index and the value:
 * a tensor size below 0 is R-T-SIZES (DMLS_ERROR_INVALID_ARGUMENT), above
 * 2^32-1 R-T-ELEMS (DMLS_ERROR_OVERFLOW); a window value, a stride or an
 * alignment that does not fit is DMLS_ERROR_INVALID_ARGUMENT; more than
 * DMLS_MAX_RANK values in a list is R-OP-RANK (DMLS_ERROR_UNSUPPORTED), a
 * NULL list of one or more values R-OP-NULL. Then the descriptor is
 * validated at level and planned exactly as dmls_create_dml does (an
 * unknown type is its error too).
 *   lists  read only during the call.
 *   op     receives the operator; set to NULL on failure.
 * Returns DMLS_OK or the failure's status, with dmls_last_error() naming
 * it. Thread-safe.
 */
DMLS_API dmls_status dmls_create_dml_lists(const dmls_dml_lists *lists, DML_FEATURE_LEVEL level,
                                           dmls_operator **op);

/* ---------------------------------------------------------------- sizes */

/*
 * dmls_calc_buffer_tensor_size: DirectML's DMLCalcBufferTensorSize in 64
 * bits: the minimum TotalTensorSizeInBytes of a buffer tensor (R-T-TOTAL):
 *   packed:  roundup4(ceil(product(sizes) * bits / 8))
 *   strided: roundup4(ceil((dot(sizes - 1, strides) + 1) * bits / 8))
 * strides may be NULL (packed). Returns DMLS_ERROR_OVERFLOW where DirectML's
 * own helper would wrap, DMLS_ERROR_INVALID_ARGUMENT for an unknown data
 * type, a NULL array or a size of 0. *bytes is set only on success.
 */
DMLS_API dmls_status dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE data_type,
                                                  UINT dimension_count, const UINT *sizes,
                                                  const UINT *strides, uint64_t *bytes);

/* ------------------------------------------------------- feature levels */

/* The name DirectML gives a feature level ("4_1"), or NULL if not listed.
 * The string is static. Thread-safe. */
DMLS_API const char *dmls_feature_level_name(DML_FEATURE_LEVEL level);

/* How many DML_FEATURE_LEVEL values dmlslice knows (docs/spec.md
 * section 4). Thread-safe. */
DMLS_API size_t dmls_feature_level_count(void);

/* The index-th known feature level, oldest first (index 0 is 1_0 and
 * dmls_feature_level_count() - 1 the latest), or 0, which is no feature
 * level, when index is not below dmls_feature_level_count(). Thread-safe. */
DMLS_API DML_FEATURE_LEVEL dmls_feature_level_at(size_t index);

/*
 * dmls_feature_level_parse: a feature level written as text.
 *   text   NUL-terminated; exactly one of: a listed name ("6_4"), the same
 *          with a dot ("6.4"), or "0x" / "0X" and 1 to 8 hex digits whose
 *          value is listed ("0x6400"). Nothing before or after: no spaces,
 *          signs or suffixes.
 *   level  receives the level; untouched on failure.
 * Returns DMLS_OK, or DMLS_ERROR_INVALID_ARGUMENT (text or level NULL, or
 * text not a listed level) with dmls_last_error() quoting the text (its
 * first 32 bytes, non-printable bytes as '?') and listing the levels.
 * Reads at most 40 bytes of text. Thread-safe.
 */
DMLS_API dmls_status dmls_feature_level_parse(const char *text, DML_FEATURE_LEVEL *level);

#ifdef __cplusplus
}
#endif

#endif /* DMLSLICE_DML_H */
