/* The binding checks of a batch execute (every backend runs them first):
 * what a single execute checks, per slot instead of per item, since create
 * gathered each slot's needs (batch.c), and R-B-OVERLAP across slots where
 * they are bound.
 *
 * A slot's binding is a place (bindings.h): an address, or an offset into
 * a buffer that is a space of its own (Vulkan); bytes are shared only
 * within one space. Overlap in O(n log n): slots whose spans (the hull of
 * their items' ranges) are disjoint cannot share a byte, so the slots'
 * spans are sorted and swept first; only a pair of slots of one space whose
 * spans meet is checked item by item, each range of one slot binary-searched
 * among the other's (an output slot's items are sorted by offset and
 * disjoint, from create). Nothing is allocated unless a batch has more than
 * STACK_SLOTS slots (the CUDA path never has: DMLS_BATCH_CUDA_MAX_SLOTS). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "error.h"

#define STACK_SLOTS 128

/* ------------------------------------------------------------ item ranges */

/* Here, beside the checks that read them most, and not in batch.c, which
 * calls this file: no cycle of calls between the batch files. */
void dmls_batch_in_range(const dmls_batch *b, size_t item, uint64_t *offset, uint64_t *bytes) {
    if (b->crops.on) { /* the start is known only at execute: any crop may read any of the input */
        *offset = 0;
        *bytes = b->crops.in_bytes;
        return;
    }
    *offset = b->items[item].in_offset;
    *bytes = b->ops[b->items[item].op]->needs.in_bytes;
}

void dmls_batch_out_range(const dmls_batch *b, size_t item, uint64_t *offset, uint64_t *bytes) {
    *offset = b->items[item].out_offset;
    *bytes = b->ops[b->items[item].op]->needs.out_bytes;
}

/* ------------------------------------------------------------ bound starts */

int64_t dmls_batch_read_start(const void *starts, dmls_starts_type type, size_t at) {
    if (type == DMLS_STARTS_INT32) {
        int32_t v;
        memcpy(&v, (const unsigned char *)starts + at * 4, 4);
        return v;
    }
    int64_t v;
    memcpy(&v, (const unsigned char *)starts + at * 8, 8);
    return v;
}

uint64_t dmls_batch_crop_offset(const dmls_batch_bound_crops *c, const void *starts, size_t item) {
    int64_t off = c->base_offset;
    for (int k = 0; k < c->rank; k++) {
        int64_t v = dmls_batch_read_start(starts, (dmls_starts_type)c->width, item * (size_t)c->rank + (size_t)k);
        const int64_t hi = c->dim[k] - c->size[k];
        v = v < 0 ? 0 : v > hi ? hi : v; /* jax.lax.dynamic_slice's clamp (R-CROP-BOUNDS) */
        off += v * c->stride_bytes[k];   /* fits: an element of the validated input */
    }
    return (uint64_t)off;
}

/* A bound slot's span in its space. */
typedef struct span {
    uint64_t space;
    uint64_t lo, hi; /* absolute starts in the space */
    uint32_t slot;   /* index into b->slots */
} span;

static int by_lo(const void *a, const void *b) {
    const span *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void range_of(const dmls_batch *b, uint32_t s, size_t item, uint64_t *off, uint64_t *bytes) {
    if (s < b->in_slots)
        dmls_batch_in_range(b, item, off, bytes);
    else
        dmls_batch_out_range(b, item, off, bytes);
}

/* "0x1000" for an address, "offset 0x1000" for a start inside a buffer. */
static const char *start_word(const dmls_batch_places *pl) { return pl->words->offsets ? "offset " : ""; }

/* Items of output slot o against those of slot x (another slot), at bases
 * ob and xb: the first shared byte is an error naming both items. */
static dmls_status items_apart(const dmls_batch *b, const dmls_batch_places *pl, uint32_t o, uint64_t ob, uint32_t x,
                               uint64_t xb) {
    const dmls_batch_slot *so = &b->slots[o], *sx = &b->slots[x];
    for (size_t k = 0; k < sx->n; k++) {
        const size_t j = b->order[sx->first + k];
        uint64_t off, bytes;
        range_of(b, x, j, &off, &bytes);
        const uint64_t lo = xb + off, hi = lo + bytes;
        /* The first output range of o that ends after lo. */
        size_t a = 0, z = so->n;
        while (a < z) {
            size_t m = a + (z - a) / 2;
            uint64_t mo, mb;
            dmls_batch_out_range(b, b->order[so->first + m], &mo, &mb);
            if (ob + mo + mb <= lo)
                a = m + 1;
            else
                z = m;
        }
        if (a == so->n) continue;
        const size_t i = b->order[so->first + a];
        uint64_t io, ib;
        dmls_batch_out_range(b, i, &io, &ib);
        const bool is_in = x < b->in_slots;
        RETURN_IF(ob + io < hi, DMLS_ERROR_OVERLAP, "R-B-OVERLAP",
                  "batch item %zu: output bytes [%s%#" PRIx64 ", +%" PRIu64 ") (output slot %" PRIu32
                  ") overlap item %zu's %s bytes [%s%#" PRIx64 ", +%" PRIu64 ") (%s slot %" PRIu32 ")",
                  i, start_word(pl), ob + io, ib, o - b->in_slots, j, is_in ? "input" : "output", start_word(pl), lo,
                  bytes, is_in ? "input" : "output", is_in ? x : x - b->in_slots);
    }
    return DMLS_OK;
}

/* Every output span against the spans before it in order of start that
 * reach into it (outputs sorted by lo; all sorted by lo with prefix maxima
 * of hi in pm): only pairs in one space are checked item by item. */
static dmls_status sweep(const dmls_batch *b, const dmls_batch_places *pl, const span *outs, size_t n_out,
                         const span *all, const uint64_t *pm, size_t n_all) {
    for (size_t k = 0; k < n_out; k++) {
        const span *o = &outs[k];
        /* Spans that start below o's end: all[0 .. z). */
        size_t a = 0, z = n_all;
        while (a < z) {
            size_t m = a + (z - a) / 2;
            if (all[m].lo < o->hi)
                a = m + 1;
            else
                z = m;
        }
        for (size_t j = a; j-- > 0 && pm[j] > o->lo;) {
            if (all[j].hi <= o->lo || all[j].slot == o->slot || all[j].space != o->space) continue;
            RETURN_IF_ERROR(items_apart(b, pl, o->slot, o->lo - b->slots[o->slot].lo, all[j].slot,
                                        pl->slot[all[j].slot].at));
        }
    }
    return DMLS_OK;
}

/* R-B-OVERLAP across slots. spans has room for 2 * slots entries, pm for slots. */
static dmls_status slots_apart(const dmls_batch *b, const dmls_batch_places *pl, span *spans, uint64_t *pm) {
    const uint32_t slots = b->in_slots + b->out_slots;
    size_t n_all = 0, n_out = 0;
    span *all = spans, *outs = spans + slots;
    for (uint32_t s = 0; s < slots; s++) {
        const dmls_batch_slot *sl = &b->slots[s];
        if (sl->n == 0) continue;
        const uint64_t base = pl->slot[s].at;
        span sp = {pl->slot[s].space, base + sl->lo, base + sl->hi, s};
        all[n_all++] = sp;
        if (s >= b->in_slots) outs[n_out++] = sp;
    }
    if (n_out == 0) return DMLS_OK;
    qsort(all, n_all, sizeof *all, by_lo);
    for (size_t j = 0; j < n_all; j++) pm[j] = j == 0 || all[j].hi > pm[j - 1] ? all[j].hi : pm[j - 1];
    return sweep(b, pl, outs, n_out, all, pm, n_all);
}

/* One slot's binding: bound where it holds bytes, big enough, aligned,
 * and its end inside its space. */
static dmls_status check_slot(const char *who, const dmls_batch *b, const dmls_batch_places *pl, uint32_t s) {
    const dmls_batch_slot *sl = &b->slots[s];
    const dmls_place *p = &pl->slot[s];
    const bool is_in = s < b->in_slots;
    const char *kind = is_in ? "input" : "output";
    const uint32_t k = is_in ? s : s - b->in_slots;
    RETURN_IF(!p->bound && sl->need_bytes > 0, DMLS_ERROR_INVALID_ARGUMENT, "R-OP-NULL",
              "%s: item %zu: %s slot %" PRIu32 " is %s but the item needs %" PRIu64 " bytes of it", who,
              sl->need_item, kind, k, pl->words->null_word, sl->need_bytes);
    RETURN_IF(p->bytes < sl->need_bytes, DMLS_ERROR_BUFFER_TOO_SMALL, "R-X-BOUNDS",
              "%s: item %zu: %s slot %" PRIu32 " holds %" PRIu64 " bytes but the item needs %" PRIu64, who,
              sl->need_item, kind, k, p->bytes, sl->need_bytes);
    RETURN_IF(sl->align > 1 && p->at % sl->align != 0, DMLS_ERROR_MISALIGNED, "R-X-ALIGN",
              "%s: item %zu: %s slot %" PRIu32 " %s %#" PRIx64 " is not a multiple of %" PRIu64, who, sl->align_item,
              kind, k, pl->words->offsets ? "offset" : "address", p->at, sl->align);
    RETURN_IF(p->at > UINT64_MAX - sl->need_bytes, DMLS_ERROR_OUT_OF_BOUNDS, "R-X-BOUNDS",
              "%s: item %zu: %s slot %" PRIu32 " at %s%#" PRIx64 " runs past the end of the %s", who, sl->need_item,
              kind, k, start_word(pl), p->at, pl->words->offsets ? "64-bit offsets" : "address space");
    return DMLS_OK;
}

/* Bound crop starts (input slot 1) are read while the outputs are written:
 * they must not share a byte with output slot 0's crops, which tile its
 * span from the slot's offset 0 (crop i at i times the crop's bytes), so
 * that span is [at, at + hi). */
static dmls_status starts_apart(const char *who, const dmls_batch *b, const dmls_batch_places *pl) {
    const dmls_batch_slot *o = &b->slots[b->in_slots], *st = &b->slots[1];
    const dmls_place *sp = &pl->slot[1], *op = &pl->slot[b->in_slots];
    if (o->n == 0 || st->need_bytes == 0 || sp->space != op->space) return DMLS_OK;
    const uint64_t s_lo = sp->at, s_hi = s_lo + st->need_bytes;
    const uint64_t o_lo = op->at, o_hi = op->at + o->hi;
    RETURN_IF(s_lo < o_hi && o_lo < s_hi, DMLS_ERROR_OVERLAP, "R-B-OVERLAP",
              "%s: the crops' output bytes [%s%#" PRIx64 ", +%" PRIu64 ") overlap their starts [%s%#" PRIx64
              ", +%" PRIu64 ") (input slot 1)",
              who, start_word(pl), o_lo, o_hi - o_lo, start_word(pl), s_lo, st->need_bytes);
    return DMLS_OK;
}

dmls_status dmls_batch_check_counts(const char *who, const dmls_batch *b, bool has_inputs, uint32_t n_inputs,
                                    bool has_outputs, uint32_t n_outputs) {
    RETURN_IF(b == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "%s: batch is NULL", who);
    RETURN_IF(n_inputs != b->in_slots || n_outputs != b->out_slots, DMLS_ERROR_INVALID_ARGUMENT, "R-B-ITEM",
              "%s: %" PRIu32 " inputs and %" PRIu32 " outputs bound, but the batch has %" PRIu32
              " input slots and %" PRIu32 " output slots",
              who, n_inputs, n_outputs, b->in_slots, b->out_slots);
    RETURN_IF((!has_inputs && n_inputs > 0) || (!has_outputs && n_outputs > 0), DMLS_ERROR_INVALID_ARGUMENT,
              "R-OP-NULL", "%s: the %s array is NULL", who, !has_inputs && n_inputs > 0 ? "inputs" : "outputs");
    return DMLS_OK;
}

dmls_status dmls_batch_check_places(const char *who, const dmls_batch *b, const dmls_batch_places *pl) {
    const size_t slots = (size_t)b->in_slots + b->out_slots;
    for (uint32_t s = 0; s < slots; s++) RETURN_IF_ERROR(check_slot(who, b, pl, s));
    span stack_spans[2 * STACK_SLOTS];
    uint64_t stack_pm[STACK_SLOTS];
    span *spans = stack_spans;
    uint64_t *pm = stack_pm;
    if (slots > STACK_SLOTS) {
        spans = malloc(2 * slots * sizeof *spans);
        pm = malloc(slots * sizeof *pm);
        if (spans == NULL || pm == NULL) {
            free(spans);
            free(pm);
            return dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "%s: out of memory checking %zu slots", who, slots);
        }
    }
    dmls_status s = slots_apart(b, pl, spans, pm);
    if (spans != stack_spans) free(spans), free(pm);
    if (s == DMLS_OK && b->crops.on) s = starts_apart(who, b, pl);
    return s;
}

dmls_status dmls_batch_check_bound(const char *who, const dmls_batch *b, const void *inputs, uint32_t n_inputs,
                                   const void *outputs, uint32_t n_outputs, dmls_batch_place_of place_of,
                                   const dmls_place_words *words) {
    RETURN_IF_ERROR(dmls_batch_check_counts(who, b, inputs != NULL, n_inputs, outputs != NULL, n_outputs));
    const size_t slots = (size_t)b->in_slots + b->out_slots;
    dmls_place stack_places[STACK_SLOTS];
    dmls_place *places = slots > STACK_SLOTS ? malloc(slots * sizeof *places) : stack_places;
    RETURN_IF(places == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "%s: out of memory checking %zu slots", who, slots);
    for (size_t s = 0; s < slots; s++) places[s] = place_of(b, inputs, outputs, s);
    const dmls_batch_places pl = {places, words};
    dmls_status s = dmls_batch_check_places(who, b, &pl);
    if (places != stack_places) free(places);
    return s;
}

/* One address space: every binding is comparable with every other. */
static dmls_place pointer_place(const dmls_batch *b, const void *inputs, const void *outputs, size_t s) {
    const dmls_batch_input *in = inputs;
    const dmls_batch_output *out = outputs;
    const void *data = s < b->in_slots ? in[s].data : out[s - b->in_slots].data;
    const uint64_t bytes = s < b->in_slots ? in[s].bytes : out[s - b->in_slots].bytes;
    return (dmls_place){0, (uint64_t)(uintptr_t)data, bytes, data != NULL};
}

dmls_status dmls_batch_check_bindings(const char *who, const dmls_batch *b, const dmls_batch_input *inputs,
                                      uint32_t n_inputs, const dmls_batch_output *outputs, uint32_t n_outputs) {
    dmls_clear_error();
    return dmls_batch_check_bound(who, b, inputs, n_inputs, outputs, n_outputs, pointer_place, &dmls_pointer_words);
}
