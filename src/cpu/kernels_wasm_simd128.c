/* WebAssembly SIMD128 kernel variants (the web build, js/): the cases the
 * NEON variants speed up on AArch64 (reversal, short byte gathers such as
 * stride 2 or 2 of 3 channels, and at the end the tiled copies of
 * transposes), with the same 16-byte blocks, shuffle masks and sub-tiles. SIMD128 is fixed when the module is compiled
 * (-msimd128), so dmls_cpu_features() reports it in such a build and
 * DMLSLICE_DISABLE_CPU_FEATURES=simd128 falls back to the portable kernels.
 * Every load covers only the input bytes of the items it gathers, so
 * nothing outside the tensor is read. The row walks are kernels_neon.c's
 * line for line, only the intrinsics differ: a twin kept on purpose, as the
 * AVX2 and NEON files are, so each instruction set's kernel reads alone. */
#include "../compiler.h"
#include "kernels.h"

#if DMLS_CPU_SIMD128_KERNELS
#include <string.h>
#include <wasm_simd128.h>

#include "interleave.h"

/* ------------------------------------------------------------------
 * Reversal: items of w = 1, 2, 4 or 8 bytes read at step -w into packed
 * rows. The 16 / w items of a 16-byte output block are the 16 input bytes
 * ending at the block's first item, in reverse item order: one load and one
 * constant shuffle.
 * ------------------------------------------------------------------ */

static inline v128_t reverse_items(v128_t v, int w) {
    switch (w) {
    case 1: return wasm_i8x16_shuffle(v, v, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    case 2: return wasm_i8x16_shuffle(v, v, 14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1);
    case 4: return wasm_i8x16_shuffle(v, v, 12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3);
    default: return wasm_i8x16_shuffle(v, v, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7); /* 8 */
    }
}

/* Twin of kernels_neon.c's reversals and gathers: kept apart, the same loops over other intrinsics. */
/* Rows of n items of w bytes read at step -w. */
static inline void reverse_rows(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                const dmls_cpu_prepared *p, const int w) {
    const int64_t per = 16 / w;
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {
        unsigned char *d = dst;
        const unsigned char *s = src; /* item i of the row is at s - i * w */
        int64_t i = 0;
        for (; i + 2 * per <= n; i += 2 * per, d += 32, s -= 32) {
            v128_t a = wasm_v128_load(s + w - 16), b = wasm_v128_load(s + w - 32);
            wasm_v128_store(d, reverse_items(a, w));
            wasm_v128_store(d + 16, reverse_items(b, w));
        }
        if (i + per <= n) {
            wasm_v128_store(d, reverse_items(wasm_v128_load(s + w - 16), w));
            i += per, d += 16, s -= 16;
        }
        for (; i < n; i++, d += w, s -= w) memcpy(d, s, (size_t)w);
    }
}

#define DEFINE_REVERSE(w)                                                                                     \
    static void rows_reverse##w(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows, \
                                const dmls_cpu_prepared *p) {                                             \
        reverse_rows(dst, src, n, rows, p, w);                                                        \
    }
DEFINE_REVERSE(1)
DEFINE_REVERSE(2)
DEFINE_REVERSE(4)
DEFINE_REVERSE(8)

dmls_cpu_rows_fn dmls_cpu_pick_reverse_simd128(int32_t w, int64_t ss) {
    static const dmls_cpu_rows_fn reverse[4] = {rows_reverse1, rows_reverse2, rows_reverse4, rows_reverse8};
    return ss == -(int64_t)w ? dmls_cpu_pick_width(w, reverse) : NULL;
}

/* ------------------------------------------------------------------
 * Stride +-2 of 4- and 8-byte items (kernels_avx2.c's stride2): the 16 / w
 * items of a 16-byte output block from a load at the block's lowest item
 * and one ending at its highest, and one constant shuffle, which engines
 * lower to one machine shuffle (shufps on x86). The byte gathers below take
 * the same copies with two swizzles, each of which V8 makes an add and a
 * pshufb: this way ran 1.25-1.5x faster in cache, 1.05-1.27x at 64 MiB
 * (bench/RESULTS.md, thirteenth session).
 * ------------------------------------------------------------------ */

static inline v128_t stride2_block(const unsigned char *s, const int w, const bool neg) {
    if (w == 4 && !neg) return wasm_i32x4_shuffle(wasm_v128_load(s), wasm_v128_load(s + 12), 0, 2, 5, 7);
    if (w == 4) return wasm_i32x4_shuffle(wasm_v128_load(s - 24), wasm_v128_load(s - 12), 7, 5, 2, 0);
    if (!neg) return wasm_i64x2_shuffle(wasm_v128_load(s), wasm_v128_load(s + 8), 0, 3);
    return wasm_i64x2_shuffle(wasm_v128_load(s - 16), wasm_v128_load(s - 8), 3, 0);
}

static inline void stride2_rows(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                const dmls_cpu_prepared *p, const int w, const bool neg) {
    const int64_t per = 16 / w, ss = neg ? -2 * w : 2 * w;
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {
        unsigned char *d = dst;
        const unsigned char *s = src;
        int64_t i = 0;
        for (; i + 2 * per <= n; i += 2 * per, d += 32, s += 2 * per * ss) {
            wasm_v128_store(d, stride2_block(s, w, neg));
            wasm_v128_store(d + 16, stride2_block(s + per * ss, w, neg));
        }
        if (i + per <= n) {
            wasm_v128_store(d, stride2_block(s, w, neg));
            i += per, d += 16, s += per * ss;
        }
        for (; i < n; i++, d += w, s += ss) memcpy(d, s, (size_t)w);
    }
}

#define DEFINE_STRIDE2(NAME, w, neg)                                                                   \
    static void NAME(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,            \
                     const dmls_cpu_prepared *p) {                                                     \
        stride2_rows(dst, src, n, rows, p, w, neg);                                                    \
    }
DEFINE_STRIDE2(rows_stride2_4, 4, false)
DEFINE_STRIDE2(rows_stride_neg2_4, 4, true)
DEFINE_STRIDE2(rows_stride2_8, 8, false)
DEFINE_STRIDE2(rows_stride_neg2_8, 8, true)

dmls_cpu_rows_fn dmls_cpu_pick_stride2_simd128(int32_t w, int64_t ss) {
    if (w == 4) return ss == 8 ? rows_stride2_4 : ss == -8 ? rows_stride_neg2_4 : NULL;
    if (w == 8) return ss == 16 ? rows_stride2_8 : ss == -16 ? rows_stride_neg2_8 : NULL;
    return NULL;
}

/* ------------------------------------------------------------------
 * Byte gathers with the shuffle masks of prepare.c: the 16 / w items of a
 * 16-byte output block lie within shuffle_span (16..32) input bytes from
 * the lowest of them; two 16-byte loads, at that item and ending at the
 * span's last byte, cover them exactly. A swizzle gives 0 where the mask is
 * out of range (0x80), as x86's byte shuffle and NEON's table lookup do, so
 * the same masks serve all three.
 * ------------------------------------------------------------------ */

static inline v128_t gather_block(const unsigned char *lo, int64_t hi_at, v128_t m0, v128_t m1) {
    return wasm_v128_or(wasm_i8x16_swizzle(wasm_v128_load(lo), m0), wasm_i8x16_swizzle(wasm_v128_load(lo + hi_at), m1));
}

void dmls_cpu_rows_shuffle_simd128(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                   const dmls_cpu_prepared *p) {
    const int64_t w = p->width, ss = p->item_src_step, per = p->shuffle_items;
    const int64_t block_step = per * ss, hi_at = p->shuffle_span - 16;
    /* The lowest-addressed item of a block is its last one when ss < 0. */
    const int64_t low = ss < 0 ? (per - 1) * ss : 0;
    const v128_t m0 = wasm_v128_load(p->shuffle[0]), m1 = wasm_v128_load(p->shuffle[1]);
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {
        unsigned char *d = dst;
        const unsigned char *s = src;
        int64_t i = 0;
        for (; i + 2 * per <= n; i += 2 * per, d += 32, s += 2 * block_step) {
            v128_t a = gather_block(s + low, hi_at, m0, m1);
            v128_t b = gather_block(s + block_step + low, hi_at, m0, m1);
            wasm_v128_store(d, a);
            wasm_v128_store(d + 16, b);
        }
        if (i + per <= n) {
            wasm_v128_store(d, gather_block(s + low, hi_at, m0, m1));
            i += per, d += 16, s += block_step;
        }
        for (; i < n; i++, d += w, s += ss) memcpy(d, s, (size_t)w);
    }
}

/* ------------------------------------------------------------------
 * Pixels to planes (interleave.h; kernels_neon.c's deinterleave): each
 * row's 16 output bytes ORed from one swizzle per input vector of a round
 * of 16 / w pixels (the masks' 0x80 gives 0), four rounds to a row in turn
 * (a line of it).
 * ------------------------------------------------------------------ */

static inline v128_t planes_round(const unsigned char *s, int64_t k, const unsigned char (*mask)[16]) {
    v128_t o = wasm_i8x16_swizzle(wasm_v128_load(s), wasm_v128_load(mask[0]));
    for (int64_t v = 1; v < k; v++)
        o = wasm_v128_or(o, wasm_i8x16_swizzle(wasm_v128_load(s + 16 * v), wasm_v128_load(mask[v])));
    return o;
}

static inline DMLS_ALWAYS_INLINE void deinterleave(unsigned char *dst, const unsigned char *src, int64_t n,
                                                   int64_t rows, const dmls_cpu_prepared *p, const int64_t w,
                                                   const int64_t k) {
    const int64_t ss = k * w, per = 16 / w, rd = p->row_dst_step;
    unsigned char mask[DMLS_INTERLEAVE_MAX][DMLS_INTERLEAVE_MAX][16];
    dmls_planes_masks(w, ss, rows, mask);
    const int64_t end = dmls_planes_end(n, rows, w, ss);
    int64_t i = 0;
    for (; i * ss + 64 * k <= end; i += 4 * per)
        for (int64_t r = 0; r < rows; r++)
            for (int64_t q = 0; q < 4; q++)
                wasm_v128_store(dst + r * rd + (i + q * per) * w, planes_round(src + (i + q * per) * ss, k, mask[r]));
    for (; i * ss + 16 * k <= end; i += per)
        for (int64_t r = 0; r < rows; r++)
            wasm_v128_store(dst + r * rd + i * w, planes_round(src + i * ss, k, mask[r]));
    for (; i < n; i++)
        for (int64_t r = 0; r < rows; r++) memcpy(dst + r * rd + i * w, src + i * ss + r * w, (size_t)w);
}

/* The body compiled for the common shapes with their numbers constant
 * (interleave.h): in V8 the loops over counts known only at run time cost
 * more than the swizzles. */
void dmls_cpu_rows_deinterleave_simd128(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                        const dmls_cpu_prepared *p) {
    const int64_t w = p->width, k = p->item_src_step / w;
#define RUN(W, K) deinterleave(dst, src, n, rows, p, W, K)
    DMLS_DEINTERLEAVE_BY_SHAPE(w, k, RUN)
#undef RUN
}
#endif

/* ------------------------------------------------------------------
 * Tiled copies (copy_tiled.h): kernels_tiled_neon.c's sub-tiles, items of
 * 1, 2, 4 and 8 bytes read contiguously along the rows, transposed by the
 * same rounds of zips. SIMD128 has no zip: each is a constant shuffle of
 * two vectors, which engines lower to the machine's interleave
 * (punpckl/h on x86, zip1/zip2 on AArch64). No streaming stores exist in
 * WebAssembly.
 * ------------------------------------------------------------------ */

#if DMLS_CPU_SIMD128_KERNELS
#include <stdbool.h>

#include "copy_tiled.h"

static inline void move_line(unsigned char *to, const unsigned char *from) {
    for (int i = 0; i < 64; i += 16) wasm_v128_store(to + i, wasm_v128_load(from + i));
}

static inline v128_t ld(const unsigned char *s) { return wasm_v128_load(s); }
static inline void st(unsigned char *d, v128_t v) { wasm_v128_store(d, v); }
static inline v128_t zip1_8(v128_t a, v128_t b) {
    return wasm_i8x16_shuffle(a, b, 0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
}
static inline v128_t zip2_8(v128_t a, v128_t b) {
    return wasm_i8x16_shuffle(a, b, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
}
static inline v128_t zip1_16(v128_t a, v128_t b) { return wasm_i16x8_shuffle(a, b, 0, 8, 1, 9, 2, 10, 3, 11); }
static inline v128_t zip2_16(v128_t a, v128_t b) { return wasm_i16x8_shuffle(a, b, 4, 12, 5, 13, 6, 14, 7, 15); }
static inline v128_t zip1_32(v128_t a, v128_t b) { return wasm_i32x4_shuffle(a, b, 0, 4, 1, 5); }
static inline v128_t zip2_32(v128_t a, v128_t b) { return wasm_i32x4_shuffle(a, b, 2, 6, 3, 7); }
static inline v128_t zip1_64(v128_t a, v128_t b) { return wasm_i64x2_shuffle(a, b, 0, 2); }
static inline v128_t zip2_64(v128_t a, v128_t b) { return wasm_i64x2_shuffle(a, b, 1, 3); }

/* Twin of kernels_tiled_neon.c's tiles: kept apart, the same transposes over other intrinsics. */
/* 2 x 2 items of 8 bytes. */
static inline void tile_8(const unsigned char *s, int64_t ss, unsigned char *d, int64_t ds) {
    v128_t r0 = ld(s), r1 = ld(s + ss);
    st(d, zip1_64(r0, r1));
    st(d + ds, zip2_64(r0, r1));
}

/* 4 x 4 items of 4 bytes. */
static inline void tile_4(const unsigned char *s, int64_t ss, unsigned char *d, int64_t ds) {
    v128_t r0 = ld(s), r1 = ld(s + ss), r2 = ld(s + 2 * ss), r3 = ld(s + 3 * ss);
    v128_t a0 = zip1_32(r0, r1), a1 = zip2_32(r0, r1), a2 = zip1_32(r2, r3), a3 = zip2_32(r2, r3);
    st(d, zip1_64(a0, a2));
    st(d + ds, zip2_64(a0, a2));
    st(d + 2 * ds, zip1_64(a1, a3));
    st(d + 3 * ds, zip2_64(a1, a3));
}

/* 8 x 8 items of 2 bytes. */
static inline void tile_2(const unsigned char *s, int64_t ss, unsigned char *d, int64_t ds) {
    v128_t r[8], a[8], b[8];
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
/* 16 x 16 items of 1 byte. */
static inline void tile_1(const unsigned char *s, int64_t ss, unsigned char *d, int64_t ds) {
    v128_t x[16], y[16];
    for (int j = 0; j < 16; j++) x[j] = ld(s + j * ss);
    for (int k = 0; k < 8; k++) {
        y[2 * k] = zip1_8(x[2 * k], x[2 * k + 1]);
        y[2 * k + 1] = zip2_8(x[2 * k], x[2 * k + 1]);
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

/* copy_tiled.h's walk (DMLS_TILED_WALK: panels, or strips of chunks), less
 * its staging, which was measured with the streaming stores and prefetches
 * that WebAssembly lacks: in V8, without the staging buffer and without the
 * copy of each block's input lines into L1 (a third load and store of every
 * byte), t2d_f32 ran the same, nchw_to_nhwc_f16 no slower and the panels of
 * nhwc_to_nchw_f32 1.2-1.3x faster (bench/RESULTS.md, 2026-11-29
 * wasm-tiles). So the sub-tiles read the input in place, a group of S input
 * lines (columns) through all its row pieces before the next group: at a
 * power-of-two pitch (t2d_f32: 32 KiB) only S lines then share an L1 set
 * while they are read. Not 1-byte items: their S = 16 lines overflow a set's
 * 8 ways, and t2d_u8 lost a quarter read in place, so their B lines are
 * still copied whole into `in` first. The output goes through `out`, a line
 * whole at a time, as a block's B rows share a set too.
 * Where the native walk takes strips (columns far apart), items of 2 to 8
 * bytes take panels of DMLS_TILE_PANEL_BYTES walked down chunks of
 * DMLS_WASM_STRIP_ROWS rows: without streaming stores every output line is
 * first read in, and a strip's one line per row (t2d_f32: 512 rows 32 KiB
 * apart) scatters those reads and the write-backs over DRAM, where a panel
 * writes runs of a kilobyte; the chunk keeps the panel's input (two lines a
 * column for float32) in L1 and L2 while its rows go out. t2d_f32 and
 * t3d_021_f32 ran 1.2-1.6x faster so, nchw_to_nhwc_f16 the same; t2d_u8 (64
 * columns a block) gained nothing and keeps the strips. 2-byte items in a
 * call large enough to be staged take staged strips instead (below). */
#define DMLS_WASM_STRIP_ROWS 32
/* Items of 2 and 4 bytes write their sub-tiles straight into the output
 * rows (no `out`, whose copy out was a third of each block's loads and
 * stores), unless the output rows lie a multiple of DMLS_WASM_DIRECT_SPAN
 * apart. A block's sub-tiles go input line group by group (above), so each
 * of its B output lines is written in B / S pieces with the others between;
 * rows 4 KiB apart (t3d_021_f32) then share an L1 set but spread over 16 L2
 * sets (512 KiB, 8 ways: a way is 64 KiB on the 2-core VM), and the pieces
 * meet in L2; rows a multiple of 8 KiB apart fall in 8 L2 sets or fewer,
 * beside the panel's input lines at a like pitch, and there `out` keeps
 * each output line whole. Measured in V8 against `out` (bench/RESULTS.md,
 * issue 37, branch wasm-speed), slice GB/s at 64 MiB, eight rounds:
 * t3d_021_f32 (rows 4 KiB apart) 1.20-1.46x, nhwc_to_nchw_f32 1.22-1.64x;
 * fewer rounds: [4000, 4000] float32 1.1-1.55x, [32, 56, 56, 256] float16 to
 * NCHW 1.2-1.35x; written straight, t2d_f32 (rows 16 KiB apart) lost a
 * quarter and [2048, 8192] float32 (8 KiB) up to a fifth. 8-byte items (2 x 2
 * sub-tiles) ran the same either way and keep `out`. */
#define DMLS_WASM_DIRECT_SPAN 8192
_Static_assert(DMLS_WASM_STRIP_ROWS >= DMLS_TILE_BYTES / 2, "a chunk holds whole row blocks of 2-byte items");
#define DEFINE_TILED_SIMD128(W, S, NAME, DIRECT)                                                                       \
    __attribute__((noinline)) static void NAME(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,  \
                                               const dmls_cpu_prepared *p) {                                           \
        enum { LINE = DMLS_TILE_BYTES, B = LINE / W };                                                                 \
        _Alignas(16) unsigned char in[W == 1 ? B * LINE : 1], out[B * LINE];                                           \
        const int64_t ss = p->item_src_step, rs = p->row_src_step, rd = p->row_dst_step;                               \
        /* rows read backwards: a block's lowest input address is its last row, which goes out last */                 \
        const int64_t flip = rs < 0 ? B - 1 : 0, ts = rs < 0 ? -rd : rd;                                               \
        const bool wide = W > 1 && dmls_tile_strips(W, ss);                                                            \
        const int64_t panel = wide ? DMLS_TILE_PANEL_BYTES / W : dmls_tile_panel(W, ss);                               \
        const int64_t chunk = wide ? DMLS_WASM_STRIP_ROWS : dmls_tile_chunk(W, ss);                                    \
        const bool direct = DIRECT;                                                                                    \
        for (int64_t q0 = 0; q0 < rows; q0 += chunk) {                                                                 \
            const int64_t q1 = rows - q0 < chunk ? rows : q0 + chunk;                                                  \
            for (int64_t p0 = 0; p0 < n; p0 += panel) {                                                                \
                const int64_t p1 = n - p0 < panel ? n : p0 + panel;                                                    \
                for (int64_t r0 = q0; r0 < q1; r0 += B)                                                                \
                    for (int64_t c0 = p0; c0 < p1; c0 += B) {                                                          \
                        const int64_t rb = q1 - r0 < B ? q1 - r0 : B, cb = p1 - c0 < B ? p1 - c0 : B;                  \
                        if (rb < B || cb < B) {                                                                        \
                            for (int64_t c = 0; c < cb; c++)                                                           \
                                for (int64_t r = 0; r < rb; r++)                                                       \
                                    memcpy(dst + (r0 + r) * rd + (c0 + c) * W, src + (r0 + r) * rs + (c0 + c) * ss,    \
                                           W);                                                                         \
                            continue;                                                                                  \
                        }                                                                                              \
                        const unsigned char *s0 = src + (r0 + flip) * rs + c0 * ss;                                    \
                        unsigned char *d0 = dst + (r0 + flip) * rd + c0 * W;                                           \
                        int64_t is = ss;                                                                               \
                        if (W == 1) {                                                                                  \
                            for (int64_t c = 0; c < B; c++) move_line(in + c * LINE, s0 + c * ss);                     \
                            s0 = in, is = LINE;                                                                        \
                        }                                                                                              \
                        if (direct) {                                                                                  \
                            for (int64_t c = 0; c < B; c += S)                                                         \
                                for (int64_t r = 0; r < B; r += S)                                                     \
                                    tile_##W(s0 + c * ss + r * W, ss, d0 + r * ts + c * W, ts);                        \
                            continue;                                                                                  \
                        }                                                                                              \
                        for (int64_t c = 0; c < B; c += S)                                                             \
                            for (int64_t r = 0; r < B; r += S)                                                         \
                                tile_##W(s0 + c * is + r * W, is, out + r * LINE + c * W, LINE);                       \
                        for (int64_t r = 0; r < B; r++) move_line(d0 + r * ts, out + r * LINE);                        \
                    }                                                                                                  \
            }                                                                                                          \
        }                                                                                                              \
    }
DEFINE_TILED_SIMD128(1, 16, rows_tiled_1_simd128, false)
DEFINE_TILED_SIMD128(2, 8, rows_tiled_2_out_simd128, false)
DEFINE_TILED_SIMD128(2, 8, rows_tiled_2_direct_simd128, true)
DEFINE_TILED_SIMD128(4, 4, rows_tiled_4_out_simd128, false)
DEFINE_TILED_SIMD128(4, 4, rows_tiled_4_direct_simd128, true)
DEFINE_TILED_SIMD128(8, 2, rows_tiled_8_simd128, false)

/* Each walk apart, so that the buffered one compiles as it did alone: with
 * the choice inside one walk, t2d_f32 (buffered) ran 0.80-0.93x. */
static void rows_tiled_2_simd128(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                 const dmls_cpu_prepared *p) {
    if (p->row_dst_step % DMLS_WASM_DIRECT_SPAN != 0) rows_tiled_2_direct_simd128(dst, src, n, rows, p);
    else rows_tiled_2_out_simd128(dst, src, n, rows, p);
}
static void rows_tiled_4_simd128(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                 const dmls_cpu_prepared *p) {
    if (p->row_dst_step % DMLS_WASM_DIRECT_SPAN != 0) rows_tiled_4_direct_simd128(dst, src, n, rows, p);
    else rows_tiled_4_out_simd128(dst, src, n, rows, p);
}

/* 2-byte items whose columns lie far apart take the native walk's staged
 * strips (copy_tiled.h, DMLS_TILED_WALK and DMLS_TILE_NARROW_COLS) less its
 * prefetch: a strip of 16 columns goes down a chunk of DMLS_TILE_CHUNK_ROWS
 * rows, so it reads 16 input streams (a line each a block of 32 rows, read
 * in place as the other 2-byte blocks are) rather than the 256 of
 * nchw_to_nhwc_f16's panel, and its 8 x 8 sub-tiles go into the stage (the
 * chunk's rows, dmls_tile_stage_bytes = 512 bytes each), which goes out in
 * whole runs. Measured in V8 against the panels down chunks of 32 rows
 * above (bench/RESULTS.md, issue 37, branch wasm-u8): nchw_to_nhwc_f16
 * 1.16-1.58x. Writing the strips straight into the output (no stage: 32 bytes
 * of each of the 512 rows a strip) gained less, and chunks of 128 to 1024
 * rows about the same; 1-byte items in such strips (t2d_u8, staged or not)
 * gained nothing, nor a load of each column's line two or four blocks ahead
 * in place of the prefetch, and keep the walk above. */
static void rows_staged_2_simd128(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                  const dmls_cpu_prepared *p, unsigned char *stage) {
    enum { W = 2, LINE = DMLS_TILE_BYTES, B = LINE / W, NB = DMLS_TILE_NARROW_COLS };
    const int64_t ss = p->item_src_step, rs = p->row_src_step, rd = p->row_dst_step;
    /* rows read backwards: a block's lowest input address is its last row, which goes out last */
    const int64_t flip = rs < 0 ? B - 1 : 0;
    /* a stage is `panel` columns by `chunk` rows, its row q - q0 holding row q's columns p0.. p0 + panel,
     * pitched at the call's columns where they are fewer (as DMLS_TILED_WALK's) */
    const int64_t panel = dmls_tile_stage_bytes(W, ss) / W, chunk = DMLS_TILE_CHUNK_ROWS;
    const int64_t tp = (n < panel ? n : panel) * W;
    const int64_t ts = rs < 0 ? -tp : tp;
    for (int64_t q0 = 0; q0 < rows; q0 += chunk) {
        const int64_t q1 = rows - q0 < chunk ? rows : q0 + chunk;
        for (int64_t p0 = 0; p0 < n; p0 += panel) {
            const int64_t p1 = n - p0 < panel ? n : p0 + panel;
            for (int64_t c0 = p0; c0 < p1; c0 += NB)
                for (int64_t r0 = q0; r0 < q1; r0 += B) {
                    const int64_t rb = q1 - r0 < B ? q1 - r0 : B, cb = p1 - c0 < NB ? p1 - c0 : NB;
                    if (rb < B || cb < NB) {
                        for (int64_t c = 0; c < cb; c++)
                            for (int64_t r = 0; r < rb; r++)
                                memcpy(stage + (r0 - q0 + r) * tp + (c0 - p0 + c) * W,
                                       src + (r0 + r) * rs + (c0 + c) * ss, W);
                        continue;
                    }
                    const unsigned char *s0 = src + (r0 + flip) * rs + c0 * ss;
                    unsigned char *d0 = stage + (r0 - q0 + flip) * tp + (c0 - p0) * W;
                    /* as above, a group of 8 input lines through all its row pieces before the next */
                    for (int64_t c = 0; c < NB; c += 8)
                        for (int64_t r = 0; r < B; r += 8) tile_2(s0 + c * ss + r * W, ss, d0 + r * ts + c * W, ts);
                }
            /* the stage's rows go out whole; rows adjacent in the stage and in the output as one run */
            const bool joined = (p1 - p0) * W == tp && rd == tp;
            const int64_t len = joined ? tp * (q1 - q0) : (p1 - p0) * W, q2 = joined ? q0 + 1 : q1;
            for (int64_t r = q0; r < q2; r++) {
                unsigned char *d = dst + r * rd + p0 * W;
                const unsigned char *t = stage + (r - q0) * tp;
                int64_t k = 0;
                for (; k + LINE <= len; k += LINE) move_line(d + k, t + k);
                if (k < len) memcpy(d + k, t + k, (size_t)(len - k));
            }
        }
    }
}

static void rows_tiled_2_or_staged_simd128(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                           const dmls_cpu_prepared *p) {
    void *allocation;
    unsigned char *const stage = dmls_tile_stage(2, p->item_src_step, n, rows, &allocation);
    if (stage) rows_staged_2_simd128(dst, src, n, rows, p, stage);
    else rows_tiled_2_simd128(dst, src, n, rows, p);
    free(allocation);
}

/* Few columns (planes to channels last: RGB's 3; interleave.h,
 * kernels_tiled_neon.c's rows_few_cols): a block of the walk would be
 * mostly empty and its items go one by one; 16 / w rows of the n columns
 * make n output vectors instead, one swizzle per column each. */
static inline DMLS_ALWAYS_INLINE void few_cols_n(int w, unsigned char *dst, const unsigned char *src, const int64_t n,
                                                 int64_t rows, const dmls_cpu_prepared *p) {
    unsigned char mask[DMLS_INTERLEAVE_MAX][DMLS_INTERLEAVE_MAX][16];
    dmls_few_cols_masks(w, n, mask);
    const int64_t per = 16 / w, ss = p->item_src_step, step = per * n * w; /* rows a round, bytes out a round */
    int64_t r = 0;
    unsigned char *d = dst; /* stepped a round at a time, not r / per * step (a division a round) */
    for (; r + per <= rows; r += per, d += step) {
        v128_t x[DMLS_INTERLEAVE_MAX];
        for (int64_t c = 0; c < n; c++) x[c] = ld(src + r * w + c * ss);
        for (int64_t k = 0; k < n; k++) {
            v128_t o = wasm_i8x16_swizzle(x[0], ld(mask[k][0]));
            for (int64_t c = 1; c < n; c++) o = wasm_v128_or(o, wasm_i8x16_swizzle(x[c], ld(mask[k][c])));
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

#define DEFINE_FEW_COLS_OR(W, WALK)                                                                   \
    static void rows_tiled_##W##_any_simd128(unsigned char *dst, const unsigned char *src, int64_t n, \
                                             int64_t rows, const dmls_cpu_prepared *p) {             \
        if (dmls_few_cols(W, n, p)) rows_few_cols(W, dst, src, n, rows, p);                          \
        else WALK(dst, src, n, rows, p);                                                             \
    }
DEFINE_FEW_COLS_OR(1, rows_tiled_1_simd128)
DEFINE_FEW_COLS_OR(2, rows_tiled_2_or_staged_simd128)
DEFINE_FEW_COLS_OR(4, rows_tiled_4_simd128)
DEFINE_FEW_COLS_OR(8, rows_tiled_8_simd128)

dmls_cpu_rows_fn dmls_cpu_pick_tiled_simd128(int32_t w) {
    static const dmls_cpu_rows_fn by_width[4] = {rows_tiled_1_any_simd128, rows_tiled_2_any_simd128,
                                                 rows_tiled_4_any_simd128, rows_tiled_8_any_simd128};
    return dmls_cpu_pick_width(w, by_width);
}
#endif
