/*
 * dml.c: DirectML's slice operators from their descriptors. The
 * parameters are built into DML_*_OPERATOR_DESC structures and validated by
 * the library as DirectML validates them at the asked feature level; a
 * valid descriptor lowers to a lowered slice.
 */
#include "array_view.h"
#include "dml_params.h"
#include "errors.h"
#include "lowering.h"

#include <stdio.h>
#include <string.h>

#include <dmlslice/dml.h>
#include <dmlslice/dmlslice.h>

static const char *const op_names[] = {"SLICE", "SLICE1", "SLICE_GRAD"};

static int dml_data_type(const dml_params *d, DML_TENSOR_DATA_TYPE *t) {
    static const DML_TENSOR_DATA_TYPE by_size[4][4] = {
        /* 1, 2, 4, 8 bytes */
        {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT32,
         DML_TENSOR_DATA_TYPE_UINT64}, /* CLS_OTHER: the bits as unsigned */
        {DML_TENSOR_DATA_TYPE_INT8, DML_TENSOR_DATA_TYPE_INT16, DML_TENSOR_DATA_TYPE_INT32, DML_TENSOR_DATA_TYPE_INT64},
        {DML_TENSOR_DATA_TYPE_UINT8, DML_TENSOR_DATA_TYPE_UINT16, DML_TENSOR_DATA_TYPE_UINT32,
         DML_TENSOR_DATA_TYPE_UINT64},
        {DML_TENSOR_DATA_TYPE_UNKNOWN, DML_TENSOR_DATA_TYPE_FLOAT16, DML_TENSOR_DATA_TYPE_FLOAT32,
         DML_TENSOR_DATA_TYPE_FLOAT64},
    };
    int64_t size = d->itemsize, cls = d->dtype_class;
    if (d->any_itemsize && size != 1 && size != 2 && size != 4 && size != 8) {
        /* An array of elements DirectML has no type for (complex128, a
         * record): its parameters are checked on the element's parts. */
        size = size & -size;
        size = size > 8 ? 8 : size;
        cls = CLS_OTHER;
    }
    int col = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : -1;
    if (col < 0 || by_size[cls][col] == DML_TENSOR_DATA_TYPE_UNKNOWN) {
        ext_raise(ERR_DTYPE, "DMLS_ERROR_UNSUPPORTED", "R-T-DTYPE",
                  "%s: DirectML has no data type for %lld-byte elements of this kind", op_names[d->op],
                  (long long)d->itemsize);
        return -1;
    }
    *t = by_size[cls][col];
    return 0;
}

/* The output count of a window axis, or 1 where the window is itself
 * invalid (the rules then name the window, not the output). */
static int64_t window_count(int64_t size, int64_t stride) {
    if (size < 1 || stride == 0) return 1;
    uint64_t a = stride < 0 ? 0 - (uint64_t)stride : (uint64_t)stride;
    return (int64_t)(1 + (uint64_t)(size - 1) / a);
}

/* The library checks each value against its 32-bit DirectML field
 * (dmls_create_dml_lists), then validates as DirectML does. */
static int dml_validate(const dml_params *d, const dml_tensor_args *in, const dml_tensor_args *out,
                        dmls_operator **keep) {
    static const DML_OPERATOR_TYPE types[] = {DML_OPERATOR_SLICE, DML_OPERATOR_SLICE1, DML_OPERATOR_SLICE_GRAD};
    DML_TENSOR_DATA_TYPE type;
    if (dml_data_type(d, &type) < 0) return -1;
    const dmls_dml_lists lists = {
        types[d->op],
        type,
        {in->ndim, in->sizes, in->has_strides ? in->strides : NULL, in->total_bytes, in->alignment},
        {out->ndim, out->sizes, out->has_strides ? out->strides : NULL, out->total_bytes, out->alignment},
        d->n,
        d->offsets,
        d->sizes,
        d->strides};
    dmls_operator *op = NULL;
    dmls_status st = dmls_create_dml_lists(&lists, (DML_FEATURE_LEVEL)d->level, &op);
    if (st != DMLS_OK) {
        ext_raise_status(st);
        return -1;
    }
    if (keep)
        *keep = op;
    else
        dmls_destroy(op);
    return 0;
}

int dml_lower(int ndim, const int64_t *shape, const dml_params *d, lowered *p) {
    dml_tensor_args fwd = {.ndim = ndim}, other = {.ndim = d->n};
    memcpy(fwd.sizes, shape, sizeof(int64_t) * (size_t)ndim);
    for (int i = 0; i < d->n; i++)
        other.sizes[i] = d->op == DML_SLICE ? d->sizes[i] : window_count(d->sizes[i], d->strides[i]);
    int rc = d->op == DML_SLICE_GRAD ? dml_validate(d, &other, &fwd, NULL) : dml_validate(d, &fwd, &other, NULL);
    if (rc < 0) return -1;
    /* Valid: DimensionCount equals the rank, every window lies inside. */
    memset(p, 0, sizeof *p);
    p->grad = d->op == DML_SLICE_GRAD;
    p->ndim = ndim;
    for (int i = 0; i < ndim; i++) {
        p->offsets[i] = d->offsets[i];
        p->wstrides[i] = d->strides[i];
        p->wsizes[i] = d->op == DML_SLICE ? (d->sizes[i] - 1) * d->strides[i] + 1 : d->sizes[i];
        p->out_sizes[i] = other.sizes[i];
        p->in_shape[i] = p->grad ? other.sizes[i] : shape[i];
        p->final_shape[i] = p->grad ? shape[i] : other.sizes[i];
    }
    p->final_ndim = ndim;
    return 0;
}

int dml_check(const dml_params *d, const dml_tensor_args *in, const dml_tensor_args *out, int *rank, int64_t *shape) {
    dmls_operator *op = NULL;
    if (dml_validate(d, in, out, &op) < 0) return -1;
    *rank = dmls_output_rank(op);
    dmls_output_shape(op, shape);
    dmls_destroy(op);
    return 0;
}
