/* The conformance cases every device's suite runs: DirectML's four worked
 * examples with their exact values, the canonical benchmark cases, random
 * slices over random layouts, and the byte compare that reports where an
 * output first differs. One home for each, so that test_devices (every
 * device through dmlslice/device.h) and the backends' own suites
 * (tests/cuda, tests/vulkan: their launches, emulation and limits) check
 * the same things the same way. */
#ifndef DMLS_SUPPORT_CONFORMANCE_H
#define DMLS_SUPPORT_CONFORMANCE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmlslice/dml.h"
#include "dmlslice/dmlslice.h"
#include "dtype.h"
#include "layout.h"
#include "permuted_case.h"
#include "test.h"

/* ---------------------------------------------------------------- DirectML's worked examples */

#define CONFORMANCE_EXAMPLES 4
/* The examples' input: a 1x1x4x4 float32 tensor holding 1..16, 64 bytes. */
#define CONFORMANCE_EXAMPLE_IN_BYTES 64

static inline void conformance_example_input(float in[16]) {
    for (int i = 0; i < 16; i++) in[i] = (float)(i + 1);
}

/* Example e (0..3) of DirectML's SLICE and SLICE1 pages as an operator
 * made by dmls_create_dml at feature level 4.1, and the four values its
 * output holds; NULL after a failed CHECK. */
static inline dmls_operator *conformance_example(size_t e, float want[4]) {
    static const struct {
        DML_OPERATOR_TYPE type;
        UINT offsets[4], sizes[4];
        INT strides[4];
        UINT out[4];
        float want[4];
    } ex[CONFORMANCE_EXAMPLES] = {
        {DML_OPERATOR_SLICE, {0, 0, 1, 2}, {1, 1, 3, 2}, {1, 1, 1, 1}, {1, 1, 3, 2}, {7, 8, 11, 12}},
        {DML_OPERATOR_SLICE, {0, 0, 1, 0}, {1, 1, 2, 2}, {1, 1, 2, 3}, {1, 1, 2, 2}, {5, 8, 13, 16}},
        {DML_OPERATOR_SLICE1, {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, 2, 2}, {1, 1, 2, 2}, {2, 4, 10, 12}},
        {DML_OPERATOR_SLICE1, {0, 0, 0, 1}, {1, 1, 4, 3}, {1, 1, -2, 2}, {1, 1, 2, 2}, {14, 16, 6, 8}},
    };
    static const UINT in_sizes[4] = {1, 1, 4, 4};
    DML_BUFFER_TENSOR_DESC ib = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, in_sizes, NULL,
                                 CONFORMANCE_EXAMPLE_IN_BYTES, 0};
    DML_BUFFER_TENSOR_DESC ob = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, ex[e].out, NULL, 0, 0};
    uint64_t ob_bytes = 0;
    dmls_calc_buffer_tensor_size(ob.DataType, 4, ex[e].out, NULL, &ob_bytes);
    ob.TotalTensorSizeInBytes = ob_bytes;
    DML_TENSOR_DESC id = {DML_TENSOR_TYPE_BUFFER, &ib}, od = {DML_TENSOR_TYPE_BUFFER, &ob};
    DML_SLICE_OPERATOR_DESC s0 = {&id, &od, 4, ex[e].offsets, ex[e].sizes, (const UINT *)ex[e].strides};
    DML_SLICE1_OPERATOR_DESC s1 = {&id, &od, 4, ex[e].offsets, ex[e].sizes, ex[e].strides};
    DML_OPERATOR_DESC desc = {ex[e].type, ex[e].type == DML_OPERATOR_SLICE ? (const void *)&s0 : (const void *)&s1};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_dml(&desc, DML_FEATURE_LEVEL_4_1, &op), DMLS_OK);
    memcpy(want, ex[e].want, sizeof ex[e].want);
    return op;
}

/* Whether an example's output holds its four values, said on failure. */
static inline void conformance_example_check(const char *who, size_t e, const float got[4], const float want[4]) {
    CHECK(memcmp(got, want, 4 * sizeof *got) == 0, "%s: example %zu: got %g %g %g %g, want %g %g %g %g", who, e,
          got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
}

/* ---------------------------------------------------------------- the byte compare */

/* got against want over n bytes of an output buffer whose tensor holds
 * out_bytes: the first byte that differs, and whether it lies past the
 * tensor (an out-of-bounds write). */
static inline void conformance_compare(const unsigned char *got, const unsigned char *want, size_t n,
                                       uint64_t out_bytes, const char *label, const char *how) {
    size_t first = 0;
    while (first < n && got[first] == want[first]) first++;
    CHECK(first == n, "%s (%s): byte %zu of %zu differs (got %02x, want %02x)%s", label, how, first, (size_t)out_bytes,
          first < n ? got[first] : 0, first < n ? want[first] : 0,
          first >= out_bytes ? " (past the tensor: an out-of-bounds write)" : "");
}

/* ---------------------------------------------------------------- a differential run's host side */

/* What a differential run compares with: in_alloc random input bytes, an
 * output buffer's out_alloc random bytes (the poison every run starts
 * from), and the reference's result over a copy of them. */
typedef struct conformance_host {
    unsigned char *in, *poison, *ref;
} conformance_host;

/* Exits when the host is out of memory (label says for what). */
static inline conformance_host conformance_host_make(const dmls_operator *op, size_t in_alloc, size_t out_alloc,
                                                     const char *label) {
    conformance_host h = {malloc(in_alloc), malloc(out_alloc), malloc(out_alloc)};
    if (!h.in || !h.poison || !h.ref) {
        fprintf(stderr, "out of host memory for %s\n", label);
        exit(1);
    }
    test_fill_random(h.in, in_alloc);
    test_fill_random(h.poison, out_alloc);
    memcpy(h.ref, h.poison, out_alloc);
    const dmls_status s = dmls_execute_reference(op, h.in, dmls_input_bytes(op), h.ref, dmls_output_bytes(op));
    CHECK(s == DMLS_OK, "%s: reference failed: %s", label, dmls_last_error());
    return h;
}

static inline void conformance_host_free(conformance_host *h) { free(h->in), free(h->poison), free(h->ref); }

/* ---------------------------------------------------------------- canonical cases */

#ifdef DMLS_CASES_JSON
#include "cases.h"

/* Each canonical benchmark case (bench/cases.json) at full size, made and
 * handed to run, then destroyed. */
static inline void conformance_canonical(void (*run)(dmls_operator *op, const char *name)) {
    bench_case *cases = NULL;
    int n = 0;
    char err[256] = "";
    CHECK(bench_read_cases(DMLS_CASES_JSON, &cases, &n, err, sizeof err) == 0 && n > 0, "reading %s: %s",
          DMLS_CASES_JSON, err);
    for (int i = 0; i < n; i++) {
        dmls_operator *op = NULL;
        CHECK_STATUS(bench_create(&cases[i], &op), DMLS_OK);
        if (op == NULL) continue;
        run(op, cases[i].name);
        fflush(stdout);
        dmls_destroy(op);
    }
    free(cases);
}
#endif

/* ---------------------------------------------------------------- random slices */

/* A random layout (layout.h): packed half the time, else padded or
 * anything, plus a small random byte offset (misaligned for the element
 * sometimes). */
static inline void conformance_layout(int n, const int64_t *shape, size_t es, bool input, int64_t *strides,
                                      uint64_t *offset) {
    const int style = (int)test_range(0, 5);
    random_layout(style <= 2 ? RANDOM_PACKED : style == 3 ? RANDOM_PADDED : RANDOM_ANY, n, shape, input, es, strides,
                  offset);
    const int r = (int)test_range(0, 5);
    *offset += r == 0 ? (uint64_t)test_range(1, 17) : r == 1 ? es * (uint64_t)test_range(1, 5) : 0;
}

/* What a random slice may be. */
typedef struct conformance_random {
    int64_t budget_large, budget_small; /* elements of the larger tensor: a quarter of the cases large */
    bool vector_friendly;               /* a third packed and shaped for the vector launches */
    bool empty;                         /* one in 16 with an empty output */
} conformance_random;

/* Random window sizes and steps over a random shape of rank n: steps
 * +-1, +-2 or anything, windows whole or cut; the inner dim sometimes
 * long and a multiple of 16 (the vector paths), sometimes 2-3 (channels). */
static inline void conformance_window(const conformance_random *how, int n, int64_t *big, int64_t *small,
                                      int64_t *offs, int64_t *sizes, int64_t *steps) {
    int64_t budget = test_range(0, 3) == 0 ? how->budget_large : how->budget_small;
    for (int i = 0; i < n; i++) {
        int64_t cap = budget > 1 ? budget : 1;
        if (cap > 40 && i < n - 1) cap = 40 / (n > 3 ? 2 : 1) + 1;
        int64_t v = test_range(1, cap < 64 ? cap : 64);
        if (i == n - 1) {
            const int r = (int)test_range(0, 3);
            if (r == 0) v = 16 * test_range(1, 32);
            else if (r == 1) v = test_range(2, 3);
        }
        big[i] = v;
        budget /= v;
    }
    for (int i = 0; i < n; i++) {
        const int r = (int)test_range(0, 5);
        int64_t step = r <= 1 ? 1 : r == 2 ? -1 : r == 3 ? 2 : r == 4 ? -2 : test_range(-4, 4);
        if (step == 0) step = 3;
        offs[i] = test_range(0, big[i] - 1);
        sizes[i] = test_range(1, big[i] - offs[i]);
        if (test_range(0, 2) == 0) offs[i] = 0, sizes[i] = big[i];
        const int64_t most = 1 + (sizes[i] - 1) / (step < 0 ? -step : step);
        small[i] = test_range(0, 3) == 0 ? test_range(1, most) : most;
        steps[i] = step;
    }
    if (how->empty && test_range(0, 15) == 0) small[test_range(0, n - 1)] = 0;
}

/* A random SLICE or SLICE_GRAD of rank 1-8 and element size 1, 2, 4 or 8
 * over random layouts (or, where vector_friendly draws it, packed with an
 * inner dim and step the vector launches take), labelled for messages, and
 * byte shifts to bind its input and output at (1-31 half the time each,
 * misaligning the bases; none for the vector-shaped, whose launches need
 * them aligned). NULL after a failed CHECK. */
static inline dmls_operator *conformance_random_case(const conformance_random *how, int iter, char *label,
                                                     size_t label_size, size_t shift[2]) {
    const int n = (int)test_range(1, 8);
    const dmls_dtype dt = test_dtype_of_size(1 << test_range(0, 3));
    const size_t es = dmls_dtype_size(dt);
    int64_t big[DMLS_MAX_RANK], small[DMLS_MAX_RANK], offs[DMLS_MAX_RANK], sizes[DMLS_MAX_RANK],
        steps[DMLS_MAX_RANK], big_strides[DMLS_MAX_RANK], small_strides[DMLS_MAX_RANK];
    conformance_window(how, n, big, small, offs, sizes, steps);
    const bool vector = how->vector_friendly && test_range(0, 2) == 0;
    if (vector) {
        const int in = n - 1;
        big[in] = test_range(0, 1) ? 16 * test_range(1, 24) : 3 * test_range(1, 2);
        static const int64_t inner_steps[4] = {1, -1, 2, -2};
        steps[in] = inner_steps[test_range(0, 3)];
        offs[in] = test_range(0, 1) ? 0 : test_range(0, big[in] - 1);
        sizes[in] = big[in] - offs[in];
        small[in] = 1 + (sizes[in] - 1) / (steps[in] < 0 ? -steps[in] : steps[in]);
    }
    const bool grad = test_range(0, 3) == 0;
    uint64_t big_off = 0, small_off = 0;
    if (vector) {
        for (int i = n - 1, pb = 1, ps = 1; i >= 0; i--) {
            big_strides[i] = pb, small_strides[i] = ps;
            pb *= (int)big[i], ps *= (int)small[i];
        }
    } else {
        conformance_layout(n, big, es, !grad, big_strides, &big_off);
        conformance_layout(n, small, es, grad, small_strides, &small_off);
    }
    const dmls_tensor tb = {dt, n, big, big_strides, big_off}, ts = {dt, n, small, small_strides, small_off};
    const dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL;
    const dmls_status s = grad ? dmls_create_grad(&ts, &tb, &w, &op) : dmls_create(&tb, &ts, &w, &op);
    CHECK(s == DMLS_OK, "random %d: create failed: %s", iter, dmls_last_error());
    snprintf(label, label_size, "random %d (%s, rank %d, %zu-byte)", iter, grad ? "grad" : "slice", n, es);
    for (int k = 0; k < 2; k++) shift[k] = vector || test_range(0, 1) ? 0 : (size_t)test_range(1, 31);
    return op;
}

/* count random slices from iteration first on, each handed to run with its
 * label and byte shifts, then destroyed. */
static inline void conformance_random_runs(const conformance_random *how, int first, int count, permuted_run_fn run) {
    for (int iter = first; iter < first + count; iter++) {
        char label[96];
        size_t shift[2];
        dmls_operator *op = conformance_random_case(how, iter, label, sizeof label, shift);
        if (op == NULL) continue;
        run(op, label, shift[0], shift[1]);
        dmls_destroy(op);
    }
}

#endif
