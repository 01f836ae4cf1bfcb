/* Split and crops as batches (docs/spec.md section 7): ONNX Split's
 * conformance cases (written from the operator's definition and its
 * reference tests: equal and variable parts in 1-D and 2-D, the default
 * axis, zero-size splits, opset 18's uneven num_outputs), the PyTorch and
 * NumPy conventions by name, random splits and crops of random layouts
 * against the reference executor (on one thread, and cut between threads
 * inside the pieces), crops with host starts (checked) and
 * bound starts (clamped), and every rule's error. Seeded (DMLS_TEST_SEED;
 * fixed default). */
#include "batch/batch.h" /* the batch's own item table, for the one-by-one oracle */
#include "support/batch_case.h"
#include "cpu/context.h" /* dmls_context_set_parallel_min_bytes: the tests' threshold */

/* ------------------------------------------------------------ split sizes */

static void check_sizes(int64_t d, int64_t n, dmls_split_rule rule, const int64_t *want, size_t want_n) {
    int64_t got[64];
    size_t count = 0;
    CHECK_STATUS(dmls_split_sizes(d, n, rule, got, 64, &count), DMLS_OK);
    bool same = count == want_n;
    for (size_t j = 0; same && j < count; j++) same = got[j] == want[j];
    CHECK(same, "split_sizes(%lld, %lld, rule %d): %zu outputs, first %lld", (long long)d, (long long)n, (int)rule,
          count, count ? (long long)got[0] : -1LL);
}

/* R-SPLIT-COUNT: ONNX's num_outputs rule, and the other conventions. */
static void test_split_count(void) {
    check_sizes(9, 4, DMLS_SPLIT_ONNX, (const int64_t[]){3, 3, 3, 0}, 4); /* onnx/onnx#4742 */
    check_sizes(7, 4, DMLS_SPLIT_ONNX, (const int64_t[]){2, 2, 2, 1}, 4); /* split_1d_uneven_split_opset18 */
    check_sizes(8, 3, DMLS_SPLIT_ONNX, (const int64_t[]){3, 3, 2}, 3);    /* split_2d_uneven_split_opset18 */
    check_sizes(6, 3, DMLS_SPLIT_ONNX, (const int64_t[]){2, 2, 2}, 3);
    check_sizes(0, 3, DMLS_SPLIT_ONNX, (const int64_t[]){0, 0, 0}, 3);
    int64_t sizes[8];
    size_t count = 99;
    CHECK_STATUS(dmls_split_sizes(5, 4, DMLS_SPLIT_ONNX, sizes, 8, &count), DMLS_ERROR_SHAPE_MISMATCH);
    CHECK_MESSAGE("R-SPLIT-COUNT", "num_outputs = 4", "axis of 5", "array_split", "chunk");
    CHECK(count == 0, "count 0 on failure");
    CHECK_STATUS(dmls_split_sizes(5, 0, DMLS_SPLIT_ONNX, sizes, 8, &count), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-SPLIT-COUNT", "count 0");
    CHECK_STATUS(dmls_split_sizes(INT64_MAX, INT64_MAX, DMLS_SPLIT_ONNX, NULL, 0, &count), DMLS_OK);
    CHECK(count == (size_t)INT64_MAX || sizeof(size_t) < 8, "huge count asked without sizes");
    check_sizes(10, 3, DMLS_SPLIT_TORCH_SIZE, (const int64_t[]){3, 3, 3, 1}, 4);
    check_sizes(0, 3, DMLS_SPLIT_TORCH_SIZE, (const int64_t[]){0}, 1);
    check_sizes(10, 3, DMLS_SPLIT_ARRAY_SPLIT, (const int64_t[]){4, 3, 3}, 3);
    check_sizes(2, 4, DMLS_SPLIT_ARRAY_SPLIT, (const int64_t[]){1, 1, 0, 0}, 4);
    check_sizes(5, 4, DMLS_SPLIT_TORCH_CHUNK, (const int64_t[]){2, 2, 1}, 3);
    check_sizes(6, 4, DMLS_SPLIT_TORCH_CHUNK, (const int64_t[]){2, 2, 2}, 3);
    check_sizes(0, 2, DMLS_SPLIT_TORCH_CHUNK, (const int64_t[]){0, 0}, 2);
    CHECK_STATUS(dmls_split_sizes(10, 3, DMLS_SPLIT_ONNX, sizes, 2, &count), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(count == 3, "count said when capacity is short");
    CHECK_STATUS(dmls_split_sizes(10, 3, (dmls_split_rule)9, sizes, 8, &count), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_split_sizes(-1, 3, DMLS_SPLIT_ONNX, sizes, 8, &count), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_split_sizes(1, 3, DMLS_SPLIT_ONNX, sizes, 8, NULL), DMLS_ERROR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------ ONNX Split cases */

/* Splits a packed float32 input holding 1, 2, 3, ... and checks each output's values. */
static void onnx_case(const char *name, int32_t ndim, const int64_t *shape, int32_t axis, const int64_t *sizes,
                      size_t n, const float *const *want) {
    int64_t count = 1;
    for (int i = 0; i < ndim; i++) count *= shape[i];
    float in[64];
    for (int64_t i = 0; i < count; i++) in[i] = (float)(i + 1);
    dmls_tensor t = {DMLS_FLOAT32, ndim, shape, NULL, 0};
    for (int one = 0; one < 2; one++) {
        dmls_batch *b = NULL;
        CHECK_STATUS(dmls_batch_create_split(&t, axis, sizes, n, one, &b), DMLS_OK);
        if (b == NULL) return;
        float out[8][64];
        memset(out, 0, sizeof out);
        dmls_batch_input bi = {in, (uint64_t)count * 4};
        dmls_batch_output bo[8];
        for (size_t j = 0; j < n; j++) bo[j].data = out[j], bo[j].bytes = sizeof out[j];
        CHECK_STATUS(dmls_batch_execute(b, NULL, &bi, 1, bo, one ? 1 : (uint32_t)n), DMLS_OK);
        const float *flat = out[0];
        for (size_t j = 0, at = 0; j < n; j++) {
            const uint64_t bytes = one ? 0 : dmls_batch_output_bytes(b, (uint32_t)j);
            int64_t elems = count / shape[axis < 0 ? axis + ndim : axis] * sizes[j];
            CHECK(one || bytes == (uint64_t)elems * 4, "%s: output %zu needs %llu bytes", name, j,
                  (unsigned long long)bytes);
            const float *got = one ? flat + at : out[j];
            CHECK(memcmp(got, want[j], (size_t)elems * 4) == 0, "%s (%s): output %zu differs, first %g", name,
                  one ? "one output" : "outputs", j, elems ? got[0] : 0.0);
            at += (size_t)elems;
        }
        dmls_batch_destroy(b);
    }
}

/* R-SPLIT-SUM, R-SPLIT-AXIS: ONNX Split's conformance cases. */
static void test_onnx_split(void) {
    const int64_t s6[1] = {6}, s23[2] = {2, 6}, s7[1] = {7}, s28[2] = {2, 8};
    onnx_case("split_equal_parts_1d", 1, s6, 0, (const int64_t[]){2, 2, 2}, 3,
              (const float *const[]){(const float[]){1, 2}, (const float[]){3, 4}, (const float[]){5, 6}});
    onnx_case("split_variable_parts_1d", 1, s6, 0, (const int64_t[]){2, 4}, 2,
              (const float *const[]){(const float[]){1, 2}, (const float[]){3, 4, 5, 6}});
    onnx_case("split_equal_parts_2d", 2, s23, 1, (const int64_t[]){3, 3}, 2,
              (const float *const[]){(const float[]){1, 2, 3, 7, 8, 9}, (const float[]){4, 5, 6, 10, 11, 12}});
    onnx_case("split_variable_parts_2d", 2, s23, 1, (const int64_t[]){2, 4}, 2,
              (const float *const[]){(const float[]){1, 2, 7, 8}, (const float[]){3, 4, 5, 6, 9, 10, 11, 12}});
    onnx_case("split_equal_parts_default_axis (axis 0)", 1, s6, 0, (const int64_t[]){2, 2, 2}, 3,
              (const float *const[]){(const float[]){1, 2}, (const float[]){3, 4}, (const float[]){5, 6}});
    onnx_case("split_variable_parts_2d, axis -1", 2, s23, -1, (const int64_t[]){2, 4}, 2,
              (const float *const[]){(const float[]){1, 2, 7, 8}, (const float[]){3, 4, 5, 6, 9, 10, 11, 12}});
    onnx_case("split_1d_uneven_split_opset18", 1, s7, 0, (const int64_t[]){2, 2, 2, 1}, 4,
              (const float *const[]){(const float[]){1, 2}, (const float[]){3, 4}, (const float[]){5, 6},
                                     (const float[]){7}});
    onnx_case("split_2d_uneven_split_opset18", 2, s28, 1, (const int64_t[]){3, 3, 2}, 3,
              (const float *const[]){(const float[]){1, 2, 3, 9, 10, 11}, (const float[]){4, 5, 6, 12, 13, 14},
                                     (const float[]){7, 8, 15, 16}});
    onnx_case("9 into 4: the last is empty", 1, (const int64_t[]){9}, 0, (const int64_t[]){3, 3, 3, 0}, 4,
              (const float *const[]){(const float[]){1, 2, 3}, (const float[]){4, 5, 6}, (const float[]){7, 8, 9},
                                     (const float[]){0}});
    /* split_zero_size_splits: an empty input into three empty outputs. */
    const int64_t s0[1] = {0};
    dmls_tensor empty = {DMLS_FLOAT32, 1, s0, NULL, 0};
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create_split(&empty, 0, (const int64_t[]){0, 0, 0}, 3, 0, &b), DMLS_OK);
    dmls_batch_output bo[3] = {{NULL, 0}, {NULL, 0}, {NULL, 0}};
    dmls_batch_input bi = {NULL, 0};
    CHECK_STATUS(dmls_batch_execute(b, NULL, &bi, 1, bo, 3), DMLS_OK);
    CHECK(dmls_batch_output_bytes(b, 2) == 0, "split_zero_size_splits: empty outputs");
    dmls_batch_destroy(b);
}

/* R-SPLIT-AXIS, R-SPLIT-SUM: the errors. */
static void test_split_errors(void) {
    const int64_t shape[2] = {2, 6};
    dmls_tensor t = {DMLS_FLOAT32, 2, shape, NULL, 0};
    dmls_batch *b = (dmls_batch *)1;
    CHECK_STATUS(dmls_batch_create_split(&t, 2, (const int64_t[]){6}, 1, 0, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-SPLIT-AXIS", "axis 2", "[-2, 1]");
    CHECK(b == NULL, "batch NULL on failure");
    CHECK_STATUS(dmls_batch_create_split(&t, -3, (const int64_t[]){6}, 1, 0, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-SPLIT-AXIS", "axis -3");
    const dmls_tensor scalar = {DMLS_FLOAT32, 0, NULL, NULL, 0};
    CHECK_STATUS(dmls_batch_create_split(&scalar, 0, (const int64_t[]){1}, 1, 0, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-SPLIT-AXIS", "rank 0");
    CHECK_STATUS(dmls_batch_create_split(&t, 1, (const int64_t[]){2, 3}, 2, 0, &b), DMLS_ERROR_SHAPE_MISMATCH);
    CHECK_MESSAGE("R-SPLIT-SUM", "sum to 5", "length 6");
    CHECK_STATUS(dmls_batch_create_split(&t, 1, (const int64_t[]){4, 3}, 2, 0, &b), DMLS_ERROR_SHAPE_MISMATCH);
    CHECK_MESSAGE("R-SPLIT-SUM", "past the axis length 6");
    CHECK_STATUS(dmls_batch_create_split(&t, 1, (const int64_t[]){7, -1}, 2, 0, &b), DMLS_ERROR_SHAPE_MISMATCH);
    CHECK_STATUS(dmls_batch_create_split(&t, 1, (const int64_t[]){-1, 7}, 2, 0, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-SPLIT-SUM", "sizes[0] = -1");
    CHECK_STATUS(dmls_batch_create_split(&t, 1, (const int64_t[]){INT64_MAX, 2}, 2, 0, &b), DMLS_ERROR_SHAPE_MISMATCH);
    CHECK_STATUS(dmls_batch_create_split(&t, 1, NULL, 2, 0, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_batch_create_split(&t, 1, (const int64_t[]){6}, 0, 0, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_batch_create_split(NULL, 1, (const int64_t[]){6}, 1, 0, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_batch_create_split(&t, 1, (const int64_t[]){6}, 1, 0, NULL), DMLS_ERROR_INVALID_ARGUMENT);
}

static dmls_context *ctx4; /* 4 threads, every batch cut (threshold 0): shares begin inside pieces */

/* Runs a batch (one input slot, two with bound starts) on one thread and on
 * ctx4, and compares every output byte with the pieces run one by one
 * through the reference. */
static void pieces_against_reference(const dmls_batch *b, const unsigned char *in, uint64_t in_bytes,
                                     const void *starts, uint64_t starts_bytes, const char *label) {
    for (int run = 0; run < 2; run++) {
        const uint32_t n_out = dmls_batch_output_slots(b);
        dmls_batch_input bi[2] = {{in, in_bytes}, {starts, starts_bytes}};
        dmls_batch_output *bo = calloc(n_out + 1, sizeof *bo);
        unsigned char **got = calloc(n_out + 1, sizeof *got), **want = calloc(n_out + 1, sizeof *want);
        for (uint32_t s = 0; s < n_out; s++) {
            const uint64_t bytes = dmls_batch_output_bytes(b, s);
            got[s] = malloc(bytes + 8), want[s] = malloc(bytes + 8);
            memset(got[s], 0xC3, bytes + 8), memset(want[s], 0xC3, bytes + 8);
            bo[s].data = got[s], bo[s].bytes = bytes;
        }
        CHECK_STATUS(dmls_batch_execute(b, run ? ctx4 : NULL, bi, starts ? 2 : 1, bo, n_out), DMLS_OK);
        /* One by one: the batch's own items (batch.h: its table) through the reference. */
        const dmls_batch_entry *items = b->items;
        for (size_t i = 0; i < b->count; i++) {
            const dmls_operator *op = b->ops[items[i].op];
            const uint64_t off = b->crops.on ? dmls_batch_crop_offset(&b->crops, starts, i) : items[i].in_offset;
            CHECK_STATUS(dmls_execute_reference(op, in + off, dmls_input_bytes(op),
                                                want[items[i].out_slot] + items[i].out_offset, dmls_output_bytes(op)),
                         DMLS_OK);
        }
        for (uint32_t s = 0; s < n_out; s++)
            CHECK(memcmp(got[s], want[s], dmls_batch_output_bytes(b, s) + 8) == 0, "%s (%s): output slot %u differs",
                  label, run ? "4 threads" : "1 thread", s);
        for (uint32_t s = 0; s < n_out; s++) free(got[s]), free(want[s]);
        free(got), free(want), free(bo);
    }
}

/* A random input view (any layout) and a buffer of random bytes for it. */
static unsigned char *random_input(dmls_tensor *t, int64_t *shape, int64_t *strides, uint64_t *bytes) {
    t->ndim = (int32_t)test_range(1, 4);
    t->dtype = test_dtype_of_size(1 << test_range(0, 3));
    for (int i = 0; i < t->ndim; i++) shape[i] = test_range(0, 6) == 0 ? 0 : test_range(1, 9);
    random_layout(RANDOM_ANY, t->ndim, shape, true, dmls_dtype_size(t->dtype), strides, &t->byte_offset);
    t->shape = shape, t->strides = strides;
    dmls_operator *whole = NULL;
    const int64_t zeros[8] = {0}, ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    dmls_tensor out = {t->dtype, t->ndim, shape, NULL, 0};
    dmls_window w = {zeros, shape, ones};
    dmls_create(t, &out, &w, &whole);
    *bytes = dmls_input_bytes(whole);
    dmls_destroy(whole);
    unsigned char *p = malloc(*bytes + 8);
    test_fill_random(p, *bytes + 8);
    return p;
}

/* One round of a random test on a random input view (random_input's). */
typedef void (*random_round)(const dmls_tensor *t, const int64_t *shape, const unsigned char *in, uint64_t bytes);

/* 300 rounds, each on a fresh random input. */
static void random_rounds(random_round round) {
    for (int k = 0; k < 300; k++) {
        dmls_tensor t;
        int64_t shape[8], strides[8];
        uint64_t bytes;
        unsigned char *in = random_input(&t, shape, strides, &bytes);
        round(&t, shape, in, bytes);
        free(in);
    }
}

/* A random split of a random axis, on both executors against the reference. */
static void split_round(const dmls_tensor *t, const int64_t *shape, const unsigned char *in, uint64_t bytes) {
    int64_t sizes[16];
    const int32_t k = (int32_t)test_range(0, t->ndim - 1);
    size_t n = 0;
    CHECK_STATUS(dmls_split_sizes(shape[k], test_range(1, 5), (dmls_split_rule)test_range(1, 3), sizes, 16, &n),
                 DMLS_OK);
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create_split(t, test_range(0, 1) ? k : k - t->ndim, sizes, n, (int)test_range(0, 1), &b),
                 DMLS_OK);
    if (b) pieces_against_reference(b, in, bytes, NULL, 0, "R-SPLIT-SUM random split");
    dmls_batch_destroy(b);
}

/* R-SPLIT-SUM: random splits of random layouts (negative and zero strides). */
static void test_random_splits(void) { random_rounds(split_round); }

/* ------------------------------------------------------------ crops */

/* n random crops of one random size, with host starts (int64 and int32) and
 * bound starts, each against the reference. */
static void crop_round(const dmls_tensor *t, const int64_t *shape, const unsigned char *in, uint64_t bytes) {
    int64_t size[8];
    const size_t n = (size_t)test_range(0, 40);
    for (int k = 0; k < t->ndim; k++) size[k] = test_range(0, shape[k]);
    int64_t *starts = calloc(n * (size_t)t->ndim + 1, sizeof *starts), *wild = calloc(n * (size_t)t->ndim + 1, 8);
    int32_t *starts32 = calloc(n * (size_t)t->ndim + 1, sizeof *starts32);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < t->ndim; k++) {
            const size_t at = i * (size_t)t->ndim + (size_t)k;
            starts[at] = test_range(0, shape[k] - size[k]);
            starts32[at] = (int32_t)starts[at];
            /* Bound starts may be anything; clamped they are the checked ones. */
            const int64_t r = test_range(0, 3);
            wild[at] = r == 0   ? starts[at]
                       : r == 1 ? -test_range(1, INT64_MAX)
                                : starts[at] + (shape[k] - size[k] - starts[at]) + test_range(0, 1000);
            if (r >= 2) starts[at] = shape[k] - size[k], starts32[at] = (int32_t)starts[at];
            if (r == 1) starts[at] = 0, starts32[at] = 0;
        }
    dmls_batch *host = NULL, *host32 = NULL, *bound = NULL;
    CHECK_STATUS(dmls_batch_create_crops(t, size, n, starts, DMLS_STARTS_INT64, &host), DMLS_OK);
    CHECK_STATUS(dmls_batch_create_crops(t, size, n, starts32, DMLS_STARTS_INT32, &host32), DMLS_OK);
    CHECK_STATUS(dmls_batch_create_crops(t, size, n, NULL, DMLS_STARTS_INT64, &bound), DMLS_OK);
    if (host && host32 && bound) {
        pieces_against_reference(host, in, bytes, NULL, 0, "R-CROP-BOUNDS host starts");
        pieces_against_reference(host32, in, bytes, NULL, 0, "R-CROP-BOUNDS host int32 starts");
        pieces_against_reference(bound, in, bytes, wild, n * (uint64_t)t->ndim * 8, "R-CROP-BOUNDS bound starts");
        /* The bound batch's output equals the host batch's with the clamped starts. */
        const uint64_t ob = dmls_batch_output_bytes(host, 0);
        unsigned char *a = malloc(ob + 1), *c = malloc(ob + 1);
        memset(a, 1, ob + 1), memset(c, 2, ob + 1);
        dmls_batch_input bi[2] = {{in, bytes}, {wild, n * (uint64_t)t->ndim * 8}};
        dmls_batch_output oa = {a, ob}, oc = {c, ob};
        CHECK_STATUS(dmls_batch_execute(host, NULL, bi, 1, &oa, 1), DMLS_OK);
        CHECK_STATUS(dmls_batch_execute(bound, NULL, bi, 2, &oc, 1), DMLS_OK);
        CHECK(memcmp(a, c, ob) == 0, "R-CROP-BOUNDS: clamped bound starts give the clamped crops");
        free(a), free(c);
    }
    dmls_batch_destroy(host), dmls_batch_destroy(host32), dmls_batch_destroy(bound);
    free(starts), free(starts32), free(wild);
}

/* R-CROP-BOUNDS: random crops, host starts (checked) and bound starts
 * (clamped: the same as host starts clamped by hand). */
static void test_random_crops(void) { random_rounds(crop_round); }

/* R-CROP-SIZE, R-CROP-BOUNDS: the errors name the crop, the axis and the values. */
static void test_crop_errors(void) {
    const int64_t shape[3] = {3, 8, 8};
    dmls_tensor t = {DMLS_FLOAT32, 3, shape, NULL, 0};
    dmls_batch *b = (dmls_batch *)1;
    CHECK_STATUS(
        dmls_batch_create_crops(&t, (const int64_t[]){3, 9, 4}, 1, (const int64_t[]){0, 0, 0}, DMLS_STARTS_INT64, &b),
        DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_MESSAGE("R-CROP-SIZE", "size[1] = 9", "[0, 8]");
    CHECK(b == NULL, "batch NULL on failure");
    CHECK_STATUS(dmls_batch_create_crops(&t, (const int64_t[]){3, -1, 4}, 1, NULL, DMLS_STARTS_INT64, &b),
                 DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_MESSAGE("R-CROP-SIZE", "size[1] = -1");
    const int64_t starts[6] = {0, 0, 0, 0, 5, 1};
    CHECK_STATUS(dmls_batch_create_crops(&t, (const int64_t[]){3, 4, 4}, 2, starts, DMLS_STARTS_INT64, &b),
                 DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_MESSAGE("R-CROP-BOUNDS", "crop 1", "start[1] = 5", "size 4", "[0, 8)");
    const int32_t neg[3] = {0, -1, 0};
    CHECK_STATUS(dmls_batch_create_crops(&t, (const int64_t[]){3, 4, 4}, 1, neg, DMLS_STARTS_INT32, &b),
                 DMLS_ERROR_OUT_OF_BOUNDS);
    CHECK_MESSAGE("R-CROP-BOUNDS", "crop 0", "start[1] = -1");
    CHECK_STATUS(dmls_batch_create_crops(&t, (const int64_t[]){3, 4, 4}, 1, neg, (dmls_starts_type)2, &b),
                 DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_batch_create_crops(&t, NULL, 1, neg, DMLS_STARTS_INT32, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_batch_create_crops(&t, (const int64_t[]){1, 1, 1}, SIZE_MAX / 2, NULL, DMLS_STARTS_INT64, &b),
                 DMLS_ERROR_OVERFLOW);
    /* Bound starts: the output must not overlap them (R-B-OVERLAP). */
    CHECK_STATUS(dmls_batch_create_crops(&t, (const int64_t[]){1, 2, 2}, 4, NULL, DMLS_STARTS_INT64, &b), DMLS_OK);
    CHECK(dmls_batch_input_bytes(b, 1) == 4 * 3 * 8 && dmls_batch_input_slots(b) == 2, "starts slot needs %llu",
          (unsigned long long)dmls_batch_input_bytes(b, 1));
    float img[192] = {0};
    int64_t buf[32] = {0};
    dmls_batch_input bi[2] = {{img, sizeof img}, {buf, 96}};
    dmls_batch_output bo = {buf + 4, 64};
    CHECK_STATUS(dmls_batch_execute(b, NULL, bi, 2, &bo, 1), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-B-OVERLAP", "starts");
    bi[1].bytes = 95;
    CHECK_STATUS(dmls_batch_execute(b, NULL, bi, 2, &bo, 1), DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("R-X-BOUNDS", "input slot 1");
    bi[1].bytes = 96;
    bi[1].data = (const char *)buf + 4;
    CHECK_STATUS(dmls_batch_execute(b, NULL, bi, 2, &bo, 1), DMLS_ERROR_MISALIGNED);
    bo.data = buf + 16;
    bi[1].data = buf;
    CHECK_STATUS(dmls_batch_execute(b, NULL, bi, 2, &bo, 1), DMLS_OK);
    /* Touching is not overlapping, on either side: the output's 64 bytes
     * end where the starts begin, then the starts end where it begins. */
    bo.data = buf;
    bi[1].data = buf + 8;
    CHECK_STATUS(dmls_batch_execute(b, NULL, bi, 2, &bo, 1), DMLS_OK);
    bo.data = buf + 12;
    bi[1].data = buf;
    CHECK_STATUS(dmls_batch_execute(b, NULL, bi, 2, &bo, 1), DMLS_OK);
    bi[1].data = buf + 1;
    CHECK_STATUS(dmls_batch_execute(b, NULL, bi, 2, &bo, 1), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-B-OVERLAP", "starts");
    dmls_batch_destroy(b);
}

int main(void) {
    batch_seed(18);
    CHECK_STATUS(dmls_context_create(4, &ctx4), DMLS_OK);
    dmls_context_set_parallel_min_bytes(ctx4, 0);
    test_split_count();
    test_onnx_split();
    test_split_errors();
    test_random_splits();
    test_random_crops();
    test_crop_errors();
    dmls_context_destroy(ctx4);
    TEST_MAIN_END();
}
