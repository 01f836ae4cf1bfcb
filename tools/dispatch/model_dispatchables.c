/* Dispatchables: the slice operators' descs and their tensor descs, with
 * DxDispatch's rule for which fields are required (docs/dispatch.md). */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ascii.h"
#include "model_reader.h"
#include "values.h"

static bool parse_prefixed(const char *text, const char *prefix, const char *const *names, int *index) {
    const size_t n = strlen(prefix);
    if (strncmp(text, prefix, n) == 0) text += n;
    for (int i = 0; names[i]; i++) {
        if (strcmp(text, names[i]) == 0) {
            *index = i;
            return true;
        }
    }
    return false;
}

static bool read_flags(reader *r, const json_t *v, const char *p, DML_TENSOR_FLAGS *flags) {
    static const char *const names[] = {"NONE", "OWNED_BY_DML", NULL};
    *flags = DML_TENSOR_FLAG_NONE;
    const size_t n = json_is_array(v) ? json_array_size(v) : 1;
    if (!json_is_array(v) && !json_is_string(v))
        return reader_fail(r, p, "expected a flag name or an array of them, got %s", json_kind(v));
    for (size_t i = 0; i < n; i++) {
        const json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
        char q[PATH_CAP];
        if (json_is_array(v)) path_index(q, p, i);
        else snprintf(q, sizeof q, "%s", p);
        int k;
        if (!json_is_string(e) || !parse_prefixed(json_string_value(e), "DML_TENSOR_FLAG_", names, &k))
            return reader_fail(r, q, "expected DML_TENSOR_FLAG_NONE or DML_TENSOR_FLAG_OWNED_BY_DML (or NONE, OWNED_BY_DML)");
        if (k == 1) *flags = (DML_TENSOR_FLAGS)(*flags | DML_TENSOR_FLAG_OWNED_BY_DML);
    }
    return true;
}

/* A DML_TENSOR_DESC, with DxDispatch's defaults: Type BUFFER, Flags NONE,
 * DimensionCount from Sizes, Strides NULL, TotalTensorSizeInBytes from
 * DirectML's size helper, GuaranteedBaseOffsetAlignment 0. */
static bool read_tensor(reader *r, model_dispatchable *d, int k, const json_t *v, const char *p) {
    static const char *const outer_keys[] = {"Type", "Desc", NULL};
    static const char *const keys[] = {"Type", "DataType", "Flags", "DimensionCount", "Sizes", "Strides",
                                       "TotalTensorSizeInBytes", "GuaranteedBaseOffsetAlignment", NULL};
    static const char *const type_names[] = {"INVALID", "BUFFER", NULL};
    if (!reader_get_object(r, v, p)) return false;
    DML_TENSOR_DESC *t = &d->tensors[k];
    DML_BUFFER_TENSOR_DESC *b = &d->buffers[k];
    t->Type = DML_TENSOR_TYPE_BUFFER;
    t->Desc = b;
    char q[PATH_CAP], bp[PATH_CAP];
    const json_t *type = json_object_get(v, "Type");
    if (type) {
        path_key(q, p, "Type");
        int idx;
        if (!json_is_string(type) || !parse_prefixed(json_string_value(type), "DML_TENSOR_TYPE_", type_names, &idx))
            return reader_fail(r, q, "expected DML_TENSOR_TYPE_BUFFER (or BUFFER)");
        t->Type = (DML_TENSOR_TYPE)idx;
    }
    const json_t *body = v;
    snprintf(bp, sizeof bp, "%s", p);
    if (json_object_get(v, "Desc")) {
        if (!reader_only_keys(r, v, p, outer_keys)) return false;
        body = json_object_get(v, "Desc");
        path_key(bp, p, "Desc");
        if (!reader_get_object(r, body, bp)) return false;
    }
    if (!reader_only_keys(r, body, bp, keys + (body == v ? 0 : 1))) return false;
    const json_t *dt = json_object_get(body, "DataType"), *sizes = json_object_get(body, "Sizes"),
                 *strides = json_object_get(body, "Strides"), *flags = json_object_get(body, "Flags");
    path_key(q, bp, "DataType");
    if (!dt) return reader_fail(r, q, "required field missing");
    if (!reader_get_dtype(r, dt, q, &b->DataType)) return false;
    if (flags) {
        path_key(q, bp, "Flags");
        if (!read_flags(r, flags, q, &b->Flags)) return false;
    }
    path_key(q, bp, "Sizes");
    if (!sizes) return reader_fail(r, q, "required field missing");
    size_t n_sizes, n_strides = 0;
    if (!reader_get_int_array(r, sizes, q, false, &d->arrays[2 * k], &n_sizes)) return false;
    b->Sizes = d->arrays[2 * k];
    if (strides) {
        path_key(q, bp, "Strides");
        if (!reader_get_int_array(r, strides, q, false, &d->arrays[2 * k + 1], &n_strides)) return false;
        b->Strides = d->arrays[2 * k + 1];
    }
    bool present;
    uint64_t x = n_sizes;
    if (!reader_get_u64(r, body, "DimensionCount", bp, UINT32_MAX, &present, &x)) return false;
    b->DimensionCount = (UINT)x;
    path_key(q, bp, "DimensionCount");
    if (present && x != n_sizes)
        return reader_fail(r, q, "%" PRIu64 ", but Sizes has %zu values (DirectML would read past the array)", x, n_sizes);
    if (strides && n_strides != 0 && n_strides != n_sizes) {
        path_key(q, bp, "Strides");
        return reader_fail(r, q, "has %zu values but Sizes has %zu", n_strides, n_sizes);
    }
    x = 0;
    if (!reader_get_u64(r, body, "TotalTensorSizeInBytes", bp, UINT64_MAX, &present, &x)) return false;
    b->TotalTensorSizeInBytes = x;
    if (!present || x == 0) {
        /* Sizes of 0, unknown types and overflow leave 0, which the
         * library's own rules then report (R-T-SIZES, R-T-DTYPE, R-T-TOTAL). */
        uint64_t bytes = 0;
        if (b->Sizes && dmls_calc_buffer_tensor_size(b->DataType, b->DimensionCount, b->Sizes, b->Strides, &bytes) ==
                            DMLS_OK)
            b->TotalTensorSizeInBytes = bytes;
    }
    x = 0;
    if (!reader_get_u64(r, body, "GuaranteedBaseOffsetAlignment", bp, UINT32_MAX, &present, &x)) return false;
    b->GuaranteedBaseOffsetAlignment = (UINT)x;
    return true;
}

typedef struct op_shape {
    const char *name;              /* the abbreviated enum value */
    DML_OPERATOR_TYPE type;
    const char *tensors[2];
    const char *arrays[3];
    bool signed_strides;
} op_shape;

static const op_shape op_shapes[] = {
    {"SLICE", DML_OPERATOR_SLICE, {"InputTensor", "OutputTensor"}, {"Offsets", "Sizes", "Strides"}, false},
    {"SLICE1", DML_OPERATOR_SLICE1, {"InputTensor", "OutputTensor"},
     {"InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"}, true},
    {"SLICE_GRAD", DML_OPERATOR_SLICE_GRAD, {"InputGradientTensor", "OutputGradientTensor"},
     {"InputWindowOffsets", "InputWindowSizes", "InputWindowStrides"}, true},
};

static const char slice_only[] = "dmlslice runs slice operators only (DML_OPERATOR_SLICE, DML_OPERATOR_SLICE1, "
                                 "DML_OPERATOR_SLICE_GRAD)";

static bool read_op_type(reader *r, const char *type, const char *p, const op_shape **shape) {
    static const char prefix[] = "DML_OPERATOR_";
    const char *suffix = strncmp(type, prefix, sizeof prefix - 1) == 0 ? type + sizeof prefix - 1 : type;
    for (size_t i = 0; i < sizeof op_shapes / sizeof op_shapes[0]; i++) {
        if (strcmp(suffix, op_shapes[i].name) == 0) {
            *shape = &op_shapes[i];
            return true;
        }
    }
    if (ascii_equal_nocase(type, "hlsl")) return reader_fail(r, p, "an HLSL compute shader: %s", slice_only);
    if (ascii_equal_nocase(type, "onnx")) return reader_fail(r, p, "an ONNX model: %s", slice_only);
    if (ascii_equal_nocase(type, "dmlSerializedGraph")) return reader_fail(r, p, "a serialized DirectML graph: %s", slice_only);
    bool enum_like = suffix[0] != '\0';
    for (const char *c = suffix; *c; c++) enum_like = enum_like && (isupper((unsigned char)*c) || isdigit((unsigned char)*c) || *c == '_');
    if (enum_like) return reader_fail(r, p, "DML_OPERATOR_%.80s is not a slice operator: %s", suffix, slice_only);
    return reader_fail(r, p, "unknown dispatchable type \"%.80s\": %s", type, slice_only);
}

bool model_read_dispatchable(reader *r, model_dispatchable *d, const char *name, const json_t *obj, const char *p) {
    static const char *const keys[] = {"type", "Type", "desc", "Desc", "executionFlags", "dmlCompileType",
                                       "bindings", NULL};
    static const char *const exec_flags[] = {"NONE", "ALLOW_HALF_PRECISION_COMPUTATION", "DISABLE_META_COMMANDS",
                                             "DESCRIPTORS_VOLATILE", NULL};
    d->name = text_copy(name);
    if (!d->name) return reader_fail(r, p, "out of memory");
    if (!reader_get_object(r, obj, p)) return false;
    const char *type;
    const char *type_key = json_object_get(obj, "type") ? "type" : "Type";
    char q[PATH_CAP];
    if (!reader_get_string(r, obj, type_key, p, true, &type)) return false;
    path_key(q, p, type_key);
    const op_shape *shape = NULL;
    if (!read_op_type(r, type, q, &shape)) return false;
    if (!reader_only_keys(r, obj, p, keys)) return false;
    const json_t *flags = json_object_get(obj, "executionFlags");
    if (flags) {
        path_key(q, p, "executionFlags");
        const size_t n = json_is_array(flags) ? json_array_size(flags) : 1;
        for (size_t i = 0; i < n; i++) {
            const json_t *e = json_is_array(flags) ? json_array_get(flags, i) : flags;
            int k;
            if (!json_is_string(e) || !parse_prefixed(json_string_value(e), "DML_EXECUTION_FLAG_", exec_flags, &k))
                return reader_fail(r, q, "expected DML_EXECUTION_FLAG_ names (NONE, ALLOW_HALF_PRECISION_COMPUTATION, "
                                  "DISABLE_META_COMMANDS, DESCRIPTORS_VOLATILE)");
        }
    }
    const char *compile = NULL;
    if (!reader_get_string(r, obj, "dmlCompileType", p, false, &compile)) return false;
    if (compile && strcmp(compile, "DmlCompileOp") != 0 && strcmp(compile, "DmlCompileGraph") != 0) {
        path_key(q, p, "dmlCompileType");
        return reader_fail(r, q, "expected DmlCompileOp or DmlCompileGraph");
    }
    if (json_object_get(obj, "bindings")) {
        path_key(q, p, "bindings");
        return reader_fail(r, q, "initialization bindings (for OWNED_BY_DML inputs) are not supported: dmlslice has no "
                          "initialization step; bind the tensor in the dispatch command");
    }
    const char *desc_key = json_object_get(obj, "desc") ? "desc" : "Desc";
    const json_t *desc = json_object_get(obj, desc_key);
    path_key(q, p, desc_key);
    if (!desc) return reader_fail(r, q, "required field missing (the %s_OPERATOR_DESC)", shape->name);
    if (!reader_get_object(r, desc, q)) return false;
    const char *desc_keys[] = {shape->tensors[0], shape->tensors[1], "DimensionCount", shape->arrays[0],
                               shape->arrays[1], shape->arrays[2], NULL};
    if (!reader_only_keys(r, desc, q, desc_keys)) return false;
    d->type_name = shape->type == DML_OPERATOR_SLICE    ? "DML_OPERATOR_SLICE"
                   : shape->type == DML_OPERATOR_SLICE1 ? "DML_OPERATOR_SLICE1"
                                                        : "DML_OPERATOR_SLICE_GRAD";
    for (int k = 0; k < 2; k++) {
        char tq[PATH_CAP];
        path_key(tq, q, shape->tensors[k]);
        const json_t *t = json_object_get(desc, shape->tensors[k]);
        if (!t) return reader_fail(r, tq, "required field missing");
        if (!read_tensor(r, d, k, t, tq)) return false;
        d->tensor_names[k] = shape->tensors[k];
    }
    bool present;
    uint64_t dims = 0;
    if (!reader_get_u64(r, desc, "DimensionCount", q, UINT32_MAX, &present, &dims)) return false;
    char aq[PATH_CAP];
    path_key(aq, q, "DimensionCount");
    if (!present)
        return reader_fail(r, aq, "required field missing (DxDispatch requires an operator's DimensionCount; only a "
                           "tensor's defaults to the length of its Sizes)");
    for (int k = 0; k < 3; k++) {
        path_key(aq, q, shape->arrays[k]);
        const json_t *a = json_object_get(desc, shape->arrays[k]);
        if (!a) return reader_fail(r, aq, "required field missing");
        size_t n;
        if (!reader_get_int_array(r, a, aq, k == 2 && shape->signed_strides, &d->arrays[4 + k], &n)) return false;
        if (n != dims)
            return reader_fail(r, aq, "has %zu values but DimensionCount is %" PRIu64 " (DirectML reads DimensionCount)", n,
                        dims);
    }
    const UINT n = (UINT)dims;
    const INT *signed_strides = (const INT *)d->arrays[6];
    switch (shape->type) {
    case DML_OPERATOR_SLICE:
        d->desc.slice = (DML_SLICE_OPERATOR_DESC){&d->tensors[0], &d->tensors[1], n, d->arrays[4], d->arrays[5],
                                                  d->arrays[6]};
        break;
    case DML_OPERATOR_SLICE1:
        d->desc.slice1 = (DML_SLICE1_OPERATOR_DESC){&d->tensors[0], &d->tensors[1], n, d->arrays[4], d->arrays[5],
                                                    signed_strides};
        break;
    default:
        d->desc.grad = (DML_SLICE_GRAD_OPERATOR_DESC){&d->tensors[0], &d->tensors[1], n, d->arrays[4], d->arrays[5],
                                                      signed_strides};
        break;
    }
    d->op.Type = shape->type;
    d->op.Desc = &d->desc;
    return true;
}

int model_find_dispatchable(const model *m, const char *name) {
    for (size_t i = 0; i < m->dispatchable_count; i++)
        if (strcmp(m->dispatchables[i].name, name) == 0) return (int)i;
    return -1;
}
