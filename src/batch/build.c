/* Batches: validation and planning once, at create (docs/spec.md section 7).
 * Each item's operator is already validated and planned (R-B-ITEM: a batch
 * is valid when each item is); here the items are packed into one table,
 * the distinct operators listed once, each slot's needs gathered, the
 * output ranges inside each slot checked for overlap (R-B-OVERLAP, the part
 * that does not depend on the bound addresses), and each backend's batch
 * data derived (backend.h's prepare_batch: the CPU's work prefix). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "batch.h"
#include "checked.h"
#include "error.h"

/* ------------------------------------------------------------ sorting */

/* qsort has no context argument in C11: the comparators read the keys
 * through a (item, key) pair instead. */
typedef struct keyed {
    uint64_t key;
    size_t item;
} keyed;

static int by_key(const void *a, const void *b) {
    const keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->item < y->item ? -1 : x->item > y->item; /* stable: ties by item */
}

/* ------------------------------------------------------------ the checks */

static dmls_status check_item(const dmls_batch_item *it, size_t i, uint32_t in_slots, uint32_t out_slots) {
    RETURN_IF(it->op == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-B-ITEM", "batch item %zu: op is NULL", i);
    RETURN_IF(it->in_slot >= in_slots, DMLS_ERROR_INVALID_ARGUMENT, "R-B-ITEM",
              "batch item %zu: in_slot %" PRIu32 " is not below the %" PRIu32 " input slots", i, it->in_slot, in_slots);
    RETURN_IF(it->out_slot >= out_slots, DMLS_ERROR_INVALID_ARGUMENT, "R-B-ITEM",
              "batch item %zu: out_slot %" PRIu32 " is not below the %" PRIu32 " output slots", i, it->out_slot,
              out_slots);
    const dmls_buffer_needs *n = &it->op->needs;
    uint64_t end;
    RETURN_IF(dmls_add_u64(it->in_offset, n->in_bytes, &end) || dmls_add_u64(it->out_offset, n->out_bytes, &end),
              DMLS_ERROR_OVERFLOW, "R-B-ITEM", "batch item %zu: offset + tensor bytes overflows 64 bits", i);
    /* DirectML binds at offsets that are multiples of the alignment, so a
     * slot base meeting it is what the item needs (R-X-ALIGN). */
    RETURN_IF(n->in_align > 1 && it->in_offset % n->in_align != 0, DMLS_ERROR_MISALIGNED, "R-X-ALIGN",
              "batch item %zu: in_offset %" PRIu64 " is not a multiple of %" PRIu64 " (%s)", i, it->in_offset,
              n->in_align, n->in_align_why);
    RETURN_IF(n->out_align > 1 && it->out_offset % n->out_align != 0, DMLS_ERROR_MISALIGNED, "R-X-ALIGN",
              "batch item %zu: out_offset %" PRIu64 " is not a multiple of %" PRIu64 " (%s)", i, it->out_offset,
              n->out_align, n->out_align_why);
    return DMLS_OK;
}

/* A slot's needs from one item's range and alignment. */
static void need(dmls_batch_slot *s, size_t item, uint64_t offset, uint64_t bytes, uint64_t align) {
    if (bytes > 0 && offset + bytes > s->need_bytes) s->need_bytes = offset + bytes, s->need_item = item;
    if (align > s->align) s->align = align, s->align_item = item;
}

/* Lists each slot's non-empty item ranges by offset into b->order, and
 * checks that the outputs in one slot are disjoint (R-B-OVERLAP). keys has
 * room for count entries. */
static dmls_status order_slots(dmls_batch *b, keyed *keys) {
    const uint32_t slots = b->in_slots + b->out_slots;
    size_t *fill = calloc(slots ? slots : 1, sizeof *fill);
    RETURN_IF(fill == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "batch: out of memory");
    size_t at = 0;
    for (uint32_t s = 0; s < slots; s++) b->slots[s].first = at, at += b->slots[s].n;
    for (size_t i = 0; i < b->count; i++) {
        uint64_t off, bytes;
        dmls_batch_in_range(b, i, &off, &bytes);
        if (bytes > 0) b->order[b->slots[b->items[i].in_slot].first + fill[b->items[i].in_slot]++] = i;
        dmls_batch_out_range(b, i, &off, &bytes);
        const uint32_t o = b->in_slots + b->items[i].out_slot;
        if (bytes > 0) b->order[b->slots[o].first + fill[o]++] = i;
    }
    free(fill);
    for (uint32_t s = 0; s < slots; s++) {
        dmls_batch_slot *sl = &b->slots[s];
        const bool out = s >= b->in_slots;
        for (size_t k = 0; k < sl->n; k++) {
            uint64_t off, bytes;
            (out ? dmls_batch_out_range : dmls_batch_in_range)(b, b->order[sl->first + k], &off, &bytes);
            keys[k].key = off;
            keys[k].item = b->order[sl->first + k];
        }
        qsort(keys, sl->n, sizeof *keys, by_key);
        uint64_t max_end = 0;
        size_t max_item = 0;
        for (size_t k = 0; k < sl->n; k++) {
            uint64_t off, bytes;
            (out ? dmls_batch_out_range : dmls_batch_in_range)(b, keys[k].item, &off, &bytes);
            b->order[sl->first + k] = keys[k].item;
            RETURN_IF(out && k > 0 && off < max_end, DMLS_ERROR_OVERLAP, "R-B-OVERLAP",
                      "batch item %zu: output bytes [+%" PRIu64 ", +%" PRIu64 ") of output slot %" PRIu32
                      " overlap item %zu's, which end at +%" PRIu64,
                      keys[k].item, off, off + bytes, s - b->in_slots, max_item, max_end);
            if (k == 0) sl->lo = off;
            if (off + bytes > max_end) max_end = off + bytes, max_item = keys[k].item;
        }
        sl->hi = max_end;
    }
    return DMLS_OK;
}

/* Lists the distinct operators (sorted by address) and points each item at its own. */
static dmls_status list_ops(dmls_batch *b, const dmls_batch_item *items, keyed *keys) {
    for (size_t i = 0; i < b->count; i++) keys[i].key = (uint64_t)(uintptr_t)items[i].op, keys[i].item = i;
    qsort(keys, b->count, sizeof *keys, by_key);
    for (size_t k = 0; k < b->count; k++) {
        if (k == 0 || keys[k].key != keys[k - 1].key) b->ops[b->n_ops++] = items[keys[k].item].op;
        b->items[keys[k].item].op = (uint32_t)(b->n_ops - 1);
    }
    return DMLS_OK;
}

static dmls_status fill_batch(dmls_batch *b, const dmls_batch_item *items) {
    for (size_t i = 0; i < b->count; i++) {
        RETURN_IF_ERROR(check_item(&items[i], i, b->in_slots, b->out_slots));
        b->items[i].in_slot = items[i].in_slot;
        b->items[i].out_slot = items[i].out_slot;
        b->items[i].in_offset = items[i].in_offset;
        b->items[i].out_offset = items[i].out_offset;
    }
    for (uint32_t s = 0; s < b->in_slots + b->out_slots; s++) b->slots[s].align = 1;
    keyed *keys = malloc((b->count ? b->count : 1) * sizeof *keys);
    RETURN_IF(keys == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "batch: out of memory for %zu items", b->count);
    dmls_status s = list_ops(b, items, keys);
    for (size_t i = 0; i < b->count; i++) {
        const dmls_buffer_needs *n = &items[i].op->needs;
        uint64_t off, bytes;
        dmls_batch_in_range(b, i, &off, &bytes);
        dmls_batch_slot *in = &b->slots[items[i].in_slot], *out = &b->slots[b->in_slots + items[i].out_slot];
        need(in, i, off, bytes, n->in_align > 1 ? n->in_align : 1);
        in->n += bytes > 0;
        dmls_batch_out_range(b, i, &off, &bytes);
        need(out, i, off, bytes, n->out_align > 1 ? n->out_align : 1);
        out->n += bytes > 0;
    }
    if (s == DMLS_OK) s = order_slots(b, keys);
    free(keys);
    for (size_t i = 0; s == DMLS_OK && i < b->n_ops; i++) b->has_grad |= b->ops[i]->zero_fill;
    for (int k = 0; s == DMLS_OK && k < DMLS_BACKEND_COUNT; k++)
        if (dmls_backends[k] != NULL && dmls_backends[k]->prepare_batch != NULL) s = dmls_backends[k]->prepare_batch(b);
    return s;
}

/* Frees what dmls_batch_build allocated and the operators it owns. */
static void free_batch(dmls_batch *b) {
    for (size_t i = 0; i < b->n_owned; i++) dmls_destroy(b->owned[i]);
    free(b->owned);
    free(b->items);
    free(b->ops);
    free(b->slots);
    free(b->order);
    free(b->work);
    free(b);
}

dmls_status dmls_batch_build(const dmls_batch_item *items, size_t count, uint32_t in_slots, uint32_t out_slots,
                             dmls_operator **owned, size_t n_owned, const dmls_batch_bound_crops *crops,
                             dmls_batch **out) {
    dmls_batch *b = calloc(1, sizeof *b);
    if (b == NULL) {
        for (size_t i = 0; i < n_owned; i++) dmls_destroy(owned[i]);
        free(owned);
        return dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "batch: out of memory");
    }
    b->owned = owned; /* from here on, free_batch frees them */
    b->n_owned = n_owned;
    const size_t slots = (size_t)in_slots + out_slots;
    b->count = count;
    b->in_slots = in_slots;
    b->out_slots = out_slots;
    if (crops) b->crops = *crops;
    if ((uint64_t)in_slots + out_slots > UINT32_MAX) { /* slots are numbered in 32 bits, inputs first */
        free_batch(b);
        return dmls_fail(DMLS_ERROR_INVALID_ARGUMENT, "R-B-ITEM",
                         "batch: %" PRIu32 " input and %" PRIu32 " output slots exceed 2^32-1 in all", in_slots,
                         out_slots);
    }
    const bool fits = count <= SIZE_MAX / 4 / sizeof(dmls_batch_entry);
    if (fits) {
        b->items = calloc(count ? count : 1, sizeof *b->items);
        b->ops = calloc(count ? count : 1, sizeof *b->ops);
        b->slots = calloc(slots ? slots : 1, sizeof *b->slots);
        b->order = calloc(2 * count + 1, sizeof *b->order);
        b->work = calloc(count + 1, sizeof *b->work);
    }
    if (!fits || !b->items || !b->ops || !b->slots || !b->order || !b->work || dmls_mutex_init(&b->device_lock) != 0) {
        free_batch(b);
        return dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "batch: out of memory for %zu items", count);
    }
    dmls_status s = fill_batch(b, items);
    if (s == DMLS_OK && b->crops.on) { /* input slot 1: the starts, n rows of rank integers */
        dmls_batch_slot *starts = &b->slots[1];
        starts->need_bytes = (uint64_t)count * (uint64_t)b->crops.rank * (uint64_t)b->crops.width;
        starts->align = (uint64_t)b->crops.width;
    }
    if (s != DMLS_OK) {
        dmls_mutex_destroy(&b->device_lock);
        free_batch(b);
        return s;
    }
    *out = b;
    return DMLS_OK;
}

dmls_status dmls_batch_create(const dmls_batch_item *items, size_t count, uint32_t in_slots, uint32_t out_slots,
                              dmls_batch **batch) {
    dmls_clear_error();
    RETURN_IF(batch == NULL, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "batch_create: batch (the result pointer) is NULL");
    *batch = NULL;
    RETURN_IF(items == NULL && count > 0, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "batch_create: items is NULL with count %zu", count);
    return dmls_batch_build(items, count, in_slots, out_slots, NULL, 0, NULL, batch);
}

void dmls_batch_destroy(dmls_batch *b) {
    if (b == NULL) return;
    for (int id = 0; id < DMLS_BACKEND_COUNT; id++)
        if (dmls_backends[id] != NULL && dmls_backends[id]->release_batch != NULL) dmls_backends[id]->release_batch(b);
    dmls_mutex_destroy(&b->device_lock);
    free_batch(b);
}

size_t dmls_batch_items(const dmls_batch *b) { return b ? b->count : 0; }
uint32_t dmls_batch_input_slots(const dmls_batch *b) { return b ? b->in_slots : 0; }
uint32_t dmls_batch_output_slots(const dmls_batch *b) { return b ? b->out_slots : 0; }

uint64_t dmls_batch_input_bytes(const dmls_batch *b, uint32_t slot) {
    return b && slot < b->in_slots ? b->slots[slot].need_bytes : 0;
}

uint64_t dmls_batch_output_bytes(const dmls_batch *b, uint32_t slot) {
    return b && slot < b->out_slots ? b->slots[b->in_slots + slot].need_bytes : 0;
}
