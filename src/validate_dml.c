/* The DirectML path: validates DML_*_OPERATOR_DESC at a feature level,
 * exactly as SPEC sections 2 and 4 say, and builds the problem. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "checked.h"
#include "error.h"
#include "validate.h"

/* ------------------------------------------------------------ feature levels */

const char *dmls_feature_level_name(DML_FEATURE_LEVEL level) {
    switch (level) {
    case DML_FEATURE_LEVEL_1_0: return "1_0";
    case DML_FEATURE_LEVEL_2_0: return "2_0";
    case DML_FEATURE_LEVEL_2_1: return "2_1";
    case DML_FEATURE_LEVEL_3_0: return "3_0";
    case DML_FEATURE_LEVEL_3_1: return "3_1";
    case DML_FEATURE_LEVEL_4_0: return "4_0";
    case DML_FEATURE_LEVEL_4_1: return "4_1";
    case DML_FEATURE_LEVEL_5_0: return "5_0";
    case DML_FEATURE_LEVEL_5_1: return "5_1";
    case DML_FEATURE_LEVEL_5_2: return "5_2";
    case DML_FEATURE_LEVEL_6_0: return "6_0";
    case DML_FEATURE_LEVEL_6_1: return "6_1";
    case DML_FEATURE_LEVEL_6_2: return "6_2";
    case DML_FEATURE_LEVEL_6_3: return "6_3";
    case DML_FEATURE_LEVEL_6_4: return "6_4";
    }
    return NULL;
}

#define TYPE_BIT(t) (1u << (t))
#define TYPES_FL1_0                                                                           \
    (TYPE_BIT(DML_TENSOR_DATA_TYPE_FLOAT32) | TYPE_BIT(DML_TENSOR_DATA_TYPE_FLOAT16) |        \
     TYPE_BIT(DML_TENSOR_DATA_TYPE_INT32) | TYPE_BIT(DML_TENSOR_DATA_TYPE_INT16) |            \
     TYPE_BIT(DML_TENSOR_DATA_TYPE_UINT32) | TYPE_BIT(DML_TENSOR_DATA_TYPE_UINT16))
#define TYPES_8 (TYPES_FL1_0 | TYPE_BIT(DML_TENSOR_DATA_TYPE_INT8) | TYPE_BIT(DML_TENSOR_DATA_TYPE_UINT8))
#define TYPES_8_64                                                                            \
    (TYPES_8 | TYPE_BIT(DML_TENSOR_DATA_TYPE_FLOAT64) | TYPE_BIT(DML_TENSOR_DATA_TYPE_INT64) | \
     TYPE_BIT(DML_TENSOR_DATA_TYPE_UINT64))

/* One row of SPEC section 4's table: from this level on, these ranks and types. */
typedef struct support_row {
    DML_FEATURE_LEVEL from;
    int min_rank, max_rank;
    unsigned types;
} support_row;

static const support_row slice_rows[] = {
    {DML_FEATURE_LEVEL_1_0, 4, 5, TYPES_FL1_0},
    {DML_FEATURE_LEVEL_2_1, 4, 5, TYPES_8},
    {DML_FEATURE_LEVEL_3_0, 1, 8, TYPES_8},
    {DML_FEATURE_LEVEL_4_1, 1, 8, TYPES_8_64},
};
static const support_row slice1_rows[] = {
    {DML_FEATURE_LEVEL_2_1, 4, 5, TYPES_8},
    {DML_FEATURE_LEVEL_3_0, 1, 8, TYPES_8},
    {DML_FEATURE_LEVEL_4_1, 1, 8, TYPES_8_64},
};
static const support_row grad_rows[] = {
    {DML_FEATURE_LEVEL_3_0, 4, 5, TYPES_8},
    {DML_FEATURE_LEVEL_3_1, 1, 8, TYPES_8},
    {DML_FEATURE_LEVEL_4_1, 1, 8, TYPES_8_64},
};

/* The row in force at level, or NULL when the operator does not exist yet. */
static const support_row *support_at(const support_row *rows, size_t n, DML_FEATURE_LEVEL level) {
    const support_row *found = NULL;
    for (size_t i = 0; i < n; i++)
        if ((unsigned)level >= (unsigned)rows[i].from) found = &rows[i];
    return found;
}

static const char *data_type_name(unsigned t) {
    static const char *const names[] = {"UNKNOWN", "FLOAT32", "FLOAT16", "UINT32", "UINT16",
                                        "UINT8",   "INT32",   "INT16",   "INT8",   "FLOAT64",
                                        "UINT64",  "INT64",   "UINT4",   "INT4"};
    return t < sizeof names / sizeof names[0] ? names[t] : "?";
}

/* "FLOAT32, FLOAT16, ..." for a type mask, into buf. */
static const char *type_list(unsigned mask, char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = '\0';
    static const unsigned order[] = {9, 1, 2, 11, 6, 7, 8, 10, 3, 4, 5}; /* the seeds' order */
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        if (!(mask & TYPE_BIT(order[i]))) continue;
        int n = snprintf(buf + used, cap - used, "%s%s", used ? ", " : "", data_type_name(order[i]));
        if (n < 0 || (size_t)n >= cap - used) break;
        used += (size_t)n;
    }
    return buf;
}

static unsigned bits_of(DML_TENSOR_DATA_TYPE t) {
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

/* ------------------------------------------------------------ buffer size */

/* SPEC R-T-TOTAL in 64 bits. The message names the tensor when one is given. */
static dmls_status implied_size(const char *op, const char *tensor, DML_TENSOR_DATA_TYPE type,
                                UINT n, const UINT *sizes, const UINT *strides, uint64_t *bytes) {
    const unsigned bits = bits_of(type);
    uint64_t elements = 1; /* packed: the count; strided: the last index + 1 */
    bool overflow = false;
    if (strides == NULL) {
        for (UINT i = 0; i < n; i++) overflow |= dmls_mul_u64(elements, sizes[i], &elements);
    } else {
        uint64_t last = 0, term;
        for (UINT i = 0; i < n; i++) {
            overflow |= dmls_mul_u64((uint64_t)sizes[i] - 1, strides[i], &term);
            overflow |= dmls_add_u64(last, term, &term) ;
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
    RETURN_IF(bits_of(data_type) == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-T-DTYPE",
              "calc_buffer_tensor_size: DataType %u is not a known data type", (unsigned)data_type);
    RETURN_IF(dimension_count > 0 && sizes == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "calc_buffer_tensor_size: Sizes is NULL with DimensionCount %u", dimension_count);
    RETURN_IF(bytes == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "calc_buffer_tensor_size: bytes is NULL");
    for (UINT i = 0; i < dimension_count; i++)
        RETURN_IF(sizes[i] == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-T-SIZES",
                  "calc_buffer_tensor_size: Sizes[%u] = 0; every size must be at least 1", i);
    return implied_size("calc_buffer_tensor_size", NULL, data_type, dimension_count, sizes, strides, bytes);
}

/* ------------------------------------------------------------ tensors */

/* One tensor of an operator, checked against R-OP-NULL, R-T-*, R-OP-RANK's
 * equality and R-T-OUTLAYOUT, then resolved into a layout. */
static dmls_status check_tensor(const char *op, const char *role, bool is_output,
                                const DML_TENSOR_DESC *td, UINT n,
                                const DML_BUFFER_TENSOR_DESC **out_desc, dmls_layout *layout) {
    RETURN_IF(td == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: %s is NULL", op, role);
    RETURN_IF(td->Type != DML_TENSOR_TYPE_BUFFER, DMLS_ERROR_INVALID_ARGUMENT, "R-T-TYPE",
              "%s: %s.Type = %u; only DML_TENSOR_TYPE_BUFFER (1) is supported", op, role, (unsigned)td->Type);
    RETURN_IF(td->Desc == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-T-TYPE", "%s: %s.Desc is NULL", op, role);
    const DML_BUFFER_TENSOR_DESC *b = td->Desc;
    RETURN_IF(b->DataType == DML_TENSOR_DATA_TYPE_UNKNOWN || bits_of(b->DataType) == 0,
              DMLS_ERROR_INVALID_ARGUMENT, "R-T-DTYPE",
              "%s: %s.DataType = %u is not a known data type", op, role, (unsigned)b->DataType);
    RETURN_IF(((unsigned)b->Flags & ~(unsigned)DML_TENSOR_FLAG_OWNED_BY_DML) != 0, DMLS_ERROR_INVALID_ARGUMENT,
              "R-T-FLAGS", "%s: %s.Flags = 0x%x has unknown bits (allowed: NONE, OWNED_BY_DML)", op, role,
              (unsigned)b->Flags);
    RETURN_IF(is_output && (b->Flags & DML_TENSOR_FLAG_OWNED_BY_DML), DMLS_ERROR_INVALID_ARGUMENT, "R-T-FLAGS",
              "%s: %s.Flags has DML_TENSOR_FLAG_OWNED_BY_DML, which only inputs may have", op, role);
    RETURN_IF(b->DimensionCount != n, DMLS_ERROR_SHAPE_MISMATCH, "R-OP-RANK",
              "%s: %s.DimensionCount = %u differs from the operator's DimensionCount %u", op, role,
              b->DimensionCount, n);
    RETURN_IF(b->Sizes == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: %s.Sizes is NULL", op, role);

    uint64_t elements = 1;
    for (UINT i = 0; i < n; i++) {
        RETURN_IF(b->Sizes[i] == 0, DMLS_ERROR_INVALID_ARGUMENT, "R-T-SIZES",
                  "%s: %s.Sizes[%u] = 0; every size must be at least 1", op, role, i);
        elements *= b->Sizes[i]; /* 8 factors below 2^32 stop early below */
        RETURN_IF(elements > UINT32_MAX, DMLS_ERROR_OVERFLOW, "R-T-ELEMS",
                  "%s: %s has more than 2^32-1 elements (the product of Sizes[0..%u] is already %" PRIu64 ")",
                  op, role, i, elements);
    }
    const unsigned esize_bytes = (bits_of(b->DataType) + 7) / 8;
    const UINT align = b->GuaranteedBaseOffsetAlignment;
    RETURN_IF(align != 0 && ((align & (align - 1)) != 0 || align < esize_bytes), DMLS_ERROR_INVALID_ARGUMENT,
              "R-T-ALIGN",
              "%s: %s.GuaranteedBaseOffsetAlignment = %u must be 0 or a power of two >= the element size %u",
              op, role, align, esize_bytes);
    uint64_t minimum;
    RETURN_IF_ERROR(implied_size(op, role, b->DataType, n, b->Sizes, b->Strides, &minimum));
    RETURN_IF(b->TotalTensorSizeInBytes < minimum, DMLS_ERROR_INVALID_ARGUMENT, "R-T-TOTAL",
              "%s: %s.TotalTensorSizeInBytes = %" PRIu64 " is below the minimum implied size %" PRIu64, op, role,
              (uint64_t)b->TotalTensorSizeInBytes, minimum);
    RETURN_IF(b->TotalTensorSizeInBytes % 4 != 0, DMLS_ERROR_INVALID_ARGUMENT, "R-T-TOTAL",
              "%s: %s.TotalTensorSizeInBytes = %" PRIu64 " is not a multiple of 4", op, role,
              (uint64_t)b->TotalTensorSizeInBytes);

    memset(layout, 0, sizeof *layout);
    int64_t packed = 1;
    for (int i = (int)n - 1; i >= 0; i--) {
        layout->shape[i] = b->Sizes[i];
        layout->strides[i] = b->Strides ? (int64_t)b->Strides[i] : packed;
        packed *= b->Sizes[i];
    }
    RETURN_IF(is_output && !dmls_layout_injective((int32_t)n, layout->shape, layout->strides),
              DMLS_ERROR_INVALID_ARGUMENT, "R-T-OUTLAYOUT",
              "%s: %s.Strides map two coordinates to one element (zero or overlapping strides)", op, role);
    *out_desc = b;
    return DMLS_OK;
}

/* ------------------------------------------------------------ operators */

typedef struct dml_common {
    const char *name;
    const DML_TENSOR_DESC *in, *out;
    const char *in_role, *out_role;
    UINT n;
    const support_row *rows;
    size_t nrows;
    DML_FEATURE_LEVEL introduced;
} dml_common;

/* The checks every slice operator shares: availability, rank, tensors, types. */
static dmls_status check_common(const dml_common *c, DML_FEATURE_LEVEL level, dmls_problem *p,
                                const DML_BUFFER_TENSOR_DESC **in, const DML_BUFFER_TENSOR_DESC **out) {
    const char *lv = dmls_feature_level_name(level);
    const support_row *row = support_at(c->rows, c->nrows, level);
    RETURN_IF(row == NULL, DMLS_ERROR_UNSUPPORTED, NULL,
              "%s: not available at feature level %s (introduced in %s; SPEC section 4)", c->name, lv,
              dmls_feature_level_name(c->introduced));
    RETURN_IF(c->n < (UINT)row->min_rank || c->n > (UINT)row->max_rank, DMLS_ERROR_UNSUPPORTED, "R-OP-RANK",
              "%s: DimensionCount = %u is not supported at feature level %s (allowed: %d to %d)", c->name, c->n,
              lv, row->min_rank, row->max_rank);
    memset(p, 0, sizeof *p);
    p->ndim = (int32_t)c->n;
    RETURN_IF_ERROR(check_tensor(c->name, c->in_role, false, c->in, c->n, in, &p->in));
    RETURN_IF_ERROR(check_tensor(c->name, c->out_role, true, c->out, c->n, out, &p->out));
    const unsigned ti = (*in)->DataType, to = (*out)->DataType;
    RETURN_IF(ti != to, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-TYPE",
              "%s: %s.DataType %s differs from %s.DataType %s", c->name, c->in_role, data_type_name(ti),
              c->out_role, data_type_name(to));
    char list[128];
    RETURN_IF(!(row->types & TYPE_BIT(ti)), DMLS_ERROR_UNSUPPORTED, "R-OP-TYPE",
              "%s: DataType %s is not supported at feature level %s (allowed: %s)", c->name, data_type_name(ti),
              lv, type_list(row->types, list, sizeof list));
    p->esize = (int32_t)(bits_of(ti) / 8);
    return DMLS_OK;
}

static dmls_status finish(const char *name, const dmls_problem *p, const DML_BUFFER_TENSOR_DESC *in,
                          const DML_BUFFER_TENSOR_DESC *out, dmls_operator **op) {
    return dmls_operator_new(name, p, in->TotalTensorSizeInBytes, out->TotalTensorSizeInBytes,
                             in->GuaranteedBaseOffsetAlignment, out->GuaranteedBaseOffsetAlignment, op);
}

static dmls_status create_slice(const DML_SLICE_OPERATOR_DESC *d, DML_FEATURE_LEVEL level, dmls_operator **op) {
    const char *name = "SLICE";
    RETURN_IF(d == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: operator Desc is NULL", name);
    const dml_common c = {name, d->InputTensor, d->OutputTensor, "InputTensor", "OutputTensor",
                          d->DimensionCount, slice_rows, sizeof slice_rows / sizeof slice_rows[0],
                          DML_FEATURE_LEVEL_1_0};
    dmls_problem p;
    const DML_BUFFER_TENSOR_DESC *in, *out;
    RETURN_IF_ERROR(check_common(&c, level, &p, &in, &out));
    RETURN_IF(d->Offsets == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: Offsets is NULL", name);
    RETURN_IF(d->Sizes == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: Sizes is NULL", name);
    RETURN_IF(d->Strides == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: Strides is NULL", name);
    for (UINT i = 0; i < d->DimensionCount; i++) {
        const uint64_t off = d->Offsets[i], size = d->Sizes[i], stride = d->Strides[i];
        RETURN_IF(size != out->Sizes[i], DMLS_ERROR_SHAPE_MISMATCH, "R-SLICE-SIZES",
                  "%s: Sizes[%u] = %" PRIu64 " differs from OutputTensor.Sizes[%u] = %u", name, i, size, i,
                  out->Sizes[i]);
        RETURN_IF(stride < 1, DMLS_ERROR_INVALID_ARGUMENT, "R-SLICE-STRIDE",
                  "%s: Strides[%u] = 0; SLICE strides must be at least 1", name, i);
        /* Each term is below 2^64: (2^32-1)^2 + 2^32-1 < 2^64. */
        const uint64_t last = off + (size - 1) * stride;
        RETURN_IF(last > (uint64_t)in->Sizes[i] - 1, DMLS_ERROR_OUT_OF_BOUNDS, "R-SLICE-BOUNDS",
                  "%s: Offsets[%u] + (Sizes[%u] - 1) * Strides[%u] = %" PRIu64 " + %" PRIu64 " * %" PRIu64
                  " = %" PRIu64 " exceeds the last input index %u",
                  name, i, i, i, off, size - 1, stride, last, in->Sizes[i] - 1);
        p.start[i] = (int64_t)off;
        p.step[i] = (int64_t)stride;
    }
    p.kind = DMLS_KIND_SLICE;
    return finish(name, &p, in, out, op);
}

/* SLICE1 and SLICE_GRAD share their fields' shape. */
static dmls_status create_window(const char *name, bool grad, const DML_TENSOR_DESC *tin,
                                 const DML_TENSOR_DESC *tout, UINT n, const UINT *offsets, const UINT *sizes,
                                 const INT *strides, DML_FEATURE_LEVEL level, dmls_operator **op) {
    const dml_common c = {name,
                          tin,
                          tout,
                          grad ? "InputGradientTensor" : "InputTensor",
                          grad ? "OutputGradientTensor" : "OutputTensor",
                          n,
                          grad ? grad_rows : slice1_rows,
                          grad ? sizeof grad_rows / sizeof grad_rows[0] : sizeof slice1_rows / sizeof slice1_rows[0],
                          grad ? DML_FEATURE_LEVEL_3_0 : DML_FEATURE_LEVEL_2_1};
    dmls_problem p;
    const DML_BUFFER_TENSOR_DESC *in, *out;
    RETURN_IF_ERROR(check_common(&c, level, &p, &in, &out));
    RETURN_IF(offsets == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: InputWindowOffsets is NULL", name);
    RETURN_IF(sizes == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: InputWindowSizes is NULL", name);
    RETURN_IF(strides == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: InputWindowStrides is NULL", name);
    int64_t off[DMLS_MAX_RANK], size[DMLS_MAX_RANK], stride[DMLS_MAX_RANK];
    for (UINT i = 0; i < n; i++) off[i] = offsets[i], size[i] = sizes[i], stride[i] = strides[i];
    const dmls_names nm = {name,
                           "InputWindowOffsets",
                           "InputWindowSizes",
                           "InputWindowStrides",
                           grad ? "output gradient" : "input",
                           grad ? "input gradient" : "output"};
    const dmls_layout *big = grad ? &p.out : &p.in, *small = grad ? &p.in : &p.out;
    RETURN_IF_ERROR(dmls_check_window(&nm, (int32_t)n, off, size, stride, big->shape, small->shape, false,
                                      p.start, p.step));
    p.kind = grad ? DMLS_KIND_GRAD : DMLS_KIND_SLICE;
    return finish(name, &p, in, out, op);
}

dmls_status dmls_create_dml(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level, dmls_operator **op) {
    dmls_clear_error();
    RETURN_IF(op == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "create_dml: op (the result pointer) is NULL");
    *op = NULL;
    RETURN_IF(desc == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "create_dml: DML_OPERATOR_DESC is NULL");
    RETURN_IF(dmls_feature_level_name(level) == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "create_dml: feature level 0x%x is not a DML_FEATURE_LEVEL (SPEC section 4)", (unsigned)level);
    switch (desc->Type) {
    case DML_OPERATOR_SLICE:
        return create_slice(desc->Desc, level, op);
    case DML_OPERATOR_SLICE1: {
        const DML_SLICE1_OPERATOR_DESC *d = desc->Desc;
        RETURN_IF(d == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "SLICE1: operator Desc is NULL");
        return create_window("SLICE1", false, d->InputTensor, d->OutputTensor, d->DimensionCount,
                             d->InputWindowOffsets, d->InputWindowSizes, d->InputWindowStrides, level, op);
    }
    case DML_OPERATOR_SLICE_GRAD: {
        const DML_SLICE_GRAD_OPERATOR_DESC *d = desc->Desc;
        RETURN_IF(d == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "SLICE_GRAD: operator Desc is NULL");
        return create_window("SLICE_GRAD", true, d->InputGradientTensor, d->OutputGradientTensor,
                             d->DimensionCount, d->InputWindowOffsets, d->InputWindowSizes,
                             d->InputWindowStrides, level, op);
    }
    case DML_OPERATOR_INVALID:
        break;
    }
    return dmls_fail(DMLS_ERROR_INVALID_ARGUMENT, NULL,
                     "create_dml: operator Type %d is not SLICE (60), SLICE1 (111) or SLICE_GRAD (135)",
                     (int)desc->Type);
}
