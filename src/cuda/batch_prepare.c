/* The CUDA tables of a batch (batch_rules.h), built on the host in plain
 * C: the distinct operators' launches, and per phase the entries (each
 * item with its slots turned into base indices) and the block map that
 * assigns blocks to items by work, tiny items grouped one warp each.
 * dmls_batch_prepare_cuda uploads them; the tests' emulator runs them
 * without a GPU.
 *
 * Worked example: crops of 3x4x4 float32 (48 floats: a launch of 12
 * 16-byte units, tiny) x 3 items, then one 1 MiB contiguous item (65536
 * streaming units, 2048 per block tile):
 *   phase 1 entries {first_block, item}: {0,0} {0,1} {0,2} {1,3}, sentinel {33,-}
 *   map: block 0 -> 0 (with map[1] = 3: a group of 3, one warp each),
 *        blocks 1..32 -> 3, map[33] = 4. */
#include <stdlib.h>
#include <string.h>

#include "../batch/batch.h"
#include "../error.h"
#include "batch_prepare.h"

/* Indices of an item's best launch (MEMSET counts bytes; the batch kernel
 * moves 16 of them per index), 0 for none. */
static uint64_t indices_of(const dmls_cuda_launch *choices) {
    const dmls_cuda_launch *L = &choices[0];
    if (L->kernel == DMLS_CUDA_NOTHING || L->count == 0) return 0;
    if (L->kernel == DMLS_CUDA_TILE) return L->count * dmls_cuda_batch_tile(L); /* a block per tile, never tiny */
    return L->kernel == DMLS_CUDA_MEMSET ? L->count / 16 + 2 : L->count;
}

/* Tiles of an item's best launch: one trip of one block each. */
static uint64_t tiles_of(const dmls_cuda_launch *choices) {
    const uint64_t tile = dmls_cuda_batch_tile(&choices[0]);
    return (indices_of(choices) + tile - 1) / tile;
}

/* Trips each block makes over its item in a phase of this many tiles: 1
 * while the phase is a few waves; more, up to DMLS_CUDA_BATCH_TRIPS, when it
 * is many, so that each block's chain of table loads (map, entry, launch)
 * is paid once for several tiles instead of per tile. */
static uint64_t trips_for(uint64_t tiles) {
    const uint64_t t = tiles / (DMLS_CUDA_BATCH_WAVE * DMLS_CUDA_BATCH_TRIPS_WAVES);
    return t < 1 ? 1 : t > DMLS_CUDA_BATCH_TRIPS ? DMLS_CUDA_BATCH_TRIPS : t;
}

/* Blocks an item takes in a phase: its tiles over the phase's trips, capped. */
static uint64_t blocks_of(const dmls_cuda_launch *choices, uint64_t trips) {
    const uint64_t blocks = (tiles_of(choices) + trips - 1) / trips;
    return blocks > DMLS_CUDA_BATCH_ITEM_BLOCKS ? DMLS_CUDA_BATCH_ITEM_BLOCKS : blocks;
}

static void fill_entry(const dmls_batch *b, size_t i, uint64_t block, dmls_cuda_batch_entry *e) {
    const dmls_batch_entry *it = &b->items[i];
    e->first_block = block;
    e->item = i;
    e->in_offset = it->in_offset;
    e->out_offset = it->out_offset;
    e->op = it->op;
    e->in_base = it->in_slot;
    e->out_base = b->in_slots + it->out_slot;
    e->pad_ = 0;
}

/* The block map of a phase from its entries: each block maps to the
 * first entry that owns it (a group's first). */
static dmls_status phase_map(dmls_cuda_batch_plan *p, int phase) {
    const uint64_t blocks = p->blocks[phase], n = p->n_entries[phase];
    const dmls_cuda_batch_entry *e = p->entries[phase];
    uint32_t *map = malloc((blocks + 1) * sizeof *map);
    RETURN_IF(map == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "batch_prepare_cuda: out of memory for %llu blocks",
              (unsigned long long)blocks);
    for (uint64_t k = 0; k < n;) {
        uint64_t next = k + 1; /* past the group: the entries sharing k's first block */
        while (next < n && e[next].first_block == e[k].first_block) next++;
        for (uint64_t blk = e[k].first_block; blk < e[next].first_block; blk++) map[blk] = (uint32_t)k;
        k = next;
    }
    map[blocks] = (uint32_t)n;
    p->map[phase] = map;
    return DMLS_OK;
}

/* The largest power of two dividing both a (a power of two) and v (0:
 * any power divides it). */
static uint64_t align_with(uint64_t a, uint64_t v) {
    const uint64_t low = v & (~v + 1);
    return low != 0 && low < a ? low : a;
}

/* The regular layout of a phase when its entries allow one
 * (batch_rules.h): every entry alone in the same number of blocks, or
 * every block a full group of tiny entries but the last; the operator
 * when all entries share one; dense when entry k is item k. */
static dmls_cuda_batch_layout phase_layout(const dmls_cuda_batch_plan *p, int phase) {
    const dmls_cuda_batch_entry *e = p->entries[phase];
    const uint64_t n = p->n_entries[phase], blocks = p->blocks[phase];
    dmls_cuda_batch_layout l = {0, 0, (uint32_t)n, n > 0 ? (int32_t)e[0].op : -1, 1, 0, 0, 0};
    uint64_t in_align = DMLS_CUDA_BATCH_ALIGN_CAP, out_align = DMLS_CUDA_BATCH_ALIGN_CAP;
    if (p->crops.on) { /* a crop's offset: base_offset plus multiples of each stride */
        in_align = align_with(in_align, (uint64_t)p->crops.base_offset);
        for (int k = 0; k < p->crops.rank; k++) in_align = align_with(in_align, (uint64_t)p->crops.stride_bytes[k]);
    }
    bool alone = n > 0, grouped = n > 0;
    const uint64_t per = n > 0 ? e[1].first_block - e[0].first_block : 0;
    for (uint64_t k = 0; k < n; k++) {
        if (e[k].op != e[0].op) l.op = -1;
        if (e[k].item != k) l.dense = 0;
        if (!p->crops.on) in_align = align_with(in_align, e[k].in_offset);
        out_align = align_with(out_align, e[k].out_offset);
        alone &= e[k].first_block == k * per;
        grouped &= e[k].first_block == k / DMLS_CUDA_BATCH_GROUP;
    }
    l.in_align = (uint32_t)in_align, l.out_align = (uint32_t)out_align;
    if (grouped && blocks == (n + DMLS_CUDA_BATCH_GROUP - 1) / DMLS_CUDA_BATCH_GROUP)
        l.group = DMLS_CUDA_BATCH_GROUP;
    else if (alone && per >= 1 && blocks == n * per)
        l.group = 1, l.per_entry = (uint32_t)per;
    return l;
}

/* The entries of one phase: items with work in it, by increasing block;
 * runs of tiny items grouped, up to DMLS_CUDA_BATCH_GROUP to a block. */
static dmls_status phase_entries(const dmls_batch *b, dmls_cuda_batch_plan *p, int phase) {
    dmls_cuda_batch_entry *e = malloc((b->count + 1) * sizeof *e);
    RETURN_IF(e == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "batch_prepare_cuda: out of memory");
    uint64_t tiles = 0;
    for (size_t i = 0; i < b->count; i++) {
        const dmls_cuda_batch_op *op = &p->ops[b->items[i].op];
        const uint64_t t = tiles_of(phase == 0 ? op->fill : op->copy);
        tiles = t > UINT64_MAX - tiles ? UINT64_MAX : tiles + t;
    }
    const uint64_t trips = trips_for(tiles);
    uint64_t n = 0, block = 0, grouped = 0; /* grouped: tiny entries in the open group, at block - 1 */
    for (size_t i = 0; i < b->count; i++) {
        const dmls_cuda_batch_op *op = &p->ops[b->items[i].op];
        const dmls_cuda_launch *choices = phase == 0 ? op->fill : op->copy;
        const uint64_t indices = indices_of(choices);
        if (indices == 0) continue;
        if (indices <= DMLS_CUDA_BATCH_TINY) {
            if (grouped == 0 || grouped == DMLS_CUDA_BATCH_GROUP) grouped = 0, block++; /* opens a group */
            fill_entry(b, i, block - 1, &e[n++]);
            grouped++;
            continue;
        }
        grouped = 0;
        p->tiled[phase] |= choices[0].kernel == DMLS_CUDA_TILE;
        fill_entry(b, i, block, &e[n++]);
        block += blocks_of(choices, trips); /* fits: at most 2^22 per item, items fit memory */
    }
    for (uint64_t k = 0; k < n; k++) {
        p->used_in[phase][e[k].in_base / 64] |= (uint64_t)1 << (e[k].in_base % 64);
        p->used_out[phase][e[k].out_base / 64] |= (uint64_t)1 << (e[k].out_base % 64);
    }
    e[n].first_block = block;
    e[n].item = b->count;
    p->entries[phase] = e;
    p->n_entries[phase] = n;
    p->blocks[phase] = block;
    p->layout[phase] = phase_layout(p, phase);
    return phase_map(p, phase);
}

int dmls_cuda_batch_uniform(const dmls_cuda_batch_plan *p, int phase, const uint64_t *bases) {
    const dmls_cuda_batch_layout *l = &p->layout[phase];
    if (l->op < 0 || l->group != 1) return 0;
    const dmls_cuda_launch *choices = phase == 0 ? p->ops[l->op].fill : p->ops[l->op].copy;
    if (!dmls_cuda_batch_streams(&choices[0])) return 0;
    uint64_t src = l->in_align, dst = l->out_align;
    for (int i = 0; i < p->n_bases; i++) {
        if (p->used_in[phase][i / 64] >> (i % 64) & 1) src = align_with(src, bases[i]);
        if (p->used_out[phase][i / 64] >> (i % 64) & 1) dst = align_with(dst, bases[i]);
    }
    /* An address that is exactly that alignment chooses as the least
     * aligned entry does. */
    return dmls_cuda_batch_choose(choices, src, dst) == 0;
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
    RETURN_IF((uint64_t)b->count >= UINT32_MAX, DMLS_ERROR_UNSUPPORTED, NULL,
              "batch_prepare_cuda: %llu items; a CUDA batch runs fewer than 2^32 - 1", (unsigned long long)b->count);
    p->n_bases = (int32_t)slots;
    p->n_ops = b->n_ops;
    p->ops = calloc(b->n_ops ? b->n_ops : 1, sizeof *p->ops);
    RETURN_IF(p->ops == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "batch_prepare_cuda: out of memory");
    for (size_t k = 0; k < b->n_ops; k++) {
        const dmls_cuda_state *st = dmls_cuda_state_of(b->ops[k]);
        memcpy(p->ops[k].copy, st->copy, sizeof st->copy);
        if (b->ops[k]->zero_fill) memcpy(p->ops[k].fill, st->fill, sizeof st->fill);
    }
    copy_crops(&b->crops, &p->crops);
    dmls_status s = phase_entries(b, p, 0);
    if (s == DMLS_OK) s = phase_entries(b, p, 1);
    if (s != DMLS_OK) dmls_cuda_batch_plan_free(p);
    return s;
}

void dmls_cuda_batch_plan_free(dmls_cuda_batch_plan *p) {
    free(p->ops);
    for (int phase = 0; phase < 2; phase++) free(p->entries[phase]), free(p->map[phase]);
    memset(p, 0, sizeof *p);
}
