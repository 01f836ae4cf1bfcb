/* WebNN slice() and reverse(): windows, strides, the specification's
 * validation errors (docs/spec.md §6), rank 0, and empty inputs for reverse. */
#include "fe_util.h"

static const int64_t S3[3] = {4, 5, 6};

static void test_slice(void) {
    dmls_lowered lw;
    static const uint64_t st[3] = {1, 0, 5}, sz[3] = {3, 5, 1}, sd[3] = {2, 3, 1}, equal[3] = {3, 5, 1};
    /* The window alone; output = ceil(size / stride): 3/2 -> 2, 5/3 -> 2,
     * 1/1 -> 1; a stride equal to the size is the largest allowed
     * (docs/spec.md §6): the first element of the window only. */
    static const struct {
        const char *what;
        const uint64_t *strides;
        fe_result want;
    } rows[] = {
        {"webnn slice", NULL, {3, {{0, 1, 3, 1}, {1, 0, 5, 1}, {2, 5, 1, 1}}, 3, {3, 5, 1}}},
        {"webnn strided slice", sd, {3, {{0, 1, 2, 2}, {1, 0, 2, 3}, {2, 5, 1, 1}}, 3, {2, 2, 1}}},
        {"webnn stride equal to size", equal, {3, {{0, 1, 1, 3}, {1, 0, 1, 5}, {2, 5, 1, 1}}, 3, {1, 1, 1}}},
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        CHECK_STATUS(dmls_lower_webnn_slice(3, S3, st, 3, sz, 3, rows[k].strides, rows[k].strides ? 3 : 0, &lw),
                     DMLS_OK);
        fe_check_result(rows[k].what, 3, S3, &lw, &rows[k].want);
    }

    CHECK_STATUS(dmls_lower_webnn_slice(0, NULL, NULL, 0, NULL, 0, NULL, 0, &lw), DMLS_OK);
    CHECK(lw.ndim == 0 && lw.final_ndim == 0, "rank 0: %d %d", (int)lw.ndim, (int)lw.final_ndim);
    fe_run("webnn scalar", 0, NULL, &lw, NULL);
}

static void test_slice_errors(void) {
    dmls_lowered lw;
    uint64_t st[3] = {0, 0, 0}, sz[3] = {1, 1, 1}, one[3] = {1, 1, 1};
    struct {
        uint64_t start, size, stride;
        dmls_status status;
        const char *fragment;
    } cases[] = {
        {0, 0, 1, DMLS_ERROR_INVALID_ARGUMENT, "sizes[2] = 0"},
        {0, 1, 0, DMLS_ERROR_INVALID_ARGUMENT, "strides[2] = 0"},
        {6, 1, 1, DMLS_ERROR_OUT_OF_BOUNDS, "starts[2] = 6 is not less than the input's size 6"},
        {UINT64_MAX, 1, 1, DMLS_ERROR_OUT_OF_BOUNDS, "starts[2] = 18446744073709551615"},
        {5, 2, 1, DMLS_ERROR_OUT_OF_BOUNDS, "starts[2] + sizes[2] = 5 + 2 exceeds the input's size 6"},
        {1, UINT64_MAX, 1, DMLS_ERROR_OUT_OF_BOUNDS, "exceeds"},
        /* docs/spec.md §6: a stride greater than the size in its dimension. */
        {0, 1, 2, DMLS_ERROR_INVALID_ARGUMENT,
         "WebNN slice: strides[2] = 2 is greater than sizes[2] = 1, the window it steps through (docs/spec.md section 6)"},
        {2, 3, 4, DMLS_ERROR_INVALID_ARGUMENT, "strides[2] = 4 is greater than sizes[2] = 3"},
        {0, 6, (uint64_t)INT64_MAX + 1, DMLS_ERROR_INVALID_ARGUMENT,
         "strides[2] = 9223372036854775808 is greater than sizes[2] = 6"},
        {0, 6, UINT64_MAX, DMLS_ERROR_INVALID_ARGUMENT, "strides[2] = 18446744073709551615 is greater than"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        st[2] = cases[k].start;
        sz[2] = cases[k].size;
        one[2] = cases[k].stride;
        dmls_status s = dmls_lower_webnn_slice(3, S3, st, 3, sz, 3, one, 3, &lw);
        CHECK(s == cases[k].status, "case %zu: %s (%s)", k, dmls_status_name(s), dmls_last_error());
        CHECK(strstr(dmls_last_error(), cases[k].fragment) != NULL, "case %zu: \"%s\" lacks \"%s\"", k,
              dmls_last_error(), cases[k].fragment);
    }
    st[2] = 0;
    sz[2] = 1;
    one[2] = 1;
    CHECK_STATUS(dmls_lower_webnn_slice(3, S3, st, 2, sz, 3, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "starts has 2 values but the input has rank 3") != NULL, "%s", dmls_last_error());
    CHECK_STATUS(dmls_lower_webnn_slice(3, S3, st, 3, sz, 4, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_lower_webnn_slice(3, S3, st, 3, sz, 3, one, 2, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "strides has 2 values") != NULL, "%s", dmls_last_error());
    /* An empty input axis has no valid start. */
    const int64_t z[1] = {0};
    CHECK_STATUS(dmls_lower_webnn_slice(1, z, st, 1, sz, 1, NULL, 0, &lw), DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK(lw.ndim == 0, "result not zeroed");
}

static void test_reverse(void) {
    dmls_lowered lw;
    fe_expect want;
    CHECK_STATUS(dmls_lower_webnn_reverse(3, S3, NULL, 0, &lw), DMLS_OK);
    fe_axis(&want, 0, 3, 4, -1);
    fe_axis(&want, 1, 4, 5, -1);
    fe_axis(&want, 2, 5, 6, -1);
    fe_run("webnn reverse all", 3, S3, &lw, &want);
    CHECK_FINAL(lw, 4, 5, 6);

    uint64_t ax[2] = {2, 0};
    CHECK_STATUS(dmls_lower_webnn_reverse(3, S3, ax, 2, &lw), DMLS_OK);
    fe_axis(&want, 1, 0, 5, 1);
    fe_run("webnn reverse 2,0", 3, S3, &lw, &want);

    CHECK_STATUS(dmls_lower_webnn_reverse(3, S3, ax, 0, &lw), DMLS_OK);
    fe_identity(&want, 3, S3);
    fe_run("webnn reverse none", 3, S3, &lw, &want);

    const int64_t z[2] = {0, 2};
    CHECK_STATUS(dmls_lower_webnn_reverse(2, z, NULL, 0, &lw), DMLS_OK);
    CHECK_FINAL(lw, 0, 2);
    fe_run("webnn reverse empty", 2, z, &lw, NULL);
    CHECK_STATUS(dmls_lower_webnn_reverse(0, NULL, NULL, 0, &lw), DMLS_OK);
    fe_run("webnn reverse scalar", 0, NULL, &lw, NULL);

    uint64_t bad[2] = {3, 0}, dup[2] = {1, 1};
    CHECK_STATUS(dmls_lower_webnn_reverse(3, S3, bad, 2, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "axes[0] = 3 is not less than the input's rank 3") != NULL, "%s",
          dmls_last_error());
    CHECK_STATUS(dmls_lower_webnn_reverse(3, S3, dup, 2, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "axes[1] = 1") != NULL && strstr(dmls_last_error(), "second time"), "%s",
          dmls_last_error());
}

/* ---- surv-core: reverse with as many axes as the input has dims (issue 16) ---- */
/* n_axes == ndim is the most axes allowed: each named once, in any order. */
static void test_reverse_every_axis(void) {
    dmls_lowered lw;
    fe_expect want;
    uint64_t ax[3] = {1, 2, 0};
    CHECK_STATUS(dmls_lower_webnn_reverse(3, S3, ax, 3, &lw), DMLS_OK);
    fe_axis(&want, 0, 3, 4, -1);
    fe_axis(&want, 1, 4, 5, -1);
    fe_axis(&want, 2, 5, 6, -1);
    fe_run("webnn reverse 1,2,0", 3, S3, &lw, &want);
    uint64_t more[4] = {1, 2, 0, 1};
    CHECK_STATUS(dmls_lower_webnn_reverse(3, S3, more, 4, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "4 axes for an input of rank 3") != NULL, "%s", dmls_last_error());
}
/* ---- end surv-core ---- */

int main(void) {
    test_slice();
    test_slice_errors();
    test_reverse();
    test_reverse_every_axis(); /* surv-core */
    TEST_MAIN_END();
}
