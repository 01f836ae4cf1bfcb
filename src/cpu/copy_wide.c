/* The portable copy of packed rows of items whose width lies between powers
 * of two, each moved as one wider power-of-two move. prepare.c chooses it per
 * copy, once, at create; execute.c walks the rows. */
#include "copy_wide.h"

#include <string.h>

#include "move_pair.h"

/* Packed output rows of items whose width lies between powers of two: every
 * item but a row's last moves as one K-byte move (K the next power of two),
 * whose extra bytes land on the next item's destination and are rewritten by
 * the next move; the last item moves exactly, as two halves. Needs
 * item_dst_step == width, item_src_step > 0 and item_src_step + width >= K,
 * so the read stays within the row's items; K < 2 * width keeps the write
 * within the row. */
#define DEFINE_WIDE(K, HALF)                                                                   \
    static void rows_wide_##K(unsigned char *dst, const unsigned char *src, int64_t n,         \
                              int64_t rows, const dmls_cpu_prepared *p) {                          \
        const int64_t ss = p->item_src_step;                                                  \
        const size_t w = (size_t)p->width;                                                    \
        for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {            \
            unsigned char *d = dst;                                                           \
            const unsigned char *s = src;                                                     \
            for (int64_t i = 1; i < n; i++, d += w, s += ss) memcpy(d, s, K);                 \
            MOVE_PAIR(HALF, d, s);                                                            \
        }                                                                                     \
    }
DEFINE_WIDE(4, 2)   /* 3 */
DEFINE_WIDE(8, 4)   /* 5..7 */
DEFINE_WIDE(16, 8)  /* 9..15 */

int64_t dmls_cpu_wide_bytes(int32_t w) {
    if ((w & (w - 1)) == 0) return 0;
    int64_t k = 4;
    while (k < w) k *= 2;
    return k;
}

dmls_cpu_rows_fn dmls_cpu_pick_wide(int64_t k) { return k == 4 ? rows_wide_4 : k == 8 ? rows_wide_8 : rows_wide_16; }
