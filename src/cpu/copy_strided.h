/* The portable copy of strided items (copy_strided.c). */
#ifndef DMLS_CPU_COPY_STRIDED_H
#define DMLS_CPU_COPY_STRIDED_H

#include "prepare.h"

/* Strided items of w bytes, any steps. */
dmls_cpu_rows_fn dmls_cpu_pick_strided(int32_t w);

#endif
