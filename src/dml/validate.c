/* The DirectML path's validator: checks a DML_*_OPERATOR_DESC at a feature
 * level exactly as docs/spec.md sections 2 and 4 say, and turns it into a
 * problem and its buffer needs. Allocates nothing; create.c builds the
 * operator. */
#include <inttypes.h>
#include <string.h>

#include "types.h"
#include "error.h"
#include "plan/validate.h"

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
    RETURN_IF(b->DataType == DML_TENSOR_DATA_TYPE_UNKNOWN || dmls_dml_bits(b->DataType) == 0,
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
    const unsigned esize_bytes = (dmls_dml_bits(b->DataType) + 7) / 8;
    const UINT align = b->GuaranteedBaseOffsetAlignment;
    RETURN_IF(align != 0 && ((align & (align - 1)) != 0 || align < esize_bytes), DMLS_ERROR_INVALID_ARGUMENT,
              "R-T-ALIGN",
              "%s: %s.GuaranteedBaseOffsetAlignment = %u must be 0 or a power of two >= the element size %u",
              op, role, align, esize_bytes);
    uint64_t minimum;
    RETURN_IF_ERROR(dmls_dml_implied_size(op, role, b->DataType, n, b->Sizes, b->Strides, &minimum));
    if (b->Strides != NULL) {
        /* DirectML sizes a strided tensor by its extent, in 32 bits. Each
         * term is below 2^64 and the sum stops as soon as it passes 2^32-1. */
        uint64_t extent = 1;
        UINT i = 0;
        for (; i < n && extent <= UINT32_MAX; i++) extent += (uint64_t)(b->Sizes[i] - 1) * b->Strides[i];
        RETURN_IF(extent > UINT32_MAX, DMLS_ERROR_OVERFLOW, "R-T-ELEMS",
                  "%s: %s spans more than 2^32-1 elements: its strided extent dot(Sizes - 1, Strides) + 1 is %s%" PRIu64,
                  op, role, i < n ? "at least " : "", extent);
    }
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
    DML_OPERATOR_TYPE type;
    const DML_TENSOR_DESC *in, *out;
    const char *in_role, *out_role;
    UINT n;
} dml_common;

/* The checks every slice operator shares: availability, rank, tensors, types. */
static dmls_status check_common(const dml_common *c, DML_FEATURE_LEVEL level, dmls_problem *p,
                                const DML_BUFFER_TENSOR_DESC **in, const DML_BUFFER_TENSOR_DESC **out) {
    const char *lv = dmls_feature_level_name(level);
    DML_FEATURE_LEVEL introduced = DML_FEATURE_LEVEL_1_0;
    const dmls_dml_support *row = dmls_dml_support_at(c->type, level, &introduced);
    RETURN_IF(row == NULL, DMLS_ERROR_UNSUPPORTED, NULL,
              "%s: not available at feature level %s (introduced in %s; docs/spec.md section 4)", c->name, lv,
              dmls_feature_level_name(introduced));
    RETURN_IF(c->n < (UINT)row->min_rank || c->n > (UINT)row->max_rank, DMLS_ERROR_UNSUPPORTED, "R-OP-RANK",
              "%s: DimensionCount = %u is not supported at feature level %s (allowed: %d to %d)", c->name, c->n,
              lv, row->min_rank, row->max_rank);
    memset(p, 0, sizeof *p);
    p->name = c->name;
    p->ndim = (int32_t)c->n;
    RETURN_IF_ERROR(check_tensor(c->name, c->in_role, false, c->in, c->n, in, &p->in));
    RETURN_IF_ERROR(check_tensor(c->name, c->out_role, true, c->out, c->n, out, &p->out));
    const unsigned ti = (*in)->DataType, to = (*out)->DataType;
    RETURN_IF(ti != to, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-TYPE",
              "%s: %s.DataType %s differs from %s.DataType %s", c->name, c->in_role, dmls_dml_type_name(ti),
              c->out_role, dmls_dml_type_name(to));
    char list[128];
    RETURN_IF(!(row->types & DMLS_TYPE_BIT(ti)), DMLS_ERROR_UNSUPPORTED, "R-OP-TYPE",
              "%s: DataType %s is not supported at feature level %s (allowed: %s)", c->name, dmls_dml_type_name(ti),
              lv, dmls_dml_type_list(row->types, list, sizeof list));
    p->esize = (int32_t)(dmls_dml_bits(ti) / 8);
    return DMLS_OK;
}

/* R-X-ALIGN: DirectML binds a buffer only at a multiple of its minimum
 * buffer tensor alignment, or of the tensor's promise when that is more. */
static uint64_t binding_align(const DML_BUFFER_TENSOR_DESC *b, const char **why, const char *promise) {
    if (b->GuaranteedBaseOffsetAlignment > DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) {
        *why = promise;
        return b->GuaranteedBaseOffsetAlignment;
    }
    *why = "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT, DirectML's minimum buffer binding alignment";
    return DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT;
}

/* A DirectML buffer must hold TotalTensorSizeInBytes, whatever the tensor
 * itself reaches (R-X-BOUNDS), and that whole range is the tensor's for
 * R-X-OVERLAP. */
static void needs_of(bool grad, const DML_BUFFER_TENSOR_DESC *in, const DML_BUFFER_TENSOR_DESC *out,
                     dmls_buffer_needs *needs) {
    needs->in_bytes = in->TotalTensorSizeInBytes;
    needs->out_bytes = out->TotalTensorSizeInBytes;
    needs->in_align = binding_align(in, &needs->in_align_why,
                                    grad ? "InputGradientTensor's GuaranteedBaseOffsetAlignment"
                                         : "InputTensor's GuaranteedBaseOffsetAlignment");
    needs->out_align = binding_align(out, &needs->out_align_why,
                                     grad ? "OutputGradientTensor's GuaranteedBaseOffsetAlignment"
                                          : "OutputTensor's GuaranteedBaseOffsetAlignment");
}

static dmls_status validate_slice(const DML_SLICE_OPERATOR_DESC *d, DML_FEATURE_LEVEL level, dmls_problem *p,
                                  dmls_buffer_needs *needs) {
    const char *name = "SLICE";
    RETURN_IF(d == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "%s: operator Desc is NULL", name);
    const dml_common c = {name, DML_OPERATOR_SLICE, d->InputTensor, d->OutputTensor, "InputTensor", "OutputTensor",
                          d->DimensionCount};
    const DML_BUFFER_TENSOR_DESC *in, *out;
    RETURN_IF_ERROR(check_common(&c, level, p, &in, &out));
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
        p->start[i] = (int64_t)off;
        p->step[i] = (int64_t)stride;
    }
    p->kind = DMLS_KIND_SLICE;
    needs_of(false, in, out, needs);
    return DMLS_OK;
}

/* SLICE1 and SLICE_GRAD share their fields' shape. */
static dmls_status validate_window(const char *name, bool grad, const DML_TENSOR_DESC *tin,
                                   const DML_TENSOR_DESC *tout, UINT n, const UINT *offsets, const UINT *sizes,
                                   const INT *strides, DML_FEATURE_LEVEL level, dmls_problem *p,
                                   dmls_buffer_needs *needs) {
    const dml_common c = {name,
                          grad ? DML_OPERATOR_SLICE_GRAD : DML_OPERATOR_SLICE1,
                          tin,
                          tout,
                          grad ? "InputGradientTensor" : "InputTensor",
                          grad ? "OutputGradientTensor" : "OutputTensor",
                          n};
    const DML_BUFFER_TENSOR_DESC *in, *out;
    RETURN_IF_ERROR(check_common(&c, level, p, &in, &out));
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
    const dmls_layout *windowed = grad ? &p->out : &p->in, *walked = grad ? &p->in : &p->out;
    RETURN_IF_ERROR(dmls_check_window(&nm, (int32_t)n, off, size, stride, windowed->shape, walked->shape, false,
                                      p->start, p->step));
    p->kind = grad ? DMLS_KIND_GRAD : DMLS_KIND_SLICE;
    needs_of(grad, in, out, needs);
    return DMLS_OK;
}

dmls_status dmls_validate_dml(const DML_OPERATOR_DESC *desc, DML_FEATURE_LEVEL level, dmls_problem *p,
                              dmls_buffer_needs *needs) {
    RETURN_IF(desc == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "create_dml: DML_OPERATOR_DESC is NULL");
    RETURN_IF(dmls_feature_level_name(level) == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "create_dml: feature level 0x%x is not a DML_FEATURE_LEVEL (docs/spec.md section 4)", (unsigned)level);
    switch (desc->Type) {
    case DML_OPERATOR_SLICE:
        return validate_slice(desc->Desc, level, p, needs);
    case DML_OPERATOR_SLICE1: {
        const DML_SLICE1_OPERATOR_DESC *d = desc->Desc;
        RETURN_IF(d == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "SLICE1: operator Desc is NULL");
        return validate_window("SLICE1", false, d->InputTensor, d->OutputTensor, d->DimensionCount,
                             d->InputWindowOffsets, d->InputWindowSizes, d->InputWindowStrides, level, p, needs);
    }
    case DML_OPERATOR_SLICE_GRAD: {
        const DML_SLICE_GRAD_OPERATOR_DESC *d = desc->Desc;
        RETURN_IF(d == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL", "SLICE_GRAD: operator Desc is NULL");
        return validate_window("SLICE_GRAD", true, d->InputGradientTensor, d->OutputGradientTensor,
                             d->DimensionCount, d->InputWindowOffsets, d->InputWindowSizes,
                             d->InputWindowStrides, level, p, needs);
    }
    case DML_OPERATOR_INVALID:
        break;
    }
    return dmls_fail(DMLS_ERROR_INVALID_ARGUMENT, NULL,
                     "create_dml: operator Type %d is not SLICE (60), SLICE1 (111) or SLICE_GRAD (135)",
                     (int)desc->Type);
}
