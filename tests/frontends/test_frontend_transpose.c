/* Transposes (docs/spec.md section 9, R-PERM): ONNX Transpose's node tests
 * written from the ONNX operator definition (the default perm and all six
 * permutations of a (2, 3, 4) tensor), WebNN transpose's validation cases
 * from the WebNN specification, NumPy's negative axes, and slices of
 * transposed views (np.transpose(x, P)[key]) on random shapes, strides and
 * permutations. Expected values are computed here from coordinates, never
 * by the lowering under test. */
#include "dmlslice/frontends.h"
#include "plan/rule_cases.h" /* check_rule_message */
#include "support/test.h"

#define MAXN 4096

/* Runs a copy from the input (int32 elements holding their own buffer
 * index, at in_strides; NULL packed) through view t, sliced by lw, and
 * compares every output element with the input element whose coordinates
 * the definitions give: view coordinate k of output element o is
 * first_k + o_k * step_k, and input axis perm[k] takes it. */
static bool run_view(const char *what, int32_t ndim, const int64_t *shape, const int64_t *in_strides,
                     const dmls_transposed *t, const dmls_lowered *lw) {
    int64_t st[DMLS_MAX_RANK], packed = 1, in_n = 1;
    for (int32_t i = ndim - 1; i >= 0; i--) {
        st[i] = in_strides ? in_strides[i] : packed;
        packed *= shape[i];
    }
    for (int32_t i = 0; i < ndim; i++) in_n += (shape[i] - 1) * st[i]; /* strides >= 0 here */
    int64_t out_n = 1;
    for (int32_t k = 0; k < lw->ndim; k++) out_n *= lw->out_sizes[k];
    static int32_t in[MAXN], out[MAXN], ref[MAXN];
    CHECK(in_n <= MAXN && out_n <= MAXN, "%s: test sizes %lld, %lld", what, (long long)in_n, (long long)out_n);
    for (int64_t i = 0; i < in_n; i++) in[i] = (int32_t)i;
    memset(out, 0xab, sizeof out);
    dmls_tensor ti = dmls_transposed_tensor(t, DMLS_INT32, 0);
    dmls_tensor to = {DMLS_INT32, lw->ndim, lw->out_sizes, NULL, 0};
    dmls_window w = dmls_lowered_window(lw);
    dmls_operator *op = NULL;
    dmls_status s = dmls_create(&ti, &to, &w, &op);
    CHECK(s == DMLS_OK, "%s: dmls_create: %s", what, dmls_last_error());
    if (s != DMLS_OK) return false;
    CHECK_STATUS(dmls_execute(op, in, (uint64_t)in_n * 4, out, (uint64_t)out_n * 4), DMLS_OK);
    CHECK_STATUS(dmls_execute_reference(op, in, (uint64_t)in_n * 4, ref, (uint64_t)out_n * 4), DMLS_OK);
    dmls_destroy(op);
    bool ok = true;
    int64_t o[DMLS_MAX_RANK] = {0};
    for (int64_t e = 0; e < out_n && ok; e++) {
        int64_t at = 0;
        for (int32_t k = 0; k < lw->ndim; k++) {
            const int64_t first = lw->strides[k] > 0 ? lw->offsets[k] : lw->offsets[k] + lw->sizes[k] - 1;
            at += (first + o[k] * lw->strides[k]) * st[t->perm[k]];
        }
        ok = out[e] == (int32_t)at && ref[e] == out[e];
        CHECK(ok, "%s: output element %lld is %d (reference %d), want input element %lld", what, (long long)e,
              out[e], ref[e], (long long)at);
        for (int32_t k = lw->ndim - 1; k >= 0; k--) {
            if (++o[k] < lw->out_sizes[k]) break;
            o[k] = 0;
        }
    }
    return ok;
}

/* The whole transposed array: the identity slice over the view. */
static bool run_transpose(const char *what, int32_t ndim, const int64_t *shape, const dmls_transposed *t) {
    dmls_lowered lw;
    CHECK_STATUS(dmls_lower_onnx(t->ndim, t->shape, NULL, NULL, 0, NULL, 0, NULL, 0, &lw), DMLS_OK);
    return run_view(what, ndim, shape, NULL, t, &lw);
}

/* ONNX Transpose: "transposed = np.transpose(data, perm)"; perm absent
 * reverses the dimensions. The output's shape is shape[perm[i]]. */
static void test_onnx_node_tests(void) {
    const int64_t shape[3] = {2, 3, 4};
    dmls_transposed t;
    CHECK_STATUS(dmls_lower_onnx_transpose(3, shape, NULL, NULL, 0, &t), DMLS_OK);
    CHECK(t.ndim == 3 && t.shape[0] == 4 && t.shape[1] == 3 && t.shape[2] == 2, "test_transpose_default: shape");
    run_transpose("test_transpose_default", 3, shape, &t);
    const int64_t perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (int p = 0; p < 6; p++) {
        char name[64];
        snprintf(name, sizeof name, "test_transpose_all_permutations_%d", p);
        CHECK_STATUS(dmls_lower_onnx_transpose(3, shape, NULL, perms[p], 3, &t), DMLS_OK);
        for (int k = 0; k < 3; k++)
            CHECK(t.perm[k] == perms[p][k] && t.shape[k] == shape[perms[p][k]], "%s: axis %d", name, k);
        run_transpose(name, 3, shape, &t);
    }
}

/* An R-PERM case: a front end's transpose with perm[0..n) (WebNN's read as
 * unsigned, so -1 is UINT64_MAX), which must fail naming the entry and the value. */
typedef struct perm_case {
    enum { ONNX, NUMPY, WEBNN } front;
    int32_t ndim;
    int64_t n;
    int64_t perm[4];
    const char *message;
} perm_case;

/* Runs each row on shape (NULL at rank 0); a failure leaves *out zeroed. */
static void perm_fails(const int64_t *shape, const perm_case *rows, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const perm_case *c = &rows[i];
        const int64_t *in = c->ndim ? shape : NULL;
        uint64_t uperm[4];
        for (int k = 0; k < 4; k++) uperm[k] = (uint64_t)c->perm[k];
        dmls_transposed t;
        memset(&t, 0x77, sizeof t);
        const dmls_status got = c->front == ONNX    ? dmls_lower_onnx_transpose(c->ndim, in, NULL, c->perm, c->n, &t)
                                : c->front == NUMPY ? dmls_lower_numpy_transpose(c->ndim, in, NULL, c->perm, c->n, &t)
                                                    : dmls_lower_webnn_transpose(c->ndim, in, NULL, uperm, c->n, &t);
        CHECK(got == DMLS_ERROR_INVALID_ARGUMENT, "perm row %zu: %s (%s)", i, dmls_status_name(got), dmls_last_error());
        check_rule_message("R-PERM", (const char *const[RULE_FRAGS]){c->message});
        CHECK(t.ndim == 0 && t.shape[0] == 0, "perm row %zu: a failure leaves *out zeroed", i);
    }
}

/* R-PERM's errors name the entry and the value, for each front end. */
static void test_perm_errors(void) {
    const int64_t shape[3] = {2, 3, 4};
    dmls_transposed t;
    /* ONNX's perm has no negative form. */
    static const perm_case rows[] = {
        {ONNX, 3, 3, {0, 2, 0}, "ONNX Transpose: perm[2] = 0 names axis 0 a second time"},
        {ONNX, 3, 3, {0, 3, 1}, "ONNX Transpose: perm[1] = 3 is outside [0, 2] for an input of rank 3"},
        {ONNX, 3, 3, {0, -1, 1}, "perm[1] = -1 is outside [0, 2]"},
        {ONNX, 3, 2, {1, 0}, "perm has 2 values but the input has rank 3"},
        {NUMPY, 3, 3, {0, 3, 1}, "NumPy transpose: axes[1] = 3 is outside [-3, 2] for an input of rank 3"},
        {NUMPY, 3, 3, {0, -3, 1}, "axes[1] = -3 names axis 0 a second time"},
        {NUMPY, 3, 3, {-4, 0, 1}, "axes[0] = -4 is outside [-3, 2]"},
        {NUMPY, 3, 4, {1, 0}, "axes has 4 values"},
    };
    perm_fails(shape, rows, sizeof rows / sizeof rows[0]);
    /* Not R-PERM: the tensor itself. */
    CHECK_STATUS(dmls_lower_numpy_transpose(65, shape, NULL, NULL, 0, &t), DMLS_ERROR_UNSUPPORTED);
    CHECK_STATUS(dmls_lower_numpy_transpose(3, NULL, NULL, NULL, 0, &t), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_lower_numpy_transpose(3, shape, NULL, NULL, 0, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    const int64_t negative[2] = {2, -1};
    CHECK_STATUS(dmls_lower_onnx_transpose(2, negative, NULL, NULL, 0, &t), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "shape[1] = -1 is negative") != NULL, "%s", dmls_last_error());
    /* Packed strides: a non-empty count that overflows is refused; an empty
     * array's saturate, as NumPy's do. */
    const int64_t huge[3] = {INT64_C(1) << 32, INT64_C(1) << 32, 4}, empty[3] = {0, INT64_C(1) << 32, INT64_C(1) << 32};
    CHECK_STATUS(dmls_lower_numpy_transpose(3, huge, NULL, NULL, 0, &t), DMLS_ERROR_OVERFLOW);
    CHECK_STATUS(dmls_lower_numpy_transpose(3, empty, NULL, NULL, 0, &t), DMLS_OK);
    CHECK(t.shape[2] == 0 && t.strides[0] == 1, "empty view: shape %lld stride %lld", (long long)t.shape[2],
          (long long)t.strides[0]);
    const int64_t empty_last[3] = {INT64_C(1) << 32, INT64_C(1) << 32, 0}; /* empty by its last axis */
    CHECK_STATUS(dmls_lower_numpy_transpose(3, empty_last, NULL, NULL, 0, &t), DMLS_OK);
    CHECK(t.shape[0] == 0 && t.strides[0] == 1 && t.strides[2] == INT64_C(1) << 32, "empty by its last axis");
}

/* WebNN transpose(input, {permutation}), the specification's steps: absent,
 * the input's axes reversed; a permutation whose size is not the rank, with
 * a value not less than the rank, or with a value twice, is a TypeError. */
static void test_webnn(void) {
    const int64_t shape[4] = {1, 2, 3, 4};
    dmls_transposed t;
    CHECK_STATUS(dmls_lower_webnn_transpose(4, shape, NULL, NULL, 0, &t), DMLS_OK);
    CHECK(t.shape[0] == 4 && t.shape[1] == 3 && t.shape[2] == 2 && t.shape[3] == 1, "default: reversed");
    run_transpose("webnn default", 4, shape, &t);
    const uint64_t p0231[4] = {0, 2, 3, 1};
    CHECK_STATUS(dmls_lower_webnn_transpose(4, shape, NULL, p0231, 4, &t), DMLS_OK);
    CHECK(t.shape[0] == 1 && t.shape[1] == 3 && t.shape[2] == 4 && t.shape[3] == 2, "[0, 2, 3, 1]: (1, 3, 4, 2)");
    run_transpose("webnn [0, 2, 3, 1]", 4, shape, &t);
    static const perm_case rows[] = {
        {WEBNN, 4, 3, {0, 2, 1}, "WebNN transpose: permutation has 3 values but the input has rank 4"},
        {WEBNN, 4, 4, {0, 2, 3, 2}, "permutation[3] = 2 names axis 2 a second time"},
        {WEBNN, 4, 4, {0, 1, 2, 4}, "permutation[3] = 4 is outside [0, 3] for an input of rank 4"},
        {WEBNN, 4, 4, {0, -1, 2, 3}, "permutation[1] = 18446744073709551615 is outside [0, 3]"},
        {WEBNN, 0, 1, {0}, "permutation has 1 value but the input has rank 0"},
    };
    perm_fails(shape, rows, sizeof rows / sizeof rows[0]);
    /* A scalar: the empty permutation, given or absent. */
    CHECK_STATUS(dmls_lower_webnn_transpose(0, NULL, NULL, p0231, 0, &t), DMLS_OK);
    CHECK(t.ndim == 0, "scalar");
    run_transpose("webnn scalar", 0, NULL, &t);
}

/* NumPy: negative axes count from the back; given strides are permuted as
 * they are (a Fortran-order input), any sign. */
static void test_numpy(void) {
    const int64_t shape[3] = {2, 3, 4}, neg[3] = {-1, 0, -2}, fortran[3] = {1, 2, 6};
    dmls_transposed t;
    CHECK_STATUS(dmls_lower_numpy_transpose(3, shape, NULL, neg, 3, &t), DMLS_OK);
    CHECK(t.perm[0] == 2 && t.perm[1] == 0 && t.perm[2] == 1, "(-1, 0, -2) is (2, 0, 1)");
    CHECK(t.strides[0] == 1 && t.strides[1] == 12 && t.strides[2] == 4, "packed strides permuted");
    run_transpose("numpy (-1, 0, -2)", 3, shape, &t);
    CHECK_STATUS(dmls_lower_numpy_transpose(3, shape, fortran, NULL, 0, &t), DMLS_OK);
    CHECK(t.strides[0] == 6 && t.strides[1] == 2 && t.strides[2] == 1, "Fortran order reversed is C order");
    dmls_lowered lw;
    CHECK_STATUS(dmls_lower_numpy(t.ndim, t.shape, "", &lw), DMLS_OK);
    run_view("numpy .T of Fortran order", 3, shape, fortran, &t, &lw);
    const int64_t rev[2] = {-1, 1};
    CHECK_STATUS(dmls_lower_numpy_transpose(2, shape, rev, NULL, 0, &t), DMLS_OK);
    CHECK(t.strides[0] == 1 && t.strides[1] == -1, "signed strides kept: %lld %lld", (long long)t.strides[0],
          (long long)t.strides[1]);
    /* More axes than dmls_create takes: the view is for dmls_lower_numpy_view. */
    int64_t s10[10], a10[10];
    for (int i = 0; i < 10; i++) s10[i] = 1, a10[i] = 9 - i;
    CHECK_STATUS(dmls_lower_numpy_transpose(10, s10, NULL, a10, 10, &t), DMLS_OK);
    CHECK(t.ndim == 10 && t.perm[0] == 9 && t.perm[9] == 0, "rank 10");
    dmls_tensor none = dmls_transposed_tensor(NULL, DMLS_INT8, 5);
    CHECK(none.ndim == 0 && none.shape == NULL && none.byte_offset == 5, "NULL view: a scalar");
}

/* np.transpose(x, P)[key] on random shapes, permutations, padded strides
 * and keys (ONNX Slice over the view, any step). */
static void test_random_slices(void) {
    for (int iter = 0; iter < 400; iter++) {
        const int32_t n = (int32_t)test_range(1, 5);
        int64_t shape[DMLS_MAX_RANK], strides[DMLS_MAX_RANK], perm[DMLS_MAX_RANK], packed = 1;
        for (int32_t i = 0; i < n; i++) shape[i] = test_range(1, 5), perm[i] = i;
        for (int32_t i = n - 1; i >= 0; i--) {
            strides[i] = packed;
            packed *= shape[i] + test_range(0, 1); /* padded rows now and then */
        }
        for (int32_t i = n - 1; i > 0; i--) {
            const int64_t j = test_range(0, i), keep = perm[i];
            perm[i] = perm[j], perm[j] = keep;
            if (test_range(0, 1)) perm[i] -= n; /* NumPy's negative form */
        }
        dmls_transposed t;
        CHECK_STATUS(dmls_lower_numpy_transpose(n, shape, strides, perm, n, &t), DMLS_OK);
        int64_t starts[DMLS_MAX_RANK], ends[DMLS_MAX_RANK], steps[DMLS_MAX_RANK];
        for (int32_t k = 0; k < n; k++) {
            starts[k] = test_range(-6, 6), ends[k] = test_range(-6, 6);
            steps[k] = test_range(1, 3) * (test_range(0, 1) ? 1 : -1);
        }
        dmls_lowered lw;
        CHECK_STATUS(dmls_lower_onnx(t.ndim, t.shape, starts, ends, n, NULL, 0, steps, n, &lw), DMLS_OK);
        char what[48];
        snprintf(what, sizeof what, "random transposed slice %d", iter);
        if (!run_view(what, n, shape, strides, &t, &lw)) break;
    }
}

int main(void) {
    test_seed_rng();
    test_onnx_node_tests();
    test_perm_errors();
    test_webnn();
    test_numpy();
    test_random_slices();
    TEST_MAIN_END();
}
