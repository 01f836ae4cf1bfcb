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

#if defined(__x86_64__) || defined(__i386__)
void dmls_cpu_rows_contig_nt_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                  const dmls_cpu_prepared *p);
void dmls_cpu_rows_shuffle_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                const dmls_cpu_prepared *p);
void dmls_cpu_rows_shuffle3_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                 const dmls_cpu_prepared *p);
void dmls_cpu_rows_wide32_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                               const dmls_cpu_prepared *p);
/* Items of w = 1, 2 or 4 bytes read every ss = k * w bytes (2 <= k <= 8,
 * ss <= 16) into packed rows, the rows' starts w bytes apart, at most k of
 * them: pixels of k channels to k planes (prepare.c says when). */
void dmls_cpu_rows_deinterleave_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
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
/* Pixels to planes, the cases of dmls_cpu_rows_deinterleave_avx2. */
void dmls_cpu_rows_deinterleave_neon(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                     const dmls_cpu_prepared *p);
#endif

#if DMLS_CPU_SIMD128_KERNELS
/* Reversal (step -w, w = 1/2/4/8) into packed rows; NULL for other items and steps. */
dmls_cpu_rows_fn dmls_cpu_pick_reverse_simd128(int32_t w, int64_t ss);
/* Stride +-2 of 4- and 8-byte items (ss = +-2w) into packed rows; NULL for others. */
dmls_cpu_rows_fn dmls_cpu_pick_stride2_simd128(int32_t w, int64_t ss);
/* Packed rows gathered with the shuffle masks of prepare.c, 16 output bytes per step. */
void dmls_cpu_rows_shuffle_simd128(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                   const dmls_cpu_prepared *p);
/* Pixels to planes, the cases of dmls_cpu_rows_deinterleave_avx2. */
void dmls_cpu_rows_deinterleave_simd128(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                        const dmls_cpu_prepared *p);
#endif

#endif
