/* The CPU prepare: a dmls_copy_plan (the backend-neutral contract) recast
 * for the CPU kernels, with the kernel and its ISA variant chosen once, at
 * create (prepare.c), from one table, best first. */
#ifndef DMLS_CPU_PREPARE_H
#define DMLS_CPU_PREPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "../plan/copy_plan.h"

/* 1 where this build compiles the NEON kernels (kernels_neon.c). */
#if defined(__aarch64__)
#define DMLS_CPU_NEON_KERNELS 1
#else
#define DMLS_CPU_NEON_KERNELS 0
#endif

/* 1 where this build compiles the WebAssembly SIMD128 kernels
 * (kernels_wasm_simd128.c: emscripten with -msimd128, scripts/build-wasm.sh). */
#if defined(__wasm_simd128__)
#define DMLS_CPU_SIMD128_KERNELS 1
#else
#define DMLS_CPU_SIMD128_KERNELS 0
#endif

/* The kernels, for tests that assert the choice (dmls_cpu_kernel_name). */
typedef enum dmls_cpu_kernel {
    DMLS_CPU_EMPTY = 0,            /* nothing to copy */
    DMLS_CPU_CONTIG,               /* rows contiguous on both sides: memcpy */
    DMLS_CPU_CONTIG_NT_AVX2,       /* same, streaming stores past the cache */
    DMLS_CPU_STRIDED,              /* one item of width bytes at a time, any steps */
    DMLS_CPU_SHUFFLE_AVX2,         /* packed output gathered by byte shuffles */
    DMLS_CPU_STRIDED_WIDE,         /* packed output, items of 3/5-7/9-15 bytes moved as 4/8/16 */
    DMLS_CPU_STRIDED_WIDE_AVX2,    /* packed output, items of 17-32 bytes moved as 32 */
    DMLS_CPU_REVERSE_AVX2,         /* packed output, items of 1/2/4/8 bytes at step -width */
    DMLS_CPU_STRIDE2_AVX2,         /* packed output, items of 4/8 bytes at step +-2 widths */
    DMLS_CPU_SHUFFLE3_AVX2,        /* the shuffle gather for forward steps, three loads per block */
    DMLS_CPU_REVERSE_NEON,         /* packed output, items of 1/2/4/8 bytes at step -width */
    DMLS_CPU_SHUFFLE_NEON,         /* packed output gathered by table lookups (the shuffle masks) */
    DMLS_CPU_TILED,                /* a transposed copy in line-sized blocks, item by item (copy_tiled.h) */
    DMLS_CPU_TILED_AVX2,           /* the same, sub-tiles transposed in registers */
    DMLS_CPU_TILED_NEON,           /* the same on AArch64 */
    DMLS_CPU_REVERSE_SIMD128,      /* packed output, items of 1/2/4/8 bytes at step -width (WebAssembly) */
    DMLS_CPU_SHUFFLE_SIMD128,      /* packed output gathered by swizzles (the shuffle masks; WebAssembly) */
    DMLS_CPU_TILED_SIMD128,        /* a transposed copy, sub-tiles transposed in registers (WebAssembly) */
    DMLS_CPU_DEINTERLEAVE_AVX2,    /* rows of a few items interleaved in the input (pixels to planes): shuffles */
    DMLS_CPU_DEINTERLEAVE_NEON,    /* the same on AArch64 (table lookups) */
    DMLS_CPU_DEINTERLEAVE_SIMD128, /* the same in WebAssembly (swizzles) */
    DMLS_CPU_STRIDE2_SIMD128,      /* packed output, items of 4/8 bytes at step +-2 widths (WebAssembly) */
    DMLS_CPU_KERNEL_COUNT
} dmls_cpu_kernel;

const char *dmls_cpu_kernel_name(dmls_cpu_kernel k);

struct dmls_cpu_prepared;

/* Copies `rows` rows of n items each: row r starts at src + r * row_src_step
 * and dst + r * row_dst_step (the steps of the next-outer dim; rows is 1 when
 * there is none), item steps come from the prepared copy. The executor calls
 * it once per tile of rows, so a kernel's setup and the odometer step are
 * paid per tile, not per row. */
typedef void (*dmls_cpu_rows_fn)(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                 const struct dmls_cpu_prepared *p);

/* The kernel for items of w bytes from by_width, the kernels for 1, 2, 4 and
 * 8 bytes in that order; NULL for other widths. Every kernel file picks its
 * reversals and its tiled copies so. */
static inline dmls_cpu_rows_fn dmls_cpu_pick_width(int32_t w, const dmls_cpu_rows_fn by_width[4]) {
    switch (w) {
    case 1: return by_width[0];
    case 2: return by_width[1];
    case 4: return by_width[2];
    case 8: return by_width[3];
    default: return NULL;
    }
}

/* A copy of items of `width` bytes over an N-d shape, steps in bytes:
 *   for c in shape: copy width bytes from src + src_offset + dot(c, src_step)
 *                                    to dst + dst_offset + dot(c, dst_step)
 * Built from a normalized dmls_copy_plan: when the innermost dim is a short
 * run contiguous on both sides, it is folded into the item width (an RGB
 * 2-of-3 crop becomes 2-byte items read every 3 bytes), so the row kernel
 * sees the pattern the hardware should move. */
typedef struct dmls_cpu_prepared {
    dmls_cpu_kernel kernel;
    dmls_cpu_rows_fn rows;
    bool nontemporal;
    int32_t ndim; /* >= 1 unless items == 0 */
    int32_t width;
    int64_t shape[DMLS_MAX_RANK];
    int64_t src_step[DMLS_MAX_RANK];
    int64_t dst_step[DMLS_MAX_RANK];
    int64_t src_offset, dst_offset;
    uint64_t items;                       /* product(shape) */
    uint64_t out_bytes;                   /* items * width: the bytes written */
    uint64_t traffic_bytes;               /* out_bytes + input lines read: an item costs its input
                             * step, at least its width, at most a 64-byte line */
    bool cached;                          /* traffic_bytes fits in the last-level cache (copy_tiled.h) */
    uint64_t split_grain;                 /* work is split between threads at multiples of this many items (split.h) */
    int64_t item_src_step, item_dst_step; /* steps of the innermost dim */
    int64_t row_src_step, row_dst_step;   /* steps of the next-outer dim, 0 when ndim == 1 */
    bool tiled;                           /* a transposed copy: the rows dim is the input's fast dim (copy_tiled.h) */
    bool split_cols;                      /* a tiled copy whose items run column by column (dmls_cpu_split_tiled) */
    unsigned char shuffle[2][16];         /* DMLS_CPU_SHUFFLE_AVX2 and _NEON: byte masks for the low and high load */
    int64_t shuffle_span;                 /* bytes of input one 16-byte output block reads */
    int64_t shuffle_items;                /* items in one 16-byte output block (16 / width) */
    unsigned char shuffle3[2][32];        /* DMLS_CPU_SHUFFLE3_AVX2: per-lane masks, see shuffle_masks */
    bool shuffle3_ok;                     /* the pattern suits DMLS_CPU_SHUFFLE3_AVX2 */
} dmls_cpu_prepared;

/* Prepares a normalized copy plan for the CPU using only the given
 * features, with streaming stores when its traffic_bytes reaches
 * nt_threshold (0: always, UINT64_MAX: never) and the kernel streams, and
 * `cached` where it is at most cache_bytes (features.h gives both). */
void dmls_cpu_prepare(dmls_cpu_prepared *cp, const dmls_copy_plan *plan, unsigned features, uint64_t nt_threshold,
                      uint64_t cache_bytes);

/* How a tiled copy is cut between threads. by_input_rows: its items are
 * ordered column by column within each (rows x cols) plane, so a share of
 * whole column blocks is a band of the input's rows (the output's columns)
 * and each thread reads one contiguous range of the input; otherwise by
 * whole row blocks of the output, as every other copy. prepare picks the
 * first where there are enough column blocks to share out; the developer
 * bench (bench/devbench.c) forces either, to time one against the other. */
void dmls_cpu_split_tiled(dmls_cpu_prepared *cp, bool by_input_rows);

#endif
