/* The front ends' argument checks and the NumPy parser's remaining corners:
 *   - the checks every front end shares (result pointer, rank, shape) with
 *     each front end's name in the message, and *out zeroed on failure;
 *   - ONNX and WebNN NULL arrays and counts;
 *   - NumPy: every whitespace character, signs followed by blanks, the
 *     spelled-out names (np.newaxis, numpy.newaxis, Ellipsis) and near
 *     misses, a sign without digits in each slice part, the 32-item limit,
 *     a missing ')', item text trimmed in messages, and the 8-axis limit
 *     reached by each kind of item. */
#include "fe_util.h"
#include "plan/rule_cases.h" /* check_rule_message */

static const int64_t S3[3] = {4, 5, 6};

/* The status, a fragment of the message, and (when lw is given) a result
 * zeroed although the caller had filled it. */
static void expect_fail(const char *what, dmls_status got, const dmls_lowered *lw, dmls_status want,
                        const char *fragment) {
    CHECK(got == want, "%s: %s, want %s (%s)", what, dmls_status_name(got), dmls_status_name(want),
          dmls_last_error());
    CHECK(strstr(dmls_last_error(), fragment) != NULL, "%s: message \"%s\" lacks \"%s\"", what, dmls_last_error(),
          fragment);
    if (lw != NULL) {
        static const dmls_lowered zero;
        CHECK(memcmp(lw, &zero, sizeof zero) == 0, "%s: result not zeroed on failure", what);
    }
}

static void dirty(dmls_lowered *lw) { memset(lw, 0x77, sizeof *lw); }

/* A NumPy index on the 4x5x6 S3 that must fail, into a result filled beforehand. */
static void numpy_fails(const char *expr, dmls_status want, const char *fragment) {
    fe_numpy_fails(3, S3, &(const fe_numpy_error){expr, want, fragment}, 1);
}

static void test_shared_checks(void) {
    dmls_lowered lw;
    const int64_t st[1] = {0}, en[1] = {1};
    const uint64_t ust[3] = {0, 0, 0}, usz[3] = {1, 1, 1};
    expect_fail("numpy out NULL", dmls_lower_numpy(3, S3, "[0]", NULL), NULL, DMLS_ERROR_INVALID_ARGUMENT,
                "NumPy index: the result pointer is NULL");
    expect_fail("onnx out NULL", dmls_lower_onnx(3, S3, st, en, 1, NULL, 0, NULL, 0, NULL), NULL,
                DMLS_ERROR_INVALID_ARGUMENT, "ONNX Slice: the result pointer is NULL");
    expect_fail("webnn slice out NULL", dmls_lower_webnn_slice(3, S3, ust, 3, usz, 3, NULL, 0, NULL), NULL,
                DMLS_ERROR_INVALID_ARGUMENT, "WebNN slice: the result pointer is NULL");
    expect_fail("webnn reverse out NULL", dmls_lower_webnn_reverse(3, S3, NULL, 0, NULL), NULL,
                DMLS_ERROR_INVALID_ARGUMENT, "WebNN reverse: the result pointer is NULL");

    dirty(&lw);
    expect_fail("numpy rank 9", dmls_lower_numpy(9, S3, "", &lw), &lw, DMLS_ERROR_UNSUPPORTED,
                "NumPy index: input rank 9 is outside 0 to 8");
    dirty(&lw);
    expect_fail("webnn reverse rank -1", dmls_lower_webnn_reverse(-1, S3, NULL, 0, &lw), &lw,
                DMLS_ERROR_UNSUPPORTED, "WebNN reverse: input rank -1 is outside 0 to 8");
    dirty(&lw);
    expect_fail("onnx shape NULL", dmls_lower_onnx(2, NULL, st, en, 1, NULL, 0, NULL, 0, &lw), &lw,
                DMLS_ERROR_INVALID_ARGUMENT, "ONNX Slice: input shape is NULL with rank 2");
    const int64_t negative[2] = {3, -4};
    dirty(&lw);
    expect_fail("webnn slice negative size", dmls_lower_webnn_slice(2, negative, ust, 2, usz, 2, NULL, 0, &lw), &lw,
                DMLS_ERROR_INVALID_ARGUMENT, "WebNN slice: input shape[1] = -4 is negative");
}

static void test_onnx_webnn_arguments(void) {
    dmls_lowered lw;
    const int64_t two[2] = {0, 1};
    dirty(&lw);
    expect_fail("onnx n -1", dmls_lower_onnx(3, S3, two, two, -1, NULL, 0, NULL, 0, &lw), &lw,
                DMLS_ERROR_INVALID_ARGUMENT, "ONNX Slice: -1 starts");
    dirty(&lw);
    expect_fail("onnx starts NULL", dmls_lower_onnx(3, S3, NULL, two, 2, NULL, 0, NULL, 0, &lw), &lw,
                DMLS_ERROR_INVALID_ARGUMENT, "ONNX Slice: starts is NULL with 2 values");
    dirty(&lw);
    expect_fail("onnx ends NULL", dmls_lower_onnx(3, S3, two, NULL, 2, NULL, 0, NULL, 0, &lw), &lw,
                DMLS_ERROR_INVALID_ARGUMENT, "ONNX Slice: ends is NULL with 2 values");

    const uint64_t ust[2] = {0, 0}, usz[2] = {1, 1};
    const int64_t S2[2] = {4, 5};
    dirty(&lw);
    expect_fail("webnn starts NULL", dmls_lower_webnn_slice(2, S2, NULL, 2, usz, 2, NULL, 0, &lw), &lw,
                DMLS_ERROR_INVALID_ARGUMENT, "WebNN slice: starts is NULL with rank 2");
    dirty(&lw);
    expect_fail("webnn sizes NULL", dmls_lower_webnn_slice(2, S2, ust, 2, NULL, 2, NULL, 0, &lw), &lw,
                DMLS_ERROR_INVALID_ARGUMENT, "WebNN slice: sizes is NULL with rank 2");
    const uint64_t axes[4] = {0, 1, 2, 0};
    dirty(&lw);
    expect_fail("webnn reverse -1 axes", dmls_lower_webnn_reverse(3, S3, axes, -1, &lw), &lw,
                DMLS_ERROR_INVALID_ARGUMENT, "WebNN reverse: -1 axes for an input of rank 3");
    dirty(&lw);
    expect_fail("webnn reverse 4 axes", dmls_lower_webnn_reverse(3, S3, axes, 4, &lw), &lw,
                DMLS_ERROR_INVALID_ARGUMENT, "WebNN reverse: 4 axes for an input of rank 3");
}

static void test_numpy_spelling(void) {
    dmls_lowered lw;
    /* Every blank Python allows between tokens, and inside a signed number;
     * spelled-out names, each a whole identifier. */
    static const fe_numpy_case rows[] = {
        {"[\n1 :\t3 ,\r::- 2 ,+\t5 ]", {3, {{0, 1, 2, 1}, {1, 4, 3, -2}, {2, 5, 1, 1}}, 2, {2, 3}}},
        {"[numpy.newaxis, Ellipsis, newaxis, 1]", {1, {{2, 1, 1, 1}}, 4, {1, 4, 5, 1}}},
    };
    fe_numpy_cases(3, S3, rows, sizeof rows / sizeof rows[0]);
    CHECK_STATUS(dmls_lower_numpy(3, S3, "[- \t1]", &lw), DMLS_OK);
    CHECK(lw.offsets[0] == 3 && lw.out_sizes[0] == 1, "'- \\t1' is index -1: offset %lld", (long long)lw.offsets[0]);
    CHECK_FINAL(lw, 5, 6);

    static const char *const unknown[] = {"[NONE]", "[_]", "[np.newaxis2]", "[Ellipsis_]", "[Ellipsus]",
                                          "[numpy.NewAxis]", "[Z9]"};
    for (size_t k = 0; k < sizeof unknown / sizeof unknown[0]; k++)
        numpy_fails(unknown[k], DMLS_ERROR_FORMAT,
                    "unknown name (expected an integer, a slice, '...', None or newaxis) at column 2");
}

static void test_numpy_syntax(void) {
    /* A sign without digits; characters just past 'z' end a name, and do not
     * start an item; an item's text in a message stops at its last character. */
    static const fe_numpy_error rows[] = {
        {"[1:-]", DMLS_ERROR_FORMAT, "NumPy index \"[1:-]\": a sign without digits at column 4"},
        {"[::+]", DMLS_ERROR_FORMAT, "NumPy index \"[::+]\": a sign without digits at column 4"},
        {"[None{]", DMLS_ERROR_FORMAT, "NumPy index \"[None{]\": expected ',' or ']' at column 6"},
        {"[{]", DMLS_ERROR_FORMAT,
         "NumPy index \"[{]\": expected an integer, a slice, '...', None or newaxis at column 2"},
        {"(1 2)", DMLS_ERROR_FORMAT, "NumPy index \"(1 2)\": expected ',' or ')' at column 4"},
        {"[ 0:1:0 \t]", DMLS_ERROR_INVALID_ARGUMENT, "item 0 (0:1:0) has step 0; slice step cannot be zero"},
        {"[1, ::0\t ]", DMLS_ERROR_INVALID_ARGUMENT, "item 1 (::0) has step 0"},
    };
    fe_numpy_fails(3, S3, rows, sizeof rows / sizeof rows[0]);

    /* 32 items parse (and then make too many axes); 33 do not parse. */
    char expr[256] = "[";
    for (int k = 0; k < 31; k++) strcat(expr, "None,");
    strcat(expr, "None]");
    numpy_fails(expr, DMLS_ERROR_UNSUPPORTED, "the result would have more than 8 axes");
    expr[strlen(expr) - 1] = ',';
    strcat(expr, "None]");
    numpy_fails(expr, DMLS_ERROR_FORMAT, "more than 32 items");
}

/* The result's 8 axes run out at an inserted axis, inside an ellipsis, at a
 * slice, or at the axes taken whole after the last item. */
static void test_numpy_axis_limit(void) {
    dmls_lowered lw;
    static const char *const exprs[] = {
        "[:, :, :, None, None, None, None, None, None]", "[None, None, None, None, None, None, ...]",
        "[None, None, None, None, None, None, :, :, :]", "[None, None, None, None, None, None]"};
    for (size_t k = 0; k < sizeof exprs / sizeof exprs[0]; k++)
        numpy_fails(exprs[k], DMLS_ERROR_UNSUPPORTED, "the result would have more than 8 axes");
    /* Exactly 8 is fine. */
    CHECK_STATUS(dmls_lower_numpy(3, S3, "[None, None, None, None, None, ...]", &lw), DMLS_OK);
    CHECK_FINAL(lw, 1, 1, 1, 1, 1, 4, 5, 6);
}

/* Every front-end error names its rule (docs/spec.md section 6): R-FE-INPUT,
 * R-FE-OVERFLOW, R-ONNX-ARGS, R-ONNX-AXES, R-ONNX-STEP, R-NP-SYNTAX,
 * R-NP-STEP, R-NP-BOUNDS, R-NP-RANK, R-WEBNN-ARGS, R-WEBNN-SIZE,
 * R-WEBNN-BOUNDS, R-WEBNN-AXES. */
static void test_rule_ids(void) {
    dmls_lowered lw;
    dmls_lowered_view v;
    const int64_t st[1] = {0}, en[1] = {1}, zero_step[1] = {0}, axis5[1] = {5}, axes00[2] = {0, -3};
    const int64_t st2[2] = {0, 0}, en2[2] = {1, 1};
    const uint64_t u0[3] = {0, 0, 0}, u1[3] = {1, 1, 1}, usz0[3] = {1, 0, 1}, ustr2[3] = {1, 2, 1};
    const uint64_t ust4[3] = {0, 4, 0}, usz3[3] = {1, 3, 1}, rev_bad[1] = {3}, rev_twice[2] = {1, 1};

    CHECK_STATUS(dmls_lower_numpy(3, S3, "[0]", NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-FE-INPUT", "the result pointer is NULL");
    CHECK_STATUS(dmls_lower_onnx(9, S3, st, en, 1, NULL, 0, NULL, 0, &lw), DMLS_ERROR_UNSUPPORTED);
    CHECK_MESSAGE("R-FE-INPUT", "input rank 9 is outside 0 to 8");
    CHECK_STATUS(dmls_lower_numpy(3, S3, NULL, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-FE-INPUT", "the expression is NULL");
    const int64_t big[2] = {INT64_C(1) << 40, INT64_C(1) << 40};
    CHECK_STATUS(dmls_lower_numpy_view(2, big, NULL, "[...]", &v), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-FE-OVERFLOW", "element count overflows 64 bits");
    const int64_t s9[9] = {3, 1, 1, 1, 1, 1, 1, 1, 2}, wide[9] = {INT64_C(4611686018427387905), 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_STATUS(dmls_lower_numpy_view(9, s9, wide, "[::2]", &v), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-FE-OVERFLOW", "element strides overflow 64 bits");

    CHECK_STATUS(dmls_lower_onnx(3, S3, st2, en2, 2, axis5, 1, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-ONNX-ARGS", "axes has 1 values but starts and ends have 2");
    CHECK_STATUS(dmls_lower_onnx(3, S3, st, en, 1, axis5, 1, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-ONNX-AXES", "axes[0] = 5 is outside [-3, 2]");
    CHECK_STATUS(dmls_lower_onnx(3, S3, st2, en2, 2, axes00, 2, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-ONNX-AXES", "axes[1] = -3 names axis 0 a second time");
    CHECK_STATUS(dmls_lower_onnx(3, S3, st, en, 1, NULL, 0, zero_step, 1, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-ONNX-STEP", "steps[0] = 0");

    static const struct {
        const char *rule;
        fe_numpy_error e;
    } numpy_rows[] = {
        {"R-NP-SYNTAX", {"[1:2", DMLS_ERROR_FORMAT, "at column"}},
        {"R-NP-SYNTAX", {"[..., ...]", DMLS_ERROR_INVALID_ARGUMENT, "2 ellipses"}},
        {"R-NP-STEP", {"[::0]", DMLS_ERROR_INVALID_ARGUMENT, "has step 0"}},
        {"R-NP-BOUNDS", {"[0, 0, 0, 0]", DMLS_ERROR_OUT_OF_BOUNDS, "too many indices"}},
        {"R-NP-BOUNDS", {"[-5]", DMLS_ERROR_OUT_OF_BOUNDS, "index -5 is out of bounds for axis 0 with size 4"}},
        {"R-NP-RANK", {"[None, None, None, None, None, None]", DMLS_ERROR_UNSUPPORTED, "more than 8 axes"}},
    };
    for (size_t k = 0; k < sizeof numpy_rows / sizeof numpy_rows[0]; k++) {
        fe_numpy_fails(3, S3, &numpy_rows[k].e, 1);
        check_rule_message(numpy_rows[k].rule, (const char *const[RULE_FRAGS]){NULL});
    }

    CHECK_STATUS(dmls_lower_webnn_slice(3, S3, u0, 2, u1, 3, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-WEBNN-ARGS", "starts has 2 values but the input has rank 3");
    CHECK_STATUS(dmls_lower_webnn_slice(3, S3, u0, 3, usz0, 3, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-WEBNN-SIZE", "sizes[1] = 0");
    CHECK_STATUS(dmls_lower_webnn_slice(3, S3, u0, 3, u1, 3, ustr2, 3, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-WEBNN-SIZE", "strides[1] = 2 is greater than sizes[1] = 1");
    CHECK_STATUS(dmls_lower_webnn_slice(3, S3, ust4, 3, usz3, 3, NULL, 0, &lw), DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_MESSAGE("R-WEBNN-BOUNDS", "starts[1] + sizes[1] = 4 + 3 exceeds");
    CHECK_STATUS(dmls_lower_webnn_reverse(3, S3, rev_bad, 1, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-WEBNN-AXES", "axes[0] = 3 is not less than the input's rank 3");
    CHECK_STATUS(dmls_lower_webnn_reverse(3, S3, rev_twice, 2, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-WEBNN-AXES", "names that axis a second time");
}

int main(void) {
    test_shared_checks();
    test_onnx_webnn_arguments();
    test_rule_ids();
    test_numpy_spelling();
    test_numpy_syntax();
    test_numpy_axis_limit();
    TEST_MAIN_END();
}
