/* A batch prepared for a Vulkan context (dmls_batch_prepare_vulkan,
 * batch_table.c): its items grouped into a few dispatches, each running one
 * walking shader over a table of launches in device memory, and what
 * batch.c asks of it when it records. */
#ifndef DMLS_VULKAN_BATCH_TABLE_H
#define DMLS_VULKAN_BATCH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "context.h"
#include "dmlslice/batch_vulkan.h"

struct dmls_batch;

/* One dispatch: entries [first, first + entries) of the table, all of one
 * shader and phase (0: SLICE_GRAD's zero fills, 1: the copies), between
 * n_in input slots and n_out output slots (at most the context's
 * batch_slots each), in_slot[k] bound at place k of the source's array of
 * bindings and out_slot[k] of the destination's (a zero fill's source
 * slots are output slots, its own). src_hi[k] and dst_hi[k]: the end of
 * the bytes its entries touch in the slot at place k, from its first byte. */
typedef struct dmls_vk_group {
    int32_t shader, phase;
    bool narrow; /* the 1-item-per-invocation pipeline */
    bool fill;
    uint32_t n_in, n_out;
    uint32_t in_slot[DMLS_VK_BATCH_SLOTS], out_slot[DMLS_VK_BATCH_SLOTS];
    int32_t src_unit, unit;
    uint32_t first, entries, tiles;
    uint32_t per; /* the tiles of each entry when all have as many (crops, pages, a split's parts); else 0 */
    uint64_t src_hi[DMLS_VK_BATCH_SLOTS], dst_hi[DMLS_VK_BATCH_SLOTS];
    int64_t crop_base; /* crops with bound starts: the source position (bytes) of all-zero starts */
} dmls_vk_group;

typedef struct dmls_vk_batch dmls_vk_batch;

/* The batch's table for ctx, if it has one and these bindings let it run
 * (crops whose starts are bound at execute run no other way):
 * every slot's offset a multiple of 16 (so that the items' word ownership
 * and launch choices made at prepare hold) and ctx still tuned and built as
 * it was then. NULL: record every item on its own. */
const dmls_vk_batch *dmls_vk_batch_usable(const struct dmls_batch *b, const dmls_vulkan_context *ctx,
                                          const dmls_vulkan_binding *in, const dmls_vulkan_binding *out);

/* Whether item i's phase runs in one of vb's dispatches. */
bool dmls_vk_batch_grouped(const dmls_vk_batch *vb, size_t i, int phase);

/* Records vb's dispatches of phase (no barrier between them: their items'
 * outputs own their words); returns how many. */
int dmls_vk_batch_record_groups(const dmls_vk_batch *vb, const dmls_vulkan_context *ctx, VkCommandBuffer cmd,
                                const dmls_vulkan_binding *in, const dmls_vulkan_binding *out, int phase);

/* The backend table's release_batch (backend.c): frees the batch's table,
 * if its context has not already. */
void dmls_vk_batch_release(struct dmls_batch *b);

/* At dmls_vulkan_context_destroy: frees the tables of every batch prepared
 * with ctx (they hold ctx's device memory), which then run unprepared. */
void dmls_vk_batches_release(dmls_vulkan_context *ctx);

#endif
