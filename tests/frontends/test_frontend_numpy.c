/* NumPy basic indexing: the parser (syntax errors, overflow), Python's slice
 * clamping, dropped and inserted axes, the ellipsis, and cross-checks with
 * the ONNX lowering where the two standards agree. */
#include "fe_util.h"

static const int64_t S3[3] = {4, 5, 6};

static void test_items(void) {
    dmls_lowered lw;
    fe_expect want;
    /* Ellipsis and None: [None, ..., -1, None] on 4x5x6 -> 1x4x5x1. */
    static const fe_numpy_case rows[] = {
        {"[1:3, ::-2, 0]", {3, {{0, 1, 2, 1}, {1, 4, 3, -2}, {2, 0, 1, 1}}, 2, {2, 3}}},
        {"None, ..., -1, None", {1, {{2, 5, 1, 1}}, 4, {1, 4, 5, 1}}},
        {"[..., np.newaxis, 2:]", {1, {{2, 2, 4, 1}}, 4, {4, 5, 1, 4}}},
    };
    fe_numpy_cases(3, S3, rows, sizeof rows / sizeof rows[0]);

    /* Everything, several ways, and a trailing comma. x[()] is the empty
     * tuple; x[] is Python's syntax error (test_errors). */
    const char *all[] = {"", "()", "[()]", " [ ( ) ] ", "[...]", " [ : , : ] ", "[:,]", "Ellipsis"};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        CHECK_STATUS(dmls_lower_numpy(3, S3, all[k], &lw), DMLS_OK);
        fe_identity(&want, 3, S3);
        fe_run(all[k], 3, S3, &lw, &want);
        CHECK_FINAL(lw, 4, 5, 6);
    }
    CHECK_STATUS(dmls_lower_numpy(3, S3, "[2,]", &lw), DMLS_OK);
    CHECK_FINAL(lw, 5, 6);
    /* A tuple that is the whole subscript: x[(1, 2)] is x[1, 2]. */
    const char *tuples[] = {"[(1, 2)]", "[(1, 2,)]", "[ (1,2) ]", "(1, 2)"};
    for (size_t k = 0; k < sizeof tuples / sizeof tuples[0]; k++) {
        CHECK_STATUS(dmls_lower_numpy(3, S3, tuples[k], &lw), DMLS_OK);
        CHECK_FINAL(lw, 6);
        CHECK(lw.offsets[0] == 1 && lw.offsets[1] == 2, "%s: offsets %" PRId64 ", %" PRId64, tuples[k], lw.offsets[0],
              lw.offsets[1]);
    }

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
    static const fe_numpy_error cases[] = {
        {"[1:2", DMLS_ERROR_FORMAT, "expected ',' or ']'"},
        {"[]", DMLS_ERROR_FORMAT, "an empty subscript is a syntax error in Python"},
        {" [ ] ", DMLS_ERROR_FORMAT, "x[()] or '...' takes the whole array"},
        {"[(1, 2), 0]", DMLS_ERROR_FORMAT, "expected ']'"},
        {"[(1, 2]", DMLS_ERROR_FORMAT, "expected ',' or ')'"},
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
    fe_numpy_fails(3, S3, cases, sizeof cases / sizeof cases[0]);
    dmls_lowered lw;
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

/* ------------------------------------------------ any rank (dmls_lower_numpy_view) */

/* Runs the view's SLICE1 on a packed int32 input holding 0, 1, 2, ... */
static bool run_view(const dmls_lowered_view *v, int64_t in_elems, int32_t *out, int64_t out_elems) {
    int32_t *in = malloc(sizeof *in * (size_t)(in_elems ? in_elems : 1));
    for (int64_t i = 0; i < in_elems; i++) in[i] = (int32_t)i;
    const dmls_tensor ti = {DMLS_INT32, v->slice.ndim, v->in_shape, v->in_strides, (uint64_t)v->in_offset * 4};
    const dmls_tensor to = {DMLS_INT32, v->slice.ndim, v->slice.out_sizes, NULL, 0};
    const dmls_window w = dmls_lowered_window(&v->slice);
    dmls_operator *op = NULL;
    dmls_status s = dmls_create(&ti, &to, &w, &op);
    if (s == DMLS_OK) s = dmls_execute(op, in, (uint64_t)in_elems * 4, out, (uint64_t)out_elems * 4);
    if (s != DMLS_OK) fprintf(stderr, "  %s: %s\n", dmls_status_name(s), dmls_last_error());
    dmls_destroy(op);
    free(in);
    return s == DMLS_OK;
}

static void test_view_new_axes_on_8d(void) {
    /* x[None, None, ...] on an 8-D array: 10 result axes, 8 in the slice. */
    const int64_t shape[8] = {2, 1, 3, 1, 2, 1, 2, 1};
    dmls_lowered lw;
    CHECK_STATUS(dmls_lower_numpy(8, shape, "[None, None, ...]", &lw), DMLS_ERROR_UNSUPPORTED);
    dmls_lowered_view v;
    CHECK_STATUS(dmls_lower_numpy_view(8, shape, NULL, "[None, None, ...]", &v), DMLS_OK);
    const int64_t want[10] = {1, 1, 2, 1, 3, 1, 2, 1, 2, 1};
    CHECK(v.final_ndim == 10 && memcmp(v.final_shape, want, sizeof want) == 0, "x[None, None, ...] shape");
    CHECK(v.slice.ndim == 8 && v.in_offset == 0 && memcmp(v.in_shape, shape, sizeof shape) == 0,
          "within 8 axes the view is the input");
    int32_t out[24];
    CHECK(run_view(&v, 24, out, 24), "x[None, None, ...] runs");
    for (int i = 0; i < 24; i++) CHECK(out[i] == i, "x[None, None, ...][%d] = %d", i, out[i]);
}

static void test_view_merges_and_refuses(void) {
    /* 12 axes of 2, the last reversed: the first 11 merge into one run. */
    int64_t shape[DMLS_NUMPY_MAX_RANK];
    for (int i = 0; i < 64; i++) shape[i] = i < 12 ? 2 : 1;
    dmls_lowered_view v;
    CHECK_STATUS(dmls_lower_numpy_view(12, shape, NULL, "[..., ::-1]", &v), DMLS_OK);
    CHECK(v.slice.ndim == 2 && v.in_shape[0] == 2048 && v.in_shape[1] == 2, "12-D [..., ::-1]: %d axes",
          (int)v.slice.ndim);
    static int32_t out[4096];
    CHECK(run_view(&v, 4096, out, 4096), "12-D [..., ::-1] runs");
    bool same = true;
    for (int i = 0; i < 4096; i++) same = same && out[i] == (i ^ 1);
    CHECK(same, "12-D [..., ::-1] data");
    /* Nine axes each taken every other element: nine strided dimensions. */
    int64_t nine[9] = {3, 3, 3, 3, 3, 3, 3, 3, 3};
    CHECK_STATUS(dmls_lower_numpy_view(9, nine, NULL, "[::2, ::2, ::2, ::2, ::2, ::2, ::2, ::2, ::2]", &v),
                 DMLS_ERROR_UNSUPPORTED);
    CHECK(strstr(dmls_last_error(), "needs 9 strided dimensions") && strstr(dmls_last_error(), "at most 8"),
          "the refusal says why: %s", dmls_last_error());
    CHECK(v.final_ndim == 0 && v.slice.ndim == 0, "a failure leaves the result zeroed");
    /* One of them taken whole with step 1 beside the next: they merge. */
    CHECK_STATUS(dmls_lower_numpy_view(9, nine, NULL, "[::2, ::2, ::2, ::2, ::2, ::2, ::2, :, :]", &v), DMLS_OK);
    /* 64 axes, the most NumPy writes, and an empty result. */
    CHECK_STATUS(dmls_lower_numpy_view(64, shape, NULL, "[..., 1:1]", &v), DMLS_OK);
    CHECK(v.final_ndim == 64 && v.final_shape[63] == 0 && v.slice.out_sizes[0] == 0, "64-D empty result");
    CHECK_STATUS(dmls_lower_numpy_view(65, shape, NULL, "[...]", &v), DMLS_ERROR_UNSUPPORTED);
    /* Hostile strides: offsets beyond 64 bits are an error, never a wrap. */
    int64_t huge[9];
    for (int i = 0; i < 9; i++) huge[i] = INT64_MAX / 2;
    CHECK_STATUS(dmls_lower_numpy_view(9, nine, huge, "[2, 2]", &v), DMLS_ERROR_OVERFLOW);
    CHECK_STATUS(dmls_lower_numpy_view(9, nine, huge, "[..., ::-1]", &v), DMLS_ERROR_UNSUPPORTED);
    const int64_t negative[9] = {1, 1, 1, 1, 1, 1, 1, 1, -1};
    CHECK_STATUS(dmls_lower_numpy_view(9, nine, negative, "[...]", &v), DMLS_ERROR_INVALID_ARGUMENT);
    /* Zero strides (a broadcast input) merge, but never into a count
     * beyond 64 bits. */
    int64_t wide[9], zero[9] = {0};
    for (int i = 0; i < 9; i++) wide[i] = INT64_C(1) << 40;
    CHECK_STATUS(dmls_lower_numpy_view(9, wide, zero, "[...]", &v), DMLS_ERROR_UNSUPPORTED);
    CHECK_STATUS(dmls_lower_numpy_view(9, nine, zero, "[...]", &v), DMLS_OK);
    CHECK(v.slice.ndim == 1 && v.in_shape[0] == 19683 && v.in_strides[0] == 0, "zero strides merge into one run");
    CHECK_STATUS(dmls_lower_numpy_view(64, shape, NULL, "[None, ...]", &v), DMLS_ERROR_UNSUPPORTED);
}

/* Random indexes of ranks 9 to 16 against a direct enumeration: each axis
 * whole, an integer, start:stop:step or start::-step (always in range, so
 * the count is a plain loop), with None here and there. */
static void test_view_random(void) {
    for (int iter = 0; iter < 400; iter++) {
        const int ndim = (int)test_range(9, 16);
        int64_t shape[16], first[16], count[16], step[16], t[16];
        char expr[1024] = "[";
        int64_t elems = 1, out_elems = 1, final_ndim = 0, strided = 0;
        for (int i = ndim - 1; i >= 0; i--) {
            shape[i] = test_range(1, 3);
            t[i] = elems;
            elems *= shape[i];
        }
        for (int i = 0; i < ndim; i++) {
            char item[64];
            const int kind = (int)test_range(0, 9);
            if (test_range(0, 7) == 0) strcat(expr, "None, "), final_ndim++;
            if (kind < 5) {
                first[i] = 0, count[i] = shape[i], step[i] = 1;
                snprintf(item, sizeof item, ":");
            } else if (kind < 7) {
                first[i] = test_range(0, shape[i] - 1), count[i] = 1, step[i] = 1;
                snprintf(item, sizeof item, "%lld", (long long)first[i]);
            } else if (kind < 9) {
                const int64_t a = test_range(0, shape[i]), b = test_range(a, shape[i]);
                step[i] = test_range(1, 2), first[i] = a, count[i] = 0;
                for (int64_t k = a; k < b; k += step[i]) count[i]++;
                snprintf(item, sizeof item, "%lld:%lld:%lld", (long long)a, (long long)b, (long long)step[i]);
            } else {
                first[i] = test_range(0, shape[i] - 1), step[i] = -test_range(1, 2), count[i] = 0;
                for (int64_t k = first[i]; k >= 0; k += step[i]) count[i]++;
                snprintf(item, sizeof item, "%lld::%lld", (long long)first[i], (long long)step[i]);
            }
            if (kind >= 5 && kind < 7) {
                /* an integer drops its axis */
            } else {
                final_ndim++;
                out_elems *= count[i];
            }
            strided += count[i] > 1;
            strcat(expr, item);
            strcat(expr, i + 1 < ndim ? ", " : "]");
        }
        dmls_lowered_view v;
        const dmls_status s = dmls_lower_numpy_view(ndim, shape, NULL, expr, &v);
        if (s == DMLS_ERROR_UNSUPPORTED) {
            CHECK(strided > DMLS_MAX_RANK, "%s refused with only %lld strided axes: %s", expr, (long long)strided,
                  dmls_last_error());
            continue;
        }
        CHECK(s == DMLS_OK, "%s: %s", expr, dmls_last_error());
        if (s != DMLS_OK) continue;
        CHECK(v.final_ndim == final_ndim, "%s: rank %d, want %lld", expr, (int)v.final_ndim, (long long)final_ndim);
        int32_t *out = malloc(sizeof *out * (size_t)(out_elems ? out_elems : 1));
        CHECK(run_view(&v, elems, out, out_elems), "%s runs", expr);
        /* The expected elements, row-major over the input's axes. */
        int64_t k[16] = {0};
        bool same = true;
        for (int64_t o = 0; o < out_elems && same; o++) {
            int64_t at = 0;
            for (int i = 0; i < ndim; i++) at += (first[i] + k[i] * step[i]) * t[i];
            same = out[o] == (int32_t)at;
            for (int i = ndim - 1; i >= 0; i--) {
                if (++k[i] < count[i]) break;
                k[i] = 0;
            }
        }
        CHECK(same, "%s: data differs", expr);
        free(out);
    }
}

/* An empty array is valid whatever its other dims, as NumPy, ONNX and WebNN
 * take it: packed strides past 2^63 address nothing and must not be called
 * an overflow, within the core's rank and past it. */
static void test_view_empty_huge(void) {
    dmls_lowered_view v;
    const int64_t big = (int64_t)1 << 32;
    const int64_t four[4] = {0, big, big, 4};
    CHECK_STATUS(dmls_lower_numpy_view(4, four, NULL, "[...]", &v), DMLS_OK);
    CHECK(v.final_ndim == 4 && v.final_shape[0] == 0 && v.final_shape[1] == big, "rank 4: final rank %d",
          (int)v.final_ndim);
    CHECK_STATUS(dmls_lower_numpy_view(4, four, NULL, "[:, 1:3]", &v), DMLS_OK);
    CHECK(v.final_ndim == 4 && v.final_shape[1] == 2, "rank 4 [:, 1:3]: final shape[1] %" PRId64, v.final_shape[1]);
    int64_t ten[10] = {big, big, big, 0, 1, 1, 1, 1, 1, 2};
    CHECK_STATUS(dmls_lower_numpy_view(10, ten, NULL, "[..., ::-1]", &v), DMLS_OK);
    CHECK(v.final_ndim == 10 && v.slice.ndim == 1 && v.slice.out_sizes[0] == 0, "rank 10: %d axes, %d in the view",
          (int)v.final_ndim, (int)v.slice.ndim);
}

/* The view's input checks at their edges: rank 0 needs no shape, rank 1
 * does; a negative size is found in the first and in the last dim, at a
 * rank past the core's (the compressed path) and within it. */
static void test_view_input_checks(void) {
    dmls_lowered_view v;
    CHECK_STATUS(dmls_lower_numpy_view(0, NULL, NULL, "[...]", &v), DMLS_OK);
    CHECK(v.final_ndim == 0, "a scalar stays a scalar: final rank %d", (int)v.final_ndim);
    CHECK_STATUS(dmls_lower_numpy_view(1, NULL, NULL, "[...]", &v), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "shape is NULL with rank 1") != NULL, "message: %s", dmls_last_error());
    for (int32_t ndim = 3; ndim <= 10; ndim += 7) {
        for (int at = 0; at < 2; at++) {
            int64_t shape[10];
            for (int i = 0; i < ndim; i++) shape[i] = 2;
            const int bad = at ? ndim - 1 : 0;
            shape[bad] = -1;
            char want[64];
            snprintf(want, sizeof want, "shape[%d] = -1 is negative", bad);
            CHECK_STATUS(dmls_lower_numpy_view(ndim, shape, NULL, "[...]", &v), DMLS_ERROR_INVALID_ARGUMENT);
            CHECK(strstr(dmls_last_error(), want) != NULL, "rank %d: message \"%s\" lacks \"%s\"", (int)ndim,
                  dmls_last_error(), want);
        }
    }
}

int main(void) {
    test_items();
    test_python_clamping();
    test_errors();
    test_agrees_with_onnx();
    test_seed_rng();
    test_view_new_axes_on_8d();
    test_view_merges_and_refuses();
    test_view_random();
    test_view_input_checks();
    test_view_empty_huge();
    TEST_MAIN_END();
}
