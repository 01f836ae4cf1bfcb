/* The inside of a dmls_batch (include/dmlslice/batch.h): the per-item table
 * packed at create (batch.c), the per-slot needs the binding checks read
 * (batch_bind.c), the CPU's work prefix (cpu/batch_run.c) and the GPU
 * backends' device copies (cuda/batch_launch.c, vulkan/batch_table.c).
 * Immutable after create, except those copies, each added under
 * device_lock by its backend's prepare call and freed by its
 * release_batch (backend.h). */
#ifndef DMLS_BATCH_H
#define DMLS_BATCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "bindings.h"
#include "dmlslice/batch.h"
#include "operator.h"
#include "platform/platform.h"

/* One item, packed: its distinct operator and where its tensors lie. */
typedef struct dmls_batch_entry {
    uint32_t op; /* index into dmls_batch.ops */
    uint32_t in_slot, out_slot;
    uint64_t in_offset, out_offset;
} dmls_batch_entry;

/* What a bound slot must offer, and the items behind each need (for
 * messages). order[first .. first + n) lists the slot's items with a
 * non-empty range, by increasing offset (for an output slot those ranges are
 * disjoint, checked at create). lo/hi: the span of those ranges. */
typedef struct dmls_batch_slot {
    uint64_t need_bytes;
    size_t need_item;
    uint64_t align; /* the base must be a multiple of this (1: any) */
    size_t align_item;
    uint64_t lo, hi;
    size_t first, n;
} dmls_batch_slot;

/* Crops whose starts are bound at execute (input slot 1), clamped to
 * [0, dim - size] (R-CROP-BOUNDS). The crop operator reads the window's
 * region through a view at offset 0; each item's input offset is
 * base_offset + sum_k clamp(start[i][k]) * stride_bytes[k]. */
typedef struct dmls_batch_bound_crops {
    bool on;
    int32_t rank;
    int32_t width; /* bytes per start: 4 or 8 */
    int64_t dim[DMLS_MAX_RANK], size[DMLS_MAX_RANK], stride_bytes[DMLS_MAX_RANK];
    int64_t base_offset;
    uint64_t in_bytes; /* the whole input's bytes: each item's input range for R-B-OVERLAP */
} dmls_batch_bound_crops;

struct dmls_batch {
    size_t count;
    dmls_batch_entry *items;
    size_t n_ops;
    const dmls_operator **ops; /* the distinct operators of the items */
    dmls_operator **owned;     /* operators the batch made (split, crops): destroyed with it */
    size_t n_owned;
    uint32_t in_slots, out_slots;
    dmls_batch_slot *slots; /* in_slots input slots, then out_slots output slots */
    size_t *order;          /* item lists of the slots, see dmls_batch_slot */
    /* CPU: work[i] is the memory traffic of items before i (cost of item i:
     * work[i + 1] - work[i] = cost_unit[i] * its elements); work[count] is the total. */
    uint64_t *work;
    dmls_batch_bound_crops crops;
    bool has_grad; /* some item is a SLICE_GRAD: zero fills run first */
    dmls_mutex device_lock;
    _Atomic(void *) device[DMLS_BACKEND_COUNT]; /* a backend's device copy, NULL until prepared */
};

/* An item's input and output byte ranges within their slots. */
void dmls_batch_in_range(const dmls_batch *b, size_t item, uint64_t *offset, uint64_t *bytes);
void dmls_batch_out_range(const dmls_batch *b, size_t item, uint64_t *offset, uint64_t *bytes);

/* Builds a batch. owned (malloc'd, n_owned operators the caller made for
 * the items, e.g. split and crops; may be NULL) now belongs to the batch:
 * freed with it, or at once on failure. */
dmls_status dmls_batch_build(const dmls_batch_item *items, size_t count, uint32_t in_slots, uint32_t out_slots,
                             dmls_operator **owned, size_t n_owned, const dmls_batch_bound_crops *crops,
                             dmls_batch **out);

/* The binding checks every batch executor runs before writing anything
 * (batch_bind.c): slot counts, NULLs, sizes, alignment, and R-B-OVERLAP
 * across slots at the bound addresses. who names the call ("batch_execute"). */
dmls_status dmls_batch_check_bindings(const char *who, const dmls_batch *b, const dmls_batch_input *inputs,
                                      uint32_t n_inputs, const dmls_batch_output *outputs, uint32_t n_outputs);

/* The slots' bindings as the checks see them (bindings.h's places: for
 * executors whose bindings are not addresses of one space), in_slots
 * inputs then out_slots outputs, and how the messages name them. */
typedef struct dmls_batch_places {
    const dmls_place *slot;
    const dmls_place_words *words;
} dmls_batch_places;

/* The binding arrays' counts and presence: b not NULL, n_inputs and
 * n_outputs its slot counts (R-B-ITEM), neither array NULL while it has
 * slots (R-OP-NULL; has_* say whether each is). */
dmls_status dmls_batch_check_counts(const char *who, const dmls_batch *b, bool has_inputs, uint32_t n_inputs,
                                    bool has_outputs, uint32_t n_outputs);

/* dmls_batch_check_bindings on places (after dmls_batch_check_counts). */
dmls_status dmls_batch_check_places(const char *who, const dmls_batch *b, const dmls_batch_places *places);

/* The place of slot s (b's in_slots inputs, then its outputs) in an
 * executor's own binding arrays. */
typedef dmls_place (*dmls_batch_place_of)(const dmls_batch *b, const void *inputs, const void *outputs, size_t s);

/* dmls_batch_check_counts, then dmls_batch_check_places on every slot's
 * place_of: the checks of each executor's binding type, words naming them. */
dmls_status dmls_batch_check_bound(const char *who, const dmls_batch *b, const void *inputs, uint32_t n_inputs,
                                   const void *outputs, uint32_t n_outputs, dmls_batch_place_of place_of,
                                   const dmls_place_words *words);

/* Start `at` of a starts array of type (unaligned reads). */
int64_t dmls_batch_read_start(const void *starts, dmls_starts_type type, size_t at);

/* The input offset of a bound-starts crop item: its starts row read from
 * starts (n * rank integers of crops->width bytes) and clamped. */
uint64_t dmls_batch_crop_offset(const dmls_batch_bound_crops *crops, const void *starts, size_t item);

/* Fills b->work (the CPU's work prefix, by each item's memory traffic):
 * the CPU backend's prepare_batch (backend.h; cpu/batch_run.c, which owns
 * the traffic figures). */
dmls_status dmls_cpu_batch_work(dmls_batch *b);

#endif
