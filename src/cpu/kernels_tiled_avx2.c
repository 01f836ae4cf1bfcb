/* The tiled kernels on x86-64 (copy_tiled.h): square sub-tiles transposed in
 * registers, for items of 1, 2, 4 and 8 bytes read contiguously along the
 * rows. A sub-tile's S input vectors are S columns, each S consecutive rows
 * of one column; its S output vectors are S rows, each S consecutive columns
 * of one row. Each function carries target("avx2") (kernels_avx2.c says why);
 * the 1- and 2-byte tiles use only SSE2's unpacks, which AVX2 machines run
 * at full rate on 16-byte vectors. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../compiler.h"
#include "copy_tiled.h"
#include "interleave.h"

#if DMLS_GNU_C
#define AVX2 __attribute__((target("avx2")))
#else
#define AVX2 /* built with -mavx2 where there are no target attributes (src/CMakeLists.txt) */
#endif

/* A block's lines in and out (copy_tiled.h): a line out streams where the
 * output is past the cache and the line is whole (aligned). */
static inline AVX2 void load64(unsigned char *to, const unsigned char *from) {
    _mm256_store_si256((__m256i *)(void *)to, _mm256_loadu_si256((const __m256i *)(const void *)from));
    _mm256_store_si256((__m256i *)(void *)(to + 32), _mm256_loadu_si256((const __m256i *)(const void *)(from + 32)));
}
static inline AVX2 void store64(unsigned char *to, const unsigned char *from, bool nt) {
    __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)from);
    __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(from + 32));
    if (nt && ((uintptr_t)to & 63) == 0) {
        _mm256_stream_si256((__m256i *)(void *)to, a);
        _mm256_stream_si256((__m256i *)(void *)(to + 32), b);
    } else {
        _mm256_storeu_si256((__m256i *)(void *)to, a);
        _mm256_storeu_si256((__m256i *)(void *)(to + 32), b);
    }
}
#define LOAD64 load64
#define STORE64 store64
#define PREFETCH(at) _mm_prefetch((const char *)(at), _MM_HINT_T0)
static inline AVX2 void put32(unsigned char *d, __m256i v) { _mm256_storeu_si256((__m256i *)(void *)d, v); }
static inline AVX2 void put16(unsigned char *d, __m128i v) { _mm_storeu_si128((__m128i *)(void *)d, v); }

/* Sub-tiles: input vector j at s + j * ss, output vector i at d + i * ds. */

/* 8 x 8 items of 4 bytes: pairs, then quads, then the 128-bit halves. */
static inline AVX2 void tile_4(const unsigned char *s, int64_t ss, unsigned char *d, int64_t ds) {
    __m256 r[8], t[8], u[8];
    for (int j = 0; j < 8; j++) r[j] = _mm256_loadu_ps((const float *)(const void *)(s + j * ss));
    for (int j = 0; j < 8; j += 2) {
        t[j] = _mm256_unpacklo_ps(r[j], r[j + 1]);
        t[j + 1] = _mm256_unpackhi_ps(r[j], r[j + 1]);
    }
    for (int j = 0; j < 8; j += 4) {
        u[j] = _mm256_shuffle_ps(t[j], t[j + 2], _MM_SHUFFLE(1, 0, 1, 0));
        u[j + 1] = _mm256_shuffle_ps(t[j], t[j + 2], _MM_SHUFFLE(3, 2, 3, 2));
        u[j + 2] = _mm256_shuffle_ps(t[j + 1], t[j + 3], _MM_SHUFFLE(1, 0, 1, 0));
        u[j + 3] = _mm256_shuffle_ps(t[j + 1], t[j + 3], _MM_SHUFFLE(3, 2, 3, 2));
    }
    for (int i = 0; i < 4; i++) {
        put32(d + i * ds, _mm256_castps_si256(_mm256_permute2f128_ps(u[i], u[i + 4], 0x20)));
        put32(d + (i + 4) * ds, _mm256_castps_si256(_mm256_permute2f128_ps(u[i], u[i + 4], 0x31)));
    }
}

/* 4 x 4 items of 8 bytes. */
static inline AVX2 void tile_8(const unsigned char *s, int64_t ss, unsigned char *d, int64_t ds) {
    __m256d r[4], t[4];
    for (int j = 0; j < 4; j++) r[j] = _mm256_loadu_pd((const double *)(const void *)(s + j * ss));
    t[0] = _mm256_unpacklo_pd(r[0], r[1]);
    t[1] = _mm256_unpackhi_pd(r[0], r[1]);
    t[2] = _mm256_unpacklo_pd(r[2], r[3]);
    t[3] = _mm256_unpackhi_pd(r[2], r[3]);
    put32(d, _mm256_castpd_si256(_mm256_permute2f128_pd(t[0], t[2], 0x20)));
    put32(d + ds, _mm256_castpd_si256(_mm256_permute2f128_pd(t[1], t[3], 0x20)));
    put32(d + 2 * ds, _mm256_castpd_si256(_mm256_permute2f128_pd(t[0], t[2], 0x31)));
    put32(d + 3 * ds, _mm256_castpd_si256(_mm256_permute2f128_pd(t[1], t[3], 0x31)));
}

/* 8 x 8 items of 2 bytes: 16-bit pairs, 32-bit quads, 64-bit halves. a[k]
 * holds columns 2k/2k+1 as pairs over rows 0-3 (even k... see the indices). */
static inline AVX2 void tile_2(const unsigned char *s, int64_t ss, unsigned char *d, int64_t ds) {
    __m128i r[8], a[8], b[8];
    for (int j = 0; j < 8; j++) r[j] = _mm_loadu_si128((const __m128i *)(const void *)(s + j * ss));
    for (int j = 0; j < 8; j += 2) { /* a[j]: lanes 0-3 of columns j, j+1 interleaved; a[j+1]: lanes 4-7 */
        a[j] = _mm_unpacklo_epi16(r[j], r[j + 1]);
        a[j + 1] = _mm_unpackhi_epi16(r[j], r[j + 1]);
    }
    for (int j = 0; j < 8; j += 4) { /* b: 4 columns of one lane pair each */
        b[j] = _mm_unpacklo_epi32(a[j], a[j + 2]);
        b[j + 1] = _mm_unpackhi_epi32(a[j], a[j + 2]);
        b[j + 2] = _mm_unpacklo_epi32(a[j + 1], a[j + 3]);
        b[j + 3] = _mm_unpackhi_epi32(a[j + 1], a[j + 3]);
    }
    for (int i = 0; i < 4; i++) {
        put16(d + (2 * i) * ds, _mm_unpacklo_epi64(b[i], b[i + 4]));
        put16(d + (2 * i + 1) * ds, _mm_unpackhi_epi64(b[i], b[i + 4]));
    }
}

/* Twin of tile_1 in kernels_tiled_neon.c and kernels_wasm_simd128.c: kept apart, other intrinsics. */
/* 16 x 16 items of 1 byte: four rounds of unpacks, each doubling the unit
 * (a column pair's bytes, then 2-, 4- and 8-byte runs of consecutive
 * columns), with x[k] after a round holding, for a group of columns, the
 * lanes that round left in it. */
static inline AVX2 void tile_1(const unsigned char *s, int64_t ss, unsigned char *d, int64_t ds) {
    __m128i x[16], y[16];
    for (int j = 0; j < 16; j++) x[j] = _mm_loadu_si128((const __m128i *)(const void *)(s + j * ss));
    /* y[2k + h]: columns 2k, 2k+1 interleaved, lanes 8h..8h+7. */
    for (int k = 0; k < 8; k++) {
        y[2 * k] = _mm_unpacklo_epi8(x[2 * k], x[2 * k + 1]);
        y[2 * k + 1] = _mm_unpackhi_epi8(x[2 * k], x[2 * k + 1]);
    }
    /* x[4m + q]: columns 4m..4m+3, lanes 4q..4q+3. */
    for (int m = 0; m < 4; m++)
        for (int h = 0; h < 2; h++) {
            x[4 * m + 2 * h] = _mm_unpacklo_epi16(y[4 * m + h], y[4 * m + 2 + h]);
            x[4 * m + 2 * h + 1] = _mm_unpackhi_epi16(y[4 * m + h], y[4 * m + 2 + h]);
        }
    /* y[8o + t]: columns 8o..8o+7, lanes 2t, 2t+1. */
    for (int o = 0; o < 2; o++)
        for (int q = 0; q < 4; q++) {
            y[8 * o + 2 * q] = _mm_unpacklo_epi32(x[8 * o + q], x[8 * o + 4 + q]);
            y[8 * o + 2 * q + 1] = _mm_unpackhi_epi32(x[8 * o + q], x[8 * o + 4 + q]);
        }
    /* Lane 2t and 2t+1 of all 16 columns: the output rows. */
    for (int t = 0; t < 8; t++) {
        put16(d + (2 * t) * ds, _mm_unpacklo_epi64(y[t], y[8 + t]));
        put16(d + (2 * t + 1) * ds, _mm_unpackhi_epi64(y[t], y[8 + t]));
    }
}

/* Few columns (planes to channels last: RGB's 3, interleave.h): a block of
 * the walk would be mostly empty and its items go one by one; 16 / W rows of
 * all n columns make n output vectors instead, n shuffles for 16 bytes out. */
static inline DMLS_ALWAYS_INLINE AVX2 void few_cols_n(int w, unsigned char *dst, const unsigned char *src,
                                                 const int64_t n, int64_t rows, const dmls_cpu_prepared *p) {
    _Alignas(16) unsigned char mask[DMLS_INTERLEAVE_MAX][DMLS_INTERLEAVE_MAX][16];
    dmls_few_cols_masks(w, n, mask);
    const int64_t per = 16 / w, ss = p->item_src_step, step = per * n * w; /* rows a round, bytes out a round */
    const bool nt = p->nontemporal && (uintptr_t)dst % 16 == 0; /* each round's stores then aligned */
    int64_t r = 0;
    unsigned char *d = dst; /* stepped a round at a time, not r / per * step (a division a round) */
    for (; r + per <= rows; r += per, d += step) {
        __m128i x[DMLS_INTERLEAVE_MAX];
        for (int64_t c = 0; c < n; c++) x[c] = _mm_loadu_si128((const __m128i *)(const void *)(src + r * w + c * ss));
        for (int64_t k = 0; k < n; k++) {
            __m128i o = _mm_shuffle_epi8(x[0], _mm_load_si128((const __m128i *)(const void *)mask[k][0]));
            for (int64_t c = 1; c < n; c++)
                o = _mm_or_si128(o, _mm_shuffle_epi8(x[c], _mm_load_si128((const __m128i *)(const void *)mask[k][c])));
            if (nt) _mm_stream_si128((__m128i *)(void *)(d + 16 * k), o);
            else _mm_storeu_si128((__m128i *)(void *)(d + 16 * k), o);
        }
    }
    for (; r < rows; r++)
        for (int64_t c = 0; c < n; c++) memcpy(dst + (r * n + c) * w, src + r * w + c * ss, (size_t)w);
}
/* The body compiled for the common column counts (interleave.h). */
static inline DMLS_ALWAYS_INLINE AVX2 void rows_few_cols(int w, unsigned char *dst, const unsigned char *src, int64_t n,
                                                    int64_t rows, const dmls_cpu_prepared *p) {
#define RUN(N) few_cols_n(w, dst, src, N, rows, p)
    DMLS_FEW_COLS_BY_COUNT(n, RUN)
#undef RUN
}

#define DEFINE_TILED_AVX2(W, S)                                                                     \
    static AVX2 void walk_##W##_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows, \
                              const dmls_cpu_prepared *p) {                                          \
        DMLS_TILED_WALK(W, S, tile_##W);                                                            \
    }                                                                                               \
    static AVX2 void few_cols_##W##_avx2(unsigned char *dst, const unsigned char *src, int64_t n,     \
                                         int64_t rows, const dmls_cpu_prepared *p) {                 \
        rows_few_cols(W, dst, src, n, rows, p);                                                     \
    }                                                                                               \
    static void rows_tiled_##W##_avx2(unsigned char *dst, const unsigned char *src, int64_t n,            \
                                  int64_t rows, const dmls_cpu_prepared *p) {                         \
        if (dmls_few_cols(W, n, p)) few_cols_##W##_avx2(dst, src, n, rows, p);                      \
        else dmls_tile_on_lines(W, dst, src, n, rows, p, walk_##W##_avx2);                          \
    }
DEFINE_TILED_AVX2(1, 16)
DEFINE_TILED_AVX2(2, 8)
DEFINE_TILED_AVX2(4, 8)
DEFINE_TILED_AVX2(8, 4)

dmls_cpu_rows_fn dmls_cpu_pick_tiled_avx2(int32_t w) {
    static const dmls_cpu_rows_fn by_width[4] = {rows_tiled_1_avx2, rows_tiled_2_avx2, rows_tiled_4_avx2,
                                                 rows_tiled_8_avx2};
    return dmls_cpu_pick_width(w, by_width);
}
#endif
