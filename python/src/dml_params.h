/* dml_params.h: DirectML descriptors validated, feature levels (dml.c). */
#ifndef DMLSLICE_PY_DML_PARAMS_H
#define DMLSLICE_PY_DML_PARAMS_H

#include <Python.h>
#include <stddef.h>
#include <stdint.h>

#include "array_view.h"
#include "lowering.h"

enum { DML_SLICE = 0, DML_SLICE1 = 1, DML_SLICE_GRAD = 2 };

/* DirectML parameters, validated as DirectML does at feature level `level`
 * (a DML_FEATURE_LEVEL value) on packed descriptors of `shape`. For
 * SLICE_GRAD, shape is the forward input's (the result's). n is the number of
 * values in offsets, sizes and strides (DimensionCount). */
typedef struct dml_params {
    int op; /* DML_SLICE, DML_SLICE1, DML_SLICE_GRAD */
    int level;
    int dtype_class;
    int64_t itemsize;
    int any_itemsize; /* an array's elements: sizes DirectML lacks are checked as their parts */
    int n;
    int64_t offsets[EXT_MAX_RANK];
    int64_t sizes[EXT_MAX_RANK];
    int64_t strides[EXT_MAX_RANK];
} dml_params;
int dml_lower(int ndim, const int64_t *shape, const dml_params *d, lowered *p);

/* A full DirectML descriptor without data: in/out sizes, optional strides
 * (NULL: packed), total sizes (0: the least), alignment. Writes the output
 * tensor's rank and sizes. */
typedef struct dml_tensor_args {
    int ndim;
    int64_t sizes[EXT_MAX_RANK];
    int has_strides;
    int64_t strides[EXT_MAX_RANK];
    uint64_t total_bytes;
    uint64_t alignment;
} dml_tensor_args;
int dml_check(const dml_params *d, const dml_tensor_args *in, const dml_tensor_args *out, int *rank, int64_t *shape);

#endif /* DMLSLICE_PY_DML_PARAMS_H */
