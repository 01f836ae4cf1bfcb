/* NEON kernel variants for AArch64: the cases the AVX2 variants speed up on
 * x86 (reversal, stride +-2 gathers, short byte gathers such as 2 of 3
 * channels), with 16-byte vectors. Advanced SIMD is part of every AArch64
 * CPU the project targets, but these still run only where
 * dmls_cpu_features() reports it, so DMLSLICE_DISABLE_CPU_FEATURES=neon
 * falls back to the portable kernels. Every load covers only the input bytes
 * of the items it gathers, so nothing outside the tensor is read. */
#include "../compiler.h"
#include "interleave.h"
#include "kernels.h"

#if DMLS_CPU_NEON_KERNELS
#include <arm_neon.h>
#include <string.h>

/* ------------------------------------------------------------------
 * Reversal: items of w = 1, 2, 4 or 8 bytes read at step -w into packed
 * rows. The 16 / w items of a 16-byte output block are the 16 input bytes
 * ending at the block's first item, in reverse item order: one load, a
 * reversal within each 64-bit half, and a swap of the halves.
 * ------------------------------------------------------------------ */

static inline uint8x16_t swap_halves(uint8x16_t v) { return vextq_u8(v, v, 8); }

static inline uint8x16_t reverse_items(uint8x16_t v, int w) {
    switch (w) {
    case 1: return swap_halves(vrev64q_u8(v));
    case 2: return swap_halves(vreinterpretq_u8_u16(vrev64q_u16(vreinterpretq_u16_u8(v))));
    case 4: return swap_halves(vreinterpretq_u8_u32(vrev64q_u32(vreinterpretq_u32_u8(v))));
    default: return swap_halves(v); /* 8 */
    }
}

/* Twin of kernels_wasm_simd128.c's reversals and gathers: kept apart, the same loops over other intrinsics. */
/* Rows of n items of w bytes read at step -w. */
static inline void reverse_rows(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                const dmls_cpu_prepared *p, const int w) {
    const int64_t per = 16 / w;
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {
        unsigned char *d = dst;
        const unsigned char *s = src; /* item i of the row is at s - i * w */
        int64_t i = 0;
        for (; i + 2 * per <= n; i += 2 * per, d += 32, s -= 32) {
            uint8x16_t a = vld1q_u8(s + w - 16), b = vld1q_u8(s + w - 32);
            vst1q_u8(d, reverse_items(a, w));
            vst1q_u8(d + 16, reverse_items(b, w));
        }
        if (i + per <= n) {
            vst1q_u8(d, reverse_items(vld1q_u8(s + w - 16), w));
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

dmls_cpu_rows_fn dmls_cpu_pick_reverse_neon(int32_t w, int64_t ss) {
    static const dmls_cpu_rows_fn reverse[4] = {rows_reverse1, rows_reverse2, rows_reverse4, rows_reverse8};
    return ss == -(int64_t)w ? dmls_cpu_pick_width(w, reverse) : NULL;
}

/* ------------------------------------------------------------------
 * Table-lookup gathers with the shuffle masks of prepare.c: the 16 / w
 * items of a 16-byte output block lie within shuffle_span (16..32) input
 * bytes from the lowest of them; two 16-byte loads, at that item and ending
 * at the span's last byte, cover them exactly. A table lookup takes bytes
 * from each load and gives 0 where the mask is out of range (0x80), as x86's
 * byte shuffle does, so the same masks serve both.
 * ------------------------------------------------------------------ */

static inline uint8x16_t gather_block(const unsigned char *lo, int64_t hi_at, uint8x16_t m0, uint8x16_t m1) {
    return vorrq_u8(vqtbl1q_u8(vld1q_u8(lo), m0), vqtbl1q_u8(vld1q_u8(lo + hi_at), m1));
}

void dmls_cpu_rows_shuffle_neon(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                const dmls_cpu_prepared *p) {
    const int64_t w = p->width, ss = p->item_src_step, per = p->shuffle_items;
    const int64_t block_step = per * ss, hi_at = p->shuffle_span - 16;
    /* The lowest-addressed item of a block is its last one when ss < 0. */
    const int64_t low = ss < 0 ? (per - 1) * ss : 0;
    const uint8x16_t m0 = vld1q_u8(p->shuffle[0]), m1 = vld1q_u8(p->shuffle[1]);
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {
        unsigned char *d = dst;
        const unsigned char *s = src;
        int64_t i = 0;
        for (; i + 2 * per <= n; i += 2 * per, d += 32, s += 2 * block_step) {
            uint8x16_t a = gather_block(s + low, hi_at, m0, m1);
            uint8x16_t b = gather_block(s + block_step + low, hi_at, m0, m1);
            vst1q_u8(d, a);
            vst1q_u8(d + 16, b);
        }
        if (i + per <= n) {
            vst1q_u8(d, gather_block(s + low, hi_at, m0, m1));
            i += per, d += 16, s += block_step;
        }
        for (; i < n; i++, d += w, s += ss) memcpy(d, s, (size_t)w);
    }
}
/* ------------------------------------------------------------------
 * Pixels to planes (interleave.h; kernels_avx2.c's deinterleave): each
 * row's 16 output bytes ORed from one table lookup per input vector of a
 * round of 16 / w pixels, four rounds to a row in turn (a line of it).
 * ------------------------------------------------------------------ */

static inline uint8x16_t planes_round(const unsigned char *s, int64_t k, const unsigned char (*mask)[16]) {
    uint8x16_t o = vqtbl1q_u8(vld1q_u8(s), vld1q_u8(mask[0]));
    for (int64_t v = 1; v < k; v++) o = vorrq_u8(o, vqtbl1q_u8(vld1q_u8(s + 16 * v), vld1q_u8(mask[v])));
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
                vst1q_u8(dst + r * rd + (i + q * per) * w, planes_round(src + (i + q * per) * ss, k, mask[r]));
    for (; i * ss + 16 * k <= end; i += per)
        for (int64_t r = 0; r < rows; r++) vst1q_u8(dst + r * rd + i * w, planes_round(src + i * ss, k, mask[r]));
    for (; i < n; i++)
        for (int64_t r = 0; r < rows; r++) memcpy(dst + r * rd + i * w, src + i * ss + r * w, (size_t)w);
}

/* The body compiled for the common shapes with their numbers constant (interleave.h). */
void dmls_cpu_rows_deinterleave_neon(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                     const dmls_cpu_prepared *p) {
    const int64_t w = p->width, k = p->item_src_step / w;
#define RUN(W, K) deinterleave(dst, src, n, rows, p, W, K)
    DMLS_DEINTERLEAVE_BY_SHAPE(w, k, RUN)
#undef RUN
}
#endif
