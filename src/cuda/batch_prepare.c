/* The CUDA tables of a batch (batch_launch.h), built on the host in plain
 * C: the distinct operators' launches, the items with their slots turned
 * into base indices, and per phase the entries that assign blocks to items
 * by work. dmls_batch_prepare_cuda uploads them; the tests' emulator runs
 * them without a GPU.
 *
 * Worked example: crops of 3x4x4 float32 (48 floats, one launch of 12
 * 16-byte units) x 3 items, then one 1 MiB contiguous item (65536 units):
 *   phase 1 entries {first_block, item}: {0,0} {1,1} {2,2} {3,3}, sentinel {67,-}
 *   (65536 units / 1024 per block tile = 64 blocks for the last item). */
#include <stdlib.h>
#include <string.h>

#include "../batch.h"
#include "../error.h"
#include "batch_launch.h"

enum { TILE = DMLS_CUDA_THREADS * DMLS_CUDA_ILP };

/* Blocks an item takes in a phase: its best launch's tiles, capped. */
static uint64_t blocks_of(const dmls_cuda_launch *choices) {
    const dmls_cuda_launch *L = &choices[0];
    if (L->kernel == DMLS_CUDA_NOTHING || L->count == 0) return 0;
    /* MEMSET counts bytes; the batch kernel moves 16 of them per index. */
    const uint64_t indices = L->kernel == DMLS_CUDA_MEMSET ? L->count / 16 + 2 : L->count;
    const uint64_t blocks = (indices + TILE - 1) / TILE;
    return blocks > DMLS_CUDA_BATCH_ITEM_BLOCKS ? DMLS_CUDA_BATCH_ITEM_BLOCKS : blocks;
}

/* The entries of one phase: items with work in it, by increasing block. */
static dmls_status phase_entries(const dmls_batch *b, dmls_cuda_batch_plan *p, int phase) {
    dmls_cuda_batch_entry *e = malloc((b->count + 1) * sizeof *e);
    RETURN_IF(e == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "batch_prepare_cuda: out of memory");
    uint64_t n = 0, block = 0;
    for (size_t i = 0; i < b->count; i++) {
        const dmls_cuda_batch_op *op = &p->ops[b->items[i].op];
        const uint64_t blocks = blocks_of(phase == 0 ? op->fill : op->copy);
        if (blocks == 0) continue;
        e[n].first_block = block;
        e[n].item = i;
        n++;
        block += blocks; /* fits: at most 2^22 per item, items fit memory */
    }
    e[n].first_block = block;
    e[n].item = b->count;
    p->entries[phase] = e;
    p->n_entries[phase] = n;
    p->blocks[phase] = block;
    return DMLS_OK;
}

static void copy_crops(const dmls_batch_bound_crops *c, dmls_cuda_batch_crops *d) {
    memset(d, 0, sizeof *d);
    d->on = c->on;
    d->rank = c->rank;
    d->width = c->width;
    for (int k = 0; k < DMLS_MAX_RANK; k++)
        d->dim[k] = c->dim[k], d->size[k] = c->size[k], d->stride_bytes[k] = c->stride_bytes[k];
    d->base_offset = c->base_offset;
}

dmls_status dmls_cuda_batch_plan_build(const dmls_batch *b, dmls_cuda_batch_plan *p) {
    memset(p, 0, sizeof *p);
    const uint64_t slots = (uint64_t)b->in_slots + b->out_slots;
    RETURN_IF(slots > DMLS_BATCH_CUDA_MAX_SLOTS, DMLS_ERROR_UNSUPPORTED, NULL,
              "batch_prepare_cuda: %llu slots; a CUDA batch binds at most %d (DMLS_BATCH_CUDA_MAX_SLOTS)",
              (unsigned long long)slots, DMLS_BATCH_CUDA_MAX_SLOTS);
    p->n_bases = (int32_t)slots;
    p->n_ops = b->n_ops;
    p->n_items = b->count;
    p->ops = calloc(b->n_ops ? b->n_ops : 1, sizeof *p->ops);
    p->items = calloc(b->count ? b->count : 1, sizeof *p->items);
    if (p->ops == NULL || p->items == NULL) {
        dmls_cuda_batch_plan_free(p);
        return dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "batch_prepare_cuda: out of memory");
    }
    for (size_t k = 0; k < b->n_ops; k++) {
        const dmls_cuda_state *st = dmls_cuda_state_of(b->ops[k]);
        memcpy(p->ops[k].copy, st->copy, sizeof st->copy);
        if (b->ops[k]->zero_fill) memcpy(p->ops[k].fill, st->fill, sizeof st->fill);
    }
    for (size_t i = 0; i < b->count; i++) {
        const dmls_batch_entry *e = &b->items[i];
        p->items[i].op = e->op;
        p->items[i].in_base = e->in_slot;
        p->items[i].out_base = b->in_slots + e->out_slot;
        p->items[i].in_offset = e->in_offset;
        p->items[i].out_offset = e->out_offset;
    }
    copy_crops(&b->crops, &p->crops);
    dmls_status s = phase_entries(b, p, 0);
    if (s == DMLS_OK) s = phase_entries(b, p, 1);
    if (s != DMLS_OK) dmls_cuda_batch_plan_free(p);
    return s;
}

void dmls_cuda_batch_plan_free(dmls_cuda_batch_plan *p) {
    free(p->ops);
    free(p->items);
    free(p->entries[0]);
    free(p->entries[1]);
    memset(p, 0, sizeof *p);
}
