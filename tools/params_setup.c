/* The operator set up from parsed PARAMS (params.h): validated as DirectML
 * would at the feature level, or lowered from a front end, created, and
 * cut into row pieces for the tool's streaming runs. params.c parses. */
#include "params.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmlslice/frontends.h"
#include "platform.h"

static bool setup_fail(param_setup *setup, const char *rule, const char *msg) {
    snprintf(setup->error, sizeof setup->error, "%s", msg);
    setup->rule = rule;
    return false;
}

static bool lib_fail(param_setup *setup, dmls_status s) {
    snprintf(setup->error, sizeof setup->error, "%s: %s", dmls_status_name(s), dmls_last_error());
    setup->rule = dmls_last_error_rule();
    return false;
}

/* The SLICE or SLICE1 to hand to dmls_create_dml, in 64 bits; names are the
 * options (or the lowering) the values came from, for messages. */
typedef struct dml_request {
    bool slice1;
    param_list offsets, sizes, strides;
    const int64_t *out_sizes; /* offsets.n values, each >= 1 */
    const char *names[3];
} dml_request;

/* Keeps a SLICE1's arguments in setup->native (see param_native). */
static void record_native(const dmls_tensor *in, const dmls_tensor *out, const dmls_window *w, param_setup *setup) {
    param_native *n = &setup->native;
    if (out->strides != NULL || in->ndim != out->ndim) return;
    n->set = true;
    n->dtype = in->dtype;
    n->ndim = in->ndim;
    n->in_packed = in->strides == NULL;
    n->in_offset = in->byte_offset;
    for (int32_t i = 0; i < in->ndim; i++) {
        n->in_shape[i] = in->shape[i];
        n->in_strides[i] = in->strides ? in->strides[i] : 0;
        n->out_shape[i] = out->shape[i];
        n->offsets[i] = w->offsets[i];
        n->sizes[i] = w->sizes[i];
        n->strides[i] = w->strides[i];
    }
}

/* dmls_create (or dmls_create_grad) for elements of t->parts parts: the
 * parts are one more, innermost axis, taken whole, so the copy moves each
 * element whole whatever its size (complex128, a record, a string). */
static bool create_native(const param_tensor *t, const dmls_tensor *in, const dmls_tensor *out, const dmls_window *w,
                          bool grad, param_setup *setup) {
    const int64_t k = t->parts > 1 ? t->parts : 1;
    if (k == 1) {
        const dmls_status s = grad ? dmls_create_grad(in, out, w, &setup->op) : dmls_create(in, out, w, &setup->op);
        if (s == DMLS_OK && !grad) record_native(in, out, w, setup);
        return s == DMLS_OK || lib_fail(setup, s);
    }
    char msg[300];
    const size_t unit = dmls_dtype_size(in->dtype);
    if (in->ndim >= DMLS_MAX_RANK || out->ndim >= DMLS_MAX_RANK) {
        snprintf(msg, sizeof msg,
                 "%" PRId64 "-byte items are copied as %" PRId64 " parts of %zu byte%s on one more, innermost axis: "
                 "this slice's %d axes and that one are more than the %d the library takes",
                 k * (int64_t)unit, k, unit, unit == 1 ? "" : "s", (int)(in->ndim > out->ndim ? in->ndim : out->ndim),
                 DMLS_MAX_RANK);
        return setup_fail(setup, "R-OP-RANK", msg);
    }
    int64_t ishape[DMLS_MAX_RANK], istr[DMLS_MAX_RANK], oshape[DMLS_MAX_RANK];
    int64_t off[DMLS_MAX_RANK], ws[DMLS_MAX_RANK], wst[DMLS_MAX_RANK];
    for (int32_t i = 0; i < in->ndim; i++) {
        ishape[i] = in->shape[i];
        /* Only an empty array's strides can pass INT64_MAX parts; they address nothing. */
        if (in->strides) istr[i] = in->strides[i] > INT64_MAX / k ? INT64_MAX : in->strides[i] * k;
    }
    for (int32_t i = 0; i < out->ndim; i++) oshape[i] = out->shape[i];
    const int32_t wn = grad ? out->ndim : in->ndim; /* the window spans SLICE1's input, SLICE_GRAD's output */
    for (int32_t i = 0; i < wn; i++) off[i] = w->offsets[i], ws[i] = w->sizes[i], wst[i] = w->strides[i];
    ishape[in->ndim] = oshape[out->ndim] = ws[wn] = k;
    istr[in->ndim] = wst[wn] = 1;
    off[wn] = 0;
    const dmls_tensor pin = {in->dtype, in->ndim + 1, ishape, in->strides ? istr : NULL, in->byte_offset};
    const dmls_tensor pout = {out->dtype, out->ndim + 1, oshape, NULL, out->byte_offset};
    const dmls_window pw = {off, ws, wst};
    const dmls_status s = grad ? dmls_create_grad(&pin, &pout, &pw, &setup->op) : dmls_create(&pin, &pout, &pw, &setup->op);
    if (s == DMLS_OK && !grad) record_native(&pin, &pout, &pw, setup);
    return s == DMLS_OK || lib_fail(setup, s);
}

/* A DirectML form refused for an empty tensor (R-T-SIZES) of an input of
 * t's shape or an output of out_sizes: say what takes one. Returns false. */
static bool empty_hint(param_setup *setup, const param_tensor *t, int32_t n, const int64_t *out_sizes) {
    bool empty = false;
    for (int32_t i = 0; i < t->ndim; i++) empty |= t->shape[i] == 0;
    for (int32_t i = 0; i < n; i++) empty |= out_sizes[i] == 0;
    if (empty && strcmp(setup->rule, "R-T-SIZES") == 0) {
        const size_t used = strlen(setup->error);
        snprintf(setup->error + used, sizeof setup->error - used,
                 "; an empty axis: DirectML tensors cannot be empty, --index (or --onnx-*, --webnn-*) handles empty "
                 "arrays");
    }
    return false;
}

/* The tool's DirectML descriptors are packed or strided as the .npy and
 * --output-strides say, sized by DirectML's own rule, with no alignment
 * promised beyond DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT. */
static bool create_dml(const params *p, const param_tensor *t, const dml_request *r, param_setup *setup) {
    const dmls_dml_lists l = {r->slice1 ? DML_OPERATOR_SLICE1 : DML_OPERATOR_SLICE,
                              (DML_TENSOR_DATA_TYPE)t->dtype, /* the values are DirectML's */
                              {t->ndim, t->shape, t->strides, 0, 0},
                              {r->offsets.n, r->out_sizes, t->out_strides, 0, 0},
                              r->offsets.n,
                              r->offsets.v,
                              r->sizes.v,
                              r->strides.v};
    const dmls_status s = dmls_create_dml_lists(&l, p->level, &setup->op);
    return s == DMLS_OK || lib_fail(setup, s);
}

/* The native SLICE1 a DirectML form validated by create_dml stands for
 * (SLICE's window spans (Sizes - 1) * Strides + 1), kept in setup->native.
 * Over elements of several parts DirectML's verdict was given for the
 * parts' type, and the copy runs natively over the parts' axis. */
static bool native_of_dml(const param_tensor *t, const dml_request *r, param_setup *setup) {
    int64_t sizes[DMLS_MAX_RANK];
    for (int32_t i = 0; i < r->offsets.n; i++)
        sizes[i] = r->slice1 ? r->sizes.v[i] : (r->sizes.v[i] - 1) * r->strides.v[i] + 1;
    const dmls_tensor in = {t->dtype, t->ndim, t->shape, t->strides, 0};
    const dmls_tensor out = {t->dtype, r->offsets.n, r->out_sizes, t->out_strides, 0};
    const dmls_window w = {r->offsets.v, sizes, r->strides.v};
    if (t->parts <= 1) {
        record_native(&in, &out, &w, setup);
        return true;
    }
    dmls_destroy(setup->op);
    setup->op = NULL;
    setup->dml = false;
    return create_native(t, &in, &out, &w, false, setup);
}

static bool out_strides_count(const param_tensor *t, int32_t rank, const char *what, param_setup *setup) {
    if (t->out_strides == NULL || t->n_out_strides == rank) return true;
    char msg[300];
    snprintf(msg, sizeof msg, "--output-strides has %d values but the SLICE1 output has %d axes (%s)",
             (int)t->n_out_strides, (int)rank, what);
    return setup_fail(setup, "R-OP-RANK", msg);
}

/* DirectML's descriptors hold at most DMLS_MAX_RANK axes; .npy files more. */
static bool dml_rank(const param_tensor *t, param_setup *setup) {
    if (t->ndim <= DMLS_MAX_RANK) return true;
    char msg[200];
    snprintf(msg, sizeof msg, "the input has %d axes; DirectML tensors have at most %d (--index takes any rank)",
             (int)t->ndim, DMLS_MAX_RANK);
    return setup_fail(setup, "R-OP-RANK", msg);
}

static bool setup_dml(const params *p, const param_tensor *t, param_setup *setup) {
    const bool slice1 = p->form == FORM_DML_SLICE1;
    if (!dml_rank(t, setup)) return false;
    dml_request r = {slice1, slice1 ? p->win_offsets : p->offsets, slice1 ? p->win_sizes : p->sizes,
                     slice1 ? p->win_strides : p->strides, NULL,
                     {slice1 ? "--window-offsets" : "--offsets", slice1 ? "--window-sizes" : "--sizes",
                      slice1 ? "--window-strides" : "--strides"}};
    if (r.offsets.n != r.sizes.n || r.offsets.n != r.strides.n) {
        char msg[200];
        snprintf(msg, sizeof msg, "%s has %d values, %s %d and %s %d; DimensionCount needs one count", r.names[0],
                 (int)r.offsets.n, r.names[1], (int)r.sizes.n, r.names[2], (int)r.strides.n);
        return setup_fail(setup, "R-OP-RANK", msg);
    }
    const int32_t n = r.offsets.n;
    if (slice1 && p->out_sizes.given && p->out_sizes.n != n) {
        char msg[160];
        snprintf(msg, sizeof msg, "--output-sizes has %d values but the window has %d", (int)p->out_sizes.n, (int)n);
        return setup_fail(setup, "R-OP-RANK", msg);
    }
    if (!out_strides_count(t, n, "one per value of the window lists", setup)) return false;
    /* The output's sizes: SLICE's Sizes; for SLICE1 --output-sizes, or every
     * element the window holds (R-WIN-COUNT's maximum). A window of no
     * elements or with a zero stride holds no count: 1 stands in, so that
     * the library's validation reaches the window and names the rule it
     * breaks (R-WIN-NONEMPTY, R-WIN-STRIDE). */
    int64_t out64[DMLS_MAX_RANK];
    for (int32_t i = 0; i < n; i++) {
        const int64_t size = r.sizes.v[i], stride = r.strides.v[i];
        if (!slice1) out64[i] = size;
        else if (p->out_sizes.given) out64[i] = p->out_sizes.v[i];
        else if (size <= 0 || stride == 0 || stride == INT64_MIN) out64[i] = 1;
        else out64[i] = 1 + (size - 1) / (stride < 0 ? -stride : stride);
        if (slice1 && p->out_sizes.given && out64[i] == 0) {
            char msg[300];
            snprintf(msg, sizeof msg,
                     "--output-sizes[%d] = 0: SLICE1's output sizes must be at least 1 (DirectML tensors cannot be "
                     "empty; --index handles empty results)",
                     (int)i);
            return setup_fail(setup, "R-WIN-COUNT", msg);
        }
    }
    r.out_sizes = out64;
    if (!create_dml(p, t, &r, setup)) return empty_hint(setup, t, n, out64);
    setup->dml = true;
    if (!native_of_dml(t, &r, setup)) return false;
    setup->final_ndim = n;
    memcpy(setup->final_shape, out64, sizeof(int64_t) * (size_t)n);
    return true;
}

/* --feature-level with a front end: would DirectML accept the lowered
 * SLICE1? Only the answer is kept; the native operator runs. */
static bool check_lowered_as_dml(const params *p, const param_tensor *t, const dmls_lowered *lw, param_setup *setup) {
    dml_request r = {true, {true, lw->ndim, {0}}, {true, lw->ndim, {0}}, {true, lw->ndim, {0}}, lw->out_sizes,
                     {"the lowered window offsets", "the lowered window sizes", "the lowered window strides"}};
    memcpy(r.offsets.v, lw->offsets, sizeof(int64_t) * (size_t)lw->ndim);
    memcpy(r.sizes.v, lw->sizes, sizeof(int64_t) * (size_t)lw->ndim);
    memcpy(r.strides.v, lw->strides, sizeof(int64_t) * (size_t)lw->ndim);
    param_setup dml;
    memset(&dml, 0, sizeof dml);
    if (!create_dml(p, t, &r, &dml)) {
        snprintf(setup->error, sizeof setup->error, "DirectML would refuse this slice at feature level %s: %.500s",
                 dmls_feature_level_name(p->level), dml.error);
        setup->rule = dml.rule;
        return false;
    }
    dmls_destroy(dml.op);
    return true;
}

static bool setup_native(const params *p, const param_tensor *t, param_setup *setup) {
    dmls_lowered lw;
    /* NumPy takes inputs of any rank NumPy writes: its SLICE1 runs over a
     * view of at most DMLS_MAX_RANK axes (the input itself up to that). */
    dmls_lowered_view view;
    param_tensor viewed = *t;
    uint64_t byte_offset = 0;
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
                return setup_fail(setup, "", msg);
            }
            dst[k][i] = (uint64_t)unsigned_lists[k]->v[i];
        }
    }
    switch (p->form) {
    case FORM_NONE: /* --perm alone: the whole (transposed) array */
    case FORM_NUMPY:
        s = dmls_lower_numpy_view(t->ndim, t->shape, t->strides, p->form == FORM_NUMPY ? p->index : "", &view);
        lw = view.slice;
        if (s == DMLS_OK && t->ndim > DMLS_MAX_RANK) {
            viewed.ndim = lw.ndim;
            viewed.shape = view.in_shape;
            viewed.strides = view.in_strides;
            byte_offset = (uint64_t)view.in_offset * dmls_dtype_size(t->dtype) * (uint64_t)(t->parts > 1 ? t->parts : 1);
        }
        break;
    case FORM_ONNX:
        if (p->onnx_starts.n != p->onnx_ends.n) {
            char msg[160];
            snprintf(msg, sizeof msg, "ONNX Slice: starts has %d values but ends has %d", (int)p->onnx_starts.n,
                     (int)p->onnx_ends.n);
            return setup_fail(setup, "", msg);
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
    default: return setup_fail(setup, "", "no slice parameters");
    }
    if (s != DMLS_OK) return lib_fail(setup, s);
    if (!out_strides_count(t, lw.ndim, "the input's rank: the front ends lower onto SLICE1 over the input's axes",
                           setup))
        return false;
    /* (A view's offset is where the buffer is bound, not part of DirectML's
     * descriptor.) */
    if (p->level_given && !check_lowered_as_dml(p, &viewed, &lw, setup)) return false;
    const dmls_tensor in = {t->dtype, viewed.ndim, viewed.shape, viewed.strides, byte_offset};
    const dmls_tensor out = {t->dtype, lw.ndim, lw.out_sizes, t->out_strides, 0};
    const dmls_window w = dmls_lowered_window(&lw);
    if (!create_native(t, &in, &out, &w, false, setup)) return false;
    if (p->form == FORM_NUMPY || p->form == FORM_NONE) {
        setup->final_ndim = view.final_ndim;
        memcpy(setup->final_shape, view.final_shape, sizeof(int64_t) * (size_t)view.final_ndim);
    } else {
        setup->final_ndim = lw.final_ndim;
        memcpy(setup->final_shape, lw.final_shape, sizeof(int64_t) * (size_t)lw.final_ndim);
    }
    return true;
}

int64_t params_piece_rows(const param_setup *setup, uint64_t *row_bytes) {
    const param_native *n = &setup->native;
    *row_bytes = dmls_dtype_size(n->dtype);
    int32_t a = 0;
    while (n->set && a < n->ndim && n->out_shape[a] == 1) a++;
    if (!n->set || a == n->ndim || n->out_shape[a] == 0) return 0;
    for (int32_t i = a + 1; i < n->ndim; i++) *row_bytes *= (uint64_t)n->out_shape[i];
    return *row_bytes == 0 ? 0 : n->out_shape[a]; /* an empty output has nothing to cut */
}

dmls_status params_piece(const param_setup *setup, int64_t first, int64_t count, dmls_operator **op) {
    param_native n = setup->native;
    int32_t a = 0;
    while (n.out_shape[a] == 1) a++;
    /* Output row r reads element offset + r * stride, counted from the
     * window's far end when the stride is negative; the piece's window
     * spans exactly its rows. */
    const int64_t st = n.strides[a], walk_start = st > 0 ? n.offsets[a] : n.offsets[a] + n.sizes[a] - 1;
    n.offsets[a] = walk_start + (st > 0 ? first : first + count - 1) * st;
    n.sizes[a] = (count - 1) * (st > 0 ? st : -st) + 1;
    n.out_shape[a] = count;
    const dmls_tensor in = {n.dtype, n.ndim, n.in_shape, n.in_packed ? NULL : n.in_strides, n.in_offset};
    const dmls_tensor out = {n.dtype, n.ndim, n.out_shape, NULL, 0};
    const dmls_window w = {n.offsets, n.sizes, n.strides};
    return dmls_create(&in, &out, &w, op);
}

const void *params_bind_input(const param_setup *setup, const void *data, uint64_t bytes, void **copy) {
    *copy = NULL;
    const size_t align = DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT;
    if (!setup->dml || (uintptr_t)data % align == 0) return data;
    /* The tool's DirectML descriptors promise no GuaranteedBaseOffsetAlignment, so 16 is all they need. */
    if (bytes > SIZE_MAX - align) return NULL;
    *copy = dmls_aligned_alloc(align, (size_t)bytes);
    if (*copy != NULL) memcpy(*copy, data, (size_t)bytes);
    return *copy;
}

/* --perm: t's axes permuted, the view every form then slices (its shape
 * and strides live in *view). A file's own layout (Fortran order) is in
 * t->strides, so the view reads the bytes where they are. */
static bool transposed(const params *p, const param_tensor *t, dmls_transposed *view, param_tensor *out,
                       param_setup *setup) {
    const dmls_status s = dmls_lower_numpy_transpose(t->ndim, t->shape, t->strides, p->perm_reverse ? NULL : p->perm,
                                                     p->n_perm, view);
    if (s != DMLS_OK) {
        snprintf(setup->error, sizeof setup->error, "%s: --perm: %s", dmls_status_name(s), dmls_last_error());
        setup->rule = dmls_last_error_rule();
        return false;
    }
    *out = *t;
    out->shape = view->shape;
    out->strides = view->strides;
    return true;
}

bool params_setup(const params *p, const param_tensor *t, param_setup *setup) {
    memset(setup, 0, sizeof *setup);
    setup->rule = "";
    dmls_transposed view;
    param_tensor permuted;
    if (p->perm_given) {
        if (!transposed(p, t, &view, &permuted, setup)) return false;
        t = &permuted;
    }
    if (p->form == FORM_DML_SLICE || p->form == FORM_DML_SLICE1) return setup_dml(p, t, setup);
    return setup_native(p, t, setup);
}

bool params_setup_grad(const params *p, const param_tensor *t, const param_list *out_grad_sizes, param_setup *setup) {
    memset(setup, 0, sizeof *setup);
    setup->rule = "";
    const int32_t n = out_grad_sizes->n;
    if (!dml_rank(t, setup) || !out_strides_count(t, n, "the output gradient's rank", setup)) return false;
    if (p->win_offsets.n != n || p->win_sizes.n != n || p->win_strides.n != n) {
        char msg[240];
        snprintf(msg, sizeof msg,
                 "--window-offsets has %d values, --window-sizes %d, --window-strides %d and "
                 "--output-gradient-sizes %d; DimensionCount needs one count",
                 (int)p->win_offsets.n, (int)p->win_sizes.n, (int)p->win_strides.n, (int)n);
        return setup_fail(setup, "R-OP-RANK", msg);
    }
    const dmls_dml_lists l = {DML_OPERATOR_SLICE_GRAD,
                              (DML_TENSOR_DATA_TYPE)t->dtype, /* the values are DirectML's */
                              {t->ndim, t->shape, t->strides, 0, 0},
                              {n, out_grad_sizes->v, t->out_strides, 0, 0},
                              n,
                              p->win_offsets.v,
                              p->win_sizes.v,
                              p->win_strides.v};
    const dmls_status s = dmls_create_dml_lists(&l, p->level, &setup->op);
    if (s != DMLS_OK) {
        lib_fail(setup, s);
        return empty_hint(setup, t, n, out_grad_sizes->v);
    }
    setup->dml = true;
    setup->final_ndim = n;
    memcpy(setup->final_shape, out_grad_sizes->v, sizeof(int64_t) * (size_t)n);
    if (t->parts <= 1) return true;
    /* Elements of several parts: validated for the parts' type above, run
     * natively over the parts' axis. */
    dmls_destroy(setup->op);
    setup->op = NULL;
    setup->dml = false;
    const dmls_tensor in = {t->dtype, t->ndim, t->shape, t->strides, 0};
    const dmls_tensor out = {t->dtype, n, out_grad_sizes->v, NULL, 0};
    const dmls_window w = {p->win_offsets.v, p->win_sizes.v, p->win_strides.v};
    return create_native(t, &in, &out, &w, true, setup);
}
