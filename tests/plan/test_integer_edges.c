/* Integer edges: every window field and tensor size of every operator set to
 * 0, 1, UINT32_MAX, INT32 and INT64 extremes, one at a time. Each either
 * gives a clear error (a rule ID and the value in the message) or a valid
 * operator that matches the reference; nothing wraps. */
#include <limits.h>

#include "support/dml_fixture.h"
#include "support/test.h"

static void check_result(dmls_status s, dmls_operator *op, const char *what) {
    if (s != DMLS_OK) {
        CHECK(op == NULL, "%s: op set on failure", what);
        CHECK(dmls_last_error()[0] != '\0', "%s: failure without a message", what);
        return;
    }
    /* Accepted: it must run within its declared sizes, like the reference.
     * Huge but valid native views (a byte_offset near 2^62, a 2^31-row
     * input) are accepted and only their byte counts are checked here. */
    const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
    CHECK((ib == 0 || ib >= 8) && (ob == 0 || ob >= 8), "%s: an accepted operator needs %llu/%llu bytes", what, (unsigned long long)ib,
          (unsigned long long)ob);
    if (ib > (1u << 20) || ob > (1u << 20)) return;
    unsigned char *in = malloc(ib + 1), *out = malloc(ob + 1), *ref = malloc(ob + 1);
    test_fill_random(in, ib);
    memset(out, 7, ob), memset(ref, 7, ob);
    CHECK_STATUS(dmls_execute(op, in, ib, out, ob), DMLS_OK);
    CHECK_STATUS(dmls_execute_reference(op, in, ib, ref, ob), DMLS_OK);
    CHECK(memcmp(out, ref, ob) == 0, "%s: differs from the reference", what);
    free(in), free(out), free(ref);
}

static void dml_edges(void) {
    static const uint32_t u_values[] = {0, 1, 2, 3, 4, 5, INT32_MAX, (uint32_t)INT32_MAX + 1, UINT32_MAX - 1, UINT32_MAX};
    static const int32_t s_values[] = {0, 1, -1, 4, -4, INT32_MAX, INT32_MIN, INT32_MIN + 1};
    static const DML_OPERATOR_TYPE ops[] = {DML_OPERATOR_SLICE, DML_OPERATOR_SLICE1, DML_OPERATOR_SLICE_GRAD};
    int cases = 0;
    for (int o = 0; o < 3; o++)
        for (int field = 0; field < 5; field++)
            for (unsigned dim = 0; dim < 4; dim++)
                for (size_t v = 0; v < (field == 2 && o ? 8 : 10); v++) {
                    fixture f;
                    fixture_init(&f, ops[o]);
                    const uint32_t u = u_values[v];
                    switch (field) {
                    case 0: f.offsets[dim] = u; break;
                    case 1: f.sizes[dim] = u; break;
                    case 2:
                        if (o) f.strides[dim] = s_values[v];
                        else f.slice_strides[dim] = u;
                        break;
                    case 3: f.in_sizes[dim] = u; break;
                    default: f.out_sizes[dim] = u; break;
                    }
                    fixture_sizes(&f);
                    dmls_operator *op = NULL;
                    char what[96];
                    snprintf(what, sizeof what, "op %d field %d dim %u value #%zu", (int)ops[o], field, dim, v);
                    dmls_status s = dmls_create_dml(&f.op, DML_FEATURE_LEVEL_6_4, &op);
                    if (s != DMLS_OK) CHECK(dmls_last_error_rule()[0] != '\0', "%s: no rule: %s", what, dmls_last_error());
                    check_result(s, op, what);
                    dmls_destroy(op);
                    cases++;
                }
    printf("DirectML edges: %d cases\n", cases);
}

static void native_edges(void) {
    static const int64_t values[] = {0, 1, -1, 3, 4, 5, INT32_MAX, INT32_MIN, UINT32_MAX, (int64_t)UINT32_MAX + 1,
                                     INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1, INT64_MAX / 2};
    const size_t nv = sizeof values / sizeof values[0];
    int cases = 0;
    for (int grad = 0; grad < 2; grad++)
        for (int field = 0; field < 8; field++)
            for (int dim = 0; dim < 2; dim++)
                for (size_t v = 0; v < nv; v++) {
                    int64_t big[2] = {4, 4}, small[2] = {2, 2}, bst[2] = {4, 1}, sst[2] = {2, 1};
                    int64_t off[2] = {0, 1}, size[2] = {4, 3}, stride[2] = {2, -2};
                    uint64_t boff = 0;
                    switch (field) {
                    case 0: off[dim] = values[v]; break;
                    case 1: size[dim] = values[v]; break;
                    case 2: stride[dim] = values[v]; break;
                    case 3: big[dim] = values[v]; break;
                    case 4: small[dim] = values[v]; break;
                    case 5: bst[dim] = values[v]; break;
                    case 6: sst[dim] = values[v]; break;
                    default: boff = (uint64_t)values[v]; break;
                    }
                    dmls_tensor bt = {DMLS_INT64, 2, big, bst, boff}, st = {DMLS_INT64, 2, small, sst, 0};
                    dmls_window w = {off, size, stride};
                    dmls_operator *op = NULL;
                    dmls_status s = grad ? dmls_create_grad(&st, &bt, &w, &op) : dmls_create(&bt, &st, &w, &op);
                    char what[96];
                    snprintf(what, sizeof what, "native %s field %d dim %d value %lld", grad ? "grad" : "slice", field,
                             dim, (long long)values[v]);
                    check_result(s, op, what);
                    dmls_destroy(op);
                    cases++;
                }
    printf("native edges: %d cases\n", cases);
}

/* Specific expectations at the edges. */
static void named_edges(void) {
    fixture f;
    fixture_init(&f, DML_OPERATOR_SLICE1);
    f.sizes[3] = UINT32_MAX; /* 1 + 2^32-1 must not wrap to 0 */
    CHECK_STATUS(fixture_create(&f, DML_FEATURE_LEVEL_6_4), DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_MESSAGE("R-WIN-BOUNDS", "4294967295", "4294967296");
    fixture_init(&f, DML_OPERATOR_SLICE);
    f.sizes[3] = f.out_sizes[3] = UINT32_MAX;
    f.slice_strides[3] = UINT32_MAX; /* (2^32-2) * (2^32-1) stays in 64 bits */
    fixture_sizes(&f);
    f.out_buf.TotalTensorSizeInBytes = (uint64_t)UINT32_MAX * 8;
    CHECK_STATUS(fixture_create(&f, DML_FEATURE_LEVEL_6_4), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-T-ELEMS", "OutputTensor");
    int64_t big[1] = {INT64_MAX}, small[1] = {1}, off[1] = {INT64_MAX - 1}, size[1] = {1}, st[1] = {INT64_MIN};
    dmls_tensor bt = {DMLS_UINT8, 1, big, NULL, 0}, sm = {DMLS_UINT8, 1, small, NULL, 0};
    dmls_window w = {off, size, st};
    dmls_operator *op = NULL;
    /* A view of 2^63-1 bytes is describable; reading its last byte is fine. */
    CHECK_STATUS(dmls_create(&bt, &sm, &w, &op), DMLS_OK);
    CHECK(op && dmls_input_bytes(op) == (uint64_t)INT64_MAX, "input bytes");
    dmls_destroy(op);
    int64_t i8[1] = {INT64_MAX / 4};
    bt.dtype = sm.dtype = DMLS_INT64;
    bt.shape = i8;
    off[0] = 0;
    CHECK_STATUS(dmls_create(&bt, &sm, &w, &op), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-T-TOTAL", "input");
}

/* A window far out along a stride-0 axis: every element is the one at byte
 * 0, but the start's byte term esize * start = 8 * (2^62 - 4) exceeds 2^63
 * before the stride of 0 brings it back. Planning and the reference must
 * get the address without an overflowing signed product (which the
 * sanitizer build reports as undefined behaviour). */
static void far_window_on_zero_stride(void) {
    int64_t shape[1] = {(int64_t)1 << 62}, zero[1] = {0}, out_shape[1] = {2};
    int64_t off[1] = {((int64_t)1 << 62) - 4}, size[1] = {4}, step[1] = {2};
    dmls_tensor in = {DMLS_FLOAT64, 1, shape, zero, 0}, out = {DMLS_FLOAT64, 1, out_shape, NULL, 0};
    dmls_window w = {off, size, step};
    const double x = 2.5;
    double y[2] = {0, 0}, r[2] = {0, 0};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    if (op == NULL) return;
    CHECK(dmls_input_bytes(op) == sizeof x, "far window: input bytes %llu", (unsigned long long)dmls_input_bytes(op));
    CHECK_STATUS(dmls_execute(op, &x, sizeof x, y, sizeof y), DMLS_OK);
    CHECK(y[0] == 2.5 && y[1] == 2.5, "far window: execute gave %g %g", y[0], y[1]);
    CHECK_STATUS(dmls_execute_reference(op, &x, sizeof x, r, sizeof r), DMLS_OK);
    CHECK(r[0] == 2.5 && r[1] == 2.5, "far window: reference gave %g %g", r[0], r[1]);
    dmls_context *ctx = NULL;
    CHECK_STATUS(dmls_context_create(2, &ctx), DMLS_OK);
    y[0] = y[1] = 0;
    CHECK_STATUS(dmls_execute_on(op, ctx, &x, sizeof x, y, sizeof y), DMLS_OK);
    CHECK(y[0] == 2.5 && y[1] == 2.5, "far window: execute_on gave %g %g", y[0], y[1]);
    dmls_context_destroy(ctx);
    dmls_destroy(op);
    y[0] = y[1] = 0;
    CHECK_STATUS(dmls_slice(&in, &x, sizeof x, &out, y, sizeof y, &w), DMLS_OK);
    CHECK(y[0] == 2.5 && y[1] == 2.5, "far window: one-shot gave %g %g", y[0], y[1]);
}

/* Two elements 2^62 bytes apart (a view, never executed): the GPU backends
 * plan their launches at create, and grouping the two elements into one
 * 16-byte item must not scale the stride of the axis it leaves with one
 * index (2^62 * 2 overflows). Both grouping forms: k elements of one
 * inner row, and k / n whole rows of n. */
static void grouped_far_elements(void) {
    int64_t shape1[1] = {2}, stride1[1] = {(int64_t)1 << 59};
    dmls_tensor in = {DMLS_FLOAT64, 1, shape1, stride1, 0}, out = {DMLS_FLOAT64, 1, shape1, NULL, 0};
    int64_t off[2] = {0, 0}, one[2] = {1, 1};
    dmls_window w = {off, shape1, one};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    CHECK(op == NULL || dmls_input_bytes(op) == ((uint64_t)1 << 62) + 8, "one row: input bytes %llu",
          op ? (unsigned long long)dmls_input_bytes(op) : 0ULL);
    dmls_destroy(op);
    int64_t shape2[2] = {2, 2}, stride2[2] = {(int64_t)1 << 60, 2}, size2[2] = {2, 2};
    dmls_tensor in2 = {DMLS_FLOAT32, 2, shape2, stride2, 0}, out2 = {DMLS_FLOAT32, 2, shape2, NULL, 0};
    dmls_window w2 = {off, size2, one};
    op = NULL;
    CHECK_STATUS(dmls_create(&in2, &out2, &w2, &op), DMLS_OK);
    CHECK(op == NULL || dmls_input_bytes(op) == ((uint64_t)1 << 62) + 12, "whole rows: input bytes %llu",
          op ? (unsigned long long)dmls_input_bytes(op) : 0ULL);
    dmls_destroy(op);
}

int main(void) {
    test_seed_rng();
    dml_edges();
    native_edges();
    named_edges();
    far_window_on_zero_stride();
    grouped_far_elements();
    TEST_MAIN_END();
}
