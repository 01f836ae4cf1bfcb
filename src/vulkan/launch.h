/* The Vulkan backend's internals: the launches prepared once per operator
 * (prepare.c, plain C, no Vulkan header) and what execute.c and the tests
 * share. The shaders (the .comp files under shaders/) read dmls_vk_walk or
 * dmls_vk_params as push constants. */
#ifndef DMLS_VULKAN_INTERNAL_H
#define DMLS_VULKAN_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "../plan/copy_plan.h"

struct dmls_operator;

#define DMLS_VK_MAX_DIMS DMLS_MAX_RANK
#define DMLS_VK_FILL     1u /* dmls_vk_params.flags: write zeros, read nothing */
#define DMLS_VK_WALK_FILL 16u /* dmls_vk_walk.info: the same for the walking shaders */

/* The shader tuning, chosen at pipeline creation through specialization
 * constants (context.h: dmls_vk_tune): invocations per workgroup, and
 * items per invocation in the walking shaders (all their loads are issued
 * before their stores, so that each invocation keeps that many in flight).
 * The defaults are the H100 sweep's choice (bench/RESULTS.md, 2026-11-24:
 * the best geometric mean over the canonical cases of 23 tunings). */
#define DMLS_VK_DEFAULT_WORKGROUP 64
#define DMLS_VK_DEFAULT_ITEMS     8
#define DMLS_VK_MAX_ITEMS         16
/* Shader variants (context.h: variant; gather.comp: VARIANT), a bit each,
 * none by default until the H100 says otherwise: gathers of 1- and 2-byte
 * elements sharing a loaded word between neighbouring elements. */
#define DMLS_VK_VARIANT_GATHER_SHARE 1u
/* A dispatch of fewer items than this many tiles (workgroup x items) runs
 * the walking shaders at 1 item per invocation instead, so that it still
 * spreads over the whole device (col_i64: 8,192 items; the H100 sweep). */
#define DMLS_VK_NARROW_TILES 256

/* The pipelines (pipelines.c builds one per entry). */
typedef enum dmls_vk_shader {
    DMLS_VK_NOTHING = -1,  /* count 0: nothing to record */
    DMLS_VK_UNITS4 = 0,    /* units.comp over uint: one 4-byte unit per item, any strides */
    DMLS_VK_UNITS8 = 1,    /* units.comp over uvec2 */
    DMLS_VK_UNITS16 = 2,   /* units.comp over uvec4 */
    DMLS_VK_REVERSE1 = 3,  /* reverse.comp: 16 bytes of a reversed run per item, 1-byte elements */
    DMLS_VK_REVERSE2 = 4,  /* ... 2-byte elements */
    DMLS_VK_REVERSE4 = 5,  /* ... 4-byte elements */
    DMLS_VK_REVERSE8 = 6,  /* ... 8-byte elements */
    DMLS_VK_GATHER16 = 7,  /* gather.comp over uvec4: 16 output bytes per item; +0..3 for 1/2/4/8-byte elements */
    DMLS_VK_GATHER4 = 11,  /* gather.comp over uint: one output word per item; +0..1 for 1/2-byte elements */
    DMLS_VK_BYTES = 13,    /* bytes.comp: one output word per item, any element size and position */
    DMLS_VK_TILE1 = 14,    /* tile.comp: a transposed copy, a tile per item; +0..3 for 1/2/4/8-byte elements,
                            * +4 * (DMLS_VK_TILE_LOAD16 | DMLS_VK_TILE_STORE16) for its 16-byte sides */
    DMLS_VK_SHADERS = 30
} dmls_vk_shader;

/* tile.comp's tile, its one home (pipelines.c passes both to the shader as
 * specialization constants): DMLS_VK_TILE_A elements of A (the output's
 * fast dim) by DMLS_VK_TILE_ROW input bytes of B (the input's), so that the
 * shared array (64 rows of 33 words, 8.25 KiB) stays within the 16 KiB
 * every device has. The 16-byte store needs TILE_A * esize / 16 >= 8 (the
 * shader's groups of 8 vectors along A for 8-byte elements). */
#define DMLS_VK_TILE_A   64
#define DMLS_VK_TILE_ROW 128
#define DMLS_VK_TILE_LOAD16  1 /* the load phase moves 16-byte vectors along B */
#define DMLS_VK_TILE_STORE16 2 /* the store phase moves 16-byte vectors along A */
/* Tiles a workgroup of tile.comp runs at once (ctx->tiles), each in its
 * own shared array of DMLS_VK_TILE_BYTES, and the invocations that run
 * them. The default, one tile of 128 invocations (8 vectors an invocation
 * each way in two rounds), was the fastest shape timed on the H200
 * (bench/RESULTS.md, 2026-11-28 fourth session): 0.92-0.95 of the copy
 * shader against 0.63-0.71 for CUDA's block (2 tiles of 256) and 0.71-0.81
 * for 1 of 64. DMLSLICE_VK_TILES=tiles,invocations forces another
 * (pipelines.c), so that a bench can time them in one run. */
#define DMLS_VK_TILE_BYTES (DMLS_VK_TILE_A * (DMLS_VK_TILE_ROW + 4))
#define DMLS_VK_MAX_TILES  4
#define DMLS_VK_TILES_DEFAULT 1
#define DMLS_VK_TILES_DEFAULT_WORKGROUP 128
static inline int64_t dmls_vk_tile_a(int64_t esize) { return (void)esize, DMLS_VK_TILE_A; }
static inline int64_t dmls_vk_tile_b(int64_t esize) { return DMLS_VK_TILE_ROW / esize; }
static inline bool dmls_vk_is_tile(int32_t shader) { return shader >= DMLS_VK_TILE1 && shader < DMLS_VK_TILE1 + 16; }

/* One dispatch's worth of work before it is bound: dims innermost first,
 * strides and offsets in bytes (from the bound offsets). */
typedef struct dmls_vk_launch {
    int32_t shader;     /* dmls_vk_shader */
    int32_t unit;       /* bytes each item writes; the element size for bytes.comp */
    int32_t esize;      /* bytes per element */
    int32_t ndim;       /* 1..DMLS_VK_MAX_DIMS */
    int32_t fill;       /* 1: zero fill, the source unused */
    int32_t src_unit;   /* the source position's unit in the shader: unit, or 1 (bytes) for a gather */
    uint32_t src_align; /* the bound source and destination positions must be multiples of these */
    uint32_t dst_align;
    int64_t shape[DMLS_VK_MAX_DIMS];
    int64_t src_stride[DMLS_VK_MAX_DIMS];
    int64_t dst_stride[DMLS_VK_MAX_DIMS];
    /* What one item reads around its source position: [src_lo, src_hi)
     * bytes (a unit; a gather's pattern of elements; for a tile, the span
     * of a whole tile on either side, which dmls_vk_choose weighs against
     * a binding). */
    int64_t src_lo, src_hi;
    int64_t src_offset, dst_offset;
    /* Gather: the k elements of an item lie at (j / run) * row + (j % run)
     * * step bytes from its position, j < k (one inner row: run = k).
     * Tile: run and step are the extents of A and B in elements (the
     * items are tiles, dims 0 and 1 the tiles along A and B), row unused. */
    int64_t run, step, row;
    /* Fast division by shape[i] for the walking shaders, (mulhi(n, magic)
     * + n) >> shift, exact for n < 2^31 (dmls_vk_magic). */
    uint32_t magic[DMLS_VK_MAX_DIMS];
    uint32_t shift[DMLS_VK_MAX_DIMS];
} dmls_vk_launch;

/* Launches per plan, best first: a vector-wide family where the layout
 * allows (wide units, reversal, gather), one element per item (units of 4
 * or 8 bytes), then bytes.comp, which any binding can run. Execute takes
 * the first whose alignments the bound positions meet. */
#define DMLS_VK_CHOICES 3

typedef struct dmls_vk_prepared {
    bool zero_fill;
    dmls_vk_launch fill[DMLS_VK_CHOICES];
    dmls_vk_launch copy[DMLS_VK_CHOICES];
} dmls_vk_prepared;

/* The push constants of bytes.comp (shaders/params.glsl, field for field). */
typedef struct dmls_vk_params {
    uint32_t count, ndim, flags, esize, src_base, dst_base;
    uint32_t shape[DMLS_VK_MAX_DIMS];
    uint32_t src_stride[DMLS_VK_MAX_DIMS];
    uint32_t dst_stride[DMLS_VK_MAX_DIMS];
} dmls_vk_params;

/* The push constants of the walking shaders (shaders/walk.glsl, field for
 * field), 128 bytes, the least every device allows. An item's positions
 * are src_base + sum(q[k] * src_step[k]) with q[0] the item's index and
 * q[k] = q[k-1] / shape[k-1]: the coordinates' strides folded into steps
 * (step[k] = stride[k] - shape[k-1] * stride[k-1]), so no shape is needed
 * beside each level's multiplier. */
typedef struct dmls_vk_walk {
    uint32_t count;
    uint32_t info; /* ndim | DMLS_VK_WALK_FILL */
    uint32_t src_base, dst_base;
    uint32_t shifts[2]; /* shift of level k (1..7) in byte (k-1) % 4 of shifts[(k-1) / 4] */
    uint32_t magic[DMLS_VK_MAX_DIMS - 1];
    uint32_t src_step[DMLS_VK_MAX_DIMS];
    uint32_t dst_step[DMLS_VK_MAX_DIMS];
    uint32_t run, step, row_step; /* gather: run, step and row - run * step, in bytes */
} dmls_vk_walk;

/* The slots a batch dispatch binds on each side in the shaders' multi-slot
 * form (shaders/walk.glsl, SLOTS: an array of storage buffers a side, each
 * indexed by a constant in a switch on the entry's slot), so that a split
 * into up to this many output slots is one dispatch: 2 * 8 + 2 storage
 * buffers a dispatch, within the 32 push descriptors every device with
 * VK_KHR_push_descriptor takes, and the slots' shifts packed a byte each
 * into the 128 bytes of push constants (dmls_vk_batch_push). A device
 * with fewer storage buffers a stage runs the single-slot form
 * (context.h: batch_slots). */
#define DMLS_VK_BATCH_SLOTS 8

/* A batch's table entry (shaders/walk.glsl, Entry; src/vulkan/batch_table.c):
 * one launch's walk, its positions relative to its slots' first bytes, the
 * first of its tiles among its dispatch's, and its slots' places among the
 * dispatch's bindings (0 .. DMLS_VK_BATCH_SLOTS - 1 on each side). */
typedef struct dmls_vk_entry {
    dmls_vk_walk w;
    uint32_t first_tile;
    uint32_t in_slot, out_slot;
} dmls_vk_entry;

/* A batch dispatch's push constants (walk.glsl, Batch): its entries
 * [first, first + entries), their tiles, and where each bound slot starts
 * in its binding, in the shader's units (below 256: a binding starts at
 * its slot's offset rounded down to minStorageBufferOffsetAlignment, at
 * most 256), slot k's in byte k % 4 of word k / 4; for crops whose starts are bound
 * at execute, how to find each crop's source position from its starts;
 * when every entry has as many tiles (per, else 0), the divisor that finds
 * a tile's entry without searching the table (dmls_vk_magic's). */
typedef struct dmls_vk_batch_push {
    uint32_t first, entries, tiles;
    uint32_t src_shifts[DMLS_VK_BATCH_SLOTS / 4], dst_shifts[DMLS_VK_BATCH_SLOTS / 4];
    uint32_t rank, wide, src_unit, starts_shift, base;
    uint32_t per, per_magic, per_shift;
    uint32_t limit[DMLS_VK_MAX_DIMS];
    uint32_t stride[DMLS_VK_MAX_DIMS];
} dmls_vk_batch_push;

/* Prepares op's launches into *prepared (allocated; NULL when there is no
 * memory: DMLS_ERROR_OUT_OF_MEMORY). The backend table's prepare and destroy
 * prepare: dmls_vulkan_backend (backend.c) names it. */
dmls_status dmls_vulkan_prepare(const struct dmls_operator *op, void **prepared);
void dmls_vulkan_destroy(void *prepared);

/* The multiplier and shift that divide by d (1 <= d <= 2^31) every n below
 * 2^31 as (mulhi32(n, magic) + n) >> shift. */
void dmls_vk_magic(uint64_t d, uint32_t *magic, uint32_t *shift);

/* The launch execute runs for element positions src and dst (absolute byte
 * offsets in their buffers): the first choice whose alignments they meet
 * and whose items each read at most `reach` bytes (what one binding holds:
 * a gather's pattern may span more; the last choice reads one element). */
const dmls_vk_launch *dmls_vk_choose(const dmls_vk_launch *choices, uint64_t src, uint64_t dst, uint64_t reach);

/* The byte span [lo, hi) a launch touches on one side, from its first
 * element's position pos (strides may be negative on the source side). */
void dmls_vk_span(const dmls_vk_launch *L, bool dst_side, int64_t pos, int64_t *lo, int64_t *hi);

/* Items of a launch: the product of its shape. */
uint64_t dmls_vk_items(const dmls_vk_launch *L);

#endif
