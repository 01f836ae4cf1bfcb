/* WebAssembly SIMD128 kernel variants (the web build, js/): the cases the
 * NEON variants speed up on AArch64 (reversal, short byte gathers such as
 * stride 2 or 2 of 3 channels), with the same 16-byte blocks and the same
 * shuffle masks. SIMD128 is fixed when the module is compiled
 * (-msimd128), so dmls_cpu_features() reports it in such a build and
 * DMLSLICE_DISABLE_CPU_FEATURES=simd128 falls back to the portable kernels.
 * Every load covers only the input bytes of the items it gathers, so
 * nothing outside the tensor is read. The row walks are kernels_neon.c's
 * line for line, only the intrinsics differ: a twin kept on purpose, as the
 * AVX2 and NEON files are, so each instruction set's kernel reads alone. */
#include "kernels.h"

#if DMLS_CPU_SIMD128_KERNELS
#include <string.h>
#include <wasm_simd128.h>

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
    if (ss != -(int64_t)w) return NULL;
    switch (w) {
    case 1: return rows_reverse1;
    case 2: return rows_reverse2;
    case 4: return rows_reverse4;
    case 8: return rows_reverse8;
    default: return NULL;
    }
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
#endif
