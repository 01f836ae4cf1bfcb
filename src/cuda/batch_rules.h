/* A batch on CUDA, what the host, the tests' emulator and the device all
 * read: the tables one launch runs from (built by batch_prepare.c, plain C,
 * so the emulator runs the same planning without a GPU), the kernel's
 * parameter block, and the small rules the three share (a block's work, a
 * launch's tile, a clamped crop start, the launch choice), written once
 * here. No .c owns this header: batch_prepare.c builds the tables,
 * batch_kernels.cu runs them, execute.c chooses single launches by the same
 * rule, and each includes it without including the others.
 *
 * A launch is a phase: phase 0 zero-fills the SLICE_GRAD items' outputs,
 * phase 1 runs every item's copy. Each phase has a list of entries (an
 * item, where its tensors lie and its first block, by increasing block) and
 * a block map (block b starts at entry map[b]): one load finds a block's
 * work, where a binary search over the entries cost a chain of dependent
 * loads per block (about ten for 1,024 items). A block either runs one
 * entry, as one of that item's blocks_of blocks striding over its launch
 * (launch.h), or, when map[b + 1] - map[b] >= 2, a group of up to
 * DMLS_CUDA_BATCH_GROUP tiny items, one warp each: a thousand tiny windows
 * take a hundred-odd blocks whose warps all start at once instead of a
 * thousand blocks of mostly idle threads. The launch is chosen per item on
 * the device from the bound addresses exactly as dmls_cuda_choose does on
 * the host. Blocks per item come from its best launch's index count (a
 * fallback with more indices loops), so blocks follow bytes: one huge item
 * and a thousand tiny ones share the launch in proportion. */
#ifndef DMLS_CUDA_BATCH_RULES_H
#define DMLS_CUDA_BATCH_RULES_H

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

/* Tiny items share a block, one warp each: an item is tiny when its best
 * launch has at most DMLS_CUDA_BATCH_TINY indices (one trip of a warp). */
#define DMLS_CUDA_BATCH_WARP  32
#define DMLS_CUDA_BATCH_GROUP (DMLS_CUDA_THREADS / DMLS_CUDA_BATCH_WARP)
#define DMLS_CUDA_BATCH_TINY  (DMLS_CUDA_BATCH_WARP * DMLS_CUDA_ILP)

/* Indices per thread per trip of a streaming launch (below): twice the
 * general ILP, so a 32 KiB page is one block's single trip. */
#define DMLS_CUDA_BATCH_STREAM_ILP 8

/* Trips per block in a large phase (batch_prepare.c): a phase of more than
 * DMLS_CUDA_BATCH_TRIPS_WAVES waves of DMLS_CUDA_BATCH_WAVE blocks (about an
 * H100's resident blocks at 4 per SM) gives each block up to
 * DMLS_CUDA_BATCH_TRIPS tiles of its item to run. */
#define DMLS_CUDA_BATCH_WAVE        512
#define DMLS_CUDA_BATCH_TRIPS_WAVES 4
#define DMLS_CUDA_BATCH_TRIPS       8

/* Blocks of the batch kernel resident per SM that its register count
 * must allow: 4 blocks of 256 threads (64 registers a thread; left alone
 * the compiler takes 80, 3 blocks) hold 528 blocks at once on an H100, so
 * 512 KV-cache pages of one streaming tile each run in one wave. */
#define DMLS_CUDA_BATCH_MIN_BLOCKS 4

/* Per distinct operator: its launches (fill used by SLICE_GRAD only). */
typedef struct dmls_cuda_batch_op {
    dmls_cuda_launch copy[DMLS_CUDA_CHOICES];
    dmls_cuda_launch fill[DMLS_CUDA_CHOICES];
} dmls_cuda_batch_op;

/* One entry of a phase: an item with work in it, where its tensors lie
 * (bases index the parameter block's: inputs, then outputs) and the first
 * block it owns (a group's items share their block). */
typedef struct dmls_cuda_batch_entry {
    uint64_t first_block;
    uint64_t item; /* the batch's item number: its row of bound crop starts */
    uint64_t in_offset, out_offset;
    uint32_t op, in_base, out_base, pad_;
} dmls_cuda_batch_entry;

/* What a block can know of its work without reading the block map or the
 * entries (batch_prepare.c: phase_layout). Each table load a block waits
 * for before its first data load costs a memory round trip (about a
 * microsecond on an H100 under load), and in a batch of one wave these add
 * up: the KV gather spent more time in its chain map -> entry -> starts ->
 * launch than in moving its pages (bench/RESULTS.md, ncu). When the
 * entries are regular, block b's entry is arithmetic, and with one
 * operator or entry k being item k, the launch and the crop starts are
 * loaded beside the entry instead of after it. */
typedef struct dmls_cuda_batch_layout {
    uint32_t group;     /* 0: read the map; 1: entry k owns blocks [k * per_entry, (k + 1) * per_entry);
                           >= 2: block b runs entries [b * group, b * group + group), one warp each */
    uint32_t per_entry; /* group 1: blocks per entry */
    uint32_t n_entries;
    int32_t op;    /* the one operator of every entry, or -1 */
    int32_t dense; /* 1: entry k is item k */
    /* Powers of two (at most DMLS_CUDA_BATCH_ALIGN_CAP) that divide every
     * entry's input offset (a crop's, whatever its starts) and output
     * offset: with the bound bases, the alignment every entry's addresses
     * share (dmls_cuda_batch_uniform). */
    uint32_t in_align, out_align;
    int32_t pad_;
} dmls_cuda_batch_layout;

/* The largest alignment a layout records: more than any launch asks. */
#define DMLS_CUDA_BATCH_ALIGN_CAP 256

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
        const dmls_cuda_batch_entry *entries; /* n_entries + 1, a sentinel last */                                     \
        const uint32_t *map;                  /* blocks + 1 */                                                         \
        dmls_cuda_batch_layout layout;                                                                                 \
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
    size_t n_ops;
    dmls_cuda_batch_op *ops;
    dmls_cuda_batch_entry *entries[2]; /* per phase, n_entries[p] + 1 each */
    uint32_t *map[2];                  /* per phase, blocks[p] + 1 each: map[b] is block b's first entry */
    dmls_cuda_batch_layout layout[2];  /* per phase */
    uint64_t n_entries[2];
    uint64_t blocks[2]; /* grid size per phase (the sentinel's first_block) */
    dmls_cuda_batch_crops crops;
    int32_t n_bases;
    int32_t tiled[2]; /* per phase, 1 when an item's best launch is a tiled copy: the launch gives it shared memory */
    /* Per phase, bit i set when some entry reads (in) or writes (out) base i. */
    uint64_t used_in[2][(DMLS_BATCH_CUDA_MAX_SLOTS + 63) / 64], used_out[2][(DMLS_BATCH_CUDA_MAX_SLOTS + 63) / 64];
} dmls_cuda_batch_plan;

/* A streaming launch: a 16-byte copy whose innermost dim is contiguous on
 * both sides, at most 2 dims: rows of whole vectors, as a split's or a
 * page's. It runs with DMLS_CUDA_BATCH_STREAM_ILP loads in flight per
 * thread and recomputes each store's address instead of holding it, so the
 * extra loads cost no registers for addresses. */
DMLS_HD int dmls_cuda_batch_streams(const dmls_cuda_launch *L) {
    return L->kernel == DMLS_CUDA_COPY && L->unit == 16 && !L->wide && L->ndim <= 2 && L->src_stride[0] == 16 &&
           L->dst_stride[0] == 16;
}

/* Indices a block covers per trip of its loop over launch L. */
DMLS_HD uint64_t dmls_cuda_batch_tile(const dmls_cuda_launch *L) {
    return (uint64_t)DMLS_CUDA_THREADS * (dmls_cuda_batch_streams(L) ? DMLS_CUDA_BATCH_STREAM_ILP : DMLS_CUDA_ILP);
}

/* A block's work: entries [*first, *first + *n); n == 1 (one entry, as
 * block *local of its *blocks) or a group of n >= 2 tiny entries. A
 * regular layout finds it by arithmetic, any other by the map (and the
 * entries' first blocks); both give the same answer for every block
 * (test_cuda_batch checks). */
DMLS_HD void dmls_cuda_batch_work(const dmls_cuda_batch_layout *l, const uint32_t *map,
                                  const dmls_cuda_batch_entry *entries, uint32_t b, uint32_t *first, uint32_t *n,
                                  uint64_t *local, uint64_t *blocks) {
    *local = 0;
    *blocks = 1;
    if (l->group >= 2) {
        const uint32_t k = b * l->group, left = l->n_entries - k;
        *first = k;
        *n = left < l->group ? left : l->group;
        return;
    }
    if (l->group == 1) {
        *first = b / l->per_entry;
        *n = 1;
        *local = b - *first * l->per_entry;
        *blocks = l->per_entry;
        return;
    }
    const uint32_t k = map[b], next = map[b + 1];
    *first = k;
    *n = next - k >= 2 ? next - k : 1;
    if (*n == 1) {
        const uint64_t start = entries[k].first_block;
        *local = b - start;
        *blocks = entries[k + 1].first_block - start;
    }
}

/* The input offset of crop `item` from its starts row, clamped to
 * [0, dim - size] as jax.lax.dynamic_slice does (R-CROP-BOUNDS). Every
 * start is loaded before any is used: on the device the row's loads then
 * wait out one memory round trip together instead of one per dim. */
DMLS_HD int64_t dmls_cuda_batch_crop_offset(const dmls_cuda_batch_crops *c, const void *starts, uint64_t item) {
    const uint64_t row = item * (uint64_t)c->rank;
    const bool narrow = c->width == 4;
    int64_t v[DMLS_MAX_RANK];
    for (int k = 0; k < DMLS_MAX_RANK; k++)
        if (k < c->rank)
            v[k] = narrow ? (int64_t)((const int32_t *)starts)[row + k] : ((const int64_t *)starts)[row + k];
    int64_t off = c->base_offset;
    for (int k = 0; k < DMLS_MAX_RANK; k++)
        if (k < c->rank) {
            const int64_t hi = c->dim[k] - c->size[k];
            off += (v[k] < 0 ? 0 : v[k] > hi ? hi : v[k]) * c->stride_bytes[k];
        }
    return off;
}

/* Which of an item's launches runs for bases src and dst: the first whose
 * alignment needs they meet (the last needs none). The one home of this
 * rule: dmls_cuda_choose (execute.c) runs single executes by it. Alignments are
 * element sizes or vector widths, powers of two, so a mask tests them (a
 * 64-bit remainder is a long out-of-line routine on the device, taken up to
 * six times per item). */
DMLS_HD int dmls_cuda_batch_choose(const dmls_cuda_launch *choices, uint64_t src, uint64_t dst) {
    for (int i = 0; i < DMLS_CUDA_CHOICES - 1; i++)
        if (choices[i].src_align != 0 && (src & (choices[i].src_align - 1)) == 0 &&
            (dst & (choices[i].dst_align - 1)) == 0)
            return i;
    return DMLS_CUDA_CHOICES - 1;
}

#endif
