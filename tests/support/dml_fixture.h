/* A valid DirectML descriptor of each slice operator, for tests to mutate:
 * the worked examples' input (1x1x4x4 FLOAT32 holding 1..16) and SLICE1
 * example 1's window. fixture_init makes it valid; fixture_op points at the operator. */
#ifndef DMLS_DML_FIXTURE_H
#define DMLS_DML_FIXTURE_H

#include <stdbool.h>
#include <string.h>

#include "dmlslice/dml.h"

typedef struct fixture {
    UINT n;
    UINT in_sizes[8], out_sizes[8], in_strides[8], out_strides[8];
    DML_BUFFER_TENSOR_DESC in_buf, out_buf;
    DML_TENSOR_DESC in, out;
    UINT offsets[8], sizes[8], slice_strides[8];
    INT strides[8];
    DML_SLICE_OPERATOR_DESC slice;
    DML_SLICE1_OPERATOR_DESC slice1;
    DML_SLICE_GRAD_OPERATOR_DESC grad;
    DML_OPERATOR_DESC op;
} fixture;

/* Recomputes TotalTensorSizeInBytes from sizes/strides (after a mutation). */
static inline void fixture_sizes(fixture *f) {
    uint64_t b = 0;
    if (dmls_calc_buffer_tensor_size(f->in_buf.DataType, f->in_buf.DimensionCount, f->in_sizes,
                                     f->in_buf.Strides, &b) == DMLS_OK)
        f->in_buf.TotalTensorSizeInBytes = b;
    if (dmls_calc_buffer_tensor_size(f->out_buf.DataType, f->out_buf.DimensionCount, f->out_sizes,
                                     f->out_buf.Strides, &b) == DMLS_OK)
        f->out_buf.TotalTensorSizeInBytes = b;
}

/* type: DML_OPERATOR_SLICE, _SLICE1 or _SLICE_GRAD. For SLICE the window is
 * offsets {0,0,1,0}, sizes {1,1,2,2}, strides {1,1,2,3} (SLICE example 2);
 * for SLICE_GRAD the tensors swap roles: a 1x1x2x2 input gradient scattered
 * into a 1x1x4x4 output gradient. */
static inline void fixture_init(fixture *f, DML_OPERATOR_TYPE type) {
    memset(f, 0, sizeof *f);
    f->n = 4;
    const UINT big[4] = {1, 1, 4, 4}, small[4] = {1, 1, 2, 2};
    const bool grad = type == DML_OPERATOR_SLICE_GRAD;
    memcpy(f->in_sizes, grad ? small : big, sizeof big);
    memcpy(f->out_sizes, grad ? big : small, sizeof big);
    f->in_buf = (DML_BUFFER_TENSOR_DESC){DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, f->in_sizes, NULL, 0, 0};
    f->out_buf = (DML_BUFFER_TENSOR_DESC){DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, f->out_sizes, NULL, 0, 0};
    f->in = (DML_TENSOR_DESC){DML_TENSOR_TYPE_BUFFER, &f->in_buf};
    f->out = (DML_TENSOR_DESC){DML_TENSOR_TYPE_BUFFER, &f->out_buf};
    if (type == DML_OPERATOR_SLICE) {
        const UINT o[4] = {0, 0, 1, 0}, s[4] = {1, 1, 2, 2}, st[4] = {1, 1, 2, 3};
        memcpy(f->offsets, o, sizeof o);
        memcpy(f->sizes, s, sizeof s);
        memcpy(f->slice_strides, st, sizeof st);
    } else {
        const UINT o[4] = {0, 0, 0, 1}, s[4] = {1, 1, 4, 3};
        const INT st[4] = {1, 1, 2, 2};
        memcpy(f->offsets, o, sizeof o);
        memcpy(f->sizes, s, sizeof s);
        memcpy(f->strides, st, sizeof st);
    }
    f->slice = (DML_SLICE_OPERATOR_DESC){&f->in, &f->out, 4, f->offsets, f->sizes, f->slice_strides};
    f->slice1 = (DML_SLICE1_OPERATOR_DESC){&f->in, &f->out, 4, f->offsets, f->sizes, f->strides};
    f->grad = (DML_SLICE_GRAD_OPERATOR_DESC){&f->in, &f->out, 4, f->offsets, f->sizes, f->strides};
    f->op.Type = type;
    f->op.Desc = type == DML_OPERATOR_SLICE ? (const void *)&f->slice
                 : type == DML_OPERATOR_SLICE1 ? (const void *)&f->slice1
                                               : (const void *)&f->grad;
    fixture_sizes(f);
}

/* Sets the operator's and both tensors' DimensionCount to n. */
static inline void fixture_rank(fixture *f, UINT n) {
    f->n = n;
    f->in_buf.DimensionCount = f->out_buf.DimensionCount = n;
    f->slice.DimensionCount = f->slice1.DimensionCount = f->grad.DimensionCount = n;
}

/* create_dml on the fixture; destroys any operator made. */
static inline dmls_status fixture_create(fixture *f, DML_FEATURE_LEVEL level) {
    dmls_operator *op = NULL;
    dmls_status s = dmls_create_dml(&f->op, level, &op);
    dmls_destroy(op);
    return s;
}

#endif
