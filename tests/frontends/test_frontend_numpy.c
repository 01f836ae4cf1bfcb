/* NumPy basic indexing: the parser (syntax errors, overflow), Python's slice
 * clamping, dropped and inserted axes, the ellipsis, and cross-checks with
 * the ONNX lowering where the two standards agree. */
#include "fe_util.h"

static const int64_t S3[3] = {4, 5, 6};

static void test_items(void) {
    dmls_lowered lw;
    fe_expect want;

    CHECK_STATUS(dmls_lower_numpy(3, S3, "[1:3, ::-2, 0]", &lw), DMLS_OK);
    fe_axis(&want, 0, 1, 2, 1);
    fe_axis(&want, 1, 4, 3, -2);
    fe_axis(&want, 2, 0, 1, 1);
    fe_run("numpy [1:3, ::-2, 0]", 3, S3, &lw, &want);
    CHECK_FINAL(lw, 2, 3);

    /* Ellipsis and None: [None, ..., -1, None] on 4x5x6 -> 1x4x5x1. */
    CHECK_STATUS(dmls_lower_numpy(3, S3, "None, ..., -1, None", &lw), DMLS_OK);
    fe_identity(&want, 3, S3);
    fe_axis(&want, 2, 5, 1, 1);
    fe_run("numpy None ... -1 None", 3, S3, &lw, &want);
    CHECK_FINAL(lw, 1, 4, 5, 1);

    CHECK_STATUS(dmls_lower_numpy(3, S3, "[..., np.newaxis, 2:]", &lw), DMLS_OK);
    fe_identity(&want, 3, S3);
    fe_axis(&want, 2, 2, 4, 1);
    fe_run("numpy ... newaxis 2:", 3, S3, &lw, &want);
    CHECK_FINAL(lw, 4, 5, 1, 4);

    /* Everything, three ways, and a trailing comma. */
    const char *all[] = {"", "[]", "()", "[...]", " [ : , : ] ", "[:,]", "Ellipsis"};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        CHECK_STATUS(dmls_lower_numpy(3, S3, all[k], &lw), DMLS_OK);
        fe_identity(&want, 3, S3);
        fe_run(all[k], 3, S3, &lw, &want);
        CHECK_FINAL(lw, 4, 5, 6);
    }
    CHECK_STATUS(dmls_lower_numpy(3, S3, "[2,]", &lw), DMLS_OK);
    CHECK_FINAL(lw, 5, 6);

    /* All integers: a scalar result. */
    CHECK_STATUS(dmls_lower_numpy(3, S3, "[-1, -5, 5]", &lw), DMLS_OK);
    fe_axis(&want, 0, 3, 1, 1);
    fe_axis(&want, 1, 0, 1, 1);
    fe_axis(&want, 2, 5, 1, 1);
    fe_run("numpy scalar pick", 3, S3, &lw, &want);
    CHECK(lw.final_ndim == 0, "final rank %d", (int)lw.final_ndim);

    /* Rank 0 input: None adds an axis; ... and () keep the scalar. */
    CHECK_STATUS(dmls_lower_numpy(0, NULL, "[None]", &lw), DMLS_OK);
    CHECK_FINAL(lw, 1);
    fe_run("numpy rank 0 None", 0, NULL, &lw, NULL);
    CHECK_STATUS(dmls_lower_numpy(0, NULL, "...", &lw), DMLS_OK);
    CHECK(lw.final_ndim == 0, "final rank %d", (int)lw.final_ndim);
}

static void test_python_clamping(void) {
    dmls_lowered lw;
    fe_expect want;
    const int64_t shape[1] = {5};
    /* expected picks are what Python gives for list(range(5))[expr] */
    struct {
        const char *expr;
        int64_t first, count, step;
    } cases[] = {
        {"[-100:100]", 0, 5, 1},
        {"[100:-100:-1]", 4, 5, -1},
        {"[-10:-10:-1]", 0, 0, 1},  /* Python: empty (ONNX would give element 0) */
        {"[::-1]", 4, 5, -1},
        {"[:-1:-1]", 0, 0, 1},
        {"[3:]", 3, 2, 1},
        {"[:3]", 0, 3, 1},
        {"[::2]", 0, 3, 2},
        {"[1::-1]", 1, 2, -1},
        {"[4:1:-2]", 4, 2, -2},
        {"[5:]", 0, 0, 1},
        {"[::99999999999999999999]", 0, 1, 1},        /* saturates to INT64_MAX */
        {"[::-99999999999999999999]", 4, 1, -1},
        {"[-99999999999999999999:99999999999999999999]", 0, 5, 1},
        {"[9223372036854775807:-9223372036854775808:-1]", 4, 5, -1},
        {"[ -2 : : -3 ]", 3, 2, -3},
        {"[+1:+3]", 1, 2, 1},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        CHECK_STATUS(dmls_lower_numpy(1, shape, cases[k].expr, &lw), DMLS_OK);
        memset(&want, 0, sizeof want);
        fe_axis(&want, 0, cases[k].first, cases[k].count, cases[k].step);
        fe_run(cases[k].expr, 1, shape, &lw, &want);
        CHECK(lw.final_ndim == 1 && lw.final_shape[0] == cases[k].count, "%s: final [%lld]", cases[k].expr,
              (long long)lw.final_shape[0]);
    }
}

static void test_errors(void) {
    dmls_lowered lw;
    struct {
        const char *expr;
        dmls_status status;
        const char *fragment;
    } cases[] = {
        {"[1:2", DMLS_ERROR_FORMAT, "expected ',' or ']'"},
        {"[1 2]", DMLS_ERROR_FORMAT, "column 4"},
        {"[a]", DMLS_ERROR_FORMAT, "unknown name"},
        {"[,]", DMLS_ERROR_FORMAT, "expected an integer"},
        {"[1,,2]", DMLS_ERROR_FORMAT, "expected an integer"},
        {"[-]", DMLS_ERROR_FORMAT, "sign without digits"},
        {"[1:2:3:4]", DMLS_ERROR_FORMAT, "expected ',' or ']'"},
        {"[1.5]", DMLS_ERROR_FORMAT, ""},
        {"[0]]", DMLS_ERROR_FORMAT, "unexpected text"},
        {"[::0]", DMLS_ERROR_INVALID_ARGUMENT, "step cannot be zero"},
        {"[..., ...]", DMLS_ERROR_INVALID_ARGUMENT, "single ellipsis"},
        {"[0, 0, 0, 0]", DMLS_ERROR_OUT_OF_BOUNDS, "too many indices"},
        {"[4]", DMLS_ERROR_OUT_OF_BOUNDS, "index 4 is out of bounds for axis 0 with size 4"},
        {"[:, -6]", DMLS_ERROR_OUT_OF_BOUNDS, "index -6 is out of bounds for axis 1 with size 5"},
        {"[99999999999999999999]", DMLS_ERROR_OUT_OF_BOUNDS, "out of bounds"},
        {"[-9223372036854775808]", DMLS_ERROR_OUT_OF_BOUNDS, "out of bounds"},
        {"[None, None, None, None, None, None]", DMLS_ERROR_UNSUPPORTED, "more than 8 axes"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        dmls_status s = dmls_lower_numpy(3, S3, cases[k].expr, &lw);
        CHECK(s == cases[k].status, "%s: %s, want %s (%s)", cases[k].expr, dmls_status_name(s),
              dmls_status_name(cases[k].status), dmls_last_error());
        CHECK(strstr(dmls_last_error(), cases[k].fragment) != NULL, "%s: message \"%s\" lacks \"%s\"", cases[k].expr,
              dmls_last_error(), cases[k].fragment);
        CHECK(lw.ndim == 0 && lw.final_ndim == 0, "%s: result not zeroed", cases[k].expr);
    }
    const int64_t empty[1] = {0};
    CHECK_STATUS(dmls_lower_numpy(1, empty, "[0]", &lw), DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_STATUS(dmls_lower_numpy(1, empty, "[-1::-1]", &lw), DMLS_OK);
    CHECK_FINAL(lw, 0);
    CHECK_STATUS(dmls_lower_numpy(3, S3, NULL, &lw), DMLS_ERROR_INVALID_ARGUMENT);
}

/* Python and ONNX clamp alike except a negative step whose start lies
 * before -dim (Python: empty; ONNX: starts at 0). Elsewhere the two
 * lowerings must give identical windows. */
static void test_agrees_with_onnx(void) {
    test_seed_rng();
    for (int iter = 0; iter < 3000; iter++) {
        const int64_t dim = test_range(0, 9);
        int64_t start = test_range(-12, 12), stop = test_range(-12, 12), step;
        do step = test_range(-4, 4);
        while (step == 0);
        if (step < 0 && start < -dim) continue;
        char expr[64];
        snprintf(expr, sizeof expr, "[%lld:%lld:%lld]", (long long)start, (long long)stop, (long long)step);
        dmls_lowered a, b;
        CHECK_STATUS(dmls_lower_numpy(1, &dim, expr, &a), DMLS_OK);
        CHECK_STATUS(dmls_lower_onnx(1, &dim, &start, &stop, 1, NULL, 0, &step, 1, &b), DMLS_OK);
        CHECK(memcmp(&a, &b, sizeof a) == 0, "dim %lld %s: numpy window (%lld,%lld,%lld)->%lld, onnx (%lld,%lld,%lld)->%lld",
              (long long)dim, expr, (long long)a.offsets[0], (long long)a.sizes[0], (long long)a.strides[0],
              (long long)a.out_sizes[0], (long long)b.offsets[0], (long long)b.sizes[0], (long long)b.strides[0],
              (long long)b.out_sizes[0]);
        if (memcmp(&a, &b, sizeof a) != 0) break;
    }
}

int main(void) {
    test_items();
    test_python_clamping();
    test_errors();
    test_agrees_with_onnx();
    TEST_MAIN_END();
}
