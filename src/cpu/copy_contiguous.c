/* The portable copy of rows contiguous on both sides. prepare.c chooses it
 * per copy, once, at create; execute.c walks the rows. */
#include "copy_contiguous.h"

#include <string.h>

/* n (1..64) bytes in moves of a fixed size, the last two of a size
 * overlapping where n is not a multiple of it: rows this short cost less
 * than the call to memcpy that a size known only at run time takes (a
 * library call in WebAssembly, a dispatch on the size in glibc), and a
 * fixed-size memcpy compiles to plain loads and stores. */
static inline void copy_short(unsigned char *d, const unsigned char *s, size_t n) {
    if (n >= 32) {
        memcpy(d, s, 16), memcpy(d + 16, s + 16, 16);
        memcpy(d + n - 32, s + n - 32, 16), memcpy(d + n - 16, s + n - 16, 16);
    } else if (n >= 16) {
        memcpy(d, s, 16), memcpy(d + n - 16, s + n - 16, 16);
    } else if (n >= 8) {
        memcpy(d, s, 8), memcpy(d + n - 8, s + n - 8, 8);
    } else if (n >= 4) {
        memcpy(d, s, 4), memcpy(d + n - 4, s + n - 4, 4);
    } else {
        for (size_t i = 0; i < n; i++) d[i] = s[i];
    }
}

/* Rows at most this long take copy_short. */
#define SHORT_ROW 64

#if DMLS_CPU_SIMD128_KERNELS
#include <wasm_simd128.h>

/* emscripten's memcpy (3.1.6) moves rows under 512 bytes 4 bytes at a time
 * and hands longer ones to JavaScript (HEAPU8.copyWithin), a call out of the
 * module per row: rows of a few hundred bytes to a few KiB (the heads
 * permutation's 256, a crop's 768) ran at half the engine's memory.copy.
 * Below MEDIUM_ROW they go in 16-byte vectors, the last one overlapping
 * where the length is not a multiple of 16; past it the call's cost is
 * small against the row. */
#define MEDIUM_ROW (64 * 1024)
static inline void copy_medium(unsigned char *d, const unsigned char *s, size_t n) {
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const v128_t a = wasm_v128_load(s + i), b = wasm_v128_load(s + i + 16);
        const v128_t c = wasm_v128_load(s + i + 32), e = wasm_v128_load(s + i + 48);
        wasm_v128_store(d + i, a), wasm_v128_store(d + i + 16, b);
        wasm_v128_store(d + i + 32, c), wasm_v128_store(d + i + 48, e);
    }
    for (; i + 16 <= n; i += 16) wasm_v128_store(d + i, wasm_v128_load(s + i));
    if (i < n) wasm_v128_store(d + n - 16, wasm_v128_load(s + n - 16)); /* n > SHORT_ROW >= 16 */
}
#endif

void dmls_cpu_rows_contig(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                          const dmls_cpu_prepared *p) {
    const size_t bytes = (size_t)(n * p->width);
    if (bytes <= SHORT_ROW)
        for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) copy_short(dst, src, bytes);
#if DMLS_CPU_SIMD128_KERNELS
    else if (bytes < MEDIUM_ROW)
        for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) copy_medium(dst, src, bytes);
#endif
    else
        for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) memcpy(dst, src, bytes);
}
