/* The portable copy of rows contiguous on both sides (copy_contiguous.c). */
#ifndef DMLS_CPU_COPY_CONTIGUOUS_H
#define DMLS_CPU_COPY_CONTIGUOUS_H

#include "prepare.h"

/* Rows contiguous on both sides: one memcpy per row. */
void dmls_cpu_rows_contig(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                          const dmls_cpu_prepared *p);

#endif
