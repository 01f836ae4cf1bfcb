/* The front ends' results field by field, at the corners their arithmetic
 * has: what a lowering writes where no slice runs it (unused entries, empty
 * and one-element axes, an integer index), NumPy integers at the int64
 * edges (on a shape of INT64_MAX, which lowering never allocates), the
 * parser's item limit and name characters, and the any-rank view's strides,
 * empty result and overflow checks. Lowering only: nothing here executes. */
#include <stdint.h>
#include <string.h>

#include "dmlslice/frontends.h"
#include "support/test.h"

static void expect(const char *what, dmls_status got, dmls_status want, const char *fragment) {
    CHECK(got == want, "%s: %s, want %s (%s)", what, dmls_status_name(got), dmls_status_name(want),
          dmls_last_error());
    CHECK(fragment == NULL || strstr(dmls_last_error(), fragment) != NULL, "%s: message \"%s\" lacks \"%s\"", what,
          dmls_last_error(), fragment);
}

/* dmls_fe_init and dmls_fe_set_axis through the public front ends. */
static void test_lowered_fields(void) {
    dmls_lowered lw;
    memset(&lw, 0x55, sizeof lw);
    const int64_t shape[3] = {4, 5, 6};
    /* Axis 0 empty, axis 1 one element (step 3 and, on axis 2, step -3 are
     * never taken: the window keeps a unit stride of the step's sign). */
    CHECK_STATUS(dmls_lower_numpy(3, shape, "[2:2, 1:2:3, 4:3:-3]", &lw), DMLS_OK);
    CHECK(lw.sizes[0] == 0 && lw.out_sizes[0] == 0 && lw.offsets[0] == 0 && lw.strides[0] == 1,
          "empty axis: offset %lld size %lld stride %lld", (long long)lw.offsets[0], (long long)lw.sizes[0],
          (long long)lw.strides[0]);
    CHECK(lw.offsets[1] == 1 && lw.sizes[1] == 1 && lw.strides[1] == 1 && lw.out_sizes[1] == 1,
          "one element, step 3: offset %lld size %lld stride %lld", (long long)lw.offsets[1],
          (long long)lw.sizes[1], (long long)lw.strides[1]);
    CHECK(lw.offsets[2] == 4 && lw.sizes[2] == 1 && lw.strides[2] == -1 && lw.out_sizes[2] == 1,
          "one element, step -3: offset %lld size %lld stride %lld", (long long)lw.offsets[2],
          (long long)lw.sizes[2], (long long)lw.strides[2]);
    /* Step 1 over one element stays 1. */
    CHECK_STATUS(dmls_lower_numpy(3, shape, "[1:2]", &lw), DMLS_OK);
    CHECK(lw.strides[0] == 1 && lw.offsets[0] == 1, "[1:2]: stride %lld offset %lld", (long long)lw.strides[0],
          (long long)lw.offsets[0]);
    /* An integer index takes one element forwards. */
    CHECK_STATUS(dmls_lower_numpy(3, shape, "[:, 3]", &lw), DMLS_OK);
    CHECK(lw.offsets[1] == 3 && lw.sizes[1] == 1 && lw.strides[1] == 1, "index 3: offset %lld size %lld stride %lld",
          (long long)lw.offsets[1], (long long)lw.sizes[1], (long long)lw.strides[1]);
    /* Entries past the rank are zero, whatever the caller's struct held. */
    memset(&lw, 0x55, sizeof lw);
    CHECK_STATUS(dmls_lower_numpy(3, shape, "[1]", &lw), DMLS_OK);
    for (int i = 3; i < DMLS_MAX_RANK; i++)
        CHECK(lw.offsets[i] == 0 && lw.sizes[i] == 0 && lw.strides[i] == 0 && lw.out_sizes[i] == 0,
              "entry %d past rank 3 not zero", i);
    for (int i = 3; i < DMLS_MAX_RANK; i++) CHECK(lw.final_shape[i] == 0, "final_shape[%d] past rank 3 not zero", i);
    /* Rank 1 with no shape is refused before the shape is read. */
    const int64_t st[1] = {0}, en[1] = {1};
    expect("onnx rank 1 shape NULL", dmls_lower_onnx(1, NULL, st, en, 1, NULL, 0, NULL, 0, &lw),
           DMLS_ERROR_INVALID_ARGUMENT, "ONNX Slice: input shape is NULL with rank 1");
    expect("numpy rank 1 shape NULL", dmls_lower_numpy(1, NULL, "[0]", &lw), DMLS_ERROR_INVALID_ARGUMENT,
           "NumPy index: input shape is NULL with rank 1");
}

/* parse_int's limits: on an axis of INT64_MAX elements every int64 bound
 * shows in the result, not only in clamping. */
static void test_numpy_int64_edges(void) {
    dmls_lowered lw;
    const int64_t huge[1] = {INT64_MAX};
    /* Just below INT64_MAX, ending in 0: not an overflow. */
    CHECK_STATUS(dmls_lower_numpy(1, huge, "[9223372036854775800]", &lw), DMLS_OK);
    CHECK(lw.offsets[0] == INT64_C(9223372036854775800) && lw.final_ndim == 0, "index 2^63-8: offset %lld",
          (long long)lw.offsets[0]);
    CHECK_STATUS(dmls_lower_numpy(1, huge, "[9000000000000000000]", &lw), DMLS_OK);
    CHECK(lw.offsets[0] == INT64_C(9000000000000000000), "index 9e18: offset %lld", (long long)lw.offsets[0]);
    /* INT64_MAX itself: in range for the parser, one past the axis. */
    expect("index INT64_MAX", dmls_lower_numpy(1, huge, "[9223372036854775807]", &lw), DMLS_ERROR_OUT_OF_BOUNDS,
           "index 9223372036854775807 is out of bounds for axis 0 with size 9223372036854775807");
    /* Beyond int64 an index is an error, however many digits it has. */
    expect("index 1e19", dmls_lower_numpy(1, huge, "[10000000000000000000]", &lw), DMLS_ERROR_OUT_OF_BOUNDS,
           "index 10000000000000000000 is out of bounds");
    expect("index 2^64 + 1", dmls_lower_numpy(1, huge, "[18446744073709551617]", &lw), DMLS_ERROR_OUT_OF_BOUNDS,
           "index 18446744073709551617 is out of bounds");
    /* A start of 2^63 saturates at INT64_MAX, past the end: nothing taken. */
    CHECK_STATUS(dmls_lower_numpy(1, huge, "[9223372036854775808:]", &lw), DMLS_OK);
    CHECK(lw.final_ndim == 1 && lw.final_shape[0] == 0, "start 2^63: %lld elements", (long long)lw.final_shape[0]);
    /* -2^63 is an int64: -2^63 + (2^63 - 1) = -1, before the start, so a
     * backward slice from it takes nothing. */
    CHECK_STATUS(dmls_lower_numpy(1, huge, "[-9223372036854775808::-1]", &lw), DMLS_OK);
    CHECK(lw.final_shape[0] == 0, "start -2^63, step -1: %lld elements", (long long)lw.final_shape[0]);
    /* A step of -2^63 over 2^63 - 1 elements takes one. */
    CHECK_STATUS(dmls_lower_numpy(1, huge, "[::-9223372036854775808]", &lw), DMLS_OK);
    CHECK(lw.final_shape[0] == 1 && lw.offsets[0] == INT64_MAX - 1 && lw.strides[0] == -1,
          "step -2^63: %lld elements from %lld", (long long)lw.final_shape[0], (long long)lw.offsets[0]);
}

static void test_numpy_names(void) {
    dmls_lowered lw;
    const int64_t shape[2] = {4, 5};
    /* Letters at the ends of each range continue a name or start one. */
    static const char *const names[] = {"[Nonez]", "[NoneA]", "[NoneZ]", "[z]", "[A]", "[Ellipsiz]"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        expect(names[k], dmls_lower_numpy(2, shape, names[k], &lw), DMLS_ERROR_FORMAT,
               "unknown name (expected an integer, a slice, '...', None or newaxis) at column 2");
    expect("[..]", dmls_lower_numpy(2, shape, "[..]", &lw), DMLS_ERROR_FORMAT,
           "NumPy index \"[..]\": expected an integer, a slice, '...', None or newaxis at column 2");
}

/* dmls_lower_numpy_view parses up to 2 * 64 + 1 items: 64 indices, 64 None
 * and one ellipsis (a valid index); one more item is refused by count. */
static void test_view_item_limit(void) {
    static int64_t shape[DMLS_NUMPY_MAX_RANK];
    for (int i = 0; i < DMLS_NUMPY_MAX_RANK; i++) shape[i] = 1;
    static char expr[1024];
    strcpy(expr, "[...");
    for (int i = 0; i < DMLS_NUMPY_MAX_RANK; i++) strcat(expr, ", 0, None");
    strcat(expr, "]");
    static dmls_lowered_view v;
    CHECK_STATUS(dmls_lower_numpy_view(DMLS_NUMPY_MAX_RANK, shape, NULL, expr, &v), DMLS_OK);
    CHECK(v.final_ndim == DMLS_NUMPY_MAX_RANK && v.final_shape[0] == 1, "129 items: %d axes", (int)v.final_ndim);
    expr[strlen(expr) - 1] = '\0';
    strcat(expr, ", None]");
    expect("130 items", dmls_lower_numpy_view(DMLS_NUMPY_MAX_RANK, shape, NULL, expr, &v), DMLS_ERROR_FORMAT,
           "more than 129 items at column");
}

static void test_view_values(void) {
    static dmls_lowered_view v;
    /* Packed strides count a zero-size axis as one, as NumPy's do. */
    const int64_t z[3] = {2, 0, 3};
    CHECK_STATUS(dmls_lower_numpy_view(3, z, NULL, "[...]", &v), DMLS_OK);
    CHECK(v.in_strides[0] == 3 && v.in_strides[1] == 3 && v.in_strides[2] == 1, "strides of {2, 0, 3}: %lld %lld %lld",
          (long long)v.in_strides[0], (long long)v.in_strides[1], (long long)v.in_strides[2]);

    /* Above rank 8: an empty result is one empty axis, at offset 0, of
     * element stride 1; the empty axis may come first. */
    const int64_t e9[9] = {0, 3, 1, 1, 1, 1, 1, 1, 1};
    CHECK_STATUS(dmls_lower_numpy_view(9, e9, NULL, "[:, ::2]", &v), DMLS_OK);
    CHECK(v.slice.ndim == 1 && v.slice.sizes[0] == 0 && v.slice.out_sizes[0] == 0 && v.in_offset == 0 &&
              v.in_shape[0] == 0 && v.in_strides[0] == 1 && v.slice.strides[0] == 1,
          "empty rank-9 view: ndim %d size %lld offset %lld in_stride %lld", (int)v.slice.ndim,
          (long long)v.slice.sizes[0], (long long)v.in_offset, (long long)v.in_strides[0]);
    CHECK(v.final_ndim == 9 && v.final_shape[0] == 0 && v.final_shape[1] == 2, "final shape");
    const int64_t e9b[9] = {2, 2, 0, 1, 1, 1, 1, 1, 1};
    CHECK_STATUS(dmls_lower_numpy_view(9, e9b, NULL, "[1]", &v), DMLS_OK);
    CHECK(v.slice.ndim == 1 && v.in_offset == 0 && v.in_strides[0] == 1, "empty after an index: ndim %d offset %lld",
          (int)v.slice.ndim, (long long)v.in_offset);

    /* A zero input stride (a broadcast axis) runs forwards. */
    const int64_t s9[9] = {3, 1, 1, 1, 1, 1, 1, 1, 2};
    const int64_t t9[9] = {0, 1, 1, 1, 1, 1, 1, 1, 1};
    CHECK_STATUS(dmls_lower_numpy_view(9, s9, t9, "[...]", &v), DMLS_OK);
    CHECK(v.slice.ndim == 2 && v.in_strides[0] == 0 && v.slice.strides[0] == 1 && v.slice.offsets[0] == 0,
          "broadcast axis: ndim %d in_stride %lld stride %lld", (int)v.slice.ndim, (long long)v.in_strides[0],
          (long long)v.slice.strides[0]);

    /* An element stride that overflows, 2 * (2^62 + 1), from offset 0. */
    const int64_t big[9] = {INT64_C(4611686018427387905), 1, 1, 1, 1, 1, 1, 1, 1};
    expect("stride 2 * (2^62 + 1)", dmls_lower_numpy_view(9, s9, big, "[::2]", &v), DMLS_ERROR_OVERFLOW,
           "element strides overflow 64 bits");
}

int main(void) {
    test_lowered_fields();
    test_numpy_int64_edges();
    test_numpy_names();
    test_view_item_limit();
    test_view_values();
    TEST_MAIN_END();
}
