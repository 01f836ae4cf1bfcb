/* One item of w bytes (w in [k, 2k]) moved as two overlapping k-byte halves,
 * both read before either is written, so that widths between powers of two
 * need no byte loop. The strided and the wide copies both end items this
 * way; the caller's scope holds w. */
#ifndef DMLS_CPU_MOVE_PAIR_H
#define DMLS_CPU_MOVE_PAIR_H

#include <string.h>

#define MOVE_PAIR(k, d, s)                                                                     \
    do {                                                                                       \
        unsigned char a_[k], b_[k];                                                            \
        memcpy(a_, s, k);                                                                      \
        memcpy(b_, s + w - k, k);                                                              \
        memcpy(d, a_, k);                                                                      \
        memcpy(d + w - k, b_, k);                                                              \
    } while (0)

#endif
