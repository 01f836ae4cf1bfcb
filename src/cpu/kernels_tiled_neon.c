/* The tiled kernels on AArch64 (copy_tiled.h): the sub-tiles of
 * kernels_tiled_avx2.c, transposed by rounds of zips (zip1/zip2 interleave
 * the low or high halves of two vectors, as SSE2's unpacks do), for items of
 * 1, 2, 4 and 8 bytes read contiguously along the rows. */
#if defined(__aarch64__)
#include <arm_neon.h>
#include <stdbool.h>
#include <string.h>

#include "../compiler.h"
#include "copy_tiled.h"
#include "interleave.h"

/* A block's lines in and out (copy_tiled.h); no streaming stores on
 * AArch64, as in kernels_neon.c. */
static inline void load64(unsigned char *to, const unsigned char *from) {
    vst1q_u8_x4(to, vld1q_u8_x4(from));
}
static inline void store64(unsigned char *to, const unsigned char *from, bool nt) {
    (void)nt;
    vst1q_u8_x4(to, vld1q_u8_x4(from));
}
#define LOAD64 load64
#define STORE64 store64
#if DMLS_GNU_C
#define PREFETCH(at) __builtin_prefetch(at)
#else
#define PREFETCH(at) ((void)(at))
#endif

static inline uint8x16_t ld(const unsigned char *s) { return vld1q_u8(s); }
static inline void st(unsigned char *d, uint8x16_t v) { vst1q_u8(d, v); }
/* zip1_W / zip2_W: interleave the low / high halves of two registers in
 * lanes of W bits, as the transposes' steps for each item width need. */
#define DEFINE_ZIPS(w)                                                                                                 \
    static inline uint8x16_t zip1_##w(uint8x16_t a, uint8x16_t b) {                                                    \
        return vreinterpretq_u8_u##w(vzip1q_u##w(vreinterpretq_u##w##_u8(a), vreinterpretq_u##w##_u8(b)));             \
    }                                                                                                                  \
    static inline uint8x16_t zip2_##w(uint8x16_t a, uint8x16_t b) {                                                    \
        return vreinterpretq_u8_u##w(vzip2q_u##w(vreinterpretq_u##w##_u8(a), vreinterpretq_u##w##_u8(b)));             \
    }
DEFINE_ZIPS(16)
DEFINE_ZIPS(32)
DEFINE_ZIPS(64)

/* Twin of kernels_wasm_simd128.c's tiles: kept apart, the same transposes over other intrinsics. */
/* 2 x 2 items of 8 bytes. */
static inline void tile_8(const unsigned char *s, int64_t ss, unsigned char *d, int64_t ds) {
    uint8x16_t r0 = ld(s), r1 = ld(s + ss);
    st(d, zip1_64(r0, r1));
    st(d + ds, zip2_64(r0, r1));
}

/* 4 x 4 items of 4 bytes. */
static inline void tile_4(const unsigned char *s, int64_t ss, unsigned char *d, int64_t ds) {
    uint8x16_t r0 = ld(s), r1 = ld(s + ss), r2 = ld(s + 2 * ss), r3 = ld(s + 3 * ss);
    uint8x16_t a0 = zip1_32(r0, r1), a1 = zip2_32(r0, r1), a2 = zip1_32(r2, r3), a3 = zip2_32(r2, r3);
    st(d, zip1_64(a0, a2));
    st(d + ds, zip2_64(a0, a2));
    st(d + 2 * ds, zip1_64(a1, a3));
    st(d + 3 * ds, zip2_64(a1, a3));
}

/* 8 x 8 items of 2 bytes: the rounds of kernels_tiled_avx2.c's tile_2. */
static inline void tile_2(const unsigned char *s, int64_t ss, unsigned char *d, int64_t ds) {
    uint8x16_t r[8], a[8], b[8];
    for (int j = 0; j < 8; j++) r[j] = ld(s + j * ss);
    for (int j = 0; j < 8; j += 2) {
        a[j] = zip1_16(r[j], r[j + 1]);
        a[j + 1] = zip2_16(r[j], r[j + 1]);
    }
    for (int j = 0; j < 8; j += 4) {
        b[j] = zip1_32(a[j], a[j + 2]);
        b[j + 1] = zip2_32(a[j], a[j + 2]);
        b[j + 2] = zip1_32(a[j + 1], a[j + 3]);
        b[j + 3] = zip2_32(a[j + 1], a[j + 3]);
    }
    for (int i = 0; i < 4; i++) {
        st(d + (2 * i) * ds, zip1_64(b[i], b[i + 4]));
        st(d + (2 * i + 1) * ds, zip2_64(b[i], b[i + 4]));
    }
}

/* Twin of kernels_tiled_avx2.c's tile_1: kept apart, other intrinsics. */
/* 16 x 16 items of 1 byte: the rounds of kernels_tiled_avx2.c's tile_1. */
static inline void tile_1(const unsigned char *s, int64_t ss, unsigned char *d, int64_t ds) {
    uint8x16_t x[16], y[16];
    for (int j = 0; j < 16; j++) x[j] = ld(s + j * ss);
    for (int k = 0; k < 8; k++) {
        y[2 * k] = vzip1q_u8(x[2 * k], x[2 * k + 1]);
        y[2 * k + 1] = vzip2q_u8(x[2 * k], x[2 * k + 1]);
    }
    for (int m = 0; m < 4; m++)
        for (int h = 0; h < 2; h++) {
            x[4 * m + 2 * h] = zip1_16(y[4 * m + h], y[4 * m + 2 + h]);
            x[4 * m + 2 * h + 1] = zip2_16(y[4 * m + h], y[4 * m + 2 + h]);
        }
    for (int o = 0; o < 2; o++)
        for (int q = 0; q < 4; q++) {
            y[8 * o + 2 * q] = zip1_32(x[8 * o + q], x[8 * o + 4 + q]);
            y[8 * o + 2 * q + 1] = zip2_32(x[8 * o + q], x[8 * o + 4 + q]);
        }
    for (int t = 0; t < 8; t++) {
        st(d + (2 * t) * ds, zip1_64(y[t], y[8 + t]));
        st(d + (2 * t + 1) * ds, zip2_64(y[t], y[8 + t]));
    }
}

/* Few columns (interleave.h; kernels_tiled_avx2.c's rows_few_cols): 16 / W
 * rows of the n columns make n output vectors, one table lookup per column
 * each. */
static inline DMLS_ALWAYS_INLINE void few_cols_n(int w, unsigned char *dst, const unsigned char *src, const int64_t n,
                                                  int64_t rows, const dmls_cpu_prepared *p) {
    unsigned char mask[DMLS_INTERLEAVE_MAX][DMLS_INTERLEAVE_MAX][16];
    dmls_few_cols_masks(w, n, mask);
    const int64_t per = 16 / w, ss = p->item_src_step, step = per * n * w;
    int64_t r = 0;
    unsigned char *d = dst; /* stepped a round at a time, not r / per * step (a division a round) */
    for (; r + per <= rows; r += per, d += step) {
        uint8x16_t x[DMLS_INTERLEAVE_MAX];
        for (int64_t c = 0; c < n; c++) x[c] = ld(src + r * w + c * ss);
        for (int64_t k = 0; k < n; k++) {
            uint8x16_t o = vqtbl1q_u8(x[0], vld1q_u8(mask[k][0]));
            for (int64_t c = 1; c < n; c++) o = vorrq_u8(o, vqtbl1q_u8(x[c], vld1q_u8(mask[k][c])));
            st(d + 16 * k, o);
        }
    }
    for (; r < rows; r++)
        for (int64_t c = 0; c < n; c++) memcpy(dst + (r * n + c) * w, src + r * w + c * ss, (size_t)w);
}
/* The body compiled for the common column counts (interleave.h). */
static inline DMLS_ALWAYS_INLINE void rows_few_cols(int w, unsigned char *dst, const unsigned char *src, int64_t n,
                                                    int64_t rows, const dmls_cpu_prepared *p) {
#define RUN(N) few_cols_n(w, dst, src, N, rows, p)
    DMLS_FEW_COLS_BY_COUNT(n, RUN)
#undef RUN
}

#define DEFINE_TILED_NEON(W, S)                                                                     \
    static void walk_##W##_neon(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows, \
                              const dmls_cpu_prepared *p) {                                          \
        DMLS_TILED_WALK(W, S, tile_##W);                                                            \
    }                                                                                               \
    static void rows_tiled_##W##_neon(unsigned char *dst, const unsigned char *src, int64_t n,            \
                                  int64_t rows, const dmls_cpu_prepared *p) {                         \
        if (dmls_few_cols(W, n, p)) rows_few_cols(W, dst, src, n, rows, p);                         \
        else dmls_tile_on_lines(W, dst, src, n, rows, p, walk_##W##_neon);                          \
    }
DEFINE_TILED_NEON(1, 16)
DEFINE_TILED_NEON(2, 8)
DEFINE_TILED_NEON(4, 4)
DEFINE_TILED_NEON(8, 2)

dmls_cpu_rows_fn dmls_cpu_pick_tiled_neon(int32_t w) {
    static const dmls_cpu_rows_fn by_width[4] = {rows_tiled_1_neon, rows_tiled_2_neon, rows_tiled_4_neon,
                                                 rows_tiled_8_neon};
    return dmls_cpu_pick_width(w, by_width);
}
#endif
