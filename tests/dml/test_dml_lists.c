/* dmls_create_dml_lists against dmls_create_dml on descriptors this test
 * builds by hand: random SLICE, SLICE1 and SLICE_GRAD lists, some values
 * out of their 32-bit fields. Where every value fits, both calls must give
 * the same status, message and rule, and operators that copy the same
 * bytes; where one does not, the lists call must fail naming it (R-T-SIZES,
 * R-T-ELEMS, or a field it cannot hold) and leave no operator. Then the
 * edges one by one: each field's limits, NULL lists, too many values,
 * TotalTensorSizeInBytes and the alignment passed through. */
#include "support/dml_fixture.h"
#include "support/test.h"

#define MAXN 8

/* A case: the lists' values, which fit_* and the hand-built descriptor read. */
typedef struct lists_case {
    DML_OPERATOR_TYPE type;
    DML_TENSOR_DATA_TYPE dtype;
    int32_t n, in_n, out_n;
    int64_t in_sizes[MAXN], in_strides[MAXN], out_sizes[MAXN], out_strides[MAXN];
    bool in_strided, out_strided;
    uint64_t in_total, out_total, in_align, out_align;
    int64_t offsets[MAXN], sizes[MAXN], strides[MAXN];
} lists_case;

static dmls_dml_lists as_lists(const lists_case *c) {
    dmls_dml_lists l = {c->type, c->dtype,
                        {c->in_n, c->in_sizes, c->in_strided ? c->in_strides : NULL, c->in_total, c->in_align},
                        {c->out_n, c->out_sizes, c->out_strided ? c->out_strides : NULL, c->out_total, c->out_align},
                        c->n, c->offsets, c->sizes, c->strides};
    return l;
}

static const int64_t hostile[] = {-1, 0, INT32_MAX, (int64_t)INT32_MAX + 1, UINT32_MAX, (int64_t)UINT32_MAX + 1,
                                  INT32_MIN, (int64_t)INT32_MIN - 1, INT64_MIN, INT64_MAX};

/* Mostly a small value, one time in 64 a value at or past a field's edge. */
static int64_t draw(int64_t lo, int64_t hi) {
    if (test_range(0, 63) == 0) return hostile[test_range(0, sizeof hostile / sizeof hostile[0] - 1)];
    return test_range(lo, hi);
}

static void draw_case(lists_case *c) {
    static const DML_OPERATOR_TYPE types[] = {DML_OPERATOR_SLICE, DML_OPERATOR_SLICE1, DML_OPERATOR_SLICE_GRAD};
    static const DML_TENSOR_DATA_TYPE dtypes[] = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_DATA_TYPE_UINT8,
                                                  DML_TENSOR_DATA_TYPE_INT64, DML_TENSOR_DATA_TYPE_FLOAT16};
    memset(c, 0, sizeof *c);
    c->type = types[test_range(0, 2)];
    c->dtype = dtypes[test_range(0, 3)];
    c->n = c->in_n = c->out_n = (int32_t)test_range(1, 4);
    int64_t fwd[MAXN], counts[MAXN];
    for (int32_t i = 0; i < c->n; i++) {
        fwd[i] = draw(1, 5);
        c->offsets[i] = draw(0, 2);
        c->sizes[i] = draw(1, 3);
        c->strides[i] = c->type == DML_OPERATOR_SLICE ? draw(1, 2) : draw(-2, 2);
        /* Unsigned: a hostile draw may be INT64_MIN, whose negation overflows. */
        const uint64_t a = c->strides[i] < 0 ? 0 - (uint64_t)c->strides[i] : (uint64_t)c->strides[i];
        counts[i] = c->type == DML_OPERATOR_SLICE ? c->sizes[i]
                    : c->sizes[i] > 0 && a > 0 && a < 8 ? 1 + (c->sizes[i] - 1) / (int64_t)a
                                                        : 1;
    }
    const bool grad = c->type == DML_OPERATOR_SLICE_GRAD;
    memcpy(c->in_sizes, grad ? counts : fwd, sizeof fwd);
    memcpy(c->out_sizes, grad ? fwd : counts, sizeof fwd);
    c->in_strided = test_range(0, 3) == 0;
    c->out_strided = test_range(0, 3) == 0;
    for (int32_t i = 0; i < c->n; i++) {
        c->in_strides[i] = draw(1, 40);
        c->out_strides[i] = draw(1, 40);
    }
    if (test_range(0, 7) == 0) c->in_total = (uint64_t)test_range(1, 4096);
    if (test_range(0, 7) == 0) c->out_total = (uint64_t)test_range(1, 4096);
    static const uint64_t aligns[] = {0, 0, 0, 1, 2, 3, 4, 16, (uint64_t)UINT32_MAX + 1};
    c->in_align = aligns[test_range(0, 8)];
    c->out_align = aligns[test_range(0, 8)];
}

static bool fits(int64_t v, bool is_signed) {
    return is_signed ? v >= INT32_MIN && v <= INT32_MAX : v >= 0 && v <= (int64_t)UINT32_MAX;
}

/* Every value that does not fit its field, each as its field's name and
 * "[i] = v", into what (up to cap entries); returns how many. */
static int misfits(const lists_case *c, char (*what)[128], int cap) {
    const bool grad = c->type == DML_OPERATOR_SLICE_GRAD, win = c->type != DML_OPERATOR_SLICE;
    const struct {
        const char *name;
        const int64_t *v;
        int32_t n;
        bool is_signed;
    } lists[] = {
        {grad ? "InputGradientTensor.Sizes" : "InputTensor.Sizes", c->in_sizes, c->in_n, false},
        {grad ? "InputGradientTensor.Strides" : "InputTensor.Strides", c->in_strides, c->in_strided ? c->in_n : 0,
         false},
        {grad ? "OutputGradientTensor.Sizes" : "OutputTensor.Sizes", c->out_sizes, c->out_n, false},
        {grad ? "OutputGradientTensor.Strides" : "OutputTensor.Strides", c->out_strides,
         c->out_strided ? c->out_n : 0, false},
        {win ? "InputWindowOffsets" : "Offsets", c->offsets, c->n, false},
        {win ? "InputWindowSizes" : "Sizes", c->sizes, c->n, false},
        {win ? "InputWindowStrides" : "Strides", c->strides, c->n, win},
    };
    int found = 0;
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
        for (int32_t i = 0; i < lists[k].n; i++)
            if (!fits(lists[k].v[i], lists[k].is_signed) && found < cap)
                snprintf(what[found++], 128, "%s[%d] = %" PRId64, lists[k].name, (int)i, lists[k].v[i]);
    const uint64_t aligns[2] = {c->in_align, c->out_align};
    for (int k = 0; k < 2; k++)
        if (aligns[k] > UINT32_MAX && found < cap)
            snprintf(what[found++], 128, "GuaranteedBaseOffsetAlignment = %" PRIu64, aligns[k]);
    return found;
}

/* The descriptor written out by hand from a case whose values all fit. */
static void by_hand(const lists_case *c, fixture *f) {
    fixture_init(f, c->type);
    fixture_rank(f, (UINT)c->n);
    for (int32_t i = 0; i < c->n; i++) {
        f->in_sizes[i] = (UINT)c->in_sizes[i];
        f->out_sizes[i] = (UINT)c->out_sizes[i];
        f->in_strides[i] = (UINT)c->in_strides[i];
        f->out_strides[i] = (UINT)c->out_strides[i];
        f->offsets[i] = (UINT)c->offsets[i];
        f->sizes[i] = (UINT)c->sizes[i];
        f->slice_strides[i] = (UINT)c->strides[i];
        f->strides[i] = (INT)c->strides[i];
    }
    f->in_buf.DataType = f->out_buf.DataType = c->dtype;
    f->in_buf.Strides = c->in_strided ? f->in_strides : NULL;
    f->out_buf.Strides = c->out_strided ? f->out_strides : NULL;
    f->in_buf.TotalTensorSizeInBytes = f->out_buf.TotalTensorSizeInBytes = 0;
    fixture_sizes(f);
    if (c->in_total) f->in_buf.TotalTensorSizeInBytes = c->in_total;
    if (c->out_total) f->out_buf.TotalTensorSizeInBytes = c->out_total;
    f->in_buf.GuaranteedBaseOffsetAlignment = (UINT)c->in_align;
    f->out_buf.GuaranteedBaseOffsetAlignment = (UINT)c->out_align;
}

_Alignas(64) static unsigned char input[1 << 16], out_a[1 << 16], out_b[1 << 16];

/* Both operators copy the same bytes. */
static void same_copy(const dmls_operator *a, const dmls_operator *b, int k) {
    const uint64_t in_bytes = dmls_input_bytes(a), out_bytes = dmls_output_bytes(a);
    CHECK(in_bytes == dmls_input_bytes(b) && out_bytes == dmls_output_bytes(b), "case %d: byte counts differ", k);
    if (in_bytes > sizeof input || out_bytes > sizeof out_a) return;
    test_fill_random(input, (size_t)in_bytes);
    memset(out_a, 0xa5, sizeof out_a);
    memset(out_b, 0xa5, sizeof out_b);
    CHECK_STATUS(dmls_execute(a, input, in_bytes, out_a, out_bytes), DMLS_OK);
    CHECK_STATUS(dmls_execute_reference(b, input, in_bytes, out_b, out_bytes), DMLS_OK);
    CHECK(memcmp(out_a, out_b, sizeof out_a) == 0, "case %d: the operators copy different bytes", k);
}

static void check_random(void) {
    int valid = 0, misfit = 0;
    for (int k = 0; k < 20000; k++) {
        lists_case c;
        draw_case(&c);
        const dmls_dml_lists l = as_lists(&c);
        dmls_operator *got = (dmls_operator *)&c; /* anything but NULL: failure must clear it */
        const dmls_status s = dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &got);
        char what[64][128];
        const int bad = misfits(&c, what, 64);
        if (bad > 0) {
            misfit++;
            CHECK(s != DMLS_OK && got == NULL, "case %d: %s accepted (%s)", k, what[0], dmls_status_name(s));
            bool named = false;
            for (int i = 0; i < bad; i++) named |= strstr(dmls_last_error(), what[i]) != NULL;
            CHECK(named, "case %d: message names none of the %d values that do not fit (\"%s\", ...): %s", k, bad,
                  what[0], dmls_last_error());
            continue;
        }
        char message[1024], rule[64];
        snprintf(message, sizeof message, "%s", dmls_last_error());
        snprintf(rule, sizeof rule, "%s", dmls_last_error_rule());
        fixture f;
        by_hand(&c, &f);
        dmls_operator *want = NULL;
        const dmls_status ws = dmls_create_dml(&f.op, DML_FEATURE_LEVEL_6_4, &want);
        CHECK(s == ws && strcmp(message, dmls_last_error()) == 0 && strcmp(rule, dmls_last_error_rule()) == 0,
              "case %d: lists %s \"%s\" (%s), by hand %s \"%s\" (%s)", k, dmls_status_name(s), message, rule,
              dmls_status_name(ws), dmls_last_error(), dmls_last_error_rule());
        if (s == DMLS_OK && ws == DMLS_OK) {
            valid++;
            same_copy(got, want, k);
        } else {
            CHECK(got == NULL, "case %d: an operator left after %s", k, dmls_status_name(s));
        }
        dmls_destroy(got);
        dmls_destroy(want);
    }
    printf("%d valid, %d with a value past its field\n", valid, misfit);
    CHECK(valid > 1000 && misfit > 1000, "the draw covers too little: %d valid, %d misfit", valid, misfit);
}

/* A SLICE1 of 1x1x4x4 FLOAT32, valid, for the edge cases to change. */
static lists_case valid_slice1(void) {
    lists_case c;
    memset(&c, 0, sizeof c);
    c.type = DML_OPERATOR_SLICE1;
    c.dtype = DML_TENSOR_DATA_TYPE_FLOAT32;
    c.n = c.in_n = c.out_n = 4;
    const int64_t in[4] = {1, 1, 4, 4}, out[4] = {1, 1, 2, 2}, off[4] = {0, 0, 0, 1}, sz[4] = {1, 1, 4, 3},
                  st[4] = {1, 1, 2, -2};
    memcpy(c.in_sizes, in, sizeof in);
    memcpy(c.out_sizes, out, sizeof out);
    memcpy(c.offsets, off, sizeof off);
    memcpy(c.sizes, sz, sizeof sz);
    memcpy(c.strides, st, sizeof st);
    return c;
}

static dmls_status create(const lists_case *c) {
    const dmls_dml_lists l = as_lists(c);
    dmls_operator *op = NULL;
    const dmls_status s = dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op);
    dmls_destroy(op);
    return s;
}

static void check_edges(void) {
    lists_case c = valid_slice1();
    CHECK_STATUS(create(&c), DMLS_OK);
    /* The stride field of SLICE1 is INT, of SLICE UINT: each edge and one past it. */
    c.sizes[3] = c.out_sizes[3] = 1;
    c.strides[3] = INT32_MIN;
    CHECK_STATUS(create(&c), DMLS_OK);
    c.strides[3] = (int64_t)INT32_MIN - 1;
    CHECK_STATUS(create(&c), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-DML-FIELD", "SLICE1: InputWindowStrides[3] = -2147483649 does not fit DirectML's 32-bit INT "
                                 "field (-2147483648 to 2147483647)");
    c.strides[3] = INT32_MAX;
    CHECK_STATUS(create(&c), DMLS_OK);
    c.strides[3] = (int64_t)INT32_MAX + 1;
    CHECK_STATUS(create(&c), DMLS_ERROR_INVALID_ARGUMENT);
    c = valid_slice1();
    c.type = DML_OPERATOR_SLICE;
    c.sizes[2] = c.sizes[3] = 2;
    c.strides[2] = c.strides[3] = 1;
    c.strides[0] = UINT32_MAX;
    CHECK_STATUS(create(&c), DMLS_OK);
    c.strides[0] = -1;
    CHECK_STATUS(create(&c), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-DML-FIELD", "SLICE: Strides[0] = -1 does not fit DirectML's 32-bit UINT field (0 to "
                                 "4294967295)");
    c.strides[0] = (int64_t)UINT32_MAX + 1;
    CHECK_STATUS(create(&c), DMLS_ERROR_INVALID_ARGUMENT);
    /* Tensor sizes: below 1 and past 2^32-1 break rules DirectML states. */
    c = valid_slice1();
    c.in_sizes[0] = -1;
    CHECK_STATUS(create(&c), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-SIZES", "SLICE1: InputTensor.Sizes[0] = -1");
    c.in_sizes[0] = (int64_t)UINT32_MAX + 1;
    CHECK_STATUS(create(&c), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-T-ELEMS", "SLICE1: InputTensor.Sizes[0] = 4294967296");
    c = valid_slice1();
    c.type = DML_OPERATOR_SLICE_GRAD;
    c.out_sizes[1] = INT64_MIN;
    CHECK_STATUS(create(&c), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-SIZES", "SLICE_GRAD: OutputGradientTensor.Sizes[1] = -9223372036854775808");
    c = valid_slice1();
    c.out_strided = true;
    const int64_t ost[4] = {4, 4, 2, (int64_t)UINT32_MAX + 1};
    memcpy(c.out_strides, ost, sizeof ost);
    CHECK_STATUS(create(&c), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-DML-FIELD", "OutputTensor.Strides[3] = 4294967296 does not fit");
}

static void check_totals_and_alignment(void) {
    /* 0 is the least: 64 bytes for 1x1x4x4 FLOAT32; more is kept, less refused. */
    lists_case c = valid_slice1();
    c.in_total = 64;
    CHECK_STATUS(create(&c), DMLS_OK);
    c.in_total = 60;
    CHECK_STATUS(create(&c), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-TOTAL", "InputTensor.TotalTensorSizeInBytes = 60 is below the minimum implied size 64");
    c.in_total = 1 << 20;
    const dmls_dml_lists l = as_lists(&c);
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op), DMLS_OK);
    CHECK(dmls_input_bytes(op) == 1 << 20, "input bytes %" PRIu64 ", expected the given total", dmls_input_bytes(op));
    dmls_destroy(op);
    /* A packed tensor DirectML's helper cannot size keeps 0, which the
     * rules then name. */
    c = valid_slice1();
    c.out_sizes[0] = 0;
    CHECK_STATUS(create(&c), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-SIZES", "OutputTensor.Sizes[0] = 0");
    c = valid_slice1();
    c.out_align = 3;
    CHECK_STATUS(create(&c), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-ALIGN", "OutputTensor.GuaranteedBaseOffsetAlignment = 3");
    c.out_align = 16;
    CHECK_STATUS(create(&c), DMLS_OK);
    c.in_align = UINT32_MAX; /* fits the field: the alignment rule refuses it */
    CHECK_STATUS(create(&c), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-T-ALIGN", "InputTensor.GuaranteedBaseOffsetAlignment = 4294967295 must be");
    c.in_align = (uint64_t)UINT32_MAX + 1;
    CHECK_STATUS(create(&c), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "InputTensor.GuaranteedBaseOffsetAlignment = 4294967296 does not fit") != NULL,
          "%s", dmls_last_error());
}

/* The most a descriptor holds: 8 values in every list. */
static void check_rank_8(void) {
    lists_case c = valid_slice1();
    c.n = c.in_n = c.out_n = DMLS_MAX_RANK;
    for (int32_t i = 0; i < DMLS_MAX_RANK; i++) {
        c.in_sizes[i] = 2;
        c.out_sizes[i] = 1;
        c.offsets[i] = 1;
        c.sizes[i] = 1;
        c.strides[i] = i % 2 ? 1 : -1;
    }
    const dmls_dml_lists l = as_lists(&c);
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op), DMLS_OK);
    CHECK(op != NULL && dmls_output_rank(op) == DMLS_MAX_RANK, "rank 8: %d", op ? (int)dmls_output_rank(op) : -1);
    dmls_destroy(op);
}

static void check_counts_and_nulls(void) {
    lists_case c = valid_slice1();
    dmls_dml_lists l = as_lists(&c);
    dmls_operator *op = (dmls_operator *)&c;
    CHECK_STATUS(dmls_create_dml_lists(NULL, DML_FEATURE_LEVEL_6_4, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(op == NULL, "op not cleared");
    CHECK_MESSAGE("R-OP-NULL", "lists is NULL");
    CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "op is NULL");
    l.strides = NULL;
    CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "SLICE1: InputWindowStrides is NULL");
    /* One value is one value to read: a NULL list of it is refused too. */
    lists_case one = valid_slice1();
    one.n = 1;
    one.in_n = one.out_n = 1;
    l = as_lists(&one);
    l.sizes = NULL;
    CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "SLICE1: InputWindowSizes is NULL");
    l = as_lists(&one);
    l.input.sizes = NULL;
    CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "SLICE1: InputTensor.Sizes is NULL");
    l = as_lists(&c);
    l.output.sizes = NULL;
    CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "SLICE1: OutputTensor.Sizes is NULL");
    /* More values than a descriptor holds, or fewer than none. */
    const int32_t counts[] = {DMLS_MAX_RANK + 1, -1, INT32_MAX, INT32_MIN};
    for (size_t k = 0; k < 4; k++) {
        l = as_lists(&c);
        l.dimension_count = counts[k];
        CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op), DMLS_ERROR_UNSUPPORTED);
        CHECK_MESSAGE("R-OP-RANK", "SLICE1: InputWindowOffsets has");
        l = as_lists(&c);
        l.input.dimension_count = counts[k];
        CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op), DMLS_ERROR_UNSUPPORTED);
        CHECK_MESSAGE("R-OP-RANK", "SLICE1: InputTensor.Sizes has");
    }
    /* The lists' counts may disagree: validation names it, as for any descriptor. */
    l = as_lists(&c);
    l.output.dimension_count = 3;
    CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op), DMLS_ERROR_SHAPE_MISMATCH);
    CHECK_MESSAGE("R-OP-RANK", "OutputTensor.DimensionCount = 3");
    /* Empty lists are legal to pass: rank 0 is then refused by the rank rule. */
    l = as_lists(&c);
    l.dimension_count = l.input.dimension_count = l.output.dimension_count = 0;
    l.offsets = l.sizes = l.strides = l.input.sizes = l.output.sizes = NULL;
    CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op), DMLS_ERROR_UNSUPPORTED);
    CHECK(strcmp(dmls_last_error_rule(), "R-OP-RANK") == 0 && strstr(dmls_last_error(), "DimensionCount = 0") != NULL,
          "rank 0 is the rank rule's to refuse: %s", dmls_last_error());
    /* A type that is no slice and a level that is none: dmls_create_dml's own errors. */
    l = as_lists(&c);
    l.type = (DML_OPERATOR_TYPE)5;
    CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "operator Type 5 is not SLICE (60), SLICE1 (111) or SLICE_GRAD (135)") != NULL,
          "%s", dmls_last_error());
    /* An unknown type's lists are not read: its error is the type's, whatever they hold. */
    lists_case wild = valid_slice1();
    wild.strides[0] = INT64_MIN;
    wild.in_sizes[0] = -1;
    l = as_lists(&wild);
    l.type = (DML_OPERATOR_TYPE)0;
    CHECK_STATUS(dmls_create_dml_lists(&l, DML_FEATURE_LEVEL_6_4, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "operator Type 0 is not SLICE") != NULL, "%s", dmls_last_error());
    l = as_lists(&c);
    CHECK_STATUS(dmls_create_dml_lists(&l, (DML_FEATURE_LEVEL)0x6500, &op), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(dmls_last_error(), "feature level 0x6500") != NULL, "%s", dmls_last_error());
    CHECK(op == NULL, "op left after a failure");
}

int main(void) {
    test_seed_rng();
    check_random();
    check_edges();
    check_totals_and_alignment();
    check_counts_and_nulls();
    check_rank_8();
    TEST_MAIN_END();
}
