/* Images between planes and pixels by byte shuffles: the masks and the
 * shapes that the x86-64 (vpshufb), AArch64 (tbl) and WebAssembly
 * (i8x16.swizzle) kernels share. All three give a zero for an index of
 * 0x80, so a 16-byte output vector
 * is the OR of one lookup per input vector, each mask picking that vector's
 * bytes.
 * - Planes to pixels (a few columns, copy_tiled.h's calls): 16 / w rows of
 *   the n columns (a vector each) make n output vectors of packed rows;
 *   mask[k][c] gives output vector k's bytes from column c.
 * - Pixels to planes (deinterleave, prepare.c picks it): 16 / w pixels of k
 *   channels (k vectors) make one 16-byte vector of each row (channel);
 *   mask[r][v] gives row r's bytes from input vector v. */
#ifndef DMLS_CPU_INTERLEAVE_H
#define DMLS_CPU_INTERLEAVE_H

#include <stdbool.h>
#include <stdint.h>

#include "prepare.h"

/* The most columns (channels) either way. */
#define DMLS_INTERLEAVE_MAX 8

/* A tiled call of n columns of w-byte items, rows read forwards, output
 * rows packed in 16 bytes or less. */
static inline bool dmls_few_cols(int64_t w, int64_t n, const dmls_cpu_prepared *p) {
    return n >= 2 && n <= DMLS_INTERLEAVE_MAX && n * w <= 16 && p->row_src_step == w && p->row_dst_step == n * w;
}

static inline void dmls_few_cols_masks(int64_t w, int64_t n, unsigned char mask[][DMLS_INTERLEAVE_MAX][16]) {
    for (int64_t k = 0; k < n; k++)
        for (int64_t c = 0; c < n; c++)
            for (int j = 0; j < 16; j++) {
                const int64_t at = 16 * k + j, item = at / w, col = item % n;
                mask[k][c][j] = col == c ? (unsigned char)(item / n * w + at % w) : 0x80;
            }
}

/* A copy whose rows (channels, at most k) start w bytes apart in the input
 * and read every k-th item (ss = k * w, 16 bytes or less) into packed rows,
 * w = 1, 2 or 4. */
static inline bool dmls_deinterleave_fits(const dmls_cpu_prepared *p) {
    const int64_t w = p->width, ss = p->item_src_step, k = w > 0 ? ss / w : 0;
    return p->ndim >= 2 && (w == 1 || w == 2 || w == 4) && ss > 0 && ss % w == 0 && k >= 2 &&
           k <= DMLS_INTERLEAVE_MAX && ss <= 16 && p->row_src_step == w && p->shape[p->ndim - 2] <= k;
}

static inline void dmls_planes_masks(int64_t w, int64_t ss, int64_t rows,
                                     unsigned char mask[][DMLS_INTERLEAVE_MAX][16]) {
    for (int64_t r = 0; r < rows; r++)
        for (int64_t v = 0; v < ss / w; v++)
            for (int j = 0; j < 16; j++) {
                const int64_t at = j / w * ss + r * w + j % w; /* in the round's k * 16 bytes */
                mask[r][v][j] = at / 16 == v ? (unsigned char)(at % 16) : 0x80;
            }
}

/* A pixels-to-planes call's rounds read whole pixels, and the last pixel's
 * channels past the call's last row may lie past the input: the rounds end
 * where the call's needed bytes do (this bound), the rest item by item. */
static inline int64_t dmls_planes_end(int64_t n, int64_t rows, int64_t w, int64_t ss) {
    return (n - 1) * ss + rows * w;
}

/* The shapes the kernels compile with their numbers constant, so that the
 * loops over them unroll and the masks stay in registers (a general body
 * takes the rest): measured 1.4-3.5x on the 2-core VM, natively and in V8
 * (bench/RESULTS.md, thirteenth session). CALL(w, k) runs the body for
 * items of w bytes and k channels (pixels to planes), CALL(n) for n
 * columns (planes to pixels; the item width is already a constant there). */
#define DMLS_DEINTERLEAVE_BY_SHAPE(w, k, CALL)    \
    switch ((w) * 16 + (k)) {                      \
    case 16 + 3: CALL(1, 3); break;                \
    case 16 + 4: CALL(1, 4); break;                \
    case 32 + 3: CALL(2, 3); break;                \
    case 32 + 4: CALL(2, 4); break;                \
    case 64 + 2: CALL(4, 2); break;                \
    case 64 + 3: CALL(4, 3); break;                \
    case 64 + 4: CALL(4, 4); break;                \
    default: CALL(w, k); break;                    \
    }
#define DMLS_FEW_COLS_BY_COUNT(n, CALL) \
    switch (n) {                        \
    case 2: CALL(2); break;             \
    case 3: CALL(3); break;             \
    case 4: CALL(4); break;             \
    default: CALL(n); break;            \
    }

#endif
