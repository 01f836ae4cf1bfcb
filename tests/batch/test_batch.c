/* Batches on the CPU (docs/spec.md section 7): every batch result equals its
 * items run one by one through the reference executor, byte for byte
 * (R-B-ITEM), on random batches of 0 to 100,000 items, shared slots or one
 * slot per item, on the calling thread and cut between threads; the plan's
 * and the binding's errors name the item (R-B-ITEM, R-B-OVERLAP, R-X-BOUNDS,
 * R-X-ALIGN) and write nothing. Seeded (DMLS_TEST_SEED; fixed default). */
#include "support/batch_case.h"
#include "cpu/context.h"
#include "dmlslice/dml.h"

static dmls_context *ctx4; /* 4 threads, every batch cut (threshold 0) */

/* One random batch through both executors against the oracle. */
static void differential(size_t n, size_t n_ops, bool per_item, const char *what) {
    batch_case c;
    dmls_batch *b;
    batch_buffers bb;
    unsigned char **ref;
    if (!batch_case_setup(&c, n, n_ops, per_item, &b, &bb, &ref)) return;
    char label[96];
    for (int run = 0; run < 2; run++) {
        batch_buffers_poison(&bb, &c);
        CHECK_STATUS(dmls_batch_execute(b, run ? ctx4 : NULL, bb.inputs, c.in_slots, bb.outputs, c.out_slots), DMLS_OK);
        snprintf(label, sizeof label, "R-B-ITEM %s, %zu items, %s", what, n, run ? "4 threads" : "1 thread");
        batch_case_same(&c, bb.out, ref, label);
    }
    batch_case_teardown(&c, b, &bb, ref);
}

/* R-B-ITEM: random batches, one by one is the answer. */
static void test_random_batches(void) {
    for (int round = 0; round < 150; round++) {
        const size_t n = (size_t)test_range(0, round < 100 ? 12 : 300);
        differential(n, (size_t)test_range(1, 10), round % 5 == 0, "random");
    }
    differential(100000, 40, false, "large");
    differential(2000, 2000, true, "slot per item");
}

/* R-B-ITEM: an empty batch is valid and does nothing. */
static void test_empty_batch(void) {
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create(NULL, 0, 0, 0, &b), DMLS_OK);
    CHECK_STATUS(dmls_batch_execute(b, NULL, NULL, 0, NULL, 0), DMLS_OK);
    CHECK(dmls_batch_items(b) == 0 && dmls_batch_input_slots(b) == 0, "empty batch counts");
    dmls_batch_destroy(b);
    CHECK(dmls_batch_items(NULL) == 0 && dmls_batch_output_bytes(NULL, 0) == 0, "NULL batch queries");
    dmls_batch_destroy(NULL);
}

static dmls_operator *copy_op(int64_t n) { /* n float32, packed, whole */
    int64_t shape[1] = {n}, off[1] = {0}, step[1] = {1};
    dmls_tensor t = {DMLS_FLOAT32, 1, shape, NULL, 0};
    dmls_window w = {off, shape, step};
    dmls_operator *op = NULL;
    dmls_create(&t, &t, &w, &op);
    return op;
}

/* The batch of items over the given slot counts, which must be made. */
static dmls_batch *batch_of(const dmls_batch_item *items, size_t n, uint32_t inputs, uint32_t outputs) {
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create(items, n, inputs, outputs, &b), DMLS_OK);
    return b;
}

/* Ends a test: the batch, then the operators its items named (NULL for none). */
static void batch_release(dmls_batch *b, dmls_operator *x, dmls_operator *y) {
    dmls_batch_destroy(b);
    dmls_destroy(x);
    dmls_destroy(y);
}

/* R-B-ITEM: an item's own error names the item. */
static void test_item_errors(void) {
    dmls_operator *op = copy_op(4);
    dmls_batch_item items[3] = {{op, 0, 0, 0, 0}, {op, 0, 0, 0, 16}, {NULL, 0, 0, 0, 32}};
    dmls_batch *b = (dmls_batch *)1;
    CHECK_STATUS(dmls_batch_create(items, 3, 1, 1, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-B-ITEM", "item 2", "op is NULL");
    CHECK(b == NULL, "batch left NULL on failure");
    items[2].op = op;
    items[2].out_slot = 3;
    CHECK_STATUS(dmls_batch_create(items, 3, 1, 1, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-B-ITEM", "item 2", "out_slot 3", "1 output slots");
    items[2].out_slot = 1; /* the first slot past the end */
    CHECK_STATUS(dmls_batch_create(items, 3, 1, 1, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-B-ITEM", "item 2", "out_slot 1", "1 output slots");
    items[2].out_slot = 0;
    items[2].in_slot = 1;
    CHECK_STATUS(dmls_batch_create(items, 3, 1, 1, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-B-ITEM", "item 2", "in_slot 1");
    items[2].in_slot = 0;
    items[2].in_offset = UINT64_MAX - 8;
    CHECK_STATUS(dmls_batch_create(items, 3, 1, 1, &b), DMLS_ERROR_OVERFLOW);
    CHECK_MESSAGE("R-B-ITEM", "item 2", "overflows");
    CHECK_STATUS(dmls_batch_create(items, 1, UINT32_MAX, 1, &b), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-B-ITEM", "exceed 2^32-1");
    CHECK_STATUS(dmls_batch_create(items, 1, 1, 1, NULL), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_batch_create(NULL, 2, 1, 1, &b), DMLS_ERROR_INVALID_ARGUMENT);
    dmls_destroy(op);
}

/* R-X-ALIGN: a DirectML item's offsets are binding offsets, multiples of 16. */
static void test_dml_alignment(void) {
    UINT sizes[4] = {1, 1, 2, 4};
    DML_BUFFER_TENSOR_DESC buf = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, sizes, NULL, 32, 0};
    DML_TENSOR_DESC t = {DML_TENSOR_TYPE_BUFFER, &buf};
    UINT offsets[4] = {0, 0, 0, 0}, wsizes[4] = {1, 1, 2, 4};
    INT strides[4] = {1, 1, 1, 1};
    DML_SLICE1_OPERATOR_DESC s1 = {&t, &t, 4, offsets, wsizes, strides};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &s1};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_dml(&desc, DML_FEATURE_LEVEL_4_1, &op), DMLS_OK);
    dmls_batch_item items[2] = {{op, 0, 0, 0, 0}, {op, 0, 0, 32, 40}};
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create(items, 2, 1, 1, &b), DMLS_ERROR_MISALIGNED);
    CHECK_MESSAGE("R-X-ALIGN", "item 1", "out_offset 40", "16");
    items[1].out_offset = 48;
    CHECK_STATUS(dmls_batch_create(items, 2, 1, 1, &b), DMLS_OK);
    static _Alignas(64) unsigned char in[128], out[128]; /* static: MinGW aligns locals only to 16 */
    memset(out, 0x5A, sizeof out);
    dmls_batch_input bi = {in + 8, 120};
    dmls_batch_output bo = {out, 128};
    CHECK_STATUS(dmls_batch_execute(b, NULL, &bi, 1, &bo, 1), DMLS_ERROR_MISALIGNED);
    CHECK_MESSAGE("R-X-ALIGN", "item 0", "input slot 0", "16");
    bi.data = in, bi.bytes = 128;
    CHECK_STATUS(dmls_batch_execute(b, NULL, &bi, 1, &bo, 1), DMLS_OK);
    batch_release(b, op, NULL);
}

/* R-X-BOUNDS and R-OP-NULL per slot, naming the item that needs the bytes;
 * nothing written on failure. */
static void test_binding_errors(void) {
    dmls_operator *a = copy_op(4), *big = copy_op(16);
    dmls_batch_item items[3] = {{a, 0, 0, 0, 0}, {big, 1, 0, 0, 16}, {a, 0, 1, 16, 0}};
    dmls_batch *b = batch_of(items, 3, 2, 2);
    CHECK(dmls_batch_output_bytes(b, 0) == 80 && dmls_batch_input_bytes(b, 1) == 64 &&
              dmls_batch_input_bytes(b, 0) == 32 && dmls_batch_output_bytes(b, 5) == 0,
          "slot needs %llu %llu %llu", (unsigned long long)dmls_batch_output_bytes(b, 0),
          (unsigned long long)dmls_batch_input_bytes(b, 1), (unsigned long long)dmls_batch_input_bytes(b, 0));
    float in0[8] = {1, 2, 3, 4, 5, 6, 7, 8}, in1[16] = {0}, out0[20], out1[4];
    memset(out0, 0x77, sizeof out0);
    memset(out1, 0x77, sizeof out1);
    dmls_batch_input bi[2] = {{in0, sizeof in0}, {in1, sizeof in1}};
    dmls_batch_output bo[2] = {{out0, sizeof out0}, {out1, sizeof out1}};
    bo[0].bytes = 79;
    CHECK_STATUS(dmls_batch_execute(b, NULL, bi, 2, bo, 2), DMLS_ERROR_BUFFER_TOO_SMALL);
    CHECK_MESSAGE("R-X-BOUNDS", "item 1", "output slot 0", "79", "80");
    bo[0].bytes = 80;
    bi[1].data = NULL;
    CHECK_STATUS(dmls_batch_execute(b, NULL, bi, 2, bo, 2), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-OP-NULL", "item 1", "input slot 1");
    bi[1].data = in1;
    CHECK_STATUS(dmls_batch_execute(b, NULL, bi, 2, bo, 1), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_MESSAGE("R-B-ITEM", "2 output slots");
    CHECK_STATUS(dmls_batch_execute(b, NULL, NULL, 2, bo, 2), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK_STATUS(dmls_batch_execute(NULL, NULL, bi, 2, bo, 2), DMLS_ERROR_INVALID_ARGUMENT);
    unsigned char poison[80];
    memset(poison, 0x77, sizeof poison);
    CHECK(memcmp(out0, poison, 80) == 0 && memcmp(out1, poison, 16) == 0, "nothing written on a binding error");
    CHECK_STATUS(dmls_batch_execute(b, NULL, bi, 2, bo, 2), DMLS_OK);
    CHECK(out0[0] == 1 && out0[3] == 4 && out1[0] == 5 && out1[3] == 8, "items ran");
    batch_release(b, a, big);
}

/* R-B-OVERLAP: outputs in one slot (at create), and across slots at the
 * bound addresses (at execute); both items named, nothing written. */
static void test_overlap(void) {
    dmls_operator *a = copy_op(4);
    dmls_batch_item items[3] = {{a, 0, 0, 0, 0}, {a, 0, 0, 0, 32}, {a, 0, 0, 0, 24}};
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create(items, 3, 1, 1, &b), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-B-OVERLAP", "item 1", "item 2", "output slot 0");
    items[2].out_offset = 16;
    items[1].in_offset = 8; /* inputs may overlap */
    CHECK_STATUS(dmls_batch_create(items, 3, 1, 1, &b), DMLS_OK);
    float buf[32];
    for (int i = 0; i < 32; i++) buf[i] = (float)i;
    float snapshot[32];
    memcpy(snapshot, buf, sizeof buf);
    /* Output slot over the input: item 0's output [buf+16, +16) hits the inputs [buf+0.., +16) of items... */
    dmls_batch_input bi = {buf, 32};
    dmls_batch_output bo = {buf + 4, 48};
    CHECK_STATUS(dmls_batch_execute(b, NULL, &bi, 1, &bo, 1), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-B-OVERLAP", "item", "input", "output slot 0");
    CHECK(memcmp(buf, snapshot, sizeof buf) == 0, "nothing written on an overlap");
    bo.data = buf + 8; /* outputs [32, 80) bytes: past every input byte */
    CHECK_STATUS(dmls_batch_execute(b, NULL, &bi, 1, &bo, 1), DMLS_OK);
    CHECK(buf[8] == 0 && buf[12] == 0 && buf[16] == 2, "disjoint parts of one buffer work: %g %g %g", buf[8], buf[12],
          buf[16]);
    dmls_batch_destroy(b);

    /* Two output slots bound into one buffer: interleaved but disjoint is
     * fine; one shared byte is not. */
    dmls_batch_item two[4] = {{a, 0, 0, 0, 0}, {a, 0, 0, 0, 32}, {a, 0, 1, 0, 0}, {a, 0, 1, 0, 32}};
    b = batch_of(two, 4, 1, 2);
    float src[4] = {1, 2, 3, 4}, dst[24];
    dmls_batch_input in = {src, 16};
    dmls_batch_output outs[2] = {{dst, 48}, {dst + 4, 48}};
    CHECK_STATUS(dmls_batch_execute(b, NULL, &in, 1, outs, 2), DMLS_OK);
    outs[1].data = dst + 2;
    memset(dst, 0, sizeof dst);
    CHECK_STATUS(dmls_batch_execute(b, NULL, &in, 1, outs, 2), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-B-OVERLAP", "output slot 0", "output slot 1");
    CHECK(dst[0] == 0 && dst[2] == 0, "nothing written");
    batch_release(b, a, NULL);
}

/* R-B-OVERLAP across slots reads each slot's items in offset order: the
 * slot's first item by index lies last by offset, distinct operators
 * scramble the create-time scratch, and only that item meets the other
 * slot. */
static void test_overlap_order(void) {
    dmls_operator *a = copy_op(4), *c = copy_op(2);
    dmls_batch_item items[3] = {{a, 0, 0, 0, 64}, {c, 0, 0, 0, 0}, {c, 0, 1, 0, 0}};
    dmls_batch *b = batch_of(items, 3, 1, 2);
    float src[4] = {1, 2, 3, 4}, dst[32] = {0};
    dmls_batch_input in = {src, 16};
    dmls_batch_output outs[2] = {{dst, 80}, {dst + 16, 8}}; /* slot 1 at byte 64: item 0's [64, 80) */
    CHECK_STATUS(dmls_batch_execute(b, NULL, &in, 1, outs, 2), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-B-OVERLAP", "item 0", "item 2");
    outs[1].data = dst + 1; /* into item 1's [0, 8), the first by offset */
    CHECK_STATUS(dmls_batch_execute(b, NULL, &in, 1, outs, 2), DMLS_ERROR_OVERLAP);
    CHECK_MESSAGE("R-B-OVERLAP", "item 1", "item 2");
    outs[1].data = dst + 24; /* past every byte of slot 0 */
    CHECK_STATUS(dmls_batch_execute(b, NULL, &in, 1, outs, 2), DMLS_OK);
    CHECK(dst[16] == 1 && dst[19] == 4 && dst[0] == 1 && dst[1] == 2 && dst[24] == 1, "every item written");
    batch_release(b, a, c);
}

int main(void) {
    batch_seed(24);
    CHECK_STATUS(dmls_context_create(4, &ctx4), DMLS_OK);
    dmls_context_set_parallel_min_bytes(ctx4, 0);
    test_empty_batch();
    test_item_errors();
    test_dml_alignment();
    test_binding_errors();
    test_overlap();
    test_overlap_order();
    test_random_batches();
    dmls_context_destroy(ctx4);
    TEST_MAIN_END();
}
