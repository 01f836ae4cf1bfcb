/*
 * dml.c: DirectML's slice operators from their descriptors. The
 * parameters are built into DML_*_OPERATOR_DESC structures and validated by
 * the library as DirectML validates them at the asked feature level; a
 * valid descriptor lowers to a plan. Also DirectML's feature levels by name.
 */
#include "ext.h"

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

/* A value of a DirectML UINT or INT array, range-checked. */
static int dml_value(const dml_params *d, const char *field, int i, int64_t v, int is_signed, UINT *u) {
    if (is_signed ? (v < INT32_MIN || v > INT32_MAX) : (v < 0 || v > (int64_t)UINT32_MAX)) {
        ext_raise(ERR_ARGUMENT, "DMLS_ERROR_INVALID_ARGUMENT", "", "%s: %s[%d] = %lld does not fit DirectML's %s",
                  op_names[d->op], field, i, (long long)v, is_signed ? "INT" : "UINT");
        return -1;
    }
    *u = (UINT)(uint32_t)(int32_t)v;
    return 0;
}

typedef struct dml_storage {
    UINT in_sizes[EXT_MAX_RANK], out_sizes[EXT_MAX_RANK];
    UINT in_strides[EXT_MAX_RANK], out_strides[EXT_MAX_RANK];
    UINT offsets[EXT_MAX_RANK], sizes[EXT_MAX_RANK], strides[EXT_MAX_RANK];
    DML_BUFFER_TENSOR_DESC in_buf, out_buf;
    DML_TENSOR_DESC in_t, out_t;
    union {
        DML_SLICE_OPERATOR_DESC slice;
        DML_SLICE1_OPERATOR_DESC slice1;
        DML_SLICE_GRAD_OPERATOR_DESC grad;
    } u;
    DML_OPERATOR_DESC desc;
} dml_storage;

static int dml_tensor(const dml_params *d, const char *which, const dml_tensor_args *a, DML_TENSOR_DATA_TYPE type,
                      UINT *sizes, UINT *strides, DML_BUFFER_TENSOR_DESC *buf, DML_TENSOR_DESC *t) {
    for (int i = 0; i < a->ndim; i++) {
        char field[64];
        snprintf(field, sizeof field, "%s Sizes", which);
        if (dml_value(d, field, i, a->sizes[i], 0, &sizes[i]) < 0) return -1;
        if (a->has_strides) {
            snprintf(field, sizeof field, "%s Strides", which);
            if (dml_value(d, field, i, a->strides[i], 0, &strides[i]) < 0) return -1;
        }
    }
    memset(buf, 0, sizeof *buf);
    buf->DataType = type;
    buf->DimensionCount = (UINT)a->ndim;
    buf->Sizes = sizes;
    buf->Strides = a->has_strides ? strides : NULL;
    buf->TotalTensorSizeInBytes = a->total_bytes;
    buf->GuaranteedBaseOffsetAlignment = (UINT)a->alignment;
    if (a->total_bytes == 0) {
        uint64_t bytes = 0;
        /* Where DirectML's own helper cannot size it, leave 0 for the rules
         * to name (R-T-TOTAL, R-T-SIZES). */
        if (dmls_calc_buffer_tensor_size(type, (UINT)a->ndim, sizes, buf->Strides, &bytes) == DMLS_OK)
            buf->TotalTensorSizeInBytes = bytes;
    }
    t->Type = DML_TENSOR_TYPE_BUFFER;
    t->Desc = buf;
    return 0;
}

static int dml_build(const dml_params *d, const dml_tensor_args *in, const dml_tensor_args *out, dml_storage *s) {
    DML_TENSOR_DATA_TYPE type;
    if (dml_data_type(d, &type) < 0) return -1;
    int sgn = d->op != DML_SLICE;
    const char *win = d->op == DML_SLICE ? "" : "InputWindow";
    char f_off[32], f_size[32], f_str[32];
    snprintf(f_off, sizeof f_off, "%sOffsets", win);
    snprintf(f_size, sizeof f_size, "%sSizes", win);
    snprintf(f_str, sizeof f_str, "%sStrides", win);
    for (int i = 0; i < d->n; i++) {
        if (dml_value(d, f_off, i, d->offsets[i], 0, &s->offsets[i]) < 0 ||
            dml_value(d, f_size, i, d->sizes[i], 0, &s->sizes[i]) < 0 ||
            dml_value(d, f_str, i, d->strides[i], sgn, &s->strides[i]) < 0)
            return -1;
    }
    const char *in_name = d->op == DML_SLICE_GRAD ? "InputGradientTensor" : "InputTensor";
    const char *out_name = d->op == DML_SLICE_GRAD ? "OutputGradientTensor" : "OutputTensor";
    if (dml_tensor(d, in_name, in, type, s->in_sizes, s->in_strides, &s->in_buf, &s->in_t) < 0 ||
        dml_tensor(d, out_name, out, type, s->out_sizes, s->out_strides, &s->out_buf, &s->out_t) < 0)
        return -1;
    UINT n = (UINT)d->n;
    if (d->op == DML_SLICE) {
        s->u.slice = (DML_SLICE_OPERATOR_DESC){&s->in_t, &s->out_t, n, s->offsets, s->sizes, s->strides};
        s->desc.Type = DML_OPERATOR_SLICE;
    } else if (d->op == DML_SLICE1) {
        s->u.slice1 = (DML_SLICE1_OPERATOR_DESC){&s->in_t, &s->out_t, n, s->offsets, s->sizes, (const INT *)s->strides};
        s->desc.Type = DML_OPERATOR_SLICE1;
    } else {
        s->u.grad =
            (DML_SLICE_GRAD_OPERATOR_DESC){&s->in_t, &s->out_t, n, s->offsets, s->sizes, (const INT *)s->strides};
        s->desc.Type = DML_OPERATOR_SLICE_GRAD;
    }
    s->desc.Desc = &s->u;
    return 0;
}

/* The output count of a window axis, or 1 where the window is itself
 * invalid (the rules then name the window, not the output). */
static int64_t window_count(int64_t size, int64_t stride) {
    if (size < 1 || stride == 0) return 1;
    uint64_t a = stride < 0 ? 0 - (uint64_t)stride : (uint64_t)stride;
    return (int64_t)(1 + (uint64_t)(size - 1) / a);
}

static int dml_validate(const dml_params *d, const dml_tensor_args *in, const dml_tensor_args *out,
                        dmls_operator **keep) {
    dml_storage s;
    if (dml_build(d, in, out, &s) < 0) return -1;
    dmls_operator *op = NULL;
    dmls_status st = dmls_create_dml(&s.desc, (DML_FEATURE_LEVEL)d->level, &op);
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

int dml_lower(int ndim, const int64_t *shape, const dml_params *d, plan *p) {
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

static const int all_levels[] = {0x1000, 0x2000, 0x2100, 0x3000, 0x3100, 0x4000, 0x4100, 0x5000,
                                 0x5100, 0x5200, 0x6000, 0x6100, 0x6200, 0x6300, 0x6400};

const char *dml_feature_level_name(int level) { return dmls_feature_level_name((DML_FEATURE_LEVEL)level); }

int dml_feature_level(const char *name) {
    char want[16];
    size_t n = strlen(name);
    if (n >= sizeof want) return -1;
    for (size_t i = 0; i <= n; i++) want[i] = name[i] == '.' ? '_' : name[i];
    for (size_t i = 0; i < sizeof all_levels / sizeof *all_levels; i++) {
        const char *s = dmls_feature_level_name((DML_FEATURE_LEVEL)all_levels[i]);
        if (s && strcmp(s, want) == 0) return all_levels[i];
    }
    return -1;
}

int dml_latest_feature_level(void) {
    int best = all_levels[0];
    for (size_t i = 0; i < sizeof all_levels / sizeof *all_levels; i++)
        if (dmls_feature_level_name((DML_FEATURE_LEVEL)all_levels[i])) best = all_levels[i];
    return best;
}
