/* Random batches for the differential tests (test_batch.c, the CUDA
 * emulator test, the fuzz target): distinct random operators (ranks 1-4,
 * element sizes 1/2/4/8, positive and negative steps, padded, reversed and
 * broadcast layouts, SLICE and SLICE_GRAD, empty ones), items placed in a
 * few shared slots or one slot per item at 16-byte offsets, outputs
 * disjoint by construction; and the oracle: the items run one by one
 * through the scalar reference executor. Include after test.h. */
#ifndef DMLS_TEST_BATCH_CASE_H
#define DMLS_TEST_BATCH_CASE_H

#include <stdlib.h>
#include <string.h>

#include "dmlslice/batch.h"
#include "dtype.h"
#include "layout.h"
#include "permuted_case.h"
#include "test.h"

/* Seeds from DMLS_TEST_SEED, else from a fixed default (so CI runs are
 * repeatable), and prints the seed. */
static inline void batch_seed(uint64_t fallback) {
    const char *env = getenv("DMLS_TEST_SEED");
    test_seed = env ? strtoull(env, NULL, 10) : fallback;
    if (test_seed == 0) test_seed = 1;
    test_rng_state = test_seed;
    printf("seed %" PRIu64 " (DMLS_TEST_SEED to change)\n", test_seed);
}

typedef struct batch_case {
    size_t n, n_ops;
    dmls_operator **ops;
    dmls_batch_item *items;
    uint32_t in_slots, out_slots;
    uint64_t *in_bytes, *out_bytes;
} batch_case;

/* A random valid operator; empty now and then when allow_empty. */
static inline dmls_operator *batch_case_op(bool allow_empty) {
    for (;;) {
        const int32_t n = (int32_t)test_range(1, 4);
        const int es = 1 << test_range(0, 3);
        int64_t big[4], small[4], off[4], size[4], step[4], bs[4], ss[4];
        uint64_t bo, so;
        const bool grad = test_range(0, 5) == 0;
        for (int i = 0; i < n; i++) {
            big[i] = test_range(1, 7);
            off[i] = test_range(0, big[i] - 1);
            size[i] = test_range(1, big[i] - off[i]);
            step[i] = test_range(1, 3) * (test_range(0, 2) == 0 ? -1 : 1);
            const int64_t a = step[i] < 0 ? -step[i] : step[i];
            small[i] = test_range(1, 1 + (size[i] - 1) / a);
        }
        if (allow_empty && test_range(0, 15) == 0) {
            const int k = (int)test_range(0, n - 1);
            small[k] = 0, size[k] = 0;
        }
        random_layout(RANDOM_ANY, n, big, !grad, (size_t)es, bs, &bo);
        random_layout(test_range(0, 1) ? RANDOM_PACKED : RANDOM_PADDED, n, small, grad, (size_t)es, ss, &so);
        const dmls_dtype dt = test_dtype_of_size(es);
        const dmls_tensor tb = {dt, n, big, bs, bo}, ts = {dt, n, small, ss, so};
        const dmls_window w = {off, size, step};
        dmls_operator *op = NULL;
        dmls_status s = grad ? dmls_create_grad(&ts, &tb, &w, &op) : dmls_create(&tb, &ts, &w, &op);
        if (s == DMLS_OK) return op;
    }
}

/* A batch operator for the GPU batch suites: a permuted slice
 * (permuted_case.h), whose tiled copies then run inside the batch, half
 * the time; else batch_case_op's. */
static inline dmls_operator *batch_case_mixed_op(bool allow_empty) {
    if (test_range(0, 1) == 0) return batch_case_op(allow_empty);
    dmls_operator *op = NULL;
    char label[128];
    CHECK_STATUS(permuted_case_create(0, &op, label, sizeof label), DMLS_OK);
    return op ? op : batch_case_op(allow_empty);
}

/* A random batch of n items over n_ops distinct operators (made by
 * make_op, batch_case_op by default); per_item: one input and one output
 * slot per item, else 1-3 of each shared. */
static inline void batch_case_make_with(batch_case *c, size_t n, size_t n_ops, bool per_item,
                                        dmls_operator *(*make_op)(bool allow_empty)) {
    memset(c, 0, sizeof *c);
    c->n = n;
    c->n_ops = n_ops ? n_ops : 1;
    c->ops = calloc(c->n_ops, sizeof *c->ops);
    for (size_t k = 0; k < c->n_ops; k++) c->ops[k] = make_op(true);
    c->items = calloc(n ? n : 1, sizeof *c->items);
    c->in_slots = per_item ? (uint32_t)n : (uint32_t)test_range(1, 3);
    c->out_slots = per_item ? (uint32_t)n : (uint32_t)test_range(1, 3);
    c->in_bytes = calloc(c->in_slots + 1, sizeof *c->in_bytes);
    c->out_bytes = calloc(c->out_slots + 1, sizeof *c->out_bytes);
    for (size_t i = 0; i < n; i++) {
        dmls_batch_item *it = &c->items[i];
        it->op = c->ops[test_range(0, (int64_t)c->n_ops - 1)];
        it->in_slot = per_item ? (uint32_t)i : (uint32_t)test_range(0, c->in_slots - 1);
        it->out_slot = per_item ? (uint32_t)i : (uint32_t)test_range(0, c->out_slots - 1);
        /* Inputs may overlap each other; outputs follow each other in their slot. */
        it->in_offset = 16 * (uint64_t)test_range(0, 8);
        it->out_offset = (c->out_bytes[it->out_slot] + 15) / 16 * 16 + 16 * (uint64_t)test_range(0, 1);
        const uint64_t in_end = it->in_offset + dmls_input_bytes(it->op);
        if (in_end > c->in_bytes[it->in_slot]) c->in_bytes[it->in_slot] = in_end;
        c->out_bytes[it->out_slot] = it->out_offset + dmls_output_bytes(it->op);
    }
}

static inline void batch_case_make(batch_case *c, size_t n, size_t n_ops, bool per_item) {
    batch_case_make_with(c, n, n_ops, per_item, batch_case_op);
}

static inline void batch_case_free(batch_case *c) {
    for (size_t k = 0; k < c->n_ops; k++) dmls_destroy(c->ops[k]);
    free(c->ops);
    free(c->items);
    free(c->in_bytes);
    free(c->out_bytes);
}

/* Host buffers for a case's slots: random inputs, outputs poisoned. */
typedef struct batch_buffers {
    uint32_t n_in, n_out;
    unsigned char **in, **out;
    dmls_batch_input *inputs;
    dmls_batch_output *outputs;
} batch_buffers;

static inline void batch_buffers_make(batch_buffers *bb, const batch_case *c) {
    bb->n_in = c->in_slots, bb->n_out = c->out_slots;
    bb->in = calloc(c->in_slots + 1, sizeof *bb->in);
    bb->out = calloc(c->out_slots + 1, sizeof *bb->out);
    bb->inputs = calloc(c->in_slots + 1, sizeof *bb->inputs);
    bb->outputs = calloc(c->out_slots + 1, sizeof *bb->outputs);
    for (uint32_t s = 0; s < c->in_slots; s++) {
        bb->in[s] = malloc(c->in_bytes[s] + 16);
        test_fill_random(bb->in[s], c->in_bytes[s] + 16);
        bb->inputs[s].data = bb->in[s], bb->inputs[s].bytes = c->in_bytes[s];
    }
    for (uint32_t s = 0; s < c->out_slots; s++) {
        bb->out[s] = malloc(c->out_bytes[s] + 16);
        memset(bb->out[s], 0xA5, c->out_bytes[s] + 16);
        bb->outputs[s].data = bb->out[s], bb->outputs[s].bytes = c->out_bytes[s];
    }
}

static inline void batch_buffers_poison(batch_buffers *bb, const batch_case *c) {
    for (uint32_t s = 0; s < bb->n_out; s++) memset(bb->out[s], 0xA5, c->out_bytes[s] + 16);
}

static inline void batch_buffers_free(batch_buffers *bb) {
    for (uint32_t s = 0; s < bb->n_in; s++) free(bb->in[s]);
    for (uint32_t s = 0; s < bb->n_out; s++) free(bb->out[s]);
    free(bb->in), free(bb->out), free(bb->inputs), free(bb->outputs);
}

/* The oracle: every item run one by one with the reference executor into
 * copies of the (poisoned) outputs; returns the copies (free each, then the array). */
static inline unsigned char **batch_case_oracle(const batch_case *c, const batch_buffers *bb) {
    unsigned char **ref = calloc(c->out_slots + 1, sizeof *ref);
    for (uint32_t s = 0; s < c->out_slots; s++) {
        ref[s] = malloc(c->out_bytes[s] + 16);
        memset(ref[s], 0xA5, c->out_bytes[s] + 16);
    }
    for (size_t i = 0; i < c->n; i++) {
        const dmls_batch_item *it = &c->items[i];
        dmls_status s = dmls_execute_reference(it->op, bb->in[it->in_slot] + it->in_offset, dmls_input_bytes(it->op),
                                               ref[it->out_slot] + it->out_offset, dmls_output_bytes(it->op));
        CHECK(s == DMLS_OK, "oracle item %zu: %s", i, dmls_last_error());
    }
    return ref;
}

/* Every byte of every output slot (and 16 past it) equals the oracle's. */
static inline bool batch_case_same(const batch_case *c, unsigned char *const *got, unsigned char *const *ref,
                                   const char *label) {
    for (uint32_t s = 0; s < c->out_slots; s++) {
        for (uint64_t k = 0; k < c->out_bytes[s] + 16; k++) {
            if (got[s][k] != ref[s][k]) {
                CHECK(false, "%s: output slot %u byte %llu is %#x, one by one gives %#x (%zu items)", label, s,
                      (unsigned long long)k, got[s][k], ref[s][k], c->n);
                return false;
            }
        }
    }
    CHECK(true, "%s", label);
    return true;
}

static inline void batch_oracle_free(const batch_case *c, unsigned char **ref) {
    for (uint32_t s = 0; s < c->out_slots; s++) free(ref[s]);
    free(ref);
}

/* A random case (batch_case_make's arguments), its batch, host buffers and
 * the oracle's outputs; false, with the case freed, when the batch could
 * not be made (a failed check). Free with batch_case_teardown. */
static inline bool batch_case_setup_with(batch_case *c, size_t n, size_t n_ops, bool per_item,
                                         dmls_operator *(*make_op)(bool allow_empty), dmls_batch **b,
                                         batch_buffers *bb, unsigned char ***ref) {
    batch_case_make_with(c, n, n_ops, per_item, make_op);
    *b = NULL;
    CHECK_STATUS(dmls_batch_create(c->items, c->n, c->in_slots, c->out_slots, b), DMLS_OK);
    if (*b == NULL) {
        batch_case_free(c);
        return false;
    }
    batch_buffers_make(bb, c);
    *ref = batch_case_oracle(c, bb);
    return true;
}

static inline bool batch_case_setup(batch_case *c, size_t n, size_t n_ops, bool per_item, dmls_batch **b,
                                    batch_buffers *bb, unsigned char ***ref) {
    return batch_case_setup_with(c, n, n_ops, per_item, batch_case_op, b, bb, ref);
}

static inline void batch_case_teardown(batch_case *c, dmls_batch *b, batch_buffers *bb, unsigned char **ref) {
    batch_oracle_free(c, ref);
    batch_buffers_free(bb);
    dmls_batch_destroy(b);
    batch_case_free(c);
}

#endif
