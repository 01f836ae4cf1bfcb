/* The CUDA launch set: the launches of the CUDA backend, derived from a
 * normalized copy plan once, at create time (prepare.c), so that execute
 * (run.c) only checks the binding and launches. Plain C, without any CUDA
 * header: backend.c and the tests include it in C files. */
#ifndef DMLS_CUDA_LAUNCH_H
#define DMLS_CUDA_LAUNCH_H

#include <stdint.h>

#include "../plan/copy_plan.h"
#include "../operator.h"
#include "dmlslice/dmlslice.h"

/* The block tile, shared by prepare.c (grid sizes) and kernels.cu (the
 * loops): DMLS_CUDA_THREADS threads per block, each handling DMLS_CUDA_ILP
 * indices per tile, which keeps several loads in flight. */
#define DMLS_CUDA_THREADS 256
#define DMLS_CUDA_ILP 4

/* Which kernel family runs a launch. */
typedef enum dmls_cuda_kernel {
    DMLS_CUDA_NOTHING = 0, /* count 0: no launch */
    DMLS_CUDA_COPY = 1,    /* one unit of `unit` bytes per index, any strides */
    DMLS_CUDA_GATHER = 2,  /* `vec` contiguous output bytes per index from `vec / unit` scalar loads */
    DMLS_CUDA_REVERSE = 3, /* `vec` output bytes from one `vec`-byte load, elements reversed */
    DMLS_CUDA_MEMSET = 4,  /* zero fill of one contiguous byte range: cudaMemsetAsync */
    DMLS_CUDA_FILL = 5,    /* zero fill of `unit`-byte units, any strides */
    DMLS_CUDA_TILE = 6     /* a transposed copy, one shared-memory tile per index (below) */
} dmls_cuda_kernel;

/* A tiled copy (DMLS_CUDA_TILE), for a plan with a tile dim (copy_plan.h):
 * the output's fast dim A (dst stride `unit`, the element size) and the
 * input's fast dim B go through shared memory a tile of DMLS_CUDA_TILE_A x
 * (DMLS_CUDA_TILE_ROW / unit) elements at a time, so both sides read and
 * write whole lines. Each index of the launch is one tile: its dims are the
 * tile grid, innermost first (tiles along A, tiles along B, then the other
 * dims), strides the bytes between tile origins. The tile's own geometry
 * lies in `pattern` (DMLS_CUDA_TILE_* below, 32-bit: a plan whose values do
 * not fit gets no tiled launch). `vec` holds the access widths, 16 or the
 * element size: loads in its low byte, stores in the next. */
#define DMLS_CUDA_TILE_A   128 /* elements of A per tile */
#define DMLS_CUDA_TILE_ROW 128 /* bytes of B per tile row */
enum {
    DMLS_CUDA_TILE_NA = 0, /* pattern[]: the extent of A */
    DMLS_CUDA_TILE_NB = 1, /* the extent of B */
    DMLS_CUDA_TILE_SA = 2, /* src bytes per step of A */
    DMLS_CUDA_TILE_SB = 3, /* src bytes per step of B */
    DMLS_CUDA_TILE_DB = 4  /* dst bytes per step of B (A's is unit) */
};

/* Most output elements one GATHER index covers (16 bytes of 1-byte elements). */
#define DMLS_CUDA_MAX_GATHER 16

/* A copy plan's dims plus one: the byte-wise fallback splits each element into
 * its bytes, which adds an innermost dim. */
#define DMLS_CUDA_MAX_DIMS (DMLS_MAX_RANK + 1)

/* Launches per copy plan, best first: vectorized, natural (one element per
 * index), byte-wise (any address). */
#define DMLS_CUDA_CHOICES 3

/* One launch. Dims are stored innermost first (dim 0 is the fastest), unlike
 * dmls_copy_plan, because the kernels peel coordinates from the inside out. */
typedef struct dmls_cuda_launch {
    int32_t kernel;   /* dmls_cuda_kernel */
    int32_t unit;     /* bytes per loaded element: 1, 2, 4, 8 or 16 */
    int32_t vec;      /* GATHER/REVERSE: bytes stored per index (8 or 16); TILE: widths (above) */
    int32_t ndim;     /* 1..DMLS_MAX_RANK (a single element is ndim 1, shape 1) */
    int32_t wide;     /* 1: 64-bit index path (count >= 2^31) */
    int32_t compact;    /* 1: launched from its compact form (dmls_cuda_compact) */
    uint32_t src_align, dst_align; /* the bound bases must be multiples of these; 0 = unusable */
    uint64_t count;   /* indices to run */
    uint64_t blocks;  /* grid size */
    int64_t src_offset, dst_offset; /* bytes from the bound bases */
    int64_t shape[DMLS_CUDA_MAX_DIMS];
    int64_t src_stride[DMLS_CUDA_MAX_DIMS]; /* bytes per index step of each dim */
    int64_t dst_stride[DMLS_CUDA_MAX_DIMS];
    /* Fast division by shape[i] (i >= 1 never divides the outermost dim):
     * q = (umulhi(n, magic) + n) >> shift, exact for n < 2^31 (32-bit path,
     * low word of magic) or n < 2^63 (64-bit path). */
    uint64_t magic[DMLS_CUDA_MAX_DIMS];
    uint32_t shift[DMLS_CUDA_MAX_DIMS];
    int32_t pattern[DMLS_CUDA_MAX_GATHER]; /* GATHER: byte offset of each loaded element */
} dmls_cuda_launch;

/* Most dims of a compact launch. */
#define DMLS_CUDA_COMPACT_DIMS 4

/* The compact form of a launch that indexes in 32 bits (count < 2^31), has
 * at most DMLS_CUDA_COMPACT_DIMS dims and byte strides that fit in 32 bits:
 * the same kernel bodies read it instead of dmls_cuda_launch, so a launch
 * passes 156 parameter bytes instead of 472 (the driver copies them on
 * every launch). No offsets: execute adds them to the bound bases. Dims are
 * innermost first, as in dmls_cuda_launch. */
typedef struct dmls_cuda_compact {
    uint32_t count;
    uint32_t ndim;                               /* 1..DMLS_CUDA_COMPACT_DIMS */
    uint32_t shape[DMLS_CUDA_COMPACT_DIMS];
    uint32_t magic[DMLS_CUDA_COMPACT_DIMS];        /* the 32-bit multipliers */
    int32_t src_stride[DMLS_CUDA_COMPACT_DIMS];    /* bytes */
    int32_t dst_stride[DMLS_CUDA_COMPACT_DIMS];
    uint8_t shift[DMLS_CUDA_COMPACT_DIMS];
    int32_t pattern[DMLS_CUDA_MAX_GATHER];       /* GATHER only */
} dmls_cuda_compact;

/* The launch set, everything execute needs: for each copy plan, the launches best first; execute
 * takes the first whose alignment the bound bases meet (the last one needs
 * none). fill is used for SLICE_GRAD only. fill_compact[i] and
 * copy_compact[i] are the compact forms of fill[i] and copy[i], valid where
 * that launch's compact is 1. */
typedef struct dmls_cuda_state {
    dmls_cuda_launch fill[DMLS_CUDA_CHOICES];
    dmls_cuda_launch copy[DMLS_CUDA_CHOICES];
    dmls_cuda_compact fill_compact[DMLS_CUDA_CHOICES];
    dmls_cuda_compact copy_compact[DMLS_CUDA_CHOICES];
} dmls_cuda_state;

/* The CUDA backend's data in op (backend.c made it at create). */
static inline const dmls_cuda_state *dmls_cuda_state_of(const dmls_operator *op) {
    return (const dmls_cuda_state *)dmls_operator_prepared(op, DMLS_BACKEND_CUDA);
}

/* Builds the launch set of a copy, and of its zero fill when fill is not
 * NULL (SLICE_GRAD; else state->fill is all zeros). */
void dmls_cuda_prepare(dmls_cuda_state *state, const dmls_copy_plan *copy, const dmls_copy_plan *fill);

/* The index of the launch execute runs for bound bases src and dst: the
 * first whose alignment needs they meet (dmls_cuda_batch_choose in
 * batch_rules.h; tests and the bench ask it which launch ran). */
int dmls_cuda_choose(const dmls_cuda_launch *choices, const void *src, const void *dst);

/* Entry points of kernels.cu (C linkage, internal). */

/* Enqueues launch L on stream with the bound bases src and dst: from its
 * compact form S when S is not NULL, else from L itself. Returns the CUDA
 * runtime's error code (0 = success); a failed launch's error is cleared
 * from the runtime's last-error state. */
int dmls_cuda_enqueue(const dmls_cuda_launch *L, const dmls_cuda_compact *S, const void *src, void *dst,
                      void *stream);

/* An empty kernel, one block of one thread, launched on stream as
 * dmls_cuda_enqueue launches (cudaLaunchKernel): which 0 takes no
 * parameters, 1 the compact kernels' (pointers and a zeroed
 * dmls_cuda_compact), 2 the general kernels' (pointers and a zeroed
 * dmls_cuda_launch). Returns the CUDA runtime's error code; *param_bytes
 * (may be NULL) gets the parameter bytes. For dmlslice bench --device cuda:
 * the floor under an execute. */
int dmls_cuda_probe(int which, void *stream, int *param_bytes);

#endif
