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

void dmls_cpu_rows_contig(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                          const dmls_cpu_prepared *p) {
    const size_t bytes = (size_t)(n * p->width);
    if (bytes <= SHORT_ROW)
        for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) copy_short(dst, src, bytes);
    else
        for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) memcpy(dst, src, bytes);
}
