/* A batch prepared for a Vulkan context: its items in a few dispatches
 * instead of one each (bench/RESULTS.md, 2026-11-25 fifth session: 1,024
 * crops cost 0.29 us of GPU time and 1.1 us of recording per dispatch).
 *
 * At prepare, each item's launch is chosen as execute would for slots at
 * offsets that are multiples of 16 (the launches' alignments all divide
 * 16), and items whose launch is a walking shader or a tile (anything
 * but bytes.comp), whose output owns its 32-bit words and whose bytes fit
 * one binding are grouped by phase, shader, pipeline width and units, up
 * to the context's batch_slots input slots and as many output slots a
 * group (a split into 8 slots is one group, into 9 two). Each group is one
 * dispatch of the shader's batch form (shaders/walk.glsl, BATCH; tile.comp's
 * a tile a workgroup) over a table of their walks in device memory, with
 * each slot bound whole from its first bytes, an array of bindings a side:
 * an entry's positions are relative to its slots, and its slots are places
 * in those arrays, so the table does not depend on where the slots are
 * bound, and workgroups find their entry by its first tile. Items that do not qualify, and every item when the
 * bindings do not (dmls_vk_batch_usable), are recorded one by one as
 * before (batch.c).
 *
 * The table lives in the context's device memory, so it goes with
 * whichever of the batch and the context is destroyed first: the context
 * keeps a list of the tables made with it and frees them when it goes,
 * clearing each batch's pointer; a batch destroyed first takes its table
 * off that list. */
#include "batch_table.h"

#include <stdlib.h>
#include <string.h>

#include "../batch/batch.h"
#include "../error.h"
#include "../operator.h"

struct dmls_vk_batch {
    dmls_vulkan_context *ctx; /* the context it was prepared for */
    dmls_batch *owner;
    dmls_vk_batch *next; /* ctx->batches */
    VkDevice device;
    uint32_t workgroup, items; /* ctx's tuning then: the tiles were counted with it */
    uint32_t slots;            /* ctx's batch_slots then: the groups' slots were placed with it */
    VkBuffer table;
    VkDeviceMemory memory;
    uint64_t table_bytes;
    size_t n_groups;
    dmls_vk_group *groups;
    unsigned char *grouped; /* per item: bit `phase` set when that phase is in a group */
};

/* An item's phase as a candidate for a group: its key, its slots (a zero
 * fill's source is its output slot), its launch, its positions (bytes from
 * its slots' first bytes) and the ends of the bytes it touches there. */
typedef struct candidate {
    dmls_vk_group key;
    uint32_t in_slot, out_slot;
    size_t item;
    const dmls_vk_launch *L;
    uint64_t src, dst, items, src_hi, dst_hi;
} candidate;

/* The fields of a group's key, in the order candidates sort by. */
enum { KEY_FIELDS = 5 };
static void key_of(const dmls_vk_group *g, int64_t k[KEY_FIELDS]) {
    k[0] = g->phase, k[1] = g->shader, k[2] = g->narrow, k[3] = g->src_unit, k[4] = g->unit;
}

/* By key, then by slots, output first: a split's parts (one input slot,
 * output slots in order) fill each group's places in turn. */
static int compare(const void *pa, const void *pb) {
    const candidate *a = pa, *b = pb;
    int64_t ka[KEY_FIELDS + 2], kb[KEY_FIELDS + 2];
    key_of(&a->key, ka), key_of(&b->key, kb);
    ka[KEY_FIELDS] = a->out_slot, ka[KEY_FIELDS + 1] = a->in_slot;
    kb[KEY_FIELDS] = b->out_slot, kb[KEY_FIELDS + 1] = b->in_slot;
    for (int i = 0; i < KEY_FIELDS + 2; i++)
        if (ka[i] != kb[i]) return ka[i] < kb[i] ? -1 : 1;
    return a->item < b->item ? -1 : a->item > b->item;
}

static bool same_group(const dmls_vk_group *a, const dmls_vk_group *b) {
    int64_t ka[KEY_FIELDS], kb[KEY_FIELDS];
    key_of(a, ka), key_of(b, kb);
    return memcmp(ka, kb, sizeof ka) == 0;
}

/* What becomes of an item's phase at prepare. */
typedef enum fate { NOTHING, ALONE, GROUPED } fate;

static uint64_t gcd(uint64_t a, uint64_t b) {
    while (b != 0) {
        const uint64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

/* For crops whose starts are bound at execute: the first choice that suits
 * every start (its source alignment divides every step a start can take
 * and the source position of all-zero starts), as dmls_vk_choose does for
 * one position; the last choice reads one element and suits any. */
static const dmls_vk_launch *choose_for_crops(const dmls_batch_bound_crops *c, const dmls_vk_launch *choices,
                                              uint64_t dst, uint64_t reach) {
    uint64_t steps = 0;
    for (int k = 0; k < c->rank; k++)
        steps = gcd(steps, (uint64_t)(c->stride_bytes[k] < 0 ? -c->stride_bytes[k] : c->stride_bytes[k]));
    for (int i = 0; i < DMLS_VK_CHOICES - 1; i++) {
        const dmls_vk_launch *L = &choices[i];
        if ((uint64_t)(L->src_hi - L->src_lo) > reach) continue;
        if (steps % L->src_align == 0 && (uint64_t)(c->base_offset + L->src_offset) % L->src_align == 0 &&
            (dst + (uint64_t)L->dst_offset) % L->dst_align == 0)
            return L;
    }
    return &choices[DMLS_VK_CHOICES - 1];
}

/* Item i's phase: nothing to run, run on its own, or a candidate *c. */
static fate candidate_of(const dmls_batch *b, const dmls_vulkan_context *ctx, size_t i, int phase, candidate *c) {
    const dmls_batch_entry *e = &b->items[i];
    const dmls_vk_prepared *v = dmls_operator_prepared(b->ops[e->op], DMLS_BACKEND_VULKAN);
    if (phase == 0 && !v->zero_fill) return NOTHING;
    const bool crops = b->crops.on; /* one copy per crop, from positions its starts give at execute */
    const dmls_vk_launch *L = phase == 0 ? dmls_vk_choose(v->fill, e->out_offset, e->out_offset, dmls_vk_reach(ctx))
                              : crops    ? choose_for_crops(&b->crops, v->copy, e->out_offset, dmls_vk_reach(ctx))
                                         : dmls_vk_choose(v->copy, e->in_offset, e->out_offset, dmls_vk_reach(ctx));
    if (L->shader == DMLS_VK_NOTHING) return NOTHING;
    uint64_t off, bytes;
    dmls_batch_out_range(b, i, &off, &bytes);
    if (bytes != 0 && (off % 4 != 0 || (off + bytes) % 4 != 0)) return ALONE; /* shares a word: batch.c's barriers */
    if (L->shader == DMLS_VK_BYTES) return ALONE;
    const uint64_t items = dmls_vk_items(L);
    if (items > ctx->max_items) return ALONE;
    const int64_t src = phase == 0 ? (int64_t)e->out_offset : (int64_t)e->in_offset + L->src_offset;
    const int64_t dst = (int64_t)e->out_offset + L->dst_offset;
    int64_t slo = 0, shi = (int64_t)b->crops.in_bytes, dlo, dhi; /* a crop may lie anywhere in its input */
    if (!crops) dmls_vk_span(L, false, src, &slo, &shi);
    dmls_vk_span(L, true, dst, &dlo, &dhi);
    if (phase == 0) slo = dlo, shi = dhi;
    /* Bound from a slot's first byte rounded down to the binding alignment,
     * to a whole word: the positions must fit one binding, in 32 bits. */
    const uint64_t room = ctx->max_range > ctx->bind_align + 4 ? ctx->max_range - ctx->bind_align - 4 : 0;
    if (slo < 0 || dlo < 0 || (uint64_t)shi > room || (uint64_t)dhi > room) return ALONE;
    memset(c, 0, sizeof *c);
    c->key.phase = phase, c->key.shader = L->shader, c->key.fill = phase == 0;
    /* One item per invocation only for items smaller than a tuned tile
     * (crops): a group of larger ones (pages of a KV cache, parts of a
     * split) has the tiles to fill the device with the tuned pipeline's
     * several loads in flight per invocation (the KV gather on the H200:
     * 0.57 of the copy shader at one per invocation). narrow_below, the
     * tests' hook, lowers the bar. */
    const uint64_t wide = (uint64_t)ctx->workgroup * ctx->items;
    /* tile.comp runs a tile a workgroup whatever its pipeline's items: its
     * items, large and small, share one group of the tuned pipeline. */
    c->key.narrow = !dmls_vk_is_tile(L->shader) && items < (ctx->narrow_below < wide ? ctx->narrow_below : wide);
    c->in_slot = phase == 0 ? e->out_slot : e->in_slot, c->out_slot = e->out_slot;
    c->key.src_unit = L->src_unit, c->key.unit = L->unit;
    c->src_hi = (uint64_t)shi, c->dst_hi = (uint64_t)dhi;
    c->key.crop_base = crops ? b->crops.base_offset + L->src_offset : 0;
    c->item = i, c->L = L, c->dst = (uint64_t)dst, c->items = items;
    c->src = crops ? i * (uint64_t)L->src_unit : (uint64_t)src; /* crops: the shader's crop_position reads the number */
    return GROUPED;
}

/* Slot s's place among the n slots of a side, added where there is room
 * below cap; -1 where there is none. */
static int place_of(uint32_t *slots, uint32_t *n, uint32_t cap, uint32_t s) {
    for (uint32_t k = 0; k < *n; k++)
        if (slots[k] == s) return (int)k;
    if (*n >= cap) return -1;
    slots[*n] = s;
    return (int)(*n)++;
}

/* Places c's slots in g, both sides or neither: false where one side is
 * full (the candidate then starts a group). */
static bool place_slots(dmls_vk_group *g, const candidate *c, uint32_t cap, uint32_t *in, uint32_t *out) {
    const uint32_t n_in = g->n_in, n_out = g->n_out;
    const int i = place_of(g->in_slot, &g->n_in, cap, c->in_slot),
              o = place_of(g->out_slot, &g->n_out, cap, c->out_slot);
    if (i < 0 || o < 0) {
        g->n_in = n_in, g->n_out = n_out;
        return false;
    }
    *in = (uint32_t)i, *out = (uint32_t)o;
    return true;
}

/* The host side of the table: groups and entries from the candidates
 * (sorted). A group ends where the key changes, its tiles would pass 2^31
 * or a candidate's slots find no place. */
static dmls_status build(dmls_vk_batch *vb, const dmls_batch *b, const dmls_vulkan_context *ctx, candidate *c, size_t n,
                         dmls_vk_entry **entries) {
    qsort(c, n, sizeof *c, compare);
    *entries = calloc(n ? n : 1, sizeof **entries);
    vb->groups = calloc(n ? n : 1, sizeof *vb->groups);
    vb->grouped = calloc(b->count ? b->count : 1, 1);
    RETURN_IF(!*entries || !vb->groups || !vb->grouped, DMLS_ERROR_OUT_OF_MEMORY, NULL,
              "batch_prepare_vulkan: out of memory for the table of %zu launches", n);
    dmls_vk_group *g = NULL;
    for (size_t k = 0; k < n; k++) {
        /* A workgroup's share: a tile of tile.comp is one item. */
        const uint64_t tile =
            dmls_vk_is_tile(c[k].key.shader) ? 1 : (uint64_t)ctx->workgroup * (c[k].key.narrow ? 1 : ctx->items);
        const uint64_t tiles = (c[k].items + tile - 1) / tile;
        uint32_t in = 0, out = 0;
        if (g == NULL || !same_group(g, &c[k].key) || g->tiles + tiles > ((uint64_t)1 << 31) ||
            !place_slots(g, &c[k], ctx->batch_slots, &in, &out)) {
            g = &vb->groups[vb->n_groups++];
            *g = c[k].key;
            g->first = (uint32_t)k, g->entries = 0, g->tiles = 0, g->n_in = g->n_out = 0;
            g->per = (uint32_t)tiles;
            place_slots(g, &c[k], ctx->batch_slots, &in, &out); /* the first: room on both sides */
        }
        if (g->per != tiles) g->per = 0;
        dmls_vk_entry *en = &(*entries)[k];
        dmls_vk_walk_params(c[k].L, (uint32_t)(c[k].src / (uint64_t)c[k].L->src_unit),
                            (uint32_t)(c[k].dst / (uint64_t)c[k].L->unit), &en->w);
        en->first_tile = g->tiles, en->in_slot = in, en->out_slot = out;
        g->entries++, g->tiles += (uint32_t)tiles;
        if (c[k].src_hi > g->src_hi[in]) g->src_hi[in] = c[k].src_hi;
        if (c[k].dst_hi > g->dst_hi[out]) g->dst_hi[out] = c[k].dst_hi;
        vb->grouped[c[k].item] |= (unsigned char)(1u << c[k].key.phase);
    }
    return DMLS_OK;
}

/* A memory type of the bits allowed with the wanted properties, or -1. */
static int memory_type(const dmls_vulkan_context *ctx, uint32_t bits, VkMemoryPropertyFlags want) {
    VkPhysicalDeviceMemoryProperties m;
    vkGetPhysicalDeviceMemoryProperties(ctx->physical, &m);
    for (uint32_t t = 0; t < m.memoryTypeCount; t++)
        if ((bits >> t & 1u) && (m.memoryTypes[t].propertyFlags & want) == want) return (int)t;
    return -1;
}

static dmls_status make_buffer(const dmls_vulkan_context *ctx, uint64_t bytes, VkBufferUsageFlags usage,
                               VkMemoryPropertyFlags want, VkBuffer *buffer, VkDeviceMemory *memory) {
    const char *who = "batch_prepare_vulkan";
    VkBufferCreateInfo info = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = bytes, info.usage = usage, info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    VkResult r = vkCreateBuffer(ctx->device, &info, NULL, buffer);
    RETURN_IF(r != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "%s: vkCreateBuffer: %s", who, dmls_vk_result_name(r));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx->device, *buffer, &req);
    const int type = memory_type(ctx, req.memoryTypeBits, want);
    RETURN_IF(type < 0, DMLS_ERROR_DEVICE, NULL, "%s: no memory type with properties 0x%x for %llu bytes", who,
              (unsigned)want, (unsigned long long)bytes);
    VkMemoryAllocateInfo alloc = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size, alloc.memoryTypeIndex = (uint32_t)type;
    r = vkAllocateMemory(ctx->device, &alloc, NULL, memory);
    RETURN_IF(r != VK_SUCCESS,
              r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? DMLS_ERROR_OUT_OF_MEMORY
                                                                                     : DMLS_ERROR_DEVICE,
              NULL, "%s: vkAllocateMemory of %llu bytes: %s", who, (unsigned long long)req.size,
              dmls_vk_result_name(r));
    r = vkBindBufferMemory(ctx->device, *buffer, *memory, 0);
    RETURN_IF(r != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "%s: vkBindBufferMemory: %s", who, dmls_vk_result_name(r));
    return DMLS_OK;
}

static void free_buffer(VkDevice device, VkBuffer buffer, VkDeviceMemory memory) {
    if (buffer != VK_NULL_HANDLE) vkDestroyBuffer(device, buffer, NULL);
    if (memory != VK_NULL_HANDLE) vkFreeMemory(device, memory, NULL);
}

/* The table into device-local memory through a host-visible staging buffer. */
static dmls_status upload(dmls_vk_batch *vb, dmls_vulkan_context *ctx, const dmls_vk_entry *entries) {
    RETURN_IF_ERROR(make_buffer(ctx, vb->table_bytes,
                                VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &vb->table, &vb->memory));
    VkBuffer staging = VK_NULL_HANDLE;
    VkDeviceMemory staging_memory = VK_NULL_HANDLE;
    dmls_status s = make_buffer(ctx, vb->table_bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                                VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, &staging,
                                &staging_memory);
    void *map = NULL;
    if (s == DMLS_OK) {
        VkResult r = vkMapMemory(ctx->device, staging_memory, 0, VK_WHOLE_SIZE, 0, &map);
        if (r != VK_SUCCESS)
            s = dmls_fail(DMLS_ERROR_DEVICE, NULL, "batch_prepare_vulkan: vkMapMemory: %s", dmls_vk_result_name(r));
    }
    if (s == DMLS_OK) {
        memcpy(map, entries, (size_t)vb->table_bytes);
        vkUnmapMemory(ctx->device, staging_memory);
        s = dmls_vk_copy_buffer(ctx, "batch_prepare_vulkan", staging, 0, vb->table, 0, vb->table_bytes);
    }
    free_buffer(ctx->device, staging, staging_memory);
    return s;
}

static void free_vk_batch(dmls_vk_batch *vb) {
    if (vb == NULL) return;
    free_buffer(vb->device, vb->table, vb->memory);
    free(vb->groups);
    free(vb->grouped);
    free(vb);
}

/* Groups, pipelines and the table of b for ctx. */
static dmls_status prepare(const dmls_batch *b, dmls_vulkan_context *ctx, dmls_vk_batch **out) {
    dmls_vk_batch *vb = calloc(1, sizeof *vb);
    candidate *c = calloc(2 * b->count + 1, sizeof *c);
    dmls_vk_entry *entries = NULL;
    dmls_status s = vb && c ? DMLS_OK
                            : dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL,
                                        "batch_prepare_vulkan: out of memory grouping %zu items", b->count);
    size_t n = 0;
    if (s == DMLS_OK) {
        vb->ctx = ctx, vb->device = ctx->device, vb->workgroup = ctx->workgroup, vb->items = ctx->items;
        vb->slots = ctx->batch_slots;
        size_t alone = 0;
        for (int phase = b->has_grad ? 0 : 1; phase < 2; phase++)
            for (size_t i = 0; i < b->count; i++) {
                const fate f = candidate_of(b, ctx, i, phase, &c[n]);
                n += f == GROUPED, alone += f == ALONE;
            }
        /* Crops whose starts come at execute have no other way to run here. */
        if (b->crops.on && alone > 0)
            s = dmls_fail(DMLS_ERROR_UNSUPPORTED, NULL,
                          "batch_prepare_vulkan: %zu of these %zu crops cannot run in one dispatch (an output that "
                          "starts or ends inside a 32-bit word, or a crop beyond one binding), and crops whose "
                          "starts are bound at execute run no other way on Vulkan; make them with host starts",
                          alone, b->count);
        if (s == DMLS_OK) s = build(vb, b, ctx, c, n, &entries);
    }
    if (vb) vb->table_bytes = (uint64_t)n * sizeof(dmls_vk_entry);
    if (s == DMLS_OK && n > 0 && vb->table_bytes > ctx->max_range && b->crops.on) {
        s = dmls_fail(DMLS_ERROR_UNSUPPORTED, NULL,
                      "batch_prepare_vulkan: the table of %zu crops (%llu bytes) exceeds one binding (%llu bytes)", n,
                      (unsigned long long)vb->table_bytes, (unsigned long long)ctx->max_range);
    } else if (s == DMLS_OK && n > 0 && vb->table_bytes > ctx->max_range) { /* one binding holds the table: else none */
        vb->n_groups = 0;
        memset(vb->grouped, 0, b->count ? b->count : 1);
    } else if (s == DMLS_OK && n > 0) {
        dmls_mutex_lock(&ctx->lock);
        for (size_t g = 0; s == DMLS_OK && g < vb->n_groups; g++)
            s = dmls_vk_batch_pipeline(ctx, vb->groups[g].shader, vb->groups[g].narrow);
        dmls_mutex_unlock(&ctx->lock);
        if (s == DMLS_OK) s = upload(vb, ctx, entries);
    }
    free(c);
    free(entries);
    if (s != DMLS_OK) {
        free_vk_batch(vb);
        return s;
    }
    *out = vb;
    return DMLS_OK;
}

dmls_status dmls_batch_prepare_vulkan(dmls_batch *b, dmls_vulkan_context *ctx) {
    const char *who = "batch_prepare_vulkan";
    dmls_clear_error();
    RETURN_IF(b == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "%s: batch is NULL", who);
    RETURN_IF(ctx == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "%s: Vulkan context is NULL", who);
    dmls_mutex_lock(&b->device_lock);
    dmls_status s = DMLS_OK;
    const dmls_vk_batch *had = atomic_load_explicit(&b->device[DMLS_BACKEND_VULKAN], memory_order_relaxed);
    if (had != NULL && had->ctx != ctx) {
        s = dmls_fail(DMLS_ERROR_INVALID_ARGUMENT, NULL,
                      "%s: the batch is prepared for another Vulkan context; a batch serves one", who);
    } else if (had == NULL) {
        dmls_vk_batch *vb = NULL;
        s = prepare(b, ctx, &vb);
        if (s == DMLS_OK) {
            vb->owner = b;
            dmls_mutex_lock(&ctx->lock);
            vb->next = ctx->batches, ctx->batches = vb;
            dmls_mutex_unlock(&ctx->lock);
            atomic_store_explicit(&b->device[DMLS_BACKEND_VULKAN], vb, memory_order_release);
        }
    }
    dmls_mutex_unlock(&b->device_lock);
    return s;
}

void dmls_vk_batch_release(dmls_batch *b) {
    dmls_vk_batch *vb = atomic_exchange_explicit(&b->device[DMLS_BACKEND_VULKAN], NULL, memory_order_acquire);
    if (vb == NULL) return; /* never prepared, or its context is gone and took the table */
    dmls_mutex_lock(&vb->ctx->lock);
    for (dmls_vk_batch **at = &vb->ctx->batches; *at != NULL; at = &(*at)->next)
        if (*at == vb) {
            *at = vb->next;
            break;
        }
    dmls_mutex_unlock(&vb->ctx->lock);
    free_vk_batch(vb);
}

void dmls_vk_batches_release(dmls_vulkan_context *ctx) {
    for (dmls_vk_batch *vb = ctx->batches, *next; vb != NULL; vb = next) {
        next = vb->next;
        atomic_store_explicit(&vb->owner->device[DMLS_BACKEND_VULKAN], NULL, memory_order_release);
        free_vk_batch(vb);
    }
    ctx->batches = NULL;
}

const dmls_vk_batch *dmls_vk_batch_usable(const dmls_batch *b, const dmls_vulkan_context *ctx,
                                          const dmls_vulkan_binding *in, const dmls_vulkan_binding *out) {
    const dmls_vk_batch *vb = atomic_load_explicit(&b->device[DMLS_BACKEND_VULKAN], memory_order_acquire);
    if (vb == NULL || vb->ctx != ctx || ctx->workgroup != vb->workgroup || ctx->items != vb->items ||
        ctx->batch_slots != vb->slots)
        return NULL;
    if (ctx->bind_align > 256) return NULL; /* a slot's shift is a byte (launch.h); Vulkan's bound */
    for (uint32_t s = 0; s < b->in_slots; s++)
        if (in[s].offset % 16 != 0) return NULL;
    for (uint32_t s = 0; s < b->out_slots; s++)
        if (out[s].offset % 16 != 0) return NULL;
    for (size_t g = 0; g < vb->n_groups; g++) /* dmls_vk_tune rebuilds without them */
        if (ctx->batch_pipelines[vb->groups[g].narrow][vb->groups[g].shader] == VK_NULL_HANDLE) return NULL;
    return vb;
}

bool dmls_vk_batch_grouped(const dmls_vk_batch *vb, size_t i, int phase) { return vb->grouped[i] >> phase & 1u; }

/* The bindings of one side of group g: place k's slot (its binding from
 * the slot's first byte, rounded down to the device's alignment, to the
 * end of the bytes its entries touch), its shift packed into shifts, and
 * every place past the group's slots the first's again (the shader's
 * array is read only at the places its entries name, but each must hold a
 * buffer). */
static void side_bindings(const dmls_vulkan_context *ctx, const dmls_vulkan_binding *slots, const uint32_t *slot,
                          const uint64_t *hi, uint32_t n, uint32_t places, uint32_t unit, VkDescriptorBufferInfo *bi,
                          uint32_t *shifts) {
    for (uint32_t k = 0; k < places; k++) {
        if (k >= n) {
            bi[k] = bi[0];
            continue;
        }
        const dmls_vulkan_binding *v = &slots[slot[k]];
        uint64_t start, range;
        dmls_vk_binding_range(ctx, (int64_t)v->offset, (int64_t)(v->offset + hi[k]), &start, &range);
        bi[k] = (VkDescriptorBufferInfo){v->buffer, start, range};
        shifts[k / 4] |= (uint32_t)((v->offset - start) / unit) << (k % 4 * 8);
    }
}

/* Pushes both sides' arrays of `places` bindings (0 and 1), the table (2)
 * and the crops' starts (3). */
static void push_group(const dmls_vulkan_context *ctx, VkCommandBuffer cmd, const VkDescriptorBufferInfo *src,
                       const VkDescriptorBufferInfo *dst, const VkDescriptorBufferInfo *table_and_starts,
                       uint32_t places) {
    const VkDescriptorBufferInfo *infos[4] = {src, dst, &table_and_starts[0], &table_and_starts[1]};
    VkWriteDescriptorSet w[4];
    memset(w, 0, sizeof w);
    for (uint32_t i = 0; i < 4; i++) {
        w[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
        w[i].dstBinding = i, w[i].descriptorCount = i < 2 ? places : 1;
        w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w[i].pBufferInfo = infos[i];
    }
    ctx->push_descriptors(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->batch_layout, 0, 4, w);
}

/* Crops whose starts are bound at execute: where the shader finds them. */
static void crop_push(const dmls_vk_batch *vb, const dmls_vulkan_context *ctx, const dmls_vk_group *g,
                      const dmls_vulkan_binding *in, VkDescriptorBufferInfo *starts, dmls_vk_batch_push *p) {
    const dmls_batch_bound_crops *c = &vb->owner->crops;
    const dmls_vulkan_binding *st = &in[1];
    uint64_t t0, tn;
    dmls_vk_binding_range(ctx, (int64_t)st->offset, (int64_t)(st->offset + vb->owner->slots[1].need_bytes), &t0, &tn);
    *starts = (VkDescriptorBufferInfo){st->buffer, t0, tn};
    p->rank = (uint32_t)c->rank, p->wide = c->width == 8, p->src_unit = (uint32_t)g->src_unit;
    p->starts_shift = (uint32_t)((st->offset - t0) / 4), p->base = (uint32_t)g->crop_base;
    for (int k = 0; k < c->rank; k++) {
        p->limit[k] = (uint32_t)(c->dim[k] - c->size[k]);
        p->stride[k] = (uint32_t)(uint64_t)c->stride_bytes[k]; /* negative: wraps, as the shader does */
    }
}

int dmls_vk_batch_record_groups(const dmls_vk_batch *vb, const dmls_vulkan_context *ctx, VkCommandBuffer cmd,
                                const dmls_vulkan_binding *in, const dmls_vulkan_binding *out, int phase) {
    const uint32_t places = dmls_vk_batch_bindings(ctx);
    int n = 0;
    for (size_t k = 0; k < vb->n_groups; k++) {
        const dmls_vk_group *g = &vb->groups[k];
        if (g->phase != phase) continue;
        dmls_vk_batch_push p;
        memset(&p, 0, sizeof p);
        p.first = g->first, p.entries = g->entries, p.tiles = g->tiles;
        p.per = g->per;
        if (g->per != 0) dmls_vk_magic(g->per, &p.per_magic, &p.per_shift);
        VkDescriptorBufferInfo src[DMLS_VK_BATCH_SLOTS], dst[DMLS_VK_BATCH_SLOTS];
        side_bindings(ctx, g->fill ? out : in, g->in_slot, g->src_hi, g->n_in, places, (uint32_t)g->src_unit, src,
                      p.src_shifts);
        side_bindings(ctx, out, g->out_slot, g->dst_hi, g->n_out, places, (uint32_t)g->unit, dst, p.dst_shifts);
        /* Binding 3, the crops' starts: the table again where there are none. */
        VkDescriptorBufferInfo table_and_starts[2] = {{vb->table, 0, vb->table_bytes}, {vb->table, 0, vb->table_bytes}};
        if (vb->owner->crops.on && !g->fill) crop_push(vb, ctx, g, in, &table_and_starts[1], &p);
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, ctx->batch_pipelines[g->narrow][g->shader]);
        push_group(ctx, cmd, src, dst, table_and_starts, places);
        vkCmdPushConstants(cmd, ctx->batch_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof p, &p);
        /* tile.comp runs ctx->tiles of its tiles a workgroup. */
        const uint32_t per = dmls_vk_is_tile(g->shader) ? ctx->tiles : 1, groups = (g->tiles + per - 1) / per;
        vkCmdDispatch(cmd, groups < ctx->max_groups ? groups : ctx->max_groups, 1, 1);
        n++;
    }
    return n;
}
