/* Random permuted slices for the GPU differential tests (issue 34): a
 * stored array of rank 2-8, packed or with padded rows, viewed through a
 * random permutation of its axes (some reversed), then a random window
 * (whole, cut, stepped by +-1 or +-2, or empty) into a packed or padded
 * output, or the other way round for SLICE_GRAD. Two axes are long enough
 * for whole tiles and odd often enough for their remainders; others are
 * short, some of length 1. The backends' tiled copies take most of these
 * (a plan's tile dim, copy_plan.h); each test compares them with the
 * reference byte for byte. */
#ifndef DMLS_PERMUTED_CASE_H
#define DMLS_PERMUTED_CASE_H

#include <stdio.h>

#include "dmlslice/dmlslice.h"
#include "dtype.h"
#include "test.h"

/* Strides of shape packed row-major, each row padded by pad elements. */
static inline void permuted_packed(int n, const int64_t *shape, int64_t pad, int64_t *strides) {
    int64_t step = 1;
    for (int i = n - 1; i >= 0; i--) {
        strides[i] = step;
        step *= shape[i] + (i == n - 1 ? pad : 0);
    }
}

/* The stored shape: two long axes (the stored innermost, which the input
 * walks fastest, and other, which the perm puts innermost), the rest
 * short, at most about 2^17 elements in all. */
static inline void permuted_shape(int n, int other, int64_t *stored) {
    int64_t left = 1 << 17;
    for (int i = 0; i < n; i++) {
        const bool long_axis = i == n - 1 || i == other;
        int64_t v = long_axis ? test_range(1, 3) == 1 ? 128 * test_range(1, 2) : test_range(1, 300) : test_range(1, 4);
        if (test_range(0, 9) == 0) v = 1;
        if (v > left) v = left > 1 ? left : 1;
        stored[i] = v;
        left /= v;
    }
}

/* Creates a random permuted operator; label names it. */
static inline dmls_status permuted_case_create(int iter, dmls_operator **op, char *label, size_t label_size) {
    const int n = (int)test_range(2, 8), es = 1 << test_range(0, 3);
    const dmls_dtype dt = test_dtype_of_size(es);
    int64_t stored[DMLS_MAX_RANK], packed[DMLS_MAX_RANK], view[DMLS_MAX_RANK], vstride[DMLS_MAX_RANK];
    int perm[DMLS_MAX_RANK];
    for (int i = 0; i < n; i++) perm[i] = i;
    for (int i = n - 1; i > 0; i--) { /* Fisher-Yates */
        const int j = (int)test_range(0, i), t = perm[i];
        perm[i] = perm[j], perm[j] = t;
    }
    if (perm[n - 1] == n - 1 && test_range(0, 3) != 0) { /* mostly a transpose: another axis innermost */
        const int j = (int)test_range(0, n - 2);
        perm[n - 1] = perm[j], perm[j] = n - 1;
    }
    permuted_shape(n, perm[n - 1] != n - 1 ? perm[n - 1] : (int)test_range(0, n - 2), stored);
    permuted_packed(n, stored, test_range(0, 2) == 0 ? test_range(1, 5) : 0, packed);
    uint64_t offset = 0;
    for (int i = 0; i < n; i++) {
        view[i] = stored[perm[i]], vstride[i] = packed[perm[i]];
        if (test_range(0, 5) == 0 && view[i] > 1) { /* reversed: start at the far end */
            offset += (uint64_t)((view[i] - 1) * vstride[i]) * (uint64_t)es;
            vstride[i] = -vstride[i];
        }
    }
    int64_t off[DMLS_MAX_RANK], size[DMLS_MAX_RANK], step[DMLS_MAX_RANK], out[DMLS_MAX_RANK], ostride[DMLS_MAX_RANK];
    const bool empty = test_range(0, 19) == 0;
    for (int i = 0; i < n; i++) {
        const int r = (int)test_range(0, 5);
        off[i] = 0, size[i] = view[i], step[i] = 1;
        if (r == 1) off[i] = test_range(0, view[i] - 1), size[i] = test_range(1, view[i] - off[i]);
        if (r == 2) step[i] = -1;
        if (r == 3) step[i] = test_range(0, 1) ? 2 : -2;
        out[i] = 1 + (size[i] - 1) / (step[i] < 0 ? -step[i] : step[i]);
    }
    if (empty) size[n - 1] = 0, out[n - 1] = 0;
    permuted_packed(n, out, test_range(0, 3) == 0 ? test_range(1, 3) : 0, ostride);
    const bool grad = test_range(0, 4) == 0;
    dmls_tensor big = {dt, n, view, vstride, offset}, small = {dt, n, out, ostride, 0};
    dmls_window w = {off, size, step};
    char p[48] = "";
    for (int i = 0, at = 0; i < n; i++) at += snprintf(p + at, sizeof p - (size_t)at, "%s%d", i ? "," : "", perm[i]);
    snprintf(label, label_size, "permuted %d (%s, rank %d, perm %s, %d-byte%s)", iter, grad ? "grad" : "slice", n, p, es,
             empty ? ", empty" : "");
    return grad ? dmls_create_grad(&small, &big, &w, op) : dmls_create(&big, &small, &w, op);
}

/* iters permuted cases, each handed to run with byte shifts for its input
 * and output bindings (1-15 bytes, one time in eight each: misaligned
 * bases), then destroyed. Returns how many ran. */
typedef void (*permuted_run_fn)(dmls_operator *op, const char *label, size_t in_shift, size_t out_shift);
static inline int permuted_cases_run(int iters, permuted_run_fn run) {
    int cases = 0;
    for (int iter = 0; iter < iters; iter++) {
        dmls_operator *op = NULL;
        char label[128];
        const dmls_status s = permuted_case_create(iter, &op, label, sizeof label);
        CHECK(s == DMLS_OK, "%s: create failed: %s", label, dmls_last_error());
        if (op == NULL) continue;
        const size_t in_shift = test_range(0, 7) == 0 ? (size_t)test_range(1, 15) : 0;
        run(op, label, in_shift, test_range(0, 7) == 0 ? (size_t)test_range(1, 15) : 0);
        dmls_destroy(op);
        cases++;
    }
    return cases;
}

#endif
