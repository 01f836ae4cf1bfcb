/*
 * dmlslice/directml.h: DirectML-compatible descriptor types.
 *
 * The type names, enum values, field order and field types are those of
 * DirectML's DirectML.h, so descriptor code written for DirectML compiles
 * unchanged here. Only what the slice operators need is declared: the tensor
 * descriptions, the feature levels, and the SLICE, SLICE1 and SLICE_GRAD
 * operator descriptions. Do not include this header together with the real
 * DirectML.h in one translation unit: both define these names.
 *
 * The functions that take these descriptors live in <dmlslice/dml.h>
 * (dmls_create_dml, dmls_slice_dml, dmls_calc_buffer_tensor_size, the
 * feature levels' names and parsing), which includes this header.
 */
#ifndef DMLSLICE_DIRECTML_H
#define DMLSLICE_DIRECTML_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Windows' basic integer types. On Windows they are the system's own, from
 * <windows.h> as DirectML.h gets them (through d3d12.h), so code that mixes
 * these descriptors with Windows or Direct3D headers sees one definition of
 * each; elsewhere the same types are defined here. */
#if defined(_WIN32)
#include <windows.h>
#else
typedef unsigned int UINT;
typedef int INT;
typedef uint64_t UINT64;
#endif

/* Every buffer binding's offset is a multiple of this (R-X-ALIGN). */
#define DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT 16

/* Twin of dmlslice.h's dmls_dtype: the same values by design; dmlslice.h must not include this header. */
typedef enum DML_TENSOR_DATA_TYPE {
    DML_TENSOR_DATA_TYPE_UNKNOWN = 0,
    DML_TENSOR_DATA_TYPE_FLOAT32 = 1,
    DML_TENSOR_DATA_TYPE_FLOAT16 = 2,
    DML_TENSOR_DATA_TYPE_UINT32 = 3,
    DML_TENSOR_DATA_TYPE_UINT16 = 4,
    DML_TENSOR_DATA_TYPE_UINT8 = 5,
    DML_TENSOR_DATA_TYPE_INT32 = 6,
    DML_TENSOR_DATA_TYPE_INT16 = 7,
    DML_TENSOR_DATA_TYPE_INT8 = 8,
    DML_TENSOR_DATA_TYPE_FLOAT64 = 9,
    DML_TENSOR_DATA_TYPE_UINT64 = 10,
    DML_TENSOR_DATA_TYPE_INT64 = 11,
    DML_TENSOR_DATA_TYPE_UINT4 = 12, /* FL 6_3+; no slice operator accepts it */
    DML_TENSOR_DATA_TYPE_INT4 = 13   /* FL 6_3+; no slice operator accepts it */
} DML_TENSOR_DATA_TYPE;

typedef enum DML_TENSOR_TYPE {
    DML_TENSOR_TYPE_INVALID = 0,
    DML_TENSOR_TYPE_BUFFER = 1
} DML_TENSOR_TYPE;

typedef enum DML_TENSOR_FLAGS {
    DML_TENSOR_FLAG_NONE = 0x0,
    DML_TENSOR_FLAG_OWNED_BY_DML = 0x1
} DML_TENSOR_FLAGS;

typedef struct DML_BUFFER_TENSOR_DESC {
    DML_TENSOR_DATA_TYPE DataType;
    DML_TENSOR_FLAGS Flags;
    UINT DimensionCount;
    const UINT *Sizes;   /* DimensionCount entries */
    const UINT *Strides; /* DimensionCount entries, in elements; NULL = packed */
    UINT64 TotalTensorSizeInBytes;
    UINT GuaranteedBaseOffsetAlignment;
} DML_BUFFER_TENSOR_DESC;

typedef struct DML_TENSOR_DESC {
    DML_TENSOR_TYPE Type;
    const void *Desc; /* a DML_BUFFER_TENSOR_DESC for DML_TENSOR_TYPE_BUFFER */
} DML_TENSOR_DESC;

/* Only the slice operators are declared; the values are DirectML's. */
typedef enum DML_OPERATOR_TYPE {
    DML_OPERATOR_INVALID = 0,
    DML_OPERATOR_SLICE = 60,
    DML_OPERATOR_SLICE1 = 111,
    DML_OPERATOR_SLICE_GRAD = 135
} DML_OPERATOR_TYPE;

typedef struct DML_OPERATOR_DESC {
    DML_OPERATOR_TYPE Type;
    const void *Desc; /* the DML_*_OPERATOR_DESC that Type names */
} DML_OPERATOR_DESC;

typedef enum DML_FEATURE_LEVEL {
    DML_FEATURE_LEVEL_1_0 = 0x1000,
    DML_FEATURE_LEVEL_2_0 = 0x2000,
    DML_FEATURE_LEVEL_2_1 = 0x2100,
    DML_FEATURE_LEVEL_3_0 = 0x3000,
    DML_FEATURE_LEVEL_3_1 = 0x3100,
    DML_FEATURE_LEVEL_4_0 = 0x4000,
    DML_FEATURE_LEVEL_4_1 = 0x4100,
    DML_FEATURE_LEVEL_5_0 = 0x5000,
    DML_FEATURE_LEVEL_5_1 = 0x5100,
    DML_FEATURE_LEVEL_5_2 = 0x5200,
    DML_FEATURE_LEVEL_6_0 = 0x6000,
    DML_FEATURE_LEVEL_6_1 = 0x6100,
    DML_FEATURE_LEVEL_6_2 = 0x6200,
    DML_FEATURE_LEVEL_6_3 = 0x6300,
    DML_FEATURE_LEVEL_6_4 = 0x6400
} DML_FEATURE_LEVEL;

/* The three descriptors below are alike: each mirrors DirectML's own struct, so they stay apart. */
/* out[c] = in[Offsets + Strides * c]; Sizes must equal the output's sizes. */
typedef struct DML_SLICE_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *OutputTensor;
    UINT DimensionCount;
    const UINT *Offsets;
    const UINT *Sizes;
    const UINT *Strides;
} DML_SLICE_OPERATOR_DESC;

/* A window (offsets, sizes) walked with signed strides; a negative stride
 * starts at the window's end. */
typedef struct DML_SLICE1_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputTensor;
    const DML_TENSOR_DESC *OutputTensor;
    UINT DimensionCount;
    const UINT *InputWindowOffsets;
    const UINT *InputWindowSizes;
    const INT *InputWindowStrides;
} DML_SLICE1_OPERATOR_DESC;

/* The backward of SLICE1: zeros everywhere, then each input-gradient element
 * is written where SLICE1 would have read it from. */
typedef struct DML_SLICE_GRAD_OPERATOR_DESC {
    const DML_TENSOR_DESC *InputGradientTensor;
    const DML_TENSOR_DESC *OutputGradientTensor;
    UINT DimensionCount;
    const UINT *InputWindowOffsets;
    const UINT *InputWindowSizes;
    const INT *InputWindowStrides;
} DML_SLICE_GRAD_OPERATOR_DESC;

#ifdef __cplusplus
}
#endif

#endif /* DMLSLICE_DIRECTML_H */
