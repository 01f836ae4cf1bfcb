/* PARAMS parsing and planning; see params.h. */
#include "params.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "dmlslice/frontends.h"

void params_init(params *p) {
    memset(p, 0, sizeof *p);
    p->level = DML_FEATURE_LEVEL_6_4;
}

typedef struct list_option {
    const char *name;
    param_form form;
    size_t offset; /* of the param_list in params */
} list_option;

static const list_option list_options[] = {
    {"--offsets", FORM_DML_SLICE, offsetof(params, offsets)},
    {"--sizes", FORM_DML_SLICE, offsetof(params, sizes)},
    {"--strides", FORM_DML_SLICE, offsetof(params, strides)},
    {"--window-offsets", FORM_DML_SLICE1, offsetof(params, win_offsets)},
    {"--window-sizes", FORM_DML_SLICE1, offsetof(params, win_sizes)},
    {"--window-strides", FORM_DML_SLICE1, offsetof(params, win_strides)},
    {"--output-sizes", FORM_DML_SLICE1, offsetof(params, out_sizes)},
    {"--onnx-starts", FORM_ONNX, offsetof(params, onnx_starts)},
    {"--onnx-ends", FORM_ONNX, offsetof(params, onnx_ends)},
    {"--onnx-axes", FORM_ONNX, offsetof(params, onnx_axes)},
    {"--onnx-steps", FORM_ONNX, offsetof(params, onnx_steps)},
    {"--webnn-starts", FORM_WEBNN_SLICE, offsetof(params, webnn_starts)},
    {"--webnn-sizes", FORM_WEBNN_SLICE, offsetof(params, webnn_sizes)},
    {"--webnn-strides", FORM_WEBNN_SLICE, offsetof(params, webnn_strides)},
    {"--webnn-reverse", FORM_WEBNN_REVERSE, offsetof(params, webnn_axes)},
};

static bool set_form(params *p, param_form form, const char *opt) {
    if (p->form != FORM_NONE && p->form != form) {
        fprintf(stderr, "%s: %s cannot be combined with %s: give one kind of slice parameters\n", args_prog, opt,
                p->form_option);
        return false;
    }
    if (p->form == FORM_NONE) p->form_option = opt;
    p->form = form;
    return true;
}

int params_option(params *p, const char *opt, const char *value) {
    if (strcmp(opt, "--feature-level") == 0) return args_feature_level(opt, value, &p->level) ? 1 : -1;
    if (strcmp(opt, "--index") == 0) {
        if (!set_form(p, FORM_NUMPY, opt)) return -1;
        if (p->index) {
            fprintf(stderr, "%s: --index given twice\n", args_prog);
            return -1;
        }
        p->index = value;
        return 1;
    }
    for (size_t k = 0; k < sizeof list_options / sizeof list_options[0]; k++) {
        const list_option *lo = &list_options[k];
        if (strcmp(opt, lo->name) != 0) continue;
        if (!set_form(p, lo->form, opt)) return -1;
        param_list *l = (param_list *)((char *)p + lo->offset);
        if (l->given) {
            fprintf(stderr, "%s: %s given twice\n", args_prog, opt);
            return -1;
        }
        l->given = true;
        if (lo->form == FORM_WEBNN_REVERSE && strcmp(value, "all") == 0) {
            p->webnn_reverse_all = true;
            return 1;
        }
        return args_list(opt, value, l->v, &l->n) ? 1 : -1;
    }
    return 0;
}

static bool require(const param_list *l, const char *name, const char *form_option) {
    if (l->given) return true;
    fprintf(stderr, "%s: %s needs %s too\n", args_prog, form_option, name);
    return false;
}

bool params_complete(const params *p) {
    switch (p->form) {
    case FORM_NONE:
        fprintf(stderr, "%s: no slice parameters: give --index, --onnx-starts/--onnx-ends, --webnn-starts/--webnn-sizes, "
                        "--webnn-reverse, --offsets/--sizes/--strides or --window-offsets/--window-sizes/--window-strides\n",
                args_prog);
        return false;
    case FORM_DML_SLICE:
        return require(&p->offsets, "--offsets", p->form_option) && require(&p->sizes, "--sizes", p->form_option) &&
               require(&p->strides, "--strides", p->form_option);
    case FORM_DML_SLICE1:
        return require(&p->win_offsets, "--window-offsets", p->form_option) &&
               require(&p->win_sizes, "--window-sizes", p->form_option) &&
               require(&p->win_strides, "--window-strides", p->form_option);
    case FORM_ONNX:
        return require(&p->onnx_starts, "--onnx-starts", p->form_option) &&
               require(&p->onnx_ends, "--onnx-ends", p->form_option);
    case FORM_WEBNN_SLICE:
        return require(&p->webnn_starts, "--webnn-starts", p->form_option) &&
               require(&p->webnn_sizes, "--webnn-sizes", p->form_option);
    case FORM_NUMPY:
    case FORM_WEBNN_REVERSE: return true;
    }
    return false;
}

static bool plan_fail(param_plan *plan, const char *rule, const char *msg) {
    snprintf(plan->error, sizeof plan->error, "%s", msg);
    plan->rule = rule;
    return false;
}

static bool lib_fail(param_plan *plan, dmls_status s) {
    snprintf(plan->error, sizeof plan->error, "%s: %s", dmls_status_name(s), dmls_last_error());
    plan->rule = dmls_last_error_rule();
    return false;
}

/* Copies a list into a DirectML UINT (or INT) array, refusing what the
 * 32-bit field cannot hold instead of truncating it. */
static bool to_dml(const char *opt, const param_list *l, bool is_signed, UINT *u, INT *s, param_plan *plan) {
    for (int32_t i = 0; i < l->n; i++) {
        const int64_t v = l->v[i];
        const bool fits = is_signed ? v >= INT_MIN && v <= INT_MAX : v >= 0 && v <= (int64_t)UINT_MAX;
        if (!fits) {
            char msg[200];
            snprintf(msg, sizeof msg, "%s[%d] = %" PRId64 " does not fit DirectML's %s field (%s)", opt, (int)i, v,
                     is_signed ? "32-bit signed INT" : "32-bit unsigned UINT",
                     is_signed ? "-2147483648 to 2147483647" : "0 to 4294967295");
            return plan_fail(plan, "", msg);
        }
        if (is_signed) s[i] = (INT)v;
        else u[i] = (UINT)v;
    }
    return true;
}

/* A tensor's sizes and strides as DirectML's 32-bit fields. DirectML has
 * no larger sizes, so a bigger tensor is refused the way it would be. */
static bool tensor_to_dml(const char *role, int32_t ndim, const int64_t *shape, const int64_t *strides, UINT *sizes,
                          UINT *ustrides, param_plan *plan) {
    char msg[200];
    for (int32_t i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            snprintf(msg, sizeof msg, "%s size %" PRId64 " in dimension %d is negative", role, shape[i], (int)i);
            return plan_fail(plan, "R-T-SIZES", msg);
        }
        if (shape[i] > (int64_t)UINT_MAX) {
            snprintf(msg, sizeof msg, "%s size %" PRId64 " in dimension %d exceeds DirectML's limit of 2^32-1",
                     role, shape[i], (int)i);
            return plan_fail(plan, "R-T-ELEMS", msg);
        }
        sizes[i] = (UINT)shape[i];
        if (strides) {
            if (strides[i] < 0 || strides[i] > (int64_t)UINT_MAX) {
                snprintf(msg, sizeof msg, "%s stride %" PRId64 " in dimension %d does not fit DirectML's UINT strides",
                         role, strides[i], (int)i);
                return plan_fail(plan, "", msg);
            }
            ustrides[i] = (UINT)strides[i];
        }
    }
    return true;
}

static bool plan_dml(const params *p, const param_tensor *t, param_plan *plan) {
    const DML_TENSOR_DATA_TYPE type = (DML_TENSOR_DATA_TYPE)t->dtype; /* the values are DirectML's */
    const bool slice1 = p->form == FORM_DML_SLICE1;
    const param_list *off = slice1 ? &p->win_offsets : &p->offsets, *siz = slice1 ? &p->win_sizes : &p->sizes,
                     *str = slice1 ? &p->win_strides : &p->strides;
    UINT in_sizes[DMLS_MAX_RANK], in_strides[DMLS_MAX_RANK], out_sizes[DMLS_MAX_RANK], out_strides[DMLS_MAX_RANK];
    UINT offsets[ARGS_MAX_LIST], sizes[ARGS_MAX_LIST], ustrides[ARGS_MAX_LIST];
    INT sstrides[ARGS_MAX_LIST];
    if (!tensor_to_dml("input", t->ndim, t->shape, t->strides, in_sizes, in_strides, plan)) return false;
    if (!to_dml(slice1 ? "--window-offsets" : "--offsets", off, false, offsets, NULL, plan) ||
        !to_dml(slice1 ? "--window-sizes" : "--sizes", siz, false, sizes, NULL, plan) ||
        !to_dml(slice1 ? "--window-strides" : "--strides", str, slice1, ustrides, sstrides, plan))
        return false;
    if (off->n != siz->n || off->n != str->n) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s has %d values, %s %d and %s %d; DimensionCount needs one count",
                 slice1 ? "--window-offsets" : "--offsets", (int)off->n, slice1 ? "--window-sizes" : "--sizes",
                 (int)siz->n, slice1 ? "--window-strides" : "--strides", (int)str->n);
        return plan_fail(plan, "R-OP-RANK", msg);
    }
    const UINT n = (UINT)off->n;
    /* The output's sizes: SLICE's Sizes; for SLICE1 --output-sizes, or every
     * element the window holds (R-WIN-COUNT's maximum). */
    int64_t out64[DMLS_MAX_RANK];
    for (UINT i = 0; i < n; i++) {
        if (!slice1) out64[i] = sizes[i];
        else if (p->out_sizes.given) out64[i] = i < (UINT)p->out_sizes.n ? p->out_sizes.v[i] : 0;
        else
            out64[i] = sizes[i] == 0 || sstrides[i] == 0
                           ? 0
                           : 1 + (int64_t)(sizes[i] - 1) / (sstrides[i] < 0 ? -(int64_t)sstrides[i] : sstrides[i]);
    }
    if (slice1 && p->out_sizes.given && p->out_sizes.n != (int32_t)n) {
        char msg[160];
        snprintf(msg, sizeof msg, "--output-sizes has %d values but the window has %u", (int)p->out_sizes.n, n);
        return plan_fail(plan, "R-OP-RANK", msg);
    }
    param_list outl = {true, (int32_t)n, {0}};
    memcpy(outl.v, out64, sizeof(int64_t) * n);
    if (!to_dml("--output-sizes", &outl, false, out_sizes, NULL, plan)) return false;
    if (t->out_strides && !tensor_to_dml("output", (int32_t)n, out64, t->out_strides, out_sizes, out_strides, plan))
        return false;

    DML_BUFFER_TENSOR_DESC in_buf = {type, DML_TENSOR_FLAG_NONE, (UINT)t->ndim, in_sizes,
                                     t->strides ? in_strides : NULL, 0, 0};
    DML_BUFFER_TENSOR_DESC out_buf = {type, DML_TENSOR_FLAG_NONE, n, out_sizes, t->out_strides ? out_strides : NULL,
                                      0, 0};
    uint64_t bytes;
    dmls_status s = dmls_calc_buffer_tensor_size(type, in_buf.DimensionCount, in_sizes, in_buf.Strides, &bytes);
    if (s != DMLS_OK) return lib_fail(plan, s);
    in_buf.TotalTensorSizeInBytes = bytes;
    s = dmls_calc_buffer_tensor_size(type, n, out_sizes, out_buf.Strides, &bytes);
    if (s != DMLS_OK) return lib_fail(plan, s);
    out_buf.TotalTensorSizeInBytes = bytes;
    DML_TENSOR_DESC in_desc = {DML_TENSOR_TYPE_BUFFER, &in_buf}, out_desc = {DML_TENSOR_TYPE_BUFFER, &out_buf};
    DML_SLICE_OPERATOR_DESC sd = {&in_desc, &out_desc, n, offsets, sizes, ustrides};
    DML_SLICE1_OPERATOR_DESC s1 = {&in_desc, &out_desc, n, offsets, sizes, sstrides};
    DML_OPERATOR_DESC desc = {slice1 ? DML_OPERATOR_SLICE1 : DML_OPERATOR_SLICE,
                              slice1 ? (const void *)&s1 : (const void *)&sd};
    s = dmls_create_dml(&desc, p->level, &plan->op);
    if (s != DMLS_OK) return lib_fail(plan, s);
    plan->dml = true;
    plan->final_ndim = (int32_t)n;
    memcpy(plan->final_shape, out64, sizeof(int64_t) * n);
    return true;
}

static bool plan_native(const params *p, const param_tensor *t, param_plan *plan) {
    dmls_lowered lw;
    dmls_status s = DMLS_OK;
    uint64_t u1[ARGS_MAX_LIST], u2[ARGS_MAX_LIST], u3[ARGS_MAX_LIST];
    const param_list *unsigned_lists[3] = {NULL, NULL, NULL};
    const char *unsigned_names[3] = {"--webnn-starts", "--webnn-sizes", "--webnn-strides"};
    if (p->form == FORM_WEBNN_SLICE) {
        unsigned_lists[0] = &p->webnn_starts;
        unsigned_lists[1] = &p->webnn_sizes;
        unsigned_lists[2] = p->webnn_strides.given ? &p->webnn_strides : NULL;
    } else if (p->form == FORM_WEBNN_REVERSE && !p->webnn_reverse_all) {
        unsigned_lists[0] = &p->webnn_axes;
        unsigned_names[0] = "--webnn-reverse";
    }
    uint64_t *dst[3] = {u1, u2, u3};
    for (int k = 0; k < 3; k++) {
        for (int32_t i = 0; unsigned_lists[k] && i < unsigned_lists[k]->n; i++) {
            if (unsigned_lists[k]->v[i] < 0) {
                char msg[160];
                snprintf(msg, sizeof msg, "%s[%d] = %" PRId64 " is negative; WebNN's values are unsigned",
                         unsigned_names[k], (int)i, unsigned_lists[k]->v[i]);
                return plan_fail(plan, "", msg);
            }
            dst[k][i] = (uint64_t)unsigned_lists[k]->v[i];
        }
    }
    switch (p->form) {
    case FORM_NUMPY: s = dmls_lower_numpy(t->ndim, t->shape, p->index, &lw); break;
    case FORM_ONNX:
        if (p->onnx_starts.n != p->onnx_ends.n) {
            char msg[160];
            snprintf(msg, sizeof msg, "ONNX Slice: starts has %d values but ends has %d", (int)p->onnx_starts.n,
                     (int)p->onnx_ends.n);
            return plan_fail(plan, "", msg);
        }
        s = dmls_lower_onnx(t->ndim, t->shape, p->onnx_starts.v, p->onnx_ends.v, p->onnx_starts.n,
                            p->onnx_axes.given ? p->onnx_axes.v : NULL, p->onnx_axes.n,
                            p->onnx_steps.given ? p->onnx_steps.v : NULL, p->onnx_steps.n, &lw);
        break;
    case FORM_WEBNN_SLICE:
        s = dmls_lower_webnn_slice(t->ndim, t->shape, u1, p->webnn_starts.n, u2, p->webnn_sizes.n,
                                   p->webnn_strides.given ? u3 : NULL, p->webnn_strides.n, &lw);
        break;
    case FORM_WEBNN_REVERSE:
        s = dmls_lower_webnn_reverse(t->ndim, t->shape, p->webnn_reverse_all ? NULL : u1, p->webnn_axes.n, &lw);
        break;
    default: return plan_fail(plan, "", "no slice parameters");
    }
    if (s != DMLS_OK) return lib_fail(plan, s);
    const dmls_tensor in = {t->dtype, t->ndim, t->shape, t->strides, 0};
    const dmls_tensor out = {t->dtype, lw.ndim, lw.out_sizes, t->out_strides, 0};
    const dmls_window w = dmls_lowered_window(&lw);
    s = dmls_create(&in, &out, &w, &plan->op);
    if (s != DMLS_OK) return lib_fail(plan, s);
    plan->final_ndim = lw.final_ndim;
    memcpy(plan->final_shape, lw.final_shape, sizeof lw.final_shape);
    return true;
}

bool params_plan(const params *p, const param_tensor *t, param_plan *plan) {
    memset(plan, 0, sizeof *plan);
    plan->rule = "";
    if (p->form == FORM_DML_SLICE || p->form == FORM_DML_SLICE1) return plan_dml(p, t, plan);
    return plan_native(p, t, plan);
}

bool params_plan_grad(const params *p, const param_tensor *t, const param_list *out_grad_sizes, param_plan *plan) {
    memset(plan, 0, sizeof *plan);
    plan->rule = "";
    const DML_TENSOR_DATA_TYPE type = (DML_TENSOR_DATA_TYPE)t->dtype; /* the values are DirectML's */
    UINT in_sizes[DMLS_MAX_RANK], in_strides[DMLS_MAX_RANK], out_sizes[DMLS_MAX_RANK], out_strides[DMLS_MAX_RANK];
    UINT offsets[ARGS_MAX_LIST], sizes[ARGS_MAX_LIST], unused[ARGS_MAX_LIST];
    INT strides[ARGS_MAX_LIST];
    const int32_t n = out_grad_sizes->n;
    if (!tensor_to_dml("input gradient", t->ndim, t->shape, t->strides, in_sizes, in_strides, plan) ||
        !tensor_to_dml("output gradient", n, out_grad_sizes->v, t->out_strides, out_sizes, out_strides, plan) ||
        !to_dml("--window-offsets", &p->win_offsets, false, offsets, NULL, plan) ||
        !to_dml("--window-sizes", &p->win_sizes, false, sizes, NULL, plan) ||
        !to_dml("--window-strides", &p->win_strides, true, unused, strides, plan))
        return false;
    if (p->win_offsets.n != n || p->win_sizes.n != n || p->win_strides.n != n) {
        char msg[240];
        snprintf(msg, sizeof msg,
                 "--window-offsets has %d values, --window-sizes %d, --window-strides %d and "
                 "--output-gradient-sizes %d; DimensionCount needs one count",
                 (int)p->win_offsets.n, (int)p->win_sizes.n, (int)p->win_strides.n, (int)n);
        return plan_fail(plan, "R-OP-RANK", msg);
    }
    DML_BUFFER_TENSOR_DESC in_buf = {type, DML_TENSOR_FLAG_NONE, (UINT)t->ndim, in_sizes, t->strides ? in_strides : NULL,
                                     0, 0};
    DML_BUFFER_TENSOR_DESC out_buf = {type, DML_TENSOR_FLAG_NONE, (UINT)n, out_sizes,
                                      t->out_strides ? out_strides : NULL, 0, 0};
    uint64_t bytes;
    dmls_status s = dmls_calc_buffer_tensor_size(type, in_buf.DimensionCount, in_sizes, in_buf.Strides, &bytes);
    if (s != DMLS_OK) return lib_fail(plan, s);
    in_buf.TotalTensorSizeInBytes = bytes;
    s = dmls_calc_buffer_tensor_size(type, out_buf.DimensionCount, out_sizes, out_buf.Strides, &bytes);
    if (s != DMLS_OK) return lib_fail(plan, s);
    out_buf.TotalTensorSizeInBytes = bytes;
    DML_TENSOR_DESC in_desc = {DML_TENSOR_TYPE_BUFFER, &in_buf}, out_desc = {DML_TENSOR_TYPE_BUFFER, &out_buf};
    DML_SLICE_GRAD_OPERATOR_DESC g = {&in_desc, &out_desc, (UINT)n, offsets, sizes, strides};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE_GRAD, &g};
    s = dmls_create_dml(&desc, p->level, &plan->op);
    if (s != DMLS_OK) return lib_fail(plan, s);
    plan->dml = true;
    plan->final_ndim = n;
    memcpy(plan->final_shape, out_grad_sizes->v, sizeof(int64_t) * (size_t)n);
    return true;
}
