/* ONNX Slice lowering: clamping at both ends, negative indices and axes,
 * INT64 extremes, steps without axes, empty results and every error. */
#include "fe_util.h"

static const int64_t S3[3] = {4, 5, 6};

static void test_basic_and_negative(void) {
    dmls_lowered lw;
    fe_expect want;
    /* starts/ends without axes or steps: axes 0..n-1. */
    int64_t st[2] = {1, -4}, en[2] = {3, -1};
    CHECK_STATUS(dmls_lower_onnx(3, S3, st, en, 2, NULL, 0, NULL, 0, &lw), DMLS_OK);
    fe_identity(&want, 3, S3);
    fe_axis(&want, 0, 1, 2, 1);
    fe_axis(&want, 1, 1, 3, 1);
    fe_run("onnx basic", 3, S3, &lw, &want);
    CHECK_FINAL(lw, 2, 3, 6);

    /* Negative axes and a negative step: x[:, :, 4:0:-2] written as axis -1. */
    int64_t ax[1] = {-1}, s4[1] = {4}, e0[1] = {0}, m2[1] = {-2};
    CHECK_STATUS(dmls_lower_onnx(3, S3, s4, e0, 1, ax, 1, m2, 1, &lw), DMLS_OK);
    fe_identity(&want, 3, S3);
    fe_axis(&want, 2, 4, 2, -2);
    fe_run("onnx negative step", 3, S3, &lw, &want);
    CHECK_FINAL(lw, 4, 5, 2);
}

static void test_clamping(void) {
    dmls_lowered lw;
    fe_expect want;
    const int64_t shape[1] = {5};
    struct {
        int64_t start, end, step, first, count;
    } cases[] = {
        {-100, 100, 1, 0, 5},           /* both ends clamp, positive step */
        {100, -100, -1, 4, 5},          /* start to dim-1, end to -1 */
        {INT64_MIN, INT64_MAX, 1, 0, 5},
        {INT64_MAX, INT64_MIN, -1, 4, 5},
        {INT64_MAX, INT64_MAX, -1, 0, 0}, /* the ONNX-spec answer: end clamps to dim-1, empty */
        {INT64_MIN, INT64_MIN, 1, 0, 0},
        {0, 5, INT64_MAX, 0, 1},        /* a step far past the axis takes one element */
        {4, -6, INT64_MIN, 4, 1},       /* ... backwards too, without overflow */
        {2, 5, INT64_MAX, 2, 1},
        {-1, 0, -1, 4, 4},              /* 4, 3, 2, 1 */
        {-3, -1, 1, 2, 2},
        {3, 3, 1, 0, 0},                /* empty */
        {4, 1, 1, 0, 0},                /* empty: wrong direction */
        {1, 4, -1, 0, 0},
        {0, 5, 2, 0, 3},
        {4, -100, -2, 4, 3},            /* 4, 2, 0 */
        {-10, -10, -1, 0, 1},           /* start clamps to 0, end to -1: ONNX differs from Python here */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char what[96];
        snprintf(what, sizeof what, "onnx clamp case %zu (%lld:%lld:%lld)", k, (long long)cases[k].start,
                 (long long)cases[k].end, (long long)cases[k].step);
        CHECK_STATUS(dmls_lower_onnx(1, shape, &cases[k].start, &cases[k].end, 1, NULL, 0, &cases[k].step, 1, &lw),
                     DMLS_OK);
        memset(&want, 0, sizeof want);
        fe_axis(&want, 0, cases[k].first, cases[k].count, cases[k].step > 0 ? 1 : -1);
        if (cases[k].count > 1) fe_axis(&want, 0, cases[k].first, cases[k].count, cases[k].step);
        fe_run(what, 1, shape, &lw, &want);
        CHECK(lw.final_ndim == 1 && lw.final_shape[0] == cases[k].count, "%s: final shape [%lld]", what,
              (long long)lw.final_shape[0]);
    }
}

static void test_steps_without_axes_and_empty(void) {
    dmls_lowered lw;
    fe_expect want;
    int64_t st[3] = {0, 0, 5}, en[3] = {4, 5, 0}, sp[3] = {3, 1, -1};
    CHECK_STATUS(dmls_lower_onnx(3, S3, st, en, 3, NULL, 0, sp, 3, &lw), DMLS_OK);
    fe_axis(&want, 0, 0, 2, 3);
    fe_axis(&want, 1, 0, 5, 1);
    fe_axis(&want, 2, 5, 5, -1);
    fe_run("onnx steps without axes", 3, S3, &lw, &want);

    /* An empty axis is an answer: the other axes keep their sizes. */
    int64_t ax[1] = {1}, s[1] = {1000}, e[1] = {1000};
    CHECK_STATUS(dmls_lower_onnx(3, S3, s, e, 1, ax, 1, NULL, 0, &lw), DMLS_OK);
    CHECK_FINAL(lw, 4, 0, 6);
    CHECK(lw.sizes[1] == 0 && lw.out_sizes[1] == 0, "empty axis window %lld", (long long)lw.sizes[1]);
    fe_run("onnx empty", 3, S3, &lw, NULL);

    /* An input that is already empty, with a negative step. */
    const int64_t z[2] = {0, 3};
    int64_t s0[1] = {-1}, e0[1] = {INT64_MIN}, m1[1] = {-1};
    CHECK_STATUS(dmls_lower_onnx(2, z, s0, e0, 1, NULL, 0, m1, 1, &lw), DMLS_OK);
    CHECK_FINAL(lw, 0, 3);
    fe_run("onnx empty input", 2, z, &lw, NULL);

    /* Rank 0: nothing to slice, the scalar comes back. */
    CHECK_STATUS(dmls_lower_onnx(0, NULL, NULL, NULL, 0, NULL, 0, NULL, 0, &lw), DMLS_OK);
    CHECK(lw.ndim == 0 && lw.final_ndim == 0, "rank 0: ndim %d final %d", (int)lw.ndim, (int)lw.final_ndim);
    fe_run("onnx scalar", 0, NULL, &lw, NULL);
}

static void test_errors(void) {
    dmls_lowered lw;
    int64_t s2[2] = {0, 0}, e2[2] = {1, 1}, dup[2] = {1, -2}, z[2] = {1, 0}, far[1] = {3}, neg[1] = {-4};
    CHECK_STATUS(dmls_lower_onnx(3, S3, s2, e2, 2, dup, 2, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "axes[1] = -2") && strstr(dmls_last_error(), "second time"), "%s",
          dmls_last_error());
    CHECK(lw.ndim == 0 && lw.final_ndim == 0, "output not zeroed on failure");
    CHECK_STATUS(dmls_lower_onnx(3, S3, s2, e2, 2, NULL, 0, z, 2, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "steps[1] = 0") != NULL, "%s", dmls_last_error());
    CHECK_STATUS(dmls_lower_onnx(3, S3, s2, e2, 1, far, 1, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "axes[0] = 3 is outside [-3, 2]") != NULL, "%s", dmls_last_error());
    CHECK_STATUS(dmls_lower_onnx(3, S3, s2, e2, 1, neg, 1, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_lower_onnx(3, S3, s2, e2, 2, far, 1, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "axes has 1 values") != NULL, "%s", dmls_last_error());
    CHECK_STATUS(dmls_lower_onnx(3, S3, s2, e2, 2, NULL, 0, far, 1, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    const int64_t one[1] = {4};
    CHECK_STATUS(dmls_lower_onnx(1, one, s2, e2, 2, NULL, 0, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "rank 1") != NULL, "%s", dmls_last_error());
    const int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_STATUS(dmls_lower_onnx(9, nine, NULL, NULL, 0, NULL, 0, NULL, 0, &lw), DMLS_ERROR_UNSUPPORTED);
}

/* Random slices of random shapes against a model that walks the elements
 * one at a time with the clamped bounds (no closed-form count). */
static void test_random(void) {
    test_seed_rng();
    for (int iter = 0; iter < 2000; iter++) {
        int32_t ndim = (int32_t)test_range(1, 4);
        int64_t shape[4];
        for (int a = 0; a < ndim; a++) shape[a] = test_range(0, 7);
        int64_t st[4], en[4], sp[4], ax[4];
        int32_t n = (int32_t)test_range(0, ndim);
        int perm[4] = {0, 1, 2, 3};
        for (int a = ndim - 1; a > 0; a--) {
            int b = (int)test_range(0, a), t = perm[a];
            perm[a] = perm[b];
            perm[b] = t;
        }
        fe_expect want;
        fe_identity(&want, ndim, shape);
        for (int i = 0; i < n; i++) {
            const int64_t pick[] = {INT64_MIN, INT64_MAX, -1000, 1000};
            st[i] = test_range(0, 9) == 0 ? pick[test_range(0, 3)] : test_range(-9, 9);
            en[i] = test_range(0, 9) == 0 ? pick[test_range(0, 3)] : test_range(-9, 9);
            do sp[i] = test_range(0, 19) == 0 ? pick[test_range(0, 1)] : test_range(-4, 4);
            while (sp[i] == 0);
            ax[i] = perm[i] - (test_range(0, 1) ? ndim : 0);
            const int a = perm[i];
            const int64_t dim = shape[a];
            int64_t s = st[i] < 0 ? st[i] + dim : st[i], e = en[i] < 0 ? en[i] + dim : en[i];
            want.count[a] = 0;
            if (sp[i] > 0) {
                s = s < 0 ? 0 : s > dim ? dim : s;
                e = e < 0 ? 0 : e > dim ? dim : e;
                for (int64_t x = s; x < e && want.count[a] < 64;) {
                    want.idx[a][want.count[a]++] = x;
                    if (__builtin_add_overflow(x, sp[i], &x)) break;
                }
            } else if (dim > 0) {
                s = s < 0 ? 0 : s > dim - 1 ? dim - 1 : s;
                e = e < -1 ? -1 : e > dim - 1 ? dim - 1 : e;
                for (int64_t x = s; x > e && want.count[a] < 64;) {
                    want.idx[a][want.count[a]++] = x;
                    if (__builtin_add_overflow(x, sp[i], &x)) break;
                }
            }
        }
        dmls_lowered lw;
        const bool use_axes = test_range(0, 1) || n == 0;
        /* Without axes the i-th values apply to axis i, so restate the model. */
        if (!use_axes) {
            bool ident = true;
            for (int i = 0; i < n; i++) ident &= perm[i] == i;
            if (!ident) continue;
        }
        dmls_status s = dmls_lower_onnx(ndim, shape, st, en, n, use_axes ? ax : NULL, n, sp, n, &lw);
        CHECK(s == DMLS_OK, "random %d: %s", iter, dmls_last_error());
        if (s != DMLS_OK) continue;
        char what[48];
        snprintf(what, sizeof what, "onnx random %d", iter);
        if (!fe_run(what, ndim, shape, &lw, &want)) break;
    }
}

/* ---- surv-core: NULL starts or ends with a single value (issue 16) ---- */
/* One value is enough to need the arrays: the check starts at n = 1, not 2. */
static void test_null_with_one_value(void) {
    dmls_lowered lw;
    const int64_t one[1] = {4}, v[1] = {1};
    CHECK_STATUS(dmls_lower_onnx(1, one, NULL, v, 1, NULL, 0, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "starts is NULL with 1 values") != NULL, "%s", dmls_last_error());
    CHECK_STATUS(dmls_lower_onnx(1, one, v, NULL, 1, NULL, 0, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "ends is NULL with 1 values") != NULL, "%s", dmls_last_error());
}
/* ---- end surv-core ---- */

int main(void) {
    test_null_with_one_value(); /* surv-core */
    test_basic_and_negative();
    test_clamping();
    test_steps_without_axes_and_empty();
    test_errors();
    test_random();
    TEST_MAIN_END();
}
