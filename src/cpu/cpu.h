/* The CPU backend's own plan: a dmls_copy_plan (the backend-neutral contract)
 * recast for CPU kernels, with the kernel and ISA variant chosen once, at
 * create, and cached here. Also the feature detection and the thread pool. */
#ifndef DMLS_CPU_H
#define DMLS_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dmlslice/dmlslice.h"

struct dmls_copy_plan;
struct dmls_cpu_plan;

/* ISA features a kernel variant may use. */
enum {
    DMLS_CPU_AVX2 = 1u << 0,
    DMLS_CPU_NEON = 1u << 1, /* AArch64 Advanced SIMD (ASIMD) */
};

/* 1 where this build compiles the NEON kernels (kernels_neon.c). */
#if defined(__aarch64__)
#define DMLS_CPU_NEON_KERNELS 1
#else
#define DMLS_CPU_NEON_KERNELS 0
#endif

/* The features of this CPU, minus those named in DMLSLICE_DISABLE_CPU_FEATURES
 * (comma-separated: "avx2", "neon", or "all"). Detected once per process,
 * from the system (CPUID on x86, the auxiliary vector on Linux AArch64). */
unsigned dmls_cpu_features(void);

/* Memory traffic in bytes (see dmls_cpu_plan.traffic_bytes) from which
 * kernels use non-temporal stores: the last-level cache. A copy that moves
 * more than the cache holds keeps nothing of its output cached for the next
 * call, and writing around the cache saves each line's read for ownership. */
uint64_t dmls_cpu_nontemporal_threshold(void);

/* The kernels, for tests that assert the dispatch (dmls_cpu_kernel_name). */
typedef enum dmls_cpu_kernel {
    DMLS_CPU_EMPTY = 0,      /* nothing to copy */
    DMLS_CPU_CONTIG,         /* rows contiguous on both sides: memcpy */
    DMLS_CPU_CONTIG_NT_AVX2, /* same, streaming stores past the cache */
    DMLS_CPU_STRIDED,        /* one item of width bytes at a time, any steps */
    DMLS_CPU_SHUFFLE_AVX2,   /* packed output gathered by byte shuffles */
    DMLS_CPU_STRIDED_WIDE,   /* packed output, items of 3/5-7/9-15 bytes moved as 4/8/16 */
    DMLS_CPU_STRIDED_WIDE_AVX2, /* packed output, items of 17-32 bytes moved as 32 */
    DMLS_CPU_REVERSE_AVX2,   /* packed output, items of 1/2/4/8 bytes at step -width */
    DMLS_CPU_STRIDE2_AVX2,   /* packed output, items of 4/8 bytes at step +-2 widths */
    DMLS_CPU_SHUFFLE3_AVX2,  /* the shuffle gather for forward steps, three loads per block */
    DMLS_CPU_REVERSE_NEON,   /* packed output, items of 1/2/4/8 bytes at step -width */
    DMLS_CPU_SHUFFLE_NEON,   /* packed output gathered by table lookups (the shuffle masks) */
    DMLS_CPU_KERNEL_COUNT
} dmls_cpu_kernel;

const char *dmls_cpu_kernel_name(dmls_cpu_kernel k);

/* Copies `rows` rows of n items each: row r starts at src + r * row_src_step
 * and dst + r * row_dst_step (the steps of the next-outer dim; rows is 1 when
 * there is none), item steps come from the plan. The executor calls it once
 * per tile of rows, so a kernel's setup and the odometer step are paid per
 * tile, not per row. */
typedef void (*dmls_cpu_rows_fn)(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                 const struct dmls_cpu_plan *p);

/* A copy of items of `width` bytes over an N-d shape, steps in bytes:
 *   for c in shape: copy width bytes from src + src_offset + dot(c, src_step)
 *                                    to dst + dst_offset + dot(c, dst_step)
 * Built from a normalized dmls_copy_plan: when the innermost dim is a short
 * run contiguous on both sides, it is folded into the item width (an RGB
 * 2-of-3 crop becomes 2-byte items read every 3 bytes), so the row kernel
 * sees the pattern the hardware should move. */
typedef struct dmls_cpu_plan {
    dmls_cpu_kernel kernel;
    dmls_cpu_rows_fn rows;
    bool nontemporal;
    int32_t ndim; /* >= 1 unless items == 0 */
    int32_t width;
    int64_t shape[DMLS_MAX_RANK];
    int64_t src_step[DMLS_MAX_RANK];
    int64_t dst_step[DMLS_MAX_RANK];
    int64_t src_offset, dst_offset;
    uint64_t items;       /* product(shape) */
    uint64_t out_bytes;   /* items * width: the bytes written */
    uint64_t traffic_bytes; /* out_bytes + input lines read: an item costs its input
                             * step, at least its width, at most a 64-byte line */
    uint64_t split_grain; /* work is split between threads at multiples of this many items */
    int64_t item_src_step, item_dst_step; /* steps of the innermost dim */
    int64_t row_src_step, row_dst_step;   /* steps of the next-outer dim, 0 when ndim == 1 */
    unsigned char shuffle[2][16]; /* DMLS_CPU_SHUFFLE_AVX2 and _NEON: byte masks for the low and high load */
    int64_t shuffle_span;         /* bytes of input one 16-byte output block reads */
    int64_t shuffle_items;        /* items in one 16-byte output block (16 / width) */
    unsigned char shuffle3[2][32]; /* DMLS_CPU_SHUFFLE3_AVX2: per-lane masks, see shuffle_masks */
    bool shuffle3_ok;              /* the pattern suits DMLS_CPU_SHUFFLE3_AVX2 */
} dmls_cpu_plan;

/* Builds a CPU plan for a normalized copy plan using only the given features,
 * with streaming stores when its traffic_bytes reaches nt_threshold (0:
 * always, UINT64_MAX: never). */
void dmls_cpu_plan_build(dmls_cpu_plan *cp, const struct dmls_copy_plan *plan, unsigned features,
                         uint64_t nt_threshold);

/* Copies items [first, last) (row-major over the plan's shape). */
void dmls_cpu_run_range(const dmls_cpu_plan *cp, const void *src_base, void *dst_base,
                        uint64_t first, uint64_t last);

/* Kernel variants compiled for AVX2, in kernels_avx2.c. */
void dmls_cpu_rows_contig_nt_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                  const dmls_cpu_plan *p);
void dmls_cpu_rows_shuffle_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                const dmls_cpu_plan *p);
void dmls_cpu_rows_shuffle3_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                 const dmls_cpu_plan *p);
void dmls_cpu_rows_wide32_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                               const dmls_cpu_plan *p);
/* Reversal (step -w, w = 1/2/4/8) or stride +-2 (w = 4/8) into packed rows;
 * NULL for other items and steps. */
dmls_cpu_rows_fn dmls_cpu_pick_permute_avx2(int32_t w, int64_t ss);
void dmls_cpu_store_fence(void);

#if DMLS_CPU_NEON_KERNELS
/* Kernel variants for AArch64's NEON, in kernels_neon.c. */
/* Reversal (step -w, w = 1/2/4/8) into packed rows; NULL for other items and steps. */
dmls_cpu_rows_fn dmls_cpu_pick_reverse_neon(int32_t w, int64_t ss);
/* Packed rows gathered with the masks of DMLS_CPU_SHUFFLE_AVX2 (shuffle,
 * shuffle_span, shuffle_items), 16 output bytes per step. */
void dmls_cpu_rows_shuffle_neon(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                const dmls_cpu_plan *p);
#endif

/* A persistent pool of worker threads; the caller is one of its threads. */
typedef struct dmls_pool dmls_pool;

/* Starts threads - 1 workers. NULL on failure (threads >= 1). */
dmls_pool *dmls_pool_create(int threads);
void dmls_pool_destroy(dmls_pool *pool);
int dmls_pool_threads(const dmls_pool *pool);

/* Runs fn(arg, i) for i in [0, tasks), tasks <= threads, task 0 on the caller
 * and task i on worker i; returns when all are done. One caller at a time. */
void dmls_pool_run(dmls_pool *pool, void (*fn)(void *arg, int task), void *arg, int tasks);

/* Test hook: copies that move at least this many bytes (output plus input
 * lines read) are cut between a context's threads (default 512 KiB; 0 cuts
 * every copy). */
void dmls_context_set_parallel_min_bytes(dmls_context *ctx, uint64_t bytes);

#endif
