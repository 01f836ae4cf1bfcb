/* dmls_create_dml_lists: DirectML's SLICE, SLICE1 and SLICE_GRAD
 * descriptors built from 64-bit lists, each value checked against its
 * 32-bit field, then validated and planned by dmls_create_dml. The tool and
 * the Python package take sizes as 64-bit integers; this is where they
 * become DirectML's UINT and INT, so that neither truncates. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "types.h"
#include "error.h"

/* Room for every field of one operator: the values dmls_create_dml reads. */
typedef struct dml_storage {
    UINT in_sizes[DMLS_MAX_RANK], in_strides[DMLS_MAX_RANK];
    UINT out_sizes[DMLS_MAX_RANK], out_strides[DMLS_MAX_RANK];
    UINT offsets[DMLS_MAX_RANK], sizes[DMLS_MAX_RANK];
    INT strides[DMLS_MAX_RANK]; /* SLICE's UINT Strides are stored here too, as their bits */
    DML_BUFFER_TENSOR_DESC in_buf, out_buf;
    DML_TENSOR_DESC in, out;
    union {
        DML_SLICE_OPERATOR_DESC slice;
        DML_SLICE1_OPERATOR_DESC slice1;
        DML_SLICE_GRAD_OPERATOR_DESC grad;
    } u;
} dml_storage;

/* A field's name in messages: "InputTensor" "." "Sizes", or a window
 * list's own name when role is NULL. */
#define FIELD_FMT "%s%s%s"
#define FIELD_ARGS(role, field) (role) ? (role) : "", (role) ? "." : "", (field)

/* One list: at most DMLS_MAX_RANK values, present when there are any. */
static dmls_status check_list(const char *op, const char *role, const char *field, int32_t count,
                              const int64_t *values) {
    RETURN_IF(count < 0 || count > DMLS_MAX_RANK, DMLS_ERROR_UNSUPPORTED, "R-OP-RANK",
              "%s: " FIELD_FMT " has %" PRId32 " values; DirectML's DimensionCount is 1 to %d", op,
              FIELD_ARGS(role, field), count, DMLS_MAX_RANK);
    RETURN_IF(count > 0 && values == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: " FIELD_FMT " is NULL", op,
              FIELD_ARGS(role, field));
    return DMLS_OK;
}

/* A value of a UINT field (or an INT one when is_signed), refused rather
 * than truncated when the field cannot hold it. */
static dmls_status to_field(const char *op, const char *role, const char *field, int32_t i, int64_t v,
                            bool is_signed, UINT *out) {
    const bool fits = is_signed ? v >= INT32_MIN && v <= INT32_MAX : v >= 0 && v <= (int64_t)UINT32_MAX;
    RETURN_IF(!fits, DMLS_ERROR_INVALID_ARGUMENT, "R-DML-FIELD",
              "%s: " FIELD_FMT "[%" PRId32 "] = %" PRId64 " does not fit DirectML's 32-bit %s field (%s)", op,
              FIELD_ARGS(role, field), i, v, is_signed ? "INT" : "UINT",
              is_signed ? "-2147483648 to 2147483647" : "0 to 4294967295");
    *out = (UINT)(uint32_t)(int32_t)v; /* an INT's bits, for the caller to read as INT */
    return DMLS_OK;
}

/* A buffer tensor. A size that does not fit UINT breaks a rule DirectML
 * states (R-T-SIZES below 1, R-T-ELEMS above 2^32-1); a stride or an
 * alignment that does not fit is only unrepresentable. */
static dmls_status build_tensor(const char *op, const char *role, const dmls_dml_tensor_lists *t,
                                DML_TENSOR_DATA_TYPE type, UINT *sizes, UINT *strides, DML_BUFFER_TENSOR_DESC *buf,
                                DML_TENSOR_DESC *desc) {
    RETURN_IF_ERROR(check_list(op, role, "Sizes", t->dimension_count, t->sizes));
    for (int32_t i = 0; i < t->dimension_count; i++) {
        const int64_t v = t->sizes[i];
        RETURN_IF(v < 0, DMLS_ERROR_INVALID_ARGUMENT, "R-T-SIZES",
                  "%s: %s.Sizes[%" PRId32 "] = %" PRId64 " is negative; every size must be at least 1", op, role, i,
                  v);
        RETURN_IF(v > (int64_t)UINT32_MAX, DMLS_ERROR_OVERFLOW, "R-T-ELEMS",
                  "%s: %s.Sizes[%" PRId32 "] = %" PRId64 " exceeds DirectML's limit of 2^32-1 elements", op, role,
                  i, v);
        sizes[i] = (UINT)v;
        if (t->strides != NULL) RETURN_IF_ERROR(to_field(op, role, "Strides", i, t->strides[i], false, &strides[i]));
    }
    RETURN_IF(t->alignment > UINT32_MAX, DMLS_ERROR_INVALID_ARGUMENT, "R-DML-FIELD",
              "%s: %s.GuaranteedBaseOffsetAlignment = %" PRIu64 " does not fit DirectML's 32-bit UINT field", op,
              role, t->alignment);
    memset(buf, 0, sizeof *buf);
    buf->DataType = type;
    buf->DimensionCount = (UINT)t->dimension_count;
    buf->Sizes = sizes;
    buf->Strides = t->strides != NULL ? strides : NULL;
    buf->GuaranteedBaseOffsetAlignment = (UINT)t->alignment;
    buf->TotalTensorSizeInBytes = t->total_bytes;
    /* Where DirectML's own helper cannot size the tensor, 0 stays, and
     * validation names the rule broken (R-T-SIZES, R-T-TOTAL). */
    uint64_t least;
    if (t->total_bytes == 0 &&
        dmls_calc_buffer_tensor_size(type, buf->DimensionCount, sizes, buf->Strides, &least) == DMLS_OK)
        buf->TotalTensorSizeInBytes = least;
    desc->Type = DML_TENSOR_TYPE_BUFFER;
    desc->Desc = buf;
    return DMLS_OK;
}

/* The operator's own lists: Offsets, Sizes, Strides (SLICE) or the
 * InputWindow ones (SLICE1, SLICE_GRAD, whose strides are signed). */
static dmls_status build_window(const char *op, const dmls_dml_lists *l, dml_storage *s) {
    const bool window = l->type != DML_OPERATOR_SLICE;
    const struct {
        const char *name;
        const int64_t *values;
        UINT *field;
        bool is_signed;
    } lists[] = {
        {window ? "InputWindowOffsets" : "Offsets", l->offsets, s->offsets, false},
        {window ? "InputWindowSizes" : "Sizes", l->sizes, s->sizes, false},
        {window ? "InputWindowStrides" : "Strides", l->strides, (UINT *)s->strides, window},
    };
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
        RETURN_IF_ERROR(check_list(op, NULL, lists[k].name, l->dimension_count, lists[k].values));
        for (int32_t i = 0; i < l->dimension_count; i++)
            RETURN_IF_ERROR(
                to_field(op, NULL, lists[k].name, i, lists[k].values[i], lists[k].is_signed, &lists[k].field[i]));
    }
    return DMLS_OK;
}

static dmls_status build(const dmls_dml_lists *l, dml_storage *s, DML_OPERATOR_DESC *desc) {
    const bool grad = l->type == DML_OPERATOR_SLICE_GRAD;
    const char *op = l->type == DML_OPERATOR_SLICE ? "SLICE" : grad ? "SLICE_GRAD" : "SLICE1";
    RETURN_IF_ERROR(build_tensor(op, grad ? "InputGradientTensor" : "InputTensor", &l->input, l->data_type,
                                 s->in_sizes, s->in_strides, &s->in_buf, &s->in));
    RETURN_IF_ERROR(build_tensor(op, grad ? "OutputGradientTensor" : "OutputTensor", &l->output, l->data_type,
                                 s->out_sizes, s->out_strides, &s->out_buf, &s->out));
    RETURN_IF_ERROR(build_window(op, l, s));
    const UINT n = (UINT)l->dimension_count;
    if (l->type == DML_OPERATOR_SLICE)
        s->u.slice = (DML_SLICE_OPERATOR_DESC){&s->in, &s->out, n, s->offsets, s->sizes, (const UINT *)s->strides};
    else if (grad)
        s->u.grad = (DML_SLICE_GRAD_OPERATOR_DESC){&s->in, &s->out, n, s->offsets, s->sizes, s->strides};
    else
        s->u.slice1 = (DML_SLICE1_OPERATOR_DESC){&s->in, &s->out, n, s->offsets, s->sizes, s->strides};
    desc->Type = l->type;
    desc->Desc = &s->u;
    return DMLS_OK;
}

dmls_status dmls_create_dml_lists(const dmls_dml_lists *lists, DML_FEATURE_LEVEL level, dmls_operator **op) {
    dmls_clear_error();
    if (op != NULL) *op = NULL;
    RETURN_IF(lists == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "create_dml_lists: lists is NULL");
    RETURN_IF(op == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "create_dml_lists: op is NULL");
    DML_OPERATOR_DESC desc = {lists->type, NULL};
    dml_storage s;
    if (lists->type == DML_OPERATOR_SLICE || lists->type == DML_OPERATOR_SLICE1 ||
        lists->type == DML_OPERATOR_SLICE_GRAD)
        RETURN_IF_ERROR(build(lists, &s, &desc));
    /* Any other Type goes as it is: dmls_create_dml names it. */
    return dmls_create_dml(&desc, level, op);
}
