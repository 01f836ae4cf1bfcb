/* Fuzz target: batch plans (docs/spec.md section 7). Draws up to four
 * operators (rank 0-3, any element size, windows with negative steps and
 * padded or reversed layouts), up to 64 items over up to four input and
 * four output slots at any offsets (huge, unaligned, overlapping), then a
 * split and a crops batch over a drawn input with drawn sizes and starts.
 * Every create either succeeds or explains itself and leaves no handle. A
 * batch that is created runs on slots placed against guard pages, on the
 * calling thread and on a 3-thread pool that cuts everything; its outputs
 * must equal the items run one by one through the reference, byte for
 * byte. Then output slot 0 is bound over input slot 0's buffer: the execute
 * either succeeds or fails with nothing written. */
#include <stdlib.h>

#include "batch/batch.h"
#include "fuzz_input.h"
#include "fuzz_pool.h"
#include "support/dtype.h"

enum { MAX_BYTES = 1 << 16, MAX_ITEMS = 64, MAX_SLOTS = 4, SLOT_CAP = 9 /* a split's 8 outputs and its input */ };

/* A drawn operator, or NULL when the draw is not a valid slice. */
static dmls_operator *draw_op(fuzz_reader *r) {
    const int32_t n = fuzz_u8(r) % 4;
    const dmls_dtype dt = test_dtype_of_size(1 << (fuzz_u8(r) % 4));
    int64_t big[4], small[4], off[4], sz[4], st[4], bs[4], ss[4];
    for (int i = 0; i < n; i++) {
        big[i] = fuzz_small_i64(r, 6);
        off[i] = fuzz_small_i64(r, 3);
        sz[i] = fuzz_small_i64(r, 6);
        st[i] = fuzz_small_i64(r, 3);
        small[i] = fuzz_small_i64(r, 6);
    }
    const uint8_t layout = fuzz_u8(r);
    /* Modulo 2^64: huge drawn sizes give wild strides, which create must refuse. */
    uint64_t pb = 1, ps = 1, bo = 0;
    for (int i = n - 1; i >= 0; i--) {
        bs[i] = (int64_t)pb, ss[i] = (int64_t)ps;
        pb *= (uint64_t)(big[i] > 0 ? big[i] : 1) + (layout & 1), ps *= (uint64_t)(small[i] > 0 ? small[i] : 1);
        if ((layout & 2) && i == 0 && big[i] > 0) {
            bo = (uint64_t)(big[i] - 1) * (uint64_t)bs[i] * dmls_dtype_size(dt);
            bs[i] = (int64_t)(0 - (uint64_t)bs[i]);
        }
    }
    dmls_tensor tb = {dt, n, big, bs, bo}, ts = {dt, n, small, ss, 0};
    dmls_window w = {off, sz, st};
    dmls_operator *op = NULL;
    dmls_status s = dmls_create(&tb, &ts, &w, &op);
    return fuzz_created(s, op, MAX_BYTES) ? op : NULL;
}

/* Slot buffers against guard pages: inputs random, outputs poisoned. */
typedef struct slots {
    guarded g[SLOT_CAP];
    dmls_batch_input in[SLOT_CAP];
    dmls_batch_output out[SLOT_CAP];
} slots;

static bool place(const dmls_batch *b, slots *s, uint8_t seed) {
    memset(s, 0, sizeof *s);
    if (b->in_slots + b->out_slots > SLOT_CAP) return false;
    for (uint32_t k = 0; k < b->in_slots + b->out_slots; k++) {
        const bool in = k < b->in_slots;
        const uint64_t need = in ? dmls_batch_input_bytes(b, k) : dmls_batch_output_bytes(b, k - b->in_slots);
        if (need > MAX_BYTES || guarded_alloc(&s->g[k], (size_t)need, 16) != 0) {
            for (uint32_t j = 0; j < k; j++) guarded_free(&s->g[j]);
            return false;
        }
        for (uint64_t i = 0; i < need; i++) s->g[k].data[i] = in ? (uint8_t)(seed + i * 31) : 0xA5;
        if (in)
            s->in[k].data = s->g[k].data, s->in[k].bytes = need;
        else
            s->out[k - b->in_slots].data = s->g[k].data, s->out[k - b->in_slots].bytes = need;
    }
    return true;
}

static void release(const dmls_batch *b, slots *s) {
    for (uint32_t k = 0; k < b->in_slots + b->out_slots; k++) guarded_free(&s->g[k]);
}

/* The batch on both executors against its items one by one. */
static void run(const dmls_batch *b, uint8_t seed) {
    slots s, ref;
    if (!place(b, &s, seed)) return;
    if (!place(b, &ref, seed)) {
        release(b, &s);
        return;
    }
    for (size_t i = 0; i < b->count; i++) {
        const dmls_batch_entry *e = &b->items[i];
        const dmls_operator *op = b->ops[e->op];
        /* An empty item writes nothing, and its offsets may be anything
         * (2^64 - 1 too): no pointer is formed from them. */
        if (dmls_output_bytes(op) == 0) continue;
        const uint64_t off = b->crops.on ? dmls_batch_crop_offset(&b->crops, s.in[1].data, i) : e->in_offset;
        if (dmls_execute_reference(op, (const uint8_t *)ref.in[e->in_slot].data + off, dmls_input_bytes(op),
                                   (uint8_t *)ref.out[e->out_slot].data + e->out_offset,
                                   dmls_output_bytes(op)) != DMLS_OK)
            abort();
    }
    for (int pass = 0; pass < 2; pass++) {
        if (dmls_batch_execute(b, pass ? fuzz_pool3() : NULL, s.in, b->in_slots, s.out, b->out_slots) != DMLS_OK)
            abort();
        for (uint32_t k = 0; k < b->out_slots; k++)
            if (memcmp(s.out[k].data, ref.out[k].data, s.out[k].bytes) != 0) abort();
    }
    /* Output slot 0 over input slot 0: allowed only when no byte is shared. */
    if (b->in_slots > 0 && b->out_slots > 0 && s.in[0].bytes >= s.out[0].bytes) {
        dmls_batch_output alias[SLOT_CAP];
        memcpy(alias, s.out, sizeof alias);
        alias[0].data = (void *)(uintptr_t)s.in[0].data;
        uint8_t *copy = malloc(s.in[0].bytes + 1);
        memcpy(copy, s.in[0].data, s.in[0].bytes);
        dmls_status st = dmls_batch_execute(b, NULL, s.in, b->in_slots, alias, b->out_slots);
        if (st != DMLS_OK && (dmls_last_error()[0] == '\0' || memcmp(copy, s.in[0].data, s.in[0].bytes) != 0)) abort();
        free(copy);
    }
    release(b, &ref);
    release(b, &s);
}

static void items_batch(fuzz_reader *r) {
    dmls_operator *ops[4] = {NULL};
    for (int k = 0; k < 4; k++) ops[k] = draw_op(r);
    const size_t n = fuzz_u8(r) % (MAX_ITEMS + 1);
    const uint32_t in_slots = 1 + fuzz_u8(r) % MAX_SLOTS, out_slots = 1 + fuzz_u8(r) % MAX_SLOTS;
    dmls_batch_item items[MAX_ITEMS];
    for (size_t i = 0; i < n; i++) {
        items[i].op = ops[fuzz_u8(r) % 4];
        items[i].in_slot = fuzz_small_u32(r, in_slots);
        items[i].out_slot = fuzz_small_u32(r, out_slots);
        items[i].in_offset = fuzz_small_u32(r, 200);
        items[i].out_offset = (uint8_t)fuzz_u8(r) < 250 ? 16 * (uint64_t)fuzz_small_u32(r, 64) : fuzz_u64(r);
    }
    dmls_batch *b = (dmls_batch *)&items; /* must be set to NULL on failure */
    if (dmls_batch_create(items, n, in_slots, out_slots, &b) == DMLS_OK)
        run(b, fuzz_u8(r));
    else if (b != NULL || dmls_last_error()[0] == '\0')
        abort();
    dmls_batch_destroy(b);
    for (int k = 0; k < 4; k++) dmls_destroy(ops[k]);
}

static void split_and_crops(fuzz_reader *r) {
    const int32_t n = fuzz_u8(r) % 4;
    int64_t shape[4], sizes[8], size[4], starts[4 * 8];
    for (int i = 0; i < n; i++) shape[i] = fuzz_small_i64(r, 7);
    const dmls_tensor t = {test_dtype_of_size(1 << (fuzz_u8(r) % 4)), n, shape, NULL, 0};
    const int32_t axis = (int32_t)fuzz_small_i64(r, 4);
    const size_t parts = fuzz_u8(r) % 9;
    for (size_t j = 0; j < parts; j++) sizes[j] = fuzz_small_i64(r, 7);
    dmls_batch *b = NULL;
    if (dmls_batch_create_split(&t, axis, sizes, parts, fuzz_u8(r) & 1, &b) == DMLS_OK)
        run(b, 7);
    else if (b != NULL || dmls_last_error()[0] == '\0')
        abort();
    dmls_batch_destroy(b);
    const size_t crops = fuzz_u8(r) % 9;
    for (int i = 0; i < n; i++) size[i] = fuzz_small_i64(r, 7);
    for (size_t j = 0; j < crops * (size_t)n; j++) starts[j] = fuzz_small_i64(r, 7);
    const int bound = fuzz_u8(r) & 1; /* bound starts are the slot's bytes, clamped */
    b = NULL;
    if (dmls_batch_create_crops(&t, size, crops, bound ? NULL : starts, DMLS_STARTS_INT64, &b) != DMLS_OK) {
        if (b != NULL || dmls_last_error()[0] == '\0') abort();
        return;
    }
    run(b, 9);
    dmls_batch_destroy(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_reader r = {data, size, 0};
    if (fuzz_u8(&r) & 1)
        split_and_crops(&r);
    else
        items_batch(&r);
    return 0;
}
