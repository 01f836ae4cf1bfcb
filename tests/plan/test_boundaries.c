/* Boundary values that mutation testing found unguarded (docs/mutation.md):
 * sizes exactly at a rounding step and one past it, a byte_offset one past
 * 2^63-1, rank 1 where the NULL-array checks were tested at rank 3 only, and
 * rank 8 through every path.
 *
 * Rank 8 and out-of-range reads. A loop that runs one index too far at rank
 * 8 reads element 8 of an 8-element array. A plain build cannot see that
 * read, but where the array sits inside a structure the read lands on the
 * next field, and the test chooses that field's value so the extra "dim"
 * changes the result: in a layout, shape[8] is strides[0], so every rank-8
 * case here gives dim 0 size 1 and stride 0 (allowed, even in an output:
 * a size-1 dim never moves), and a loop reading shape[8] then sees an
 * empty tensor and copies nothing; in the problem, start[8] is step[0] and
 * step[8] the next structure's first field. Every result is compared with
 * an oracle written here from the operator's definition, not with the
 * library's reference executor, which is itself one of the mutated files.
 * Arrays on the stack (the reference's coordinate arrays) are left to the
 * sanitizer runs of CI. */
#include "cpu/context.h" /* dmls_context_set_parallel_min_bytes */
#include "dmlslice/frontends.h"
#include "support/dml_fixture.h"
#include "operator.h" /* the normalized plan */
#include "support/native_op.h"
#include "support/test.h"

/* ------------------------------------------------------------------ R-T-TOTAL */

static uint64_t buffer_size(DML_TENSOR_DATA_TYPE type, UINT n, const UINT *sizes) {
    uint64_t bytes = 0;
    CHECK_STATUS(dmls_calc_buffer_tensor_size(type, n, sizes, NULL, &bytes), DMLS_OK);
    return bytes;
}

static void total_size_tests(void) {
    /* R-T-TOTAL: one byte past a multiple of 4 rounds up to the next. */
    const UINT five[1] = {5}, four[1] = {4}, nine[1] = {9}, eight[1] = {8};
    uint64_t b = buffer_size(DML_TENSOR_DATA_TYPE_UINT8, 1, five);
    CHECK(b == 8, "R-T-TOTAL: UINT8 {5} needs %llu bytes, want 8", (unsigned long long)b);
    b = buffer_size(DML_TENSOR_DATA_TYPE_UINT8, 1, four);
    CHECK(b == 4, "R-T-TOTAL: UINT8 {4} needs %llu bytes, want 4", (unsigned long long)b);
    const UINT nine8[1] = {9};
    b = buffer_size(DML_TENSOR_DATA_TYPE_UINT8, 1, nine8);
    CHECK(b == 12, "R-T-TOTAL: UINT8 {9} needs %llu bytes, want 12", (unsigned long long)b);
    b = buffer_size(DML_TENSOR_DATA_TYPE_INT8, 1, five);
    CHECK(b == 8, "R-T-TOTAL: INT8 {5} needs %llu bytes, want 8", (unsigned long long)b);
    /* 4-bit types: 9 values are 36 bits, 5 bytes, rounded to 8; 8 values 4 bytes. */
    b = buffer_size(DML_TENSOR_DATA_TYPE_UINT4, 1, nine);
    CHECK(b == 8, "R-T-TOTAL: UINT4 {9} needs %llu bytes, want 8", (unsigned long long)b);
    b = buffer_size(DML_TENSOR_DATA_TYPE_INT4, 1, eight);
    CHECK(b == 4, "R-T-TOTAL: INT4 {8} needs %llu bytes, want 4", (unsigned long long)b);
    /* Strided: the last index + 1 = 1 + (3 - 1) * 2 = 5 bytes, rounded to 8. */
    const UINT three[1] = {3}, two[1] = {2};
    CHECK_STATUS(dmls_calc_buffer_tensor_size(DML_TENSOR_DATA_TYPE_UINT8, 1, three, two, &b), DMLS_OK);
    CHECK(b == 8, "R-T-TOTAL: UINT8 {3} stride {2} needs %llu bytes, want 8", (unsigned long long)b);

    /* An INT8 1x1x2x2 tensor at exactly its minimum (4 bytes) with the
     * smallest alignment (1, the element size) is valid. */
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    const UINT o[4] = {0, 0, 1, 1}, s[4] = {1, 1, 2, 2};
    const INT st[4] = {1, 1, 1, 1};
    memcpy(f.offsets, o, sizeof o);
    memcpy(f.sizes, s, sizeof s);
    memcpy(f.strides, st, sizeof st);
    f.in_buf.DataType = f.out_buf.DataType = DML_TENSOR_DATA_TYPE_INT8;
    f.in_buf.GuaranteedBaseOffsetAlignment = f.out_buf.GuaranteedBaseOffsetAlignment = 1;
    fixture_sizes(&f);
    CHECK(f.out_buf.TotalTensorSizeInBytes == 4, "INT8 1x1x2x2 minimum %llu, want 4",
          (unsigned long long)f.out_buf.TotalTensorSizeInBytes);
    f.out_buf.TotalTensorSizeInBytes = 4;
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_dml(&f.op, DML_FEATURE_LEVEL_6_4, &op), DMLS_OK);
    if (op) {
        /* And it moves 1-byte elements: the 2x2 block at (1, 1) of the 4x4 input. */
        _Alignas(16) const signed char x[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
        _Alignas(16) signed char y[4] = {-1, -1, -1, -1};
        CHECK(dmls_element_size(op) == 1, "INT8 element size %zu", dmls_element_size(op));
        CHECK_STATUS(dmls_execute(op, x, 16, y, 4), DMLS_OK);
        CHECK(y[0] == 5 && y[1] == 6 && y[2] == 9 && y[3] == 10, "INT8 slice gave %d %d %d %d, want 5 6 9 10",
              y[0], y[1], y[2], y[3]);
        dmls_destroy(op);
    }
    /* R-T-ALIGN: at least the element size, which is (bits + 7) / 8 bytes. */
    static const struct {
        DML_TENSOR_DATA_TYPE type;
        UINT alignment;
        const char *message;
    } too_small[] = {
        {DML_TENSOR_DATA_TYPE_FLOAT16, 1,
         "InputTensor.GuaranteedBaseOffsetAlignment = 1 must be 0 or a power of two >= the element size 2"},
        {DML_TENSOR_DATA_TYPE_FLOAT64, 4,
         "InputTensor.GuaranteedBaseOffsetAlignment = 4 must be 0 or a power of two >= the element size 8"},
    };
    for (size_t k = 0; k < sizeof too_small / sizeof too_small[0]; k++) {
        f.in_buf.DataType = f.out_buf.DataType = too_small[k].type;
        f.in_buf.GuaranteedBaseOffsetAlignment = f.out_buf.GuaranteedBaseOffsetAlignment = too_small[k].alignment;
        fixture_sizes(&f);
        CHECK_STATUS(fixture_create(&f, DML_FEATURE_LEVEL_6_4), DMLS_ERROR_INVALID_ARGUMENT);
        CHECK_MESSAGE("R-T-ALIGN", too_small[k].message);
    }
    f.in_buf.DataType = f.out_buf.DataType = DML_TENSOR_DATA_TYPE_INT8;
    f.in_buf.GuaranteedBaseOffsetAlignment = f.out_buf.GuaranteedBaseOffsetAlignment = 1;
    fixture_sizes(&f);
    /* One byte under: not a multiple of 4 and below the minimum. */
    f.out_buf.TotalTensorSizeInBytes = 3;
    CHECK_STATUS(fixture_create(&f, DML_FEATURE_LEVEL_6_4), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-TOTAL", "OutputTensor.TotalTensorSizeInBytes = 3 is below the minimum implied size 4");
}

/* ------------------------------------------------------------- native views */

static void byte_offset_tests(void) {
    /* byte_offset 2^63 is one past what the planner's signed arithmetic holds. */
    const int64_t four[1] = {4}, zero[1] = {0};
    dmls_operator *op;
    CHECK_STATUS(OP_TRY(&op, .dtype = DMLS_FLOAT32, .ndim = 1, .in_shape = four, .in_offset = 1ull << 63,
                        .out_shape = four),
                 DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-T-TOTAL", "input.byte_offset = 9223372036854775808 exceeds 2^63-1");
    dmls_destroy(op);
    /* Empty views too: the offset is checked before emptiness ends the checks. */
    op_spec empty = {.dtype = DMLS_FLOAT32, .ndim = 1, .in_shape = zero, .in_offset = 1ull << 63, .out_shape = zero};
    CHECK_STATUS(op_try(&empty, &op), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-T-TOTAL", "input.byte_offset = 9223372036854775808 exceeds 2^63-1");
    dmls_destroy(op);
    /* 2^63 - 1 itself is accepted for an empty view. */
    empty.in_offset = (1ull << 63) - 1;
    CHECK_STATUS(op_try(&empty, &op), DMLS_OK);
    dmls_destroy(op);
}

/* An empty window may sit at the very end of an axis whose stride is so
 * large that start * stride overflows 64 bits: an empty copy must compute
 * no address at all (the sanitizer builds see the overflow if it does).
 * The empty axis is the first, then the last. */
static void empty_window_tests(void) {
    const int64_t huge = (int64_t)1 << 60;
    for (int last = 0; last < 2; last++) {
        const int64_t in_shape[2] = {last ? 3 : 2, last ? 2 : 3}, in_strides[2] = {last ? 1 : huge, last ? huge : 1};
        const int64_t out_shape[2] = {last ? 3 : 0, last ? 0 : 3}, off[2] = {last ? 0 : 2, last ? 2 : 0},
                      size[2] = {last ? 3 : 0, last ? 0 : 3};
        dmls_operator *op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 2, .in_shape = in_shape, .in_strides = in_strides,
                                    .out_shape = out_shape, .offsets = off, .sizes = size);
        if (!op) continue;
        CHECK(dmls_output_bytes(op) == 0, "empty output needs %llu bytes", (unsigned long long)dmls_output_bytes(op));
        /* The input view spans about 2^62 bytes; an empty copy reads none of
         * them, so a small buffer said to be that large is never touched. */
        float x[8] = {0};
        CHECK_STATUS(dmls_execute(op, x, dmls_input_bytes(op), NULL, 0), DMLS_OK);
        dmls_destroy(op);
    }
}

/* R-X-OVERLAP from both sides: an output that starts before the input and
 * ends inside it overlaps as much as one that starts inside it. */
static void overlap_tests(void) {
    const int64_t shape[1] = {16}, small[1] = {4};
    dmls_operator *op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 1, .in_shape = shape, .out_shape = small);
    if (!op) return;
    float buf[24];
    for (int i = 0; i < 24; i++) buf[i] = (float)i;
    /* Output [1, 5) floats, input [4, 20): they share float 4. */
    CHECK_STATUS(dmls_execute(op, buf + 4, 64, buf + 1, 16), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-X-OVERLAP", "overlap");
    CHECK(buf[1] == 1 && buf[4] == 4, "a failed execute wrote to its buffers");
    /* Output [0, 4), input [4, 20): adjacent, fine. */
    CHECK_STATUS(dmls_execute(op, buf + 4, 64, buf, 16), DMLS_OK);
    CHECK(buf[0] == 4 && buf[3] == 7, "slice into the bytes just before the input");
    dmls_destroy(op);

    /* A 1-byte input and output at one address overlap. */
    const int64_t one_el[1] = {1};
    op = OP_MAKE(.dtype = DMLS_UINT8, .ndim = 1, .in_shape = one_el, .out_shape = one_el);
    if (op) {
        unsigned char byte = 9, other = 0;
        CHECK_STATUS(dmls_execute(op, &byte, 1, &byte, 1), DMLS_ERROR_OVERLAP);
        /* R-OP-NULL at one byte: a NULL buffer is refused for any tensor with bytes. */
        CHECK_STATUS(dmls_execute(op, NULL, 1, &other, 1), DMLS_ERROR_INVALID_ARGUMENT);
        CHECK_MESSAGE("R-OP-NULL", "slice: input buffer is NULL but the input tensor needs 1 bytes");
        CHECK_STATUS(dmls_execute(op, &byte, 1, NULL, 1), DMLS_ERROR_INVALID_ARGUMENT);
        CHECK_MESSAGE("R-OP-NULL", "slice: output buffer is NULL but the output tensor needs 1 bytes");
        dmls_destroy(op);
    }

    /* SLICE_GRAD with an empty input gradient reads no byte, so its pointer
     * may lie anywhere, even inside the output gradient it zeroes. */
    const int64_t empty[1] = {0}, four[1] = {4};
    op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 1, .grad = true, .in_shape = empty, .out_shape = four);
    if (op) {
        float g[4] = {1, 2, 3, 4};
        CHECK_STATUS(dmls_execute(op, g + 1, 0, g, sizeof g), DMLS_OK);
        CHECK(g[0] == 0 && g[1] == 0 && g[2] == 0 && g[3] == 0, "empty SLICE_GRAD did not zero its output");
        /* Nothing to read, so no buffer needed: NULL is fine. */
        g[0] = 5;
        CHECK_STATUS(dmls_execute(op, NULL, 0, g, sizeof g), DMLS_OK);
        CHECK(g[0] == 0, "empty SLICE_GRAD with a NULL input did not zero its output");
        dmls_destroy(op);
    }
    /* Likewise an empty output, pointing inside a non-empty input. */
    op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 1, .in_shape = four, .out_shape = empty);
    if (op) {
        float g[4] = {1, 2, 3, 4};
        CHECK_STATUS(dmls_execute(op, g, sizeof g, g + 1, 0), DMLS_OK);
        CHECK(g[1] == 2, "an empty slice wrote its output");
        CHECK_STATUS(dmls_execute(op, g, sizeof g, NULL, 0), DMLS_OK);
        dmls_destroy(op);
    }
}

/* ------------------------------------------------------------------- rank 8 */

/* A normalized plan's unused dims (from ndim to 8) are size 1 with zero
 * strides, so a backend may walk all 8 (operator.h). */
static void plan_padding_tests(void) {
    const int64_t shape[3] = {2, 3, 4};
    dmls_operator *op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 3, .in_shape = shape, .out_shape = shape);
    if (!op) return;
    const dmls_copy_plan *c = &op->copy;
    CHECK(c->ndim == 1 && c->shape[0] == 24, "a packed copy merges into one run: ndim %d", (int)c->ndim);
    for (int i = c->ndim; i < DMLS_MAX_RANK; i++)
        CHECK(c->shape[i] == 1 && c->src_stride[i] == 0 && c->dst_stride[i] == 0,
              "unused dim %d: shape %lld strides %lld/%lld, want 1 and 0/0", i, (long long)c->shape[i],
              (long long)c->src_stride[i], (long long)c->dst_stride[i]);
    dmls_destroy(op);
}

/* The oracle: for each output coordinate c (row-major over out_shape),
 * out[c] = in[start + step * c], byte addresses from the views' strides. */
static void oracle(int esize, int ndim, const int64_t *in_strides, uint64_t in_off, const int64_t *out_shape,
                   const int64_t *out_strides, uint64_t out_off, const int64_t *start, const int64_t *step,
                   const unsigned char *in, unsigned char *out) {
    int64_t c[8] = {0};
    for (int i = 0; i < ndim; i++)
        if (out_shape[i] == 0) return;
    for (;;) {
        int64_t a = (int64_t)in_off, b = (int64_t)out_off;
        for (int i = 0; i < ndim; i++) {
            a += esize * (start[i] + step[i] * c[i]) * in_strides[i];
            b += esize * c[i] * out_strides[i];
        }
        memcpy(out + b, in + a, (size_t)esize);
        int i = ndim - 1;
        while (i >= 0 && ++c[i] == out_shape[i]) c[i--] = 0;
        if (i < 0) return;
    }
}

/* A native SLICE of every element of a 2^8 input whose strides grow from
 * dim 0 (the reverse of packed, one gap of a factor 2): the merge of
 * neighbours must walk dims from 0 without looking before dim 0. */
static void rank8_reordered(void) {
    const int64_t shape[8] = {2, 2, 2, 2, 2, 2, 2, 2}, in_strides[8] = {1, 2, 4, 8, 16, 32, 64, 256};
    const int64_t zero[8] = {0}, one[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    dmls_operator *op =
        OP_MAKE(.dtype = DMLS_INT16, .ndim = 8, .in_shape = shape, .in_strides = in_strides, .out_shape = shape);
    if (!op) return;
    const uint64_t in_bytes = dmls_input_bytes(op), out_bytes = dmls_output_bytes(op);
    unsigned char *x = malloc(in_bytes), *y = malloc(out_bytes), *want = malloc(out_bytes);
    test_fill_random(x, in_bytes);
    memset(y, 0x5a, out_bytes);
    memset(want, 0x5a, out_bytes);
    const int64_t packed[8] = {128, 64, 32, 16, 8, 4, 2, 1};
    oracle(2, 8, in_strides, 0, shape, packed, 0, zero, one, x, want);
    CHECK_STATUS(dmls_execute(op, x, in_bytes, y, out_bytes), DMLS_OK);
    CHECK(memcmp(y, want, out_bytes) == 0, "rank 8, strides {1,2,...,64,256}: execute differs from the oracle");
    memset(y, 0x5a, out_bytes);
    CHECK_STATUS(dmls_execute_reference(op, x, in_bytes, y, out_bytes), DMLS_OK);
    CHECK(memcmp(y, want, out_bytes) == 0, "rank 8, strides {1,2,...,64,256}: reference differs from the oracle");
    free(x), free(y), free(want);
    dmls_destroy(op);
}

/* One rank-8 native case (SLICE or SLICE_GRAD) run by execute, by a
 * 3-thread context cutting every copy, and by the reference, each checked
 * against the oracle. Dim 0 has size 1 and stride 0 on both sides (see the
 * head comment). */
static void rank8_native(bool grad, int esize, const int64_t *steps) {
    static const dmls_dtype dtypes[9] = {0, DMLS_UINT8, DMLS_UINT16, 0, DMLS_FLOAT32, 0, 0, 0, DMLS_INT64};
    int64_t big[8] = {1, 3, 2, 3, 2, 3, 2, 5}, small[8], off[8], size[8];
    int64_t big_strides[8], small_strides[8], start[8];
    /* Padded big tensor, packed small one, both with stride 0 on dim 0. */
    int64_t p = 1, q = 1;
    for (int i = 7; i >= 0; i--) {
        int64_t a = steps[i] < 0 ? -steps[i] : steps[i];
        size[i] = big[i] == 1 ? 1 : big[i] - 1;
        off[i] = big[i] - size[i];
        small[i] = 1 + (size[i] - 1) / a;
        start[i] = steps[i] > 0 ? off[i] : off[i] + size[i] - 1;
        big_strides[i] = i == 0 ? 0 : p;
        small_strides[i] = i == 0 ? 0 : q;
        p *= big[i] + (i % 2); /* odd dims padded by one */
        q *= small[i];
    }
    dmls_tensor tb = {dtypes[esize], 8, big, big_strides, 8};
    dmls_tensor ts = {dtypes[esize], 8, small, small_strides, 0};
    dmls_window w = {off, size, steps};
    dmls_operator *op = NULL;
    dmls_status s = grad ? dmls_create_grad(&ts, &tb, &w, &op) : dmls_create(&tb, &ts, &w, &op);
    CHECK(s == DMLS_OK, "rank 8 %s esize %d: create: %s", grad ? "grad" : "slice", esize, dmls_last_error());
    if (!op) return;
    const uint64_t in_bytes = dmls_input_bytes(op), out_bytes = dmls_output_bytes(op);
    unsigned char *x = malloc(in_bytes), *y = malloc(out_bytes + 16), *want = malloc(out_bytes + 16);
    test_fill_random(x, in_bytes);
    memset(want, 0x5a, out_bytes + 16);
    if (grad) {
        /* Zeros over every element of the output gradient, then the scatter. */
        unsigned char *zeros = calloc(1, out_bytes);
        int64_t all_start[8] = {0}, all_step[8] = {1, 1, 1, 1, 1, 1, 1, 1};
        oracle(esize, 8, big_strides, 8, big, big_strides, 8, all_start, all_step, zeros, want);
        free(zeros);
        /* Scatter: want[big at start + step * c] = x[small at c]. */
        int64_t c[8] = {0};
        for (;;) {
            int64_t a = 0, b = 8;
            for (int i = 0; i < 8; i++) {
                a += esize * c[i] * small_strides[i];
                b += esize * (start[i] + steps[i] * c[i]) * big_strides[i];
            }
            memcpy(want + b, x + a, (size_t)esize);
            int i = 7;
            while (i >= 0 && ++c[i] == small[i]) c[i--] = 0;
            if (i < 0) break;
        }
    } else {
        oracle(esize, 8, big_strides, 8, small, small_strides, 0, start, steps, x, want);
    }
    dmls_context *ctx = NULL;
    CHECK_STATUS(dmls_context_create(3, &ctx), DMLS_OK);
    for (int run = 0; run < 3; run++) {
        memset(y, 0x5a, out_bytes + 16);
        const char *how = run == 0 ? "execute" : run == 1 ? "3 threads" : "reference";
        if (run == 0) CHECK_STATUS(dmls_execute(op, x, in_bytes, y, out_bytes), DMLS_OK);
        if (run == 1 && ctx) {
            dmls_context_set_parallel_min_bytes(ctx, 0);
            CHECK_STATUS(dmls_execute_on(op, ctx, x, in_bytes, y, out_bytes), DMLS_OK);
        }
        if (run == 1 && !ctx) continue;
        if (run == 2) CHECK_STATUS(dmls_execute_reference(op, x, in_bytes, y, out_bytes), DMLS_OK);
        CHECK(memcmp(y, want, out_bytes + 16) == 0, "rank 8 %s esize %d steps[7] %lld: %s differs from the oracle",
              grad ? "grad" : "slice", esize, (long long)steps[7], how);
    }
    dmls_context_destroy(ctx);
    free(x), free(y), free(want);
    dmls_destroy(op);
}

static void rank8_tests(void) {
    rank8_reordered();
    const int64_t fwd[8] = {1, 1, 2, 1, -1, 1, 1, 1}, rev[8] = {1, -1, 1, 2, 1, -2, 1, -1},
                  st2[8] = {1, 1, 1, 1, 1, 1, 1, 2};
    for (int esize = 1; esize <= 8; esize *= 2) {
        rank8_native(false, esize, fwd);
        rank8_native(false, esize, rev);
        rank8_native(false, esize, st2);
        rank8_native(true, esize, fwd);
        rank8_native(true, esize, rev);
    }
}

/* ------------------------------------------------------------- front ends */

static void webnn_tests(void) {
    dmls_lowered lw;
    const int64_t shape1[1] = {5};
    const uint64_t one[1] = {1};
    /* Rank 0: no arrays needed, NULL is fine; the result is the scalar. */
    CHECK_STATUS(dmls_lower_webnn_slice(0, NULL, NULL, 0, NULL, 0, NULL, 0, &lw), DMLS_OK);
    CHECK(lw.ndim == 0 && lw.final_ndim == 0, "rank 0: ndim %d final %d", (int)lw.ndim, (int)lw.final_ndim);
    /* Rank 1 with a NULL array: rejected, never read. */
    CHECK_STATUS(dmls_lower_webnn_slice(1, shape1, NULL, 1, one, 1, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "starts is NULL with rank 1") != NULL, "message: %s", dmls_last_error());
    CHECK_STATUS(dmls_lower_webnn_slice(1, shape1, one, 1, NULL, 1, NULL, 0, &lw), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "sizes is NULL with rank 1") != NULL, "message: %s", dmls_last_error());

    /* Rank-8 reverse, every axis and some axes: each reversed axis starts at
     * its last index with step -1, the others are whole and forward. */
    const int64_t shape[8] = {1, 2, 3, 2, 1, 3, 2, 4};
    for (int k = 0; k < 2; k++) {
        const uint64_t axes[4] = {7, 0, 3, 5};
        CHECK_STATUS(dmls_lower_webnn_reverse(8, shape, k ? axes : NULL, k ? 4 : 0, &lw), DMLS_OK);
        CHECK(lw.ndim == 8 && lw.final_ndim == 8, "reverse rank 8: ndim %d final %d", (int)lw.ndim,
              (int)lw.final_ndim);
        for (int i = 0; i < 8; i++) {
            const bool rev = !k || i == 7 || i == 0 || i == 3 || i == 5;
            CHECK(lw.offsets[i] == 0 && lw.sizes[i] == shape[i] && lw.out_sizes[i] == shape[i] &&
                      lw.final_shape[i] == shape[i] && lw.strides[i] == (rev ? -1 : 1),
                  "reverse rank 8 (%s) axis %d: offset %lld size %lld stride %lld out %lld",
                  k ? "axes 7,0,3,5" : "all axes", i, (long long)lw.offsets[i], (long long)lw.sizes[i],
                  (long long)lw.strides[i], (long long)lw.out_sizes[i]);
        }
        /* And run: the output is the input read backwards on those axes. */
        int32_t in[288], out[288];
        for (int i = 0; i < 288; i++) in[i] = i;
        dmls_tensor ti = {DMLS_INT32, 8, shape, NULL, 0};
        dmls_window w = dmls_lowered_window(&lw);
        dmls_operator *op = NULL;
        CHECK_STATUS(dmls_create(&ti, &ti, &w, &op), DMLS_OK);
        if (!op) continue;
        CHECK_STATUS(dmls_execute(op, in, sizeof in, out, sizeof out), DMLS_OK);
        dmls_destroy(op);
        int64_t c[8] = {0};
        for (int e = 0; e < 288; e++) {
            int64_t src = 0;
            for (int i = 0; i < 8; i++) {
                const bool rev = !k || i == 7 || i == 0 || i == 3 || i == 5;
                src = src * shape[i] + (rev ? shape[i] - 1 - c[i] : c[i]);
            }
            if (out[e] != in[src]) {
                CHECK(false, "reverse rank 8: element %d is %d, want %d", e, (int)out[e], (int)in[src]);
                break;
            }
            for (int i = 7; i >= 0 && ++c[i] == shape[i]; i--) c[i] = 0;
        }
    }
}

/* DirectML SLICE, SLICE1 and SLICE_GRAD at rank 8, dim 0 of size 1 with
 * stride 0 in every tensor. */
static void rank8_dml_tests(void) {
    const DML_OPERATOR_TYPE types[3] = {DML_OPERATOR_SLICE, DML_OPERATOR_SLICE1, DML_OPERATOR_SLICE_GRAD};
    for (int t = 0; t < 3; t++) {
        fixture f;
        fixture_init(&f, types[t]);
        fixture_rank(&f, 8);
        const bool grad = types[t] == DML_OPERATOR_SLICE_GRAD;
        const UINT big[8] = {1, 3, 2, 2, 3, 2, 2, 4}, small[8] = {1, 2, 1, 2, 2, 2, 1, 2};
        const UINT off[8] = {0, 1, 1, 0, 0, 0, 0, 1}, sz[8] = {1, 2, 1, 2, 3, 2, 2, 3};
        const UINT sst[8] = {1, 1, 1, 1, 2, 1, 2, 2};
        const INT wst[8] = {1, -1, 1, 1, 2, -1, -2, 2};
        UINT big_str[8], small_str[8];
        UINT p = 1, q = 1;
        for (int i = 7; i >= 0; i--) {
            big_str[i] = i == 0 ? 0 : p;
            small_str[i] = i == 0 ? 0 : q;
            p *= big[i];
            q *= small[i];
        }
        memcpy(grad ? f.out_sizes : f.in_sizes, big, sizeof big);
        memcpy(grad ? f.in_sizes : f.out_sizes, small, sizeof small);
        f.in_buf.Strides = grad ? small_str : big_str;
        f.out_buf.Strides = grad ? big_str : small_str;
        memcpy(f.offsets, off, sizeof off);
        /* SLICE's Sizes are the output's; SLICE1's and SLICE_GRAD's the window's. */
        memcpy(f.sizes, types[t] == DML_OPERATOR_SLICE ? small : sz, sizeof sz);
        memcpy(f.slice_strides, sst, sizeof sst);
        memcpy(f.strides, wst, sizeof wst);
        fixture_sizes(&f);
        dmls_operator *op = NULL;
        CHECK_STATUS(dmls_create_dml(&f.op, DML_FEATURE_LEVEL_6_4, &op), DMLS_OK);
        if (!op) continue;
        /* 576 elements in the big tensor, 32 in the small one. */
        _Alignas(16) float x[640], y[640];
        float want[640];
        for (int i = 0; i < 640; i++) x[i] = (float)(i + 1), y[i] = want[i] = -1.0f;
        int64_t start[8], step[8], bs[8], ss[8];
        const int64_t ssmall[8] = {1, 2, 1, 2, 2, 2, 1, 2};
        for (int i = 0; i < 8; i++) {
            step[i] = types[t] == DML_OPERATOR_SLICE ? (int64_t)sst[i] : (int64_t)wst[i];
            start[i] = step[i] > 0 ? off[i] : off[i] + sz[i] - 1;
            bs[i] = big_str[i];
            ss[i] = small_str[i];
        }
        if (grad) {
            for (int i = 0; i < 576; i++) want[i] = 0.0f;
            int64_t c[8] = {0};
            for (;;) {
                int64_t a = 0, b = 0;
                for (int i = 0; i < 8; i++) a += c[i] * ss[i], b += (start[i] + step[i] * c[i]) * bs[i];
                want[b] = x[a];
                int i = 7;
                while (i >= 0 && ++c[i] == ssmall[i]) c[i--] = 0;
                if (i < 0) break;
            }
        } else {
            oracle(4, 8, bs, 0, ssmall, ss, 0, start, step, (const unsigned char *)x, (unsigned char *)want);
        }
        const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
        CHECK_STATUS(dmls_execute(op, x, ib, y, ob), DMLS_OK);
        CHECK(memcmp(y, want, sizeof y) == 0, "rank 8 DML type %d: execute differs from the oracle", (int)types[t]);
        for (int i = 0; i < 640; i++) y[i] = -1.0f;
        CHECK_STATUS(dmls_execute_reference(op, x, ib, y, ob), DMLS_OK);
        CHECK(memcmp(y, want, sizeof y) == 0, "rank 8 DML type %d: reference differs from the oracle",
              (int)types[t]);
        dmls_destroy(op);
    }
}

/* ---- surv-core: window steps whose product with a stride overflows (issue 16) ---- */
/* The plan multiplies a windowed stride by the window's step only for a dim
 * the copy walks more than once, and not at all for an empty copy: other
 * products need not fit 64 bits, and signed overflow is undefined (the
 * sanitizer runs see it). Empty: an empty input, whose strides nothing
 * checks, 2^40 apart, under a window stepping 2^30 over 2 outputs, with the
 * empty dim first and last. Size 1: a step of 2^63-1 taken once. */
static void step_product_tests(void) {
    const int64_t big = (int64_t)1 << 40, step = (int64_t)1 << 30;
    for (int last = 0; last < 2; last++) {
        const int64_t in_shape[2] = {last ? big : 0, last ? 0 : big}, in_strides[2] = {big, big};
        const int64_t out_shape[2] = {last ? 2 : 0, last ? 0 : 2}, off[2] = {0, 0},
                      size[2] = {last ? step + 1 : 0, last ? 0 : step + 1}, steps[2] = {last ? step : 1, last ? 1 : step};
        dmls_operator *op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 2, .in_shape = in_shape, .in_strides = in_strides,
                                    .out_shape = out_shape, .offsets = off, .sizes = size, .steps = steps);
        if (!op) continue;
        CHECK(dmls_input_bytes(op) == 0 && dmls_output_bytes(op) == 0, "empty slice needs %llu and %llu bytes",
              (unsigned long long)dmls_input_bytes(op), (unsigned long long)dmls_output_bytes(op));
        float x[1] = {0};
        CHECK_STATUS(dmls_execute(op, x, 0, NULL, 0), DMLS_OK);
        CHECK_STATUS(dmls_execute_reference(op, x, 0, NULL, 0), DMLS_OK);
        dmls_destroy(op);
    }
    const int64_t in_shape[2] = {2, 4}, out_shape[2] = {1, 4}, off[2] = {1, 0}, size[2] = {1, 4},
                  steps[2] = {INT64_MAX, 1};
    dmls_operator *op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 2, .in_shape = in_shape, .out_shape = out_shape,
                                .offsets = off, .sizes = size, .steps = steps);
    if (!op) return;
    const float x[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    float y[4] = {0};
    CHECK_STATUS(dmls_execute(op, x, sizeof x, y, sizeof y), DMLS_OK);
    CHECK(y[0] == 5 && y[1] == 6 && y[2] == 7 && y[3] == 8, "row 1 of 2 by a step of 2^63-1: %g %g %g %g", y[0],
          y[1], y[2], y[3]);
    dmls_destroy(op);
}
/* ---- end surv-core ---- */

int main(void) {
    step_product_tests(); /* surv-core */
    test_seed_rng();
    total_size_tests();
    byte_offset_tests();
    overlap_tests();
    empty_window_tests();
    plan_padding_tests();
    rank8_tests();
    rank8_dml_tests();
    webnn_tests();
    TEST_MAIN_END();
}
