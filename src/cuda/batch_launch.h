/* A batch on CUDA: the tables one launch runs from (built by
 * batch_prepare.c, plain C, so the tests' emulator runs the same planning
 * without a GPU), the kernel's parameter block, and the two small pieces of
 * logic the host, the emulator and the device share (which entry a block
 * belongs to; a clamped crop start), written once here for all three.
 *
 * A launch is a phase: phase 0 zero-fills the SLICE_GRAD items' outputs,
 * phase 1 runs every item's copy. Each phase has a list of entries (an item
 * and its first block, by increasing block); a block binary-searches the
 * list for its entry, then runs blocks_of_entry tiles-strided over that
 * item's launch (launch.h), chosen per item on the device from the bound
 * addresses exactly as dmls_cuda_choose does on the host. Blocks per item
 * come from its best launch's index count (a fallback with more indices
 * loops), so blocks follow bytes: one huge item and a thousand tiny ones
 * share the launch in proportion. */
#ifndef DMLS_CUDA_BATCH_LAUNCH_H
#define DMLS_CUDA_BATCH_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "dmlslice/batch_cuda.h" /* DMLS_BATCH_CUDA_MAX_SLOTS */
#include "launch.h"

#if defined(__CUDACC__)
#define DMLS_HD __host__ __device__ __forceinline__
#else
#define DMLS_HD static inline
#endif

/* Blocks one item may take in a phase: more would only add loop trips. */
#define DMLS_CUDA_BATCH_ITEM_BLOCKS ((uint64_t)1 << 22)

/* Kernel parameter blocks hold the slots' bases: a small one for the common
 * batches (split into a few, crops), a large one up to the limit. */
#define DMLS_CUDA_BATCH_FEW_SLOTS 8

/* Per distinct operator: its launches (fill used by SLICE_GRAD only). */
typedef struct dmls_cuda_batch_op {
    dmls_cuda_launch copy[DMLS_CUDA_CHOICES];
    dmls_cuda_launch fill[DMLS_CUDA_CHOICES];
} dmls_cuda_batch_op;

/* Per item. Slots index the parameter block's bases: inputs, then outputs. */
typedef struct dmls_cuda_batch_item {
    uint32_t op;
    uint32_t in_base, out_base;
    uint32_t pad_;
    uint64_t in_offset, out_offset;
} dmls_cuda_batch_item;

/* One entry of a phase: an item and the first block it owns. */
typedef struct dmls_cuda_batch_entry {
    uint64_t first_block;
    uint64_t item;
} dmls_cuda_batch_entry;

/* Crops whose starts are bound at execute (batch.h: dmls_batch_bound_crops),
 * as the kernel reads them. */
typedef struct dmls_cuda_batch_crops {
    int32_t on, rank, width, pad_;
    int64_t dim[DMLS_MAX_RANK], size[DMLS_MAX_RANK], stride_bytes[DMLS_MAX_RANK];
    int64_t base_offset;
} dmls_cuda_batch_crops;

/* The kernel's parameters, SLOTS bases wide. */
#define DMLS_CUDA_BATCH_PARAMS(SLOTS)                                                                                  \
    struct {                                                                                                           \
        const dmls_cuda_batch_op *ops;                                                                                 \
        const dmls_cuda_batch_item *items;                                                                             \
        const dmls_cuda_batch_entry *entries; /* n_entries + 1, a sentinel last */                                     \
        uint64_t n_entries;                                                                                            \
        int32_t phase;                                                                                                 \
        int32_t n_bases;                                                                                               \
        const void *starts;                                                                                            \
        dmls_cuda_batch_crops crops;                                                                                   \
        char *base[SLOTS];                                                                                             \
    }
typedef DMLS_CUDA_BATCH_PARAMS(DMLS_CUDA_BATCH_FEW_SLOTS) dmls_cuda_batch_params_few;
typedef DMLS_CUDA_BATCH_PARAMS(DMLS_BATCH_CUDA_MAX_SLOTS) dmls_cuda_batch_params_many;

/* The host's tables of a batch (batch_prepare.c). */
typedef struct dmls_cuda_batch_plan {
    size_t n_ops, n_items;
    dmls_cuda_batch_op *ops;
    dmls_cuda_batch_item *items;
    dmls_cuda_batch_entry *entries[2]; /* per phase, n_entries[p] + 1 each */
    uint64_t n_entries[2];
    uint64_t blocks[2]; /* grid size per phase (the sentinel's first_block) */
    dmls_cuda_batch_crops crops;
    int32_t n_bases;
} dmls_cuda_batch_plan;

/* The entry that owns block b: the last whose first_block <= b. */
DMLS_HD uint64_t dmls_cuda_batch_find(const dmls_cuda_batch_entry *e, uint64_t n, uint64_t b) {
    uint64_t lo = 0, hi = n; /* the first entry with first_block > b, in [1, n] */
    while (lo < hi) {
        uint64_t m = lo + (hi - lo) / 2;
        if (e[m].first_block <= b)
            lo = m + 1;
        else
            hi = m;
    }
    return lo - 1;
}

/* The input offset of crop `item` from its starts row, clamped to
 * [0, dim - size] as jax.lax.dynamic_slice does (R-CROP-BOUNDS). */
DMLS_HD int64_t dmls_cuda_batch_crop_offset(const dmls_cuda_batch_crops *c, const void *starts, uint64_t item) {
    int64_t off = c->base_offset;
    for (int k = 0; k < c->rank; k++) {
        const uint64_t at = item * (uint64_t)c->rank + (uint64_t)k;
        int64_t v = c->width == 4 ? (int64_t)((const int32_t *)starts)[at] : ((const int64_t *)starts)[at];
        const int64_t hi = c->dim[k] - c->size[k];
        v = v < 0 ? 0 : v > hi ? hi : v;
        off += v * c->stride_bytes[k];
    }
    return off;
}

/* Which of an item's launches runs for bases src and dst: dmls_cuda_choose's rule. */
DMLS_HD int dmls_cuda_batch_choose(const dmls_cuda_launch *choices, uint64_t src, uint64_t dst) {
    for (int i = 0; i < DMLS_CUDA_CHOICES - 1; i++)
        if (choices[i].src_align != 0 && src % choices[i].src_align == 0 && dst % choices[i].dst_align == 0) return i;
    return DMLS_CUDA_CHOICES - 1;
}

struct dmls_batch;

/* Builds the host tables of a batch; DMLS_ERROR_OUT_OF_MEMORY or
 * DMLS_ERROR_UNSUPPORTED (more than DMLS_BATCH_CUDA_MAX_SLOTS slots). */
dmls_status dmls_cuda_batch_plan_build(const struct dmls_batch *b, dmls_cuda_batch_plan *plan);
void dmls_cuda_batch_plan_free(dmls_cuda_batch_plan *plan);

/* kernels: enqueues phase `phase` of a prepared batch (device tables in
 * dev, the plan's sizes from host) with the bound bases; returns the CUDA
 * runtime's error code. */
int dmls_cuda_batch_enqueue(const dmls_cuda_batch_plan *host, const dmls_cuda_batch_plan *dev, int phase,
                            char *const *bases, const void *starts, void *stream);

#endif
