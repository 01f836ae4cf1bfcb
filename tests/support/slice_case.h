/* Builds native slice cases for differential tests: a random or chosen
 * window per dim, and input/output layouts (packed, padded, Fortran order,
 * reversed, broadcast; support/layout.h), then runs a fast path and the
 * reference on the same poisoned buffers and compares every byte
 * (support/compare.h). */
#ifndef DMLS_SLICE_CASE_H
#define DMLS_SLICE_CASE_H

#include "dmlslice/dmlslice.h"
#include "compare.h"
#include "dtype.h"
#include "layout.h"
#include "test.h"

typedef enum { PAT_FULL, PAT_INTERIOR, PAT_SINGLE, PAT_STRIDED, PAT_NEGATIVE, PAT_COUNT } dim_pattern;

static const char *const pattern_names[] = {"full", "interior", "single", "strided", "negative"};

typedef struct slice_case {
    int32_t ndim;
    dmls_dtype dtype;
    bool grad;
    int64_t big_shape[8], small_shape[8];
    int64_t big_strides[8], small_strides[8];
    uint64_t big_offset, small_offset;
    int64_t off[8], size[8], stride[8];
    layout_kind big_layout, small_layout;
    size_t misalign_in, misalign_out;
} slice_case;

/* Window for one dim of extent dim; returns the output count. */
static inline int64_t pick_window(dim_pattern p, int64_t dim, int64_t *off, int64_t *size, int64_t *stride) {
    switch (p) {
    case PAT_FULL: *off = 0, *size = dim, *stride = 1; break;
    case PAT_INTERIOR:
        *off = dim > 2 ? 1 : 0, *size = dim > 2 ? dim - 2 : dim, *stride = 1;
        break;
    case PAT_SINGLE: *off = dim / 2, *size = 1, *stride = 1; break;
    case PAT_STRIDED: *off = dim > 1 ? 1 : 0, *size = dim - *off, *stride = 2 + (dim % 2); break;
    default: *off = 0, *size = dim, *stride = dim > 3 ? -2 : -1; break;
    }
    int64_t a = *stride < 0 ? -*stride : *stride;
    return 1 + (*size - 1) / a;
}

/* Runs the case through exec and the reference (support/compare.h) on
 * random input, outputs poisoned alike and bases misaligned as the case says. */
static inline bool run_case(const slice_case *c, exec_fn exec, void *exec_ctx, const char *label) {
    const dmls_tensor big = {c->dtype, c->ndim, c->big_shape, c->big_strides, c->big_offset};
    const dmls_tensor small = {c->dtype, c->ndim, c->small_shape, c->small_strides, c->small_offset};
    const dmls_window w = {c->off, c->size, c->stride};
    dmls_operator *op = NULL;
    dmls_status s = c->grad ? dmls_create_grad(&small, &big, &w, &op) : dmls_create(&big, &small, &w, &op);
    CHECK(s == DMLS_OK, "%s: create failed: %s", label, dmls_last_error());
    if (s != DMLS_OK) return false;
    const uint64_t in_bytes = dmls_input_bytes(op), out_bytes = dmls_output_bytes(op);
    unsigned char *in_raw = malloc(in_bytes + 16), *out_raw = malloc(out_bytes + 16),
                  *ref_raw = malloc(out_bytes + 16);
    unsigned char *in = in_raw + c->misalign_in, *out = out_raw + c->misalign_out, *ref = ref_raw + c->misalign_out;
    test_fill_random(in, in_bytes);
    test_fill_random(out, out_bytes);
    memcpy(ref, out, out_bytes);
    compare_result r = compare_with_reference(op, exec, exec_ctx, in, in_bytes, out, ref, out_bytes);
    CHECK(r.exec == DMLS_OK, "%s: execute failed: %s", label, dmls_status_name(r.exec));
    CHECK(r.reference == DMLS_OK, "%s: reference failed: %s", label, dmls_status_name(r.reference));
    CHECK(r.first_difference == out_bytes, "%s: output differs from the reference at byte %llu of %llu", label,
          (unsigned long long)r.first_difference, (unsigned long long)out_bytes);
    CHECK(!r.input_changed, "%s: the input was modified", label);
    free(in_raw), free(out_raw), free(ref_raw);
    dmls_destroy(op);
    return compare_ok(&r, out_bytes);
}

/* Fills c for rank n, element size, one pattern per dim and two layouts. */
static inline void build_case(slice_case *c, int32_t n, int esize, const dim_pattern *pats, layout_kind big_layout,
                              layout_kind small_layout, bool grad, const int64_t *dims) {
    memset(c, 0, sizeof *c);
    c->ndim = n;
    c->dtype = test_dtype_of_size(esize);
    c->grad = grad;
    c->big_layout = big_layout, c->small_layout = small_layout;
    for (int i = 0; i < n; i++) {
        c->big_shape[i] = dims[i];
        c->small_shape[i] = pick_window(pats[i], dims[i], &c->off[i], &c->size[i], &c->stride[i]);
    }
    /* For SLICE the big tensor is the input; for SLICE_GRAD, the output. */
    make_layout(big_layout, n, c->big_shape, grad, esize, c->big_strides, &c->big_offset);
    make_layout(small_layout, n, c->small_shape, !grad, esize, c->small_strides, &c->small_offset);
}

#endif
