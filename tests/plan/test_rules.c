/* One test per rule of docs/spec.md section 2: each builds a descriptor that breaks
 * exactly that rule and checks the status, the rule ID, and that the message
 * names the field, the dimension and the values. */
#include "operator.h" /* sizeof (dmls_operator), for the allocation check */
#include "plan/rule_cases.h"
#include "support/test.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#define FL41 DML_FEATURE_LEVEL_4_1

static void expect(fixture *f, DML_FEATURE_LEVEL level, dmls_status want) {
    CHECK_STATUS(fixture_create(f, level), want);
}

/* Most rules break with a write or two into a valid fixture, so those cases
 * are rows of one table, run by the test_* that docs/RULES.md names for the
 * rule (check_rules.sh looks for those functions). */
static const rule_case rule_cases[] = {
    /* R-OP-NULL */
    {"R-OP-NULL", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET_NULL(op.Desc)},
     .frags = {"SLICE1", "Desc"}},
    {"R-OP-NULL", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET_NULL(slice1.InputTensor)},
     .frags = {"InputTensor is NULL"}},
    {"R-OP-NULL", DML_OPERATOR_SLICE_GRAD, FL41, DMLS_ERROR_INVALID_ARGUMENT,
     .set = {SET_NULL(grad.OutputGradientTensor)}, .frags = {"SLICE_GRAD", "OutputGradientTensor is NULL"}},
    {"R-OP-NULL", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET_NULL(slice1.InputWindowStrides)},
     .frags = {"InputWindowStrides"}},
    {"R-OP-NULL", DML_OPERATOR_SLICE, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET_NULL(slice.Offsets)},
     .frags = {"SLICE", "Offsets"}},
    {"R-OP-NULL", DML_OPERATOR_SLICE, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET_NULL(out_buf.Sizes)},
     .frags = {"OutputTensor.Sizes"}},
    /* R-OP-RANK */
    {"R-OP-RANK", DML_OPERATOR_SLICE1, DML_FEATURE_LEVEL_2_1, DMLS_ERROR_UNSUPPORTED, .rank = 3,
     .frags = {"SLICE1", "DimensionCount = 3", "2_1", "4 to 5"}},
    {"R-OP-RANK", DML_OPERATOR_SLICE, FL41, DMLS_ERROR_UNSUPPORTED, .rank = 9,
     .frags = {"DimensionCount = 9", "1 to 8"}},
    {"R-OP-RANK", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_SHAPE_MISMATCH, .set = {SET(out_buf.DimensionCount, 5)},
     .frags = {"OutputTensor.DimensionCount = 5", "DimensionCount 4"}},
    /* R-OP-TYPE; 4-bit types are known (FL 6_3) but no slice operator lists them. */
    {"R-OP-TYPE", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT,
     .set = {SET(out_buf.DataType, DML_TENSOR_DATA_TYPE_INT32)},
     .frags = {"InputTensor.DataType FLOAT32", "OutputTensor.DataType INT32"}},
    {"R-OP-TYPE", DML_OPERATOR_SLICE, DML_FEATURE_LEVEL_1_0, DMLS_ERROR_UNSUPPORTED,
     .set = {SET(in_buf.DataType, DML_TENSOR_DATA_TYPE_INT8), SET(out_buf.DataType, DML_TENSOR_DATA_TYPE_INT8)},
     .resize = true, .frags = {"INT8", "1_0"}},
    {"R-OP-TYPE", DML_OPERATOR_SLICE_GRAD, DML_FEATURE_LEVEL_4_0, DMLS_ERROR_UNSUPPORTED,
     .set = {SET(in_buf.DataType, DML_TENSOR_DATA_TYPE_FLOAT64), SET(out_buf.DataType, DML_TENSOR_DATA_TYPE_FLOAT64)},
     .resize = true, .frags = {"FLOAT64", "4_0"}},
    {"R-OP-TYPE", DML_OPERATOR_SLICE1, DML_FEATURE_LEVEL_6_4, DMLS_ERROR_UNSUPPORTED,
     .set = {SET(in_buf.DataType, DML_TENSOR_DATA_TYPE_UINT4), SET(out_buf.DataType, DML_TENSOR_DATA_TYPE_UINT4)},
     .resize = true, .frags = {"UINT4"}},
    /* R-SLICE-SIZES */
    {"R-SLICE-SIZES", DML_OPERATOR_SLICE, FL41, DMLS_ERROR_SHAPE_MISMATCH, .set = {SET(sizes[3], 1)},
     .frags = {"Sizes[3] = 1", "OutputTensor.Sizes[3] = 2"}},
    /* R-SLICE-BOUNDS: 1 + (2 - 1) * 3 = 4 > 3; values near 2^32 must not wrap into range. */
    {"R-SLICE-BOUNDS", DML_OPERATOR_SLICE, FL41, DMLS_ERROR_OUT_OF_BOUNDS, .set = {SET(offsets[3], 1)},
     .frags = {"Offsets[3]", "= 4", "last input index 3"}},
    {"R-SLICE-BOUNDS", DML_OPERATOR_SLICE, FL41, DMLS_ERROR_OUT_OF_BOUNDS, .set = {SET(offsets[2], 4294967295u)},
     .frags = {"Offsets[2]", "4294967295"}},
    {"R-SLICE-BOUNDS", DML_OPERATOR_SLICE, FL41, DMLS_ERROR_OUT_OF_BOUNDS, .set = {SET(slice_strides[2], 4294967295u)},
     .frags = {"Strides[2]", "4294967296"}},
    /* R-SLICE-STRIDE */
    {"R-SLICE-STRIDE", DML_OPERATOR_SLICE, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET(slice_strides[2], 0)},
     .frags = {"Strides[2] = 0"}},
    /* R-WIN-NONEMPTY */
    {"R-WIN-NONEMPTY", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET(sizes[2], 0)},
     .frags = {"SLICE1", "InputWindowSizes[2] = 0"}},
    {"R-WIN-NONEMPTY", DML_OPERATOR_SLICE_GRAD, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET(sizes[0], 0)},
     .frags = {"SLICE_GRAD", "InputWindowSizes[0] = 0"}},
    /* R-WIN-BOUNDS: the first is the example message in dmlslice.h; the
     * second would wrap to 1 in 32 bits. */
    {"R-WIN-BOUNDS", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_OUT_OF_BOUNDS, .set = {SET(offsets[2], 1)},
     .frags = {"SLICE1: InputWindowOffsets[2] + InputWindowSizes[2]", "= 5", "exceeds input size 4"}},
    {"R-WIN-BOUNDS", DML_OPERATOR_SLICE_GRAD, FL41, DMLS_ERROR_OUT_OF_BOUNDS, .set = {SET(offsets[3], 4294967295u)},
     .frags = {"InputWindowOffsets[3]", "4294967298", "output gradient size 4"}},
    /* R-WIN-STRIDE: SLICE_GRAD too, whose page reads as if it allowed them
     * (docs/spec.md section 2, recorded decisions). */
    {"R-WIN-STRIDE", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET(strides[3], 0)},
     .frags = {"InputWindowStrides[3] = 0"}},
    {"R-WIN-STRIDE", DML_OPERATOR_SLICE_GRAD, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET(strides[2], 0)},
     .frags = {"SLICE_GRAD", "InputWindowStrides[2] = 0"}},
    /* R-WIN-COUNT: |stride| is meant (INT32_MIN's too); a short output is
     * fine; window 3 with stride 2 holds 2. */
    {"R-WIN-COUNT", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_SHAPE_MISMATCH, .set = {SET(out_sizes[3], 3)}, .resize = true,
     .frags = {"output size 3 in dimension 3", "[1, 2]"}},
    {"R-WIN-COUNT", DML_OPERATOR_SLICE1, FL41, DMLS_OK, .set = {SET(strides[2], -2)}},
    {"R-WIN-COUNT", DML_OPERATOR_SLICE1, FL41, DMLS_OK, .set = {SET(strides[2], INT32_MIN), SET(out_sizes[2], 1)},
     .resize = true},
    {"R-WIN-COUNT", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_SHAPE_MISMATCH,
     .set = {SET(strides[2], INT32_MIN), SET(out_sizes[2], 2)}, .resize = true,
     .frags = {"dimension 2", "-2147483648"}},
    {"R-WIN-COUNT", DML_OPERATOR_SLICE_GRAD, FL41, DMLS_ERROR_SHAPE_MISMATCH, .set = {SET(in_sizes[2], 3)},
     .resize = true, .frags = {"input gradient size 3 in dimension 2"}},
    /* R-T-TYPE */
    {"R-T-TYPE", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET(in.Type, DML_TENSOR_TYPE_INVALID)},
     .frags = {"InputTensor.Type = 0"}},
    {"R-T-TYPE", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET_NULL(out.Desc)},
     .frags = {"OutputTensor.Desc is NULL"}},
    /* R-T-DTYPE */
    {"R-T-DTYPE", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT,
     .set = {SET(in_buf.DataType, DML_TENSOR_DATA_TYPE_UNKNOWN)}, .frags = {"InputTensor.DataType = 0"}},
    {"R-T-DTYPE", DML_OPERATOR_SLICE, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET(out_buf.DataType, 14)},
     .frags = {"OutputTensor.DataType = 14"}},
    /* R-T-SIZES */
    {"R-T-SIZES", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET(in_sizes[1], 0)},
     .frags = {"InputTensor.Sizes[1] = 0"}},
    /* R-T-ELEMS: 2^32 * 16 elements */
    {"R-T-ELEMS", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_OVERFLOW,
     .set = {SET(in_sizes[0], 65536), SET(in_sizes[1], 65536), SET(in_buf.TotalTensorSizeInBytes, UINT64_MAX - 3)},
     .frags = {"InputTensor", "2^32-1"}},
    /* R-T-TOTAL */
    {"R-T-TOTAL", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT,
     .set = {SET(in_buf.TotalTensorSizeInBytes, 60)},
     .frags = {"InputTensor.TotalTensorSizeInBytes = 60", "minimum implied size 64"}},
    {"R-T-TOTAL", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT,
     .set = {SET(out_buf.TotalTensorSizeInBytes, 18)},
     .frags = {"OutputTensor.TotalTensorSizeInBytes = 18", "multiple of 4"}},
    /* R-T-ALIGN: a power of two, and not below FLOAT32's 4 bytes */
    {"R-T-ALIGN", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT,
     .set = {SET(in_buf.GuaranteedBaseOffsetAlignment, 12)},
     .frags = {"InputTensor.GuaranteedBaseOffsetAlignment = 12"}},
    {"R-T-ALIGN", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT,
     .set = {SET(in_buf.GuaranteedBaseOffsetAlignment, 2)}, .frags = {"= 2", "element size 4"}},
    {"R-T-ALIGN", DML_OPERATOR_SLICE1, FL41, DMLS_OK, .set = {SET(in_buf.GuaranteedBaseOffsetAlignment, 256)}},
    /* R-T-FLAGS: OWNED_BY_DML on inputs only */
    {"R-T-FLAGS", DML_OPERATOR_SLICE1, FL41, DMLS_OK, .set = {SET(in_buf.Flags, DML_TENSOR_FLAG_OWNED_BY_DML)}},
    {"R-T-FLAGS", DML_OPERATOR_SLICE1, FL41, DMLS_ERROR_INVALID_ARGUMENT, .set = {SET(in_buf.Flags, 0x4)},
     .frags = {"InputTensor.Flags = 0x4"}},
    {"R-T-FLAGS", DML_OPERATOR_SLICE_GRAD, FL41, DMLS_ERROR_INVALID_ARGUMENT,
     .set = {SET(out_buf.Flags, DML_TENSOR_FLAG_OWNED_BY_DML)},
     .frags = {"OutputGradientTensor.Flags", "OWNED_BY_DML"}},
};
enum { RULE_CASES = sizeof rule_cases / sizeof rule_cases[0] };
static int rule_cases_run; /* main checks that every row ran */

/* Runs the table's rows for one rule. */
static void run_rule(const char *rule) { rule_cases_run += run_rule_cases(rule_cases, RULE_CASES, rule); }

/* R-OP-NULL: the arguments themselves, and the size helper's, beside the table's descriptors. */
static void test_op_null(void) {
    fixture f;
    dmls_operator *op = (dmls_operator *)&f; /* must be reset to NULL on failure */
    CHECK_STATUS(dmls_create_dml(NULL, FL41, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(op == NULL, "op not reset to NULL on failure");
    CHECK_MESSAGE("R-OP-NULL", "DML_OPERATOR_DESC");
    fixture_init(&f, DML_OPERATOR_SLICE1);
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "op");
    run_rule("R-OP-NULL");
    /* DirectML's size helper refuses NULL Sizes from one dimension up. */
    uint64_t bytes = 77;
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_FLOAT32, 1, NULL, NULL, &bytes),
                 DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "calc_buffer_tensor_size: Sizes is NULL with DimensionCount 1");
    CHECK(bytes == 77, "bytes written on failure: %llu", (unsigned long long)bytes);
}

/* R-OP-RANK */
static void test_op_rank(void) {
    run_rule("R-OP-RANK");
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE_GRAD); /* 3_0 takes ranks 1 to 4, 3_1 up to 8 */
    fixture_rank(&f, 5);
    f.in_sizes[4] = f.out_sizes[4] = 1, f.offsets[4] = 0, f.sizes[4] = 1, f.strides[4] = 1;
    fixture_sizes(&f);
    expect(&f, DML_FEATURE_LEVEL_3_0, DMLS_ERROR_UNSUPPORTED);
    CHECK_MESSAGE("R-OP-RANK", "SLICE_GRAD", "DimensionCount = 5", "3_0", "1 to 4");
    expect(&f, DML_FEATURE_LEVEL_3_1, DMLS_OK);
}

static void test_op_type(void) { run_rule("R-OP-TYPE"); }
static void test_slice_sizes(void) { run_rule("R-SLICE-SIZES"); }
static void test_slice_bounds(void) { run_rule("R-SLICE-BOUNDS"); }
static void test_slice_stride(void) { run_rule("R-SLICE-STRIDE"); }
static void test_win_nonempty(void) { run_rule("R-WIN-NONEMPTY"); }
static void test_win_bounds(void) { run_rule("R-WIN-BOUNDS"); }
static void test_win_stride(void) { run_rule("R-WIN-STRIDE"); }
static void test_win_count(void) { run_rule("R-WIN-COUNT"); }
static void test_t_type(void) { run_rule("R-T-TYPE"); }
static void test_t_dtype(void) { run_rule("R-T-DTYPE"); }
static void test_t_sizes(void) { run_rule("R-T-SIZES"); }

/* R-T-ELEMS */
static void test_t_elems(void) {
    run_rule("R-T-ELEMS");
    /* Exactly 2^32-1 elements is allowed. */
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    fixture_rank(&f, 1);
    f.in_sizes[0] = 4294967295u;
    f.offsets[0] = 0, f.sizes[0] = 4, f.strides[0] = 1, f.out_sizes[0] = 4;
    fixture_sizes(&f);
    expect(&f, FL41, DMLS_OK);
    /* A strided tensor's extent, dot(Sizes - 1, Strides) + 1, is bounded
     * too: 2 elements 2^32-1 apart span 2^32 element slots. */
    for (int k = 0; k < 2; k++) {
        const bool output = k == 1;
        fixture_init(&f, DML_OPERATOR_SLICE1);
        fixture_rank(&f, 1);
        f.in_sizes[0] = 2, f.out_sizes[0] = 2;
        f.offsets[0] = 0, f.sizes[0] = 2, f.strides[0] = 1;
        UINT *st = output ? f.out_strides : f.in_strides;
        st[0] = 4294967295u;
        if (output) f.out_buf.Strides = st;
        else f.in_buf.Strides = st;
        fixture_sizes(&f);
        expect(&f, FL41, DMLS_ERROR_OVERFLOW);
        CHECK_MESSAGE("R-T-ELEMS", output ? "OutputTensor" : "InputTensor", "4294967296", "2^32-1");
        st[0] = 4294967294u; /* exactly 2^32-1 slots */
        fixture_sizes(&f);
        expect(&f, FL41, DMLS_OK);
    }
    /* Broadcast (zero) strides span one slot, whatever the count. */
    fixture_init(&f, DML_OPERATOR_SLICE1);
    fixture_rank(&f, 2);
    f.in_sizes[0] = 65536, f.in_sizes[1] = 65535, f.in_strides[0] = f.in_strides[1] = 0;
    f.in_buf.Strides = f.in_strides;
    f.out_sizes[0] = f.out_sizes[1] = 1;
    f.offsets[0] = f.offsets[1] = 0, f.sizes[0] = f.sizes[1] = 1, f.strides[0] = f.strides[1] = 1;
    fixture_sizes(&f);
    expect(&f, FL41, DMLS_OK);
}

/* R-T-TOTAL */
static void test_t_total(void) {
    run_rule("R-T-TOTAL");
    /* Strided: (dot(sizes-1, strides) + 1) * 4, rounded up to 4. */
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.in_strides[0] = 100, f.in_strides[1] = 50, f.in_strides[2] = 8, f.in_strides[3] = 1;
    f.in_buf.Strides = f.in_strides;
    f.in_buf.TotalTensorSizeInBytes = 112; /* (3*8 + 3 + 1) * 4 */
    expect(&f, FL41, DMLS_OK);
    f.in_buf.TotalTensorSizeInBytes = 108;
    expect(&f, FL41, DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-TOTAL", "108", "112");
    /* A last index near 2^64 wraps DirectML's helper; here it is an error. */
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.in_sizes[3] = 4294967295u;
    f.in_strides[0] = f.in_strides[1] = f.in_strides[2] = 1;
    f.in_strides[3] = 4294967295u;
    f.in_buf.Strides = f.in_strides;
    f.in_sizes[2] = 1;
    f.sizes[2] = 1;
    f.out_sizes[2] = 1;
    expect(&f, FL41, DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-T-TOTAL", "InputTensor", "overflows 64 bits");
}
static void test_t_align(void) { run_rule("R-T-ALIGN"); }
static void test_t_flags(void) { run_rule("R-T-FLAGS"); }

/* R-T-OUTLAYOUT */
static void test_t_outlayout(void) {
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.out_strides[0] = 4, f.out_strides[1] = 4, f.out_strides[2] = 0, f.out_strides[3] = 1;
    f.out_buf.Strides = f.out_strides;
    fixture_sizes(&f);
    expect(&f, FL41, DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-OUTLAYOUT", "OutputTensor.Strides");
    f.out_strides[2] = 1; /* rows overlap columns */
    fixture_sizes(&f);
    expect(&f, FL41, DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-OUTLAYOUT", "OutputTensor.Strides");
    f.out_strides[2] = 1, f.out_strides[3] = 2; /* transposed: fine */
    fixture_sizes(&f);
    expect(&f, FL41, DMLS_OK);
    /* Inputs may broadcast. */
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.in_strides[0] = f.in_strides[1] = f.in_strides[2] = 0, f.in_strides[3] = 1;
    f.in_buf.Strides = f.in_strides;
    fixture_sizes(&f);
    expect(&f, FL41, DMLS_OK);
}

/* R-X-BOUNDS, R-X-ALIGN, R-X-OVERLAP, and nothing written on failure. */
static void test_execute_binding(void) {
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.in_buf.GuaranteedBaseOffsetAlignment = 16;
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    if (!op) return;
    _Alignas(16) float buf[64];
    for (int i = 0; i < 64; i++) buf[i] = (float)i;
    float out[4] = {-1, -1, -1, -1};
    /* R-X-BOUNDS */
    CHECK_STATUS(dmls_execute(op, buf, 60, out, sizeof out), DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("R-X-BOUNDS", "input buffer holds 60 bytes", "needs 64");
    CHECK_STATUS(dmls_execute(op, buf, 64, out, 12), DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("R-X-BOUNDS", "output buffer holds 12 bytes", "needs 16");
    /* R-X-ALIGN */
    CHECK_STATUS(dmls_execute(op, buf + 1, 64, out, sizeof out), DMLS_ERROR_MISALIGNED);
    CHECK_MESSAGE("R-X-ALIGN", "input address", "16");
    /* R-X-OVERLAP: the output inside the input's bytes. */
    float before[64];
    memcpy(before, buf, sizeof buf);
    CHECK_STATUS(dmls_execute(op, buf, 64, buf + 12, 16), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-X-OVERLAP", "overlap");
    CHECK(memcmp(before, buf, sizeof buf) == 0, "a failed execute wrote to its buffers");
    CHECK(out[0] == -1 && out[1] == -1 && out[2] == -1 && out[3] == -1, "a failed execute wrote the output");
    /* Adjacent, non-overlapping parts of one buffer are fine. */
    CHECK_STATUS(dmls_execute(op, buf, 64, buf + 16, 16), DMLS_OK);
    CHECK(buf[16] == 1 && buf[17] == 3 && buf[18] == 9 && buf[19] == 11, "slice into a neighbouring range");
    /* NULL buffers. */
    CHECK_STATUS(dmls_execute(op, NULL, 64, out, sizeof out), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "input buffer is NULL");
    dmls_destroy(op);
}

/* R-X-ALIGN on the DirectML path: every bound address is a multiple of
 * max(16, GuaranteedBaseOffsetAlignment), promised or not; the native path
 * checks no alignment of its own. */
static void test_x_align(void) {
    _Alignas(64) unsigned char in[64 + 128], out[16 + 128];
    for (int i = 0; i < 16; i++) memcpy(in + 4 * i, &(float){(float)(i + 1)}, 4);
    memcpy(in + 64, in, 64);
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1); /* no GuaranteedBaseOffsetAlignment */
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    if (op) {
        for (int shift = 4; shift < 16; shift += 4) { /* FLOAT32-aligned, not 16-aligned */
            memset(out, 0xAB, sizeof out);
            CHECK_STATUS(dmls_execute(op, in + shift, 64, out, 16), DMLS_ERROR_MISALIGNED);
            CHECK_MESSAGE("R-X-ALIGN", "SLICE1: input address", "multiple of 16",
                          "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT");
            CHECK_STATUS(dmls_execute(op, in, 64, out + shift, 16), DMLS_ERROR_MISALIGNED);
            CHECK_MESSAGE("R-X-ALIGN", "SLICE1: output address", "multiple of 16",
                          "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT");
            CHECK(out[0] == 0xAB && out[shift] == 0xAB && out[shift + 15] == 0xAB,
                  "a misaligned execute wrote its output");
            CHECK_STATUS(dmls_execute_on(op, NULL, in + shift, 64, out, 16), DMLS_ERROR_MISALIGNED);
            CHECK_STATUS(dmls_execute_reference(op, in + shift, 64, out, 16), DMLS_ERROR_MISALIGNED);
        }
        CHECK_STATUS(dmls_execute(op, in + 16, 64, out + 16, 16), DMLS_OK); /* 16 is enough */
        dmls_destroy(op);
    }
    /* A promise above 16 raises the multiple, and the message says why. */
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.out_buf.GuaranteedBaseOffsetAlignment = 64;
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    if (op) {
        CHECK_STATUS(dmls_execute(op, in + 16, 64, out + 16, 16), DMLS_ERROR_MISALIGNED);
        CHECK_MESSAGE("R-X-ALIGN", "output address", "multiple of 64", "OutputTensor's GuaranteedBaseOffsetAlignment");
        CHECK_STATUS(dmls_execute(op, in + 16, 64, out, 16), DMLS_OK);
        dmls_destroy(op);
    }
    /* A promise below 16 does not lower it. */
    fixture_init(&f, DML_OPERATOR_SLICE_GRAD);
    f.in_buf.GuaranteedBaseOffsetAlignment = 4;
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    if (op) {
        CHECK_STATUS(dmls_execute(op, in + 4, 16, out, 64), DMLS_ERROR_MISALIGNED);
        CHECK_MESSAGE("R-X-ALIGN", "SLICE_GRAD: input address", "multiple of 16", "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT");
        dmls_destroy(op);
    }
    /* The one-shot call binds the same way. */
    fixture_init(&f, DML_OPERATOR_SLICE1);
    CHECK_STATUS(dmls_slice_dml(&f.op, FL41, in + 8, 64, out, 16), DMLS_ERROR_MISALIGNED);
    CHECK_MESSAGE("R-X-ALIGN", "multiple of 16");
    /* The native path: element alignment is all it asks. */
    int64_t in_shape[2] = {4, 4}, out_shape[2] = {2, 2}, off[2] = {0, 1}, size[2] = {4, 3}, stride[2] = {2, 2};
    dmls_tensor nin = {DMLS_FLOAT32, 2, in_shape, NULL, 0}, nout = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {off, size, stride};
    CHECK_STATUS(dmls_create(&nin, &nout, &w, &op), DMLS_OK);
    if (op) {
        memmove(in + 4, in, 64);
        CHECK_STATUS(dmls_execute(op, in + 4, 64, out + 4, 16), DMLS_OK);
        float got[4];
        memcpy(got, out + 4, sizeof got);
        CHECK(got[0] == 2 && got[1] == 4 && got[2] == 10 && got[3] == 12, "native slice at 4-byte-aligned bases");
        dmls_destroy(op);
    }
}

/* R-X-OVERLAP on the DirectML path: each tensor holds
 * [base, base + TotalTensorSizeInBytes), padding included, and identical
 * ranges overlap too. */
static void test_x_overlap(void) {
    _Alignas(64) float buf[128];
    for (int i = 0; i < 128; i++) buf[i] = (float)i;
    float before[128];
    memcpy(before, buf, sizeof buf);
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.in_buf.TotalTensorSizeInBytes = 128; /* 64 bytes of elements, 64 of padding */
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    if (op) {
        /* The output starts in the input's padding: no element is shared, the range is. */
        CHECK_STATUS(dmls_execute(op, buf, 128, buf + 16, 16), DMLS_ERROR_OVERLAP);
        CHECK_MESSAGE("R-X-OVERLAP", "SLICE1", "+128", "+16");
        /* The output just before the input, ending where it starts: fine. */
        CHECK_STATUS(dmls_execute(op, buf + 4, 128, buf, 16), DMLS_OK);
        memcpy(buf, before, sizeof buf);
        CHECK_STATUS(dmls_execute(op, buf, 128, buf + 32, 16), DMLS_OK);
        memcpy(buf, before, sizeof buf);
        dmls_destroy(op);
    }
    /* Both tensors bound at one base: identical ranges. */
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.out_buf.Strides = f.out_strides;
    f.out_strides[0] = f.out_strides[1] = 16, f.out_strides[2] = 4, f.out_strides[3] = 1; /* 2x2 in a 4x4 */
    fixture_sizes(&f);
    f.out_buf.TotalTensorSizeInBytes = 64; /* the same bytes as the input */
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    if (op) {
        CHECK_STATUS(dmls_execute(op, buf, 64, buf, 64), DMLS_ERROR_OVERLAP);
        CHECK_MESSAGE("R-X-OVERLAP", "overlap");
        dmls_destroy(op);
    }
    fixture_init(&f, DML_OPERATOR_SLICE_GRAD);
    CHECK_STATUS(dmls_slice_dml(&f.op, FL41, buf, 64, buf, 64), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-X-OVERLAP", "SLICE_GRAD");
    CHECK(memcmp(before, buf, sizeof buf) == 0, "a failed execute wrote to its buffers");
    /* The native path compares the bytes the views span: a padded input
     * buffer's tail is not the input's. */
    int64_t in_shape[2] = {4, 4}, out_shape[2] = {2, 2}, off[2] = {0, 1}, size[2] = {4, 3}, stride[2] = {2, 2};
    dmls_tensor nin = {DMLS_FLOAT32, 2, in_shape, NULL, 0}, nout = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {off, size, stride};
    CHECK_STATUS(dmls_create(&nin, &nout, &w, &op), DMLS_OK);
    if (op) {
        CHECK_STATUS(dmls_execute(op, buf, 128, buf + 16, 16), DMLS_OK);
        CHECK_STATUS(dmls_execute(op, buf, 64, buf + 15, 16), DMLS_ERROR_OVERLAP);
        dmls_destroy(op);
    }
}

/* Recorded decisions (docs/spec.md section 2): output padding is never
 * written, and OWNED_BY_DML on an input changes nothing (R-T-FLAGS). */
static void test_output_padding(void) {
    enum { SENTINEL = 0x5A };
    const DML_OPERATOR_TYPE types[3] = {DML_OPERATOR_SLICE, DML_OPERATOR_SLICE1, DML_OPERATOR_SLICE_GRAD};
    const char *const names[3] = {"SLICE", "SLICE1", "SLICE_GRAD"};
    for (int t = 0; t < 3; t++) {
        fixture f;
        fixture_init(&f, types[t]);
        /* The output in a padded layout: rows of 8 elements (SLICE_GRAD's
         * 4x4, the others' 2x2), and 32 more bytes past the last row. */
        const bool grad = types[t] == DML_OPERATOR_SLICE_GRAD;
        const UINT rows = f.out_sizes[2], cols = f.out_sizes[3];
        f.out_strides[3] = 1, f.out_strides[2] = 8, f.out_strides[1] = f.out_strides[0] = 8 * rows;
        f.out_buf.Strides = f.out_strides;
        fixture_sizes(&f);
        f.out_buf.TotalTensorSizeInBytes += 32;
        const uint64_t out_bytes = f.out_buf.TotalTensorSizeInBytes;
        _Alignas(64) float in[16];
        _Alignas(64) unsigned char out[4 * 8 * 4 + 64];
        for (int i = 0; i < 16; i++) in[i] = (float)(i + 1);
        for (int owned = 0; owned < 2; owned++) {
            f.in_buf.Flags = owned ? DML_TENSOR_FLAG_OWNED_BY_DML : DML_TENSOR_FLAG_NONE;
            dmls_operator *op = NULL;
            CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
            if (!op) continue;
            for (int run = 0; run < 3; run++) {
                memset(out, SENTINEL, sizeof out);
                dmls_status s = run == 0   ? dmls_execute(op, in, sizeof in, out, out_bytes)
                                : run == 1 ? dmls_execute_reference(op, in, sizeof in, out, out_bytes)
                                           : dmls_slice_dml(&f.op, FL41, in, sizeof in, out, out_bytes);
                CHECK_STATUS(s, DMLS_OK);
                for (uint64_t b = 0; b < sizeof out; b++) {
                    const uint64_t e = b / 4, r = e / 8, c = e % 8;
                    const bool element = b < out_bytes && r < rows && c < cols;
                    if (element) continue;
                    if (out[b] != SENTINEL) {
                        CHECK(false, "%s (run %d, owned %d): padding byte %llu was written (0x%02x)",
                              names[t],
                              run, owned, (unsigned long long)b, out[b]);
                        break;
                    }
                }
                float first;
                memcpy(&first, out, 4);
                CHECK(first == (grad ? 0.0f : t == 0 ? 5.0f : 2.0f), "first element %g", first);
            }
            dmls_destroy(op);
        }
    }
}

/* docs/spec.md sections 1 and 4: operator types and feature levels that do not exist. */
static void test_unknown_enums(void) {
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    expect(&f, (DML_FEATURE_LEVEL)0x4200, DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "0x4200") != NULL, "message: %s", dmls_last_error());
    f.op.Type = (DML_OPERATOR_TYPE)61;
    expect(&f, FL41, DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "Type 61") != NULL, "message: %s", dmls_last_error());
    fixture_init(&f, DML_OPERATOR_SLICE1);
    expect(&f, DML_FEATURE_LEVEL_2_0, DMLS_ERROR_UNSUPPORTED);
    CHECK(strstr(dmls_last_error(), "introduced in 2_1") != NULL, "message: %s", dmls_last_error());
    /* A success clears the previous message. */
    expect(&f, FL41, DMLS_OK);
    CHECK(dmls_last_error()[0] == '\0' && dmls_last_error_rule()[0] == '\0', "stale message: %s",
          dmls_last_error());
}

/* The native API under the same rules, with 64-bit values. */
static void test_native_rules(void) {
    int64_t in_shape[2] = {4, 4}, out_shape[2] = {2, 2};
    int64_t off[2] = {0, 1}, size[2] = {4, 3}, stride[2] = {2, 2};
    dmls_tensor in = {DMLS_FLOAT32, 2, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {off, size, stride};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    dmls_destroy(op);
    off[1] = INT64_MAX; /* R-WIN-BOUNDS: the sum overflows */
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-WIN-BOUNDS", "window.offsets[1]", "9223372036854775807");
    off[1] = -1;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_MESSAGE("R-WIN-BOUNDS", "window.offsets[1] = -1");
    off[1] = 1;
    stride[0] = INT64_MIN; /* |INT64_MIN| must not overflow */
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_SHAPE_MISMATCH);
    CHECK_MESSAGE("R-WIN-COUNT", "dimension 0");
    stride[0] = 2;
    in.ndim = 9;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_UNSUPPORTED);
    CHECK_MESSAGE("R-OP-RANK", "input.ndim = 9");
    in.ndim = 2;
    out.dtype = DMLS_INT32;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-TYPE", "float32", "int32");
    out.dtype = DMLS_FLOAT32;
    /* A negative stride needs a byte_offset that keeps every element after base. */
    int64_t rev[2] = {4, -1};
    in.strides = rev;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_MESSAGE("R-T-TOTAL", "input", "12 bytes before its base");
    in.byte_offset = 12;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    CHECK(op && dmls_input_bytes(op) == 12 + 16 * 4 - 12, "input bytes %llu",
          op ? (unsigned long long)dmls_input_bytes(op) : 0ULL);
    dmls_destroy(op);
    in.strides = NULL;
    in.byte_offset = 0;
    int64_t huge[2] = {INT64_MAX / 2, 1};
    in.strides = huge; /* R-T-TOTAL: the span overflows */
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-T-TOTAL", "input.strides[0]");
    in.strides = NULL;
    int64_t bad_out[2] = {1, 1};
    out.strides = bad_out;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-OUTLAYOUT", "output.strides");
    out.strides = NULL;
    in_shape[0] = -3;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-SIZES", "input.shape[0] = -3");
    in_shape[0] = 4;
    w.sizes = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "sizes");
    w.sizes = size;
    /* Empty outputs are valid natively, with a window size of 0 there. */
    out_shape[0] = 0;
    size[0] = 0;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    CHECK(op && dmls_output_bytes(op) == 0, "empty output needs 0 bytes");
    if (op) CHECK_STATUS(dmls_execute(op, NULL, 0, NULL, 0), DMLS_ERROR_INVALID_ARGUMENT);
    dmls_destroy(op);
    out_shape[0] = 1; /* but a window of 0 cannot give an element */
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-WIN-NONEMPTY", "window.sizes[0] = 0");
}

/* ---- surv-core: NULL arrays at rank 1, an alignment promise of exactly 16 (issue 16) ---- */
/* One dim is enough to need the shape and the window: the checks start at
 * ndim 1, not 2. */
static void test_native_null_rank1(void) {
    int64_t shape[1] = {4}, off[1] = {0}, size[1] = {4}, stride[1] = {1};
    dmls_tensor in = {DMLS_FLOAT32, 1, NULL, NULL, 0}, out = {DMLS_FLOAT32, 1, shape, NULL, 0};
    dmls_window w = {off, size, stride};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "slice: input.shape is NULL with ndim 1");
    in.shape = shape;
    CHECK_STATUS(dmls_create(&in, &out, NULL, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "slice: window is NULL with ndim 1");
    w.offsets = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "slice: window offsets is NULL with ndim 1");
    w.offsets = off;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    dmls_destroy(op);
}

/* A promise equal to DirectML's minimum raises nothing: the message names the
 * minimum, not the promise. */
static void test_x_align_promise_16(void) {
    _Alignas(64) unsigned char in[64 + 16], out[16];
    memset(in, 0, sizeof in);
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.in_buf.GuaranteedBaseOffsetAlignment = DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT;
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    if (!op) return;
    CHECK_STATUS(dmls_execute(op, in + 4, 64, out, 16), DMLS_ERROR_MISALIGNED);
    CHECK_MESSAGE("R-X-ALIGN", "SLICE1: input address", "multiple of 16", "DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT");
    dmls_destroy(op);
}
/* ---- end surv-core ---- */

/* An operator is one allocation of its own size (glibc's
 * malloc_usable_size shows what was asked, give or take a chunk's rounding). */
static void test_operator_allocation(void) {
#if defined(__GLIBC__)
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_dml(&f.op, FL41, &op), DMLS_OK);
    if (op == NULL) return;
    const size_t got = malloc_usable_size(op);
    CHECK(got >= sizeof *op && got < 2 * sizeof *op, "operator block of %zu bytes for a %zu-byte operator", got,
          sizeof *op);
    dmls_destroy(op);
#endif
}

int main(void) {
    test_native_null_rank1();  /* surv-core */
    test_x_align_promise_16(); /* surv-core */
    test_op_null();
    test_op_rank();
    test_op_type();
    test_slice_sizes();
    test_slice_bounds();
    test_slice_stride();
    test_win_nonempty();
    test_win_bounds();
    test_win_stride();
    test_win_count();
    test_t_type();
    test_t_dtype();
    test_t_sizes();
    test_t_elems();
    test_t_total();
    test_t_align();
    test_t_flags();
    test_t_outlayout();
    test_execute_binding();
    test_x_align();
    test_x_overlap();
    test_output_padding();
    test_unknown_enums();
    test_native_rules();
    test_operator_allocation();
    CHECK(rule_cases_run == RULE_CASES, "%d of %d table rows ran: a row's rule has no test_* to run it", rule_cases_run,
          (int)RULE_CASES);
    TEST_MAIN_END();
}
