/* The portable copy of strided items, one kernel per item width class.
 * prepare.c chooses one per copy, once, at create; execute.c walks the rows. */
#include "copy_strided.h"

#include <string.h>

#include "move_pair.h"

/* Strided items, one width class each, the item loop inline. Fixed-size
 * memcpy compiles to plain loads and stores and stays defined on the
 * misaligned addresses the native API allows; widths between powers of two
 * move as two overlapping halves, both read before either is written. */
#define DEFINE_STRIDED(suffix, MOVE)                                                           \
    static void rows_strided_##suffix(unsigned char *dst, const unsigned char *src, int64_t n, \
                                      int64_t rows, const dmls_cpu_prepared *p) {                  \
        const int64_t ss = p->item_src_step, ds = p->item_dst_step;                           \
        const size_t w = (size_t)p->width;                                                    \
        (void)w;                                                                              \
        for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {            \
            unsigned char *d = dst;                                                           \
            const unsigned char *s = src;                                                     \
            for (int64_t i = 0; i < n; i++, d += ds, s += ss) { MOVE(d, s); }                 \
        }                                                                                     \
    }
#define MOVE_FIXED(k, d, s) memcpy(d, s, k)
#define MOVE_1(d, s) MOVE_FIXED(1, d, s)
#define MOVE_2(d, s) MOVE_FIXED(2, d, s)
#define MOVE_4(d, s) MOVE_FIXED(4, d, s)
#define MOVE_8(d, s) MOVE_FIXED(8, d, s)
#define MOVE_16(d, s) MOVE_FIXED(16, d, s)
#define MOVE_PAIR2(d, s) MOVE_PAIR(2, d, s)
#define MOVE_PAIR4(d, s) MOVE_PAIR(4, d, s)
#define MOVE_PAIR8(d, s) MOVE_PAIR(8, d, s)
#define MOVE_PAIR16(d, s) MOVE_PAIR(16, d, s)
DEFINE_STRIDED(1, MOVE_1)
DEFINE_STRIDED(2, MOVE_2)
DEFINE_STRIDED(4, MOVE_4)
DEFINE_STRIDED(8, MOVE_8)
DEFINE_STRIDED(16, MOVE_16)
DEFINE_STRIDED(3_4, MOVE_PAIR2)    /* 3 */
DEFINE_STRIDED(5_8, MOVE_PAIR4)    /* 5..7 */
DEFINE_STRIDED(9_16, MOVE_PAIR8)   /* 9..15 */
DEFINE_STRIDED(17_32, MOVE_PAIR16) /* 17..31, and 32 */

dmls_cpu_rows_fn dmls_cpu_pick_strided(int32_t w) {
    switch (w) {
    case 1: return rows_strided_1;
    case 2: return rows_strided_2;
    case 4: return rows_strided_4;
    case 8: return rows_strided_8;
    case 16: return rows_strided_16;
    case 3: return rows_strided_3_4;
    default:
        return w < 8 ? rows_strided_5_8 : w < 16 ? rows_strided_9_16 : rows_strided_17_32;
    }
}
