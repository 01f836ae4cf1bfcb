/* The CPU row kernels: the portable ones, one file each (copy_contiguous.c,
 * copy_strided.c, copy_wide.c), the AVX2 variants (kernels_avx2.c), the NEON
 * ones (kernels_neon.c) and the WebAssembly SIMD ones
 * (kernels_wasm_simd128.c). prepare.c picks one per copy; execute.c calls it. */
#ifndef DMLS_CPU_KERNELS_H
#define DMLS_CPU_KERNELS_H

#include "copy_contiguous.h"
#include "copy_strided.h"
#include "copy_wide.h"
#include "prepare.h"

/* The kernel for items of w bytes from by_width, the kernels for 1, 2, 4 and
 * 8 bytes in that order; NULL for other widths. Every ISA's file picks its
 * reversals so (kernels_avx2.c, kernels_neon.c, kernels_wasm_simd128.c). */
static inline dmls_cpu_rows_fn dmls_cpu_pick_width(int32_t w, const dmls_cpu_rows_fn by_width[4]) {
    switch (w) {
    case 1: return by_width[0];
    case 2: return by_width[1];
    case 4: return by_width[2];
    case 8: return by_width[3];
    default: return NULL;
    }
}

#if defined(__x86_64__) || defined(__i386__)
void dmls_cpu_rows_contig_nt_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                  const dmls_cpu_prepared *p);
void dmls_cpu_rows_shuffle_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                const dmls_cpu_prepared *p);
void dmls_cpu_rows_shuffle3_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                 const dmls_cpu_prepared *p);
void dmls_cpu_rows_wide32_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                               const dmls_cpu_prepared *p);
/* Reversal (step -w, w = 1/2/4/8) or stride +-2 (w = 4/8) into packed rows;
 * NULL for other items and steps. */
dmls_cpu_rows_fn dmls_cpu_pick_permute_avx2(int32_t w, int64_t ss);
/* Orders streaming stores before the output is read. */
void dmls_cpu_store_fence(void);
#endif

#if DMLS_CPU_NEON_KERNELS
/* Reversal (step -w, w = 1/2/4/8) into packed rows; NULL for other items and steps. */
dmls_cpu_rows_fn dmls_cpu_pick_reverse_neon(int32_t w, int64_t ss);
/* Packed rows gathered with the shuffle masks of prepare.c (shuffle,
 * shuffle_span, shuffle_items), 16 output bytes per step. */
void dmls_cpu_rows_shuffle_neon(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                const dmls_cpu_prepared *p);
#endif

#if DMLS_CPU_SIMD128_KERNELS
/* Reversal (step -w, w = 1/2/4/8) into packed rows; NULL for other items and steps. */
dmls_cpu_rows_fn dmls_cpu_pick_reverse_simd128(int32_t w, int64_t ss);
/* Packed rows gathered with the shuffle masks of prepare.c, 16 output bytes per step. */
void dmls_cpu_rows_shuffle_simd128(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                   const dmls_cpu_prepared *p);
#endif

#endif
