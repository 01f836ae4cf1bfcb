/* The portable copy of rows contiguous on both sides. prepare.c chooses it
 * per copy, once, at create; execute.c walks the rows. */
#include "copy_contiguous.h"

#include <string.h>

void dmls_cpu_rows_contig(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                          const dmls_cpu_prepared *p) {
    const size_t bytes = (size_t)(n * p->width);
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) memcpy(dst, src, bytes);
}
