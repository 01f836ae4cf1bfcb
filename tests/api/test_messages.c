/* Error messages checked for the numbers and lists they print, each exactly:
 * a message that names the wrong value misleads as much as a wrong status.
 * (Mutation testing found these printed values unchecked; docs/mutation.md.) */
#include "dmlslice/frontends.h"
#include "plan/rule_cases.h"
#include "error.h" /* dmls_fail, for messages longer than any the library writes */
#include "support/native_op.h"
#include "support/test.h"

/* The message contains `want` verbatim. */
#define CHECK_TEXT(want) \
    CHECK(strstr(dmls_last_error(), (want)) != NULL, "message lacks \"%s\": %s", (want), dmls_last_error())

/* R-OP-TYPE: the "allowed:" list is the level's whole list, in the order of docs/spec.md §3,
 * and nothing else. */
static void type_list_tests(void) {
    /* At 4_1 every 8- to 64-bit type is listed; UINT4 is not among them. */
    static const rule_case rows[] = {
        {"R-OP-TYPE", DML_OPERATOR_SLICE, DML_FEATURE_LEVEL_1_0, DMLS_ERROR_UNSUPPORTED,
         .set = {SET(in_buf.DataType, DML_TENSOR_DATA_TYPE_INT8), SET(out_buf.DataType, DML_TENSOR_DATA_TYPE_INT8)},
         .resize = true,
         .frags = {"SLICE: DataType INT8 is not supported at feature level 1_0",
                   "(allowed: FLOAT32, FLOAT16, INT32, INT16, UINT32, UINT16) (R-OP-TYPE)"}},
        {"R-OP-TYPE", DML_OPERATOR_SLICE1, DML_FEATURE_LEVEL_4_0, DMLS_ERROR_UNSUPPORTED,
         .set = {SET(in_buf.DataType, DML_TENSOR_DATA_TYPE_FLOAT64),
                 SET(out_buf.DataType, DML_TENSOR_DATA_TYPE_FLOAT64)},
         .resize = true,
         .frags = {"SLICE1: DataType FLOAT64 is not supported at feature level 4_0",
                   "(allowed: FLOAT32, FLOAT16, INT32, INT16, INT8, UINT32, UINT16, UINT8) (R-OP-TYPE)"}},
        {"R-OP-TYPE", DML_OPERATOR_SLICE_GRAD, DML_FEATURE_LEVEL_4_1, DMLS_ERROR_UNSUPPORTED,
         .set = {SET(in_buf.DataType, DML_TENSOR_DATA_TYPE_UINT4), SET(out_buf.DataType, DML_TENSOR_DATA_TYPE_UINT4)},
         .resize = true,
         .frags = {"(allowed: FLOAT64, FLOAT32, FLOAT16, INT64, INT32, INT16, INT8, UINT64, UINT32, UINT16, UINT8) "
                   "(R-OP-TYPE)"}},
    };
    run_rule_cases(rows, sizeof rows / sizeof rows[0], "R-OP-TYPE");
}

/* R-SLICE-BOUNDS prints its sum term by term: axis 3 of the 4-wide input,
 * offset 1, 3 elements, stride 2: 1 + 2 * 2 = 5 > 3. */
static void slice_bounds_tests(void) {
    static const rule_case row = {
        "R-SLICE-BOUNDS", DML_OPERATOR_SLICE, DML_FEATURE_LEVEL_6_4, DMLS_ERROR_OUT_OF_BOUNDS,
        .set = {SET(offsets[3], 1), SET(sizes[3], 3), SET(slice_strides[3], 2), SET(out_sizes[3], 3)},
        .resize = true,
        .frags = {"SLICE: Offsets[3] + (Sizes[3] - 1) * Strides[3] = 1 + 2 * 2 = 5 exceeds the last input index 3"}};
    run_rule_cases(&row, 1, "R-SLICE-BOUNDS");
}

/* R-WIN-COUNT prints the range the small tensor's size must lie in: from 1
 * on the DirectML path, from 0 on the native one (empty windows allowed). */
static void win_count_tests(void) {
    const int64_t in_shape[1] = {6}, out_shape[1] = {3}, off[1] = {0}, size[1] = {4}, step[1] = {2};
    dmls_operator *op;
    CHECK_STATUS(OP_TRY(&op, .dtype = DMLS_FLOAT32, .ndim = 1, .in_shape = in_shape, .out_shape = out_shape,
                        .offsets = off, .sizes = size, .steps = step),
                 DMLS_ERROR_SHAPE_MISMATCH);
    CHECK_MESSAGE("R-WIN-COUNT", "slice: output size 3 in dimension 0 is outside [0, 2], the elements a window of "
                                 "4 with stride 2 holds");
    dmls_destroy(op);

    /* Axis 2: a window of 4 with stride 2 holds 2, but the output has 3. */
    static const rule_case row = {
        "R-WIN-COUNT", DML_OPERATOR_SLICE1, DML_FEATURE_LEVEL_6_4, DMLS_ERROR_SHAPE_MISMATCH,
        .set = {SET(sizes[2], 4), SET(strides[2], 2), SET(offsets[2], 0), SET(out_sizes[2], 3)},
        .resize = true,
        .frags = {"SLICE1: output size 3 in dimension 2 is outside [1, 2], the elements a window of 4 with stride 2 "
                  "holds"}};
    run_rule_cases(&row, 1, "R-WIN-COUNT");
}

/* R-T-TOTAL: a view with negative strides names how far before its base it
 * reaches, as a positive byte count. */
static void reach_tests(void) {
    const int64_t shape[1] = {4}, neg[1] = {-1};
    op_spec s = {.dtype = DMLS_FLOAT32, .ndim = 1, .in_shape = shape, .in_strides = neg, .out_shape = shape};
    dmls_operator *op;
    CHECK_STATUS(op_try(&s, &op), DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_MESSAGE("R-T-TOTAL", "slice: input reaches 12 bytes before its base (byte_offset 0 is too small");
    s.in_offset = 4;
    CHECK_STATUS(op_try(&s, &op), DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_MESSAGE("R-T-TOTAL", "slice: input reaches 8 bytes before its base (byte_offset 4 is too small");
    s.in_offset = 12; /* exactly enough */
    CHECK_STATUS(op_try(&s, &op), DMLS_OK);
    dmls_destroy(op);
}

/* ONNX: more starts than the input has axes, without axes to place them. */
static void onnx_tests(void) {
    dmls_lowered lw;
    const int64_t shape[2] = {4, 5}, starts[3] = {0, 0, 0}, ends[3] = {1, 1, 1};
    CHECK_STATUS(dmls_lower_onnx(2, shape, starts, ends, 3, NULL, 0, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_TEXT("ONNX Slice: 3 starts and ends without axes, but the input has rank 2");
    /* As many starts as axes is fine. */
    CHECK_STATUS(dmls_lower_onnx(2, shape, starts, ends, 2, NULL, 0, NULL, 0, &lw), DMLS_OK);
}

/* A message that fills the buffer is cut, and the rule that would follow it
 * is dropped rather than written past the end; a shorter one keeps it. The
 * library's own messages are all far shorter. */
static void capacity_tests(void) {
    CHECK_STATUS(dmls_fail(DMLS_ERROR_FORMAT, "R-TEST", "%600s", "x"), DMLS_ERROR_FORMAT);
    const size_t n = strlen(dmls_last_error());
    CHECK(n > 100 && n < 600, "a 600-character message is cut to the buffer: %zu characters", n);
    CHECK(dmls_last_error()[n - 1] == ' ', "the cut message ends inside its text");
    CHECK(strcmp(dmls_last_error_rule(), "R-TEST") == 0, "rule %s", dmls_last_error_rule());
    const size_t cap = n + 1;
    /* Room for the text and part of the rule: the rule is cut, not overflowed. */
    CHECK_STATUS(dmls_fail(DMLS_ERROR_FORMAT, "R-TEST", "%*s", (int)(cap - 4), "y"), DMLS_ERROR_FORMAT);
    CHECK(strlen(dmls_last_error()) == cap - 1, "message of %zu characters, want %zu",
          strlen(dmls_last_error()), cap - 1);
    CHECK(strcmp(dmls_last_error() + cap - 5, "y (R") == 0, "the rule is cut at the end: \"%s\"",
          dmls_last_error() + cap - 5);
    dmls_clear_error();
}

/* ---- surv-core: R-T-ELEMS's strided extent, summed past 2^32-1 (issue 16) ---- */
/* The sum goes on while it is at most 2^32-1, so a sum that reaches exactly
 * 2^32-1 before the last dim still takes the next term; "at least" appears
 * only when terms were left unsummed. */
static void extent_tests(void) {
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    fixture_rank(&f, 2);
    f.in_sizes[0] = f.in_sizes[1] = 2, f.out_sizes[0] = f.out_sizes[1] = 2;
    f.offsets[0] = f.offsets[1] = 0, f.sizes[0] = f.sizes[1] = 2, f.strides[0] = f.strides[1] = 1;
    f.in_strides[0] = 4294967294u, f.in_strides[1] = 1; /* 1 + (2^32-2) = 2^32-1, then + 1 */
    f.in_buf.Strides = f.in_strides;
    fixture_sizes(&f);
    CHECK_STATUS(fixture_create(&f, DML_FEATURE_LEVEL_4_1), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-T-ELEMS", "SLICE1: InputTensor spans more than 2^32-1 elements: its strided extent "
                               "dot(Sizes - 1, Strides) + 1 is 4294967296 (R-T-ELEMS)");
    /* Past 2^32-1 after dim 0 of 3: the rest is not summed, and the message says so. */
    fixture_init(&f, DML_OPERATOR_SLICE1);
    fixture_rank(&f, 3);
    f.in_sizes[0] = f.in_sizes[1] = f.in_sizes[2] = 2, f.out_sizes[0] = f.out_sizes[1] = f.out_sizes[2] = 2;
    for (int i = 0; i < 3; i++) f.offsets[i] = 0, f.sizes[i] = 2, f.strides[i] = 1, f.in_strides[i] = 1;
    f.in_strides[0] = 4294967295u;
    f.in_buf.Strides = f.in_strides;
    fixture_sizes(&f);
    CHECK_STATUS(fixture_create(&f, DML_FEATURE_LEVEL_4_1), DMLS_ERROR_OVERFLOW);
    CHECK_TEXT("its strided extent dot(Sizes - 1, Strides) + 1 is at least 4294967296 (R-T-ELEMS)");
}
/* ---- end surv-core ---- */

/* ---- surv-front (error.c): the message buffer's exact size, and rules of
 * one character. ---- */
/* A message longer than the buffer keeps its first 511 characters (512
 * bytes with the terminator), all of them its own: the rule that does not
 * fit overwrites none of them. */
static void capacity_exact_tests(void) {
    char text[600];
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    CHECK_STATUS(dmls_fail(DMLS_ERROR_FORMAT, "R-TEST", "%s", text), DMLS_ERROR_FORMAT);
    const char *m = dmls_last_error();
    CHECK(strlen(m) == 511, "a 599-character message is cut to %zu characters, want 511", strlen(m));
    CHECK(strspn(m, "a") == strlen(m), "the cut message holds only its text: ...\"%s\"", m + 500);
    CHECK_STATUS(dmls_fail(DMLS_ERROR_FORMAT, "R", "short"), DMLS_ERROR_FORMAT);
    CHECK(strcmp(dmls_last_error(), "short (R)") == 0, "a one-character rule is named: \"%s\"", dmls_last_error());
    dmls_clear_error();
}
/* ---- end surv-front ---- */

int main(void) {
    extent_tests(); /* surv-core */
    type_list_tests();
    slice_bounds_tests();
    win_count_tests();
    reach_tests();
    onnx_tests();
    capacity_tests();
    capacity_exact_tests(); /* surv-front */
    TEST_MAIN_END();
}
