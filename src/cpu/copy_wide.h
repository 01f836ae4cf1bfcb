/* The portable copy of packed rows of items between powers of two, each
 * moved as one power-of-two move (copy_wide.c). */
#ifndef DMLS_CPU_COPY_WIDE_H
#define DMLS_CPU_COPY_WIDE_H

#include "prepare.h"

/* Packed output rows of items between powers of two, each moved as k bytes
 * (k = 4, 8 or 16). */
dmls_cpu_rows_fn dmls_cpu_pick_wide(int64_t k);

/* The power of two a wide move of items of w bytes uses, 0 if w is one. */
int64_t dmls_cpu_wide_bytes(int32_t w);

#endif
