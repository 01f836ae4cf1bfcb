/* The zero fill of SLICE_GRAD's output gradient: memset rows, walked with an
 * odometer. (The copy itself runs through the kernels of kernels.c.) */
#include <string.h>

#include "../operator.h"

void dmls_cpu_fill_zero(const dmls_copy_plan *p, void *dst_base) {
    if (p->count == 0) return;
    unsigned char *dst = (unsigned char *)dst_base + p->dst_offset;
    const int64_t es = p->esize;
    if (p->ndim == 0) {
        memset(dst, 0, (size_t)es);
        return;
    }
    const int inner = p->ndim - 1;
    const int64_t n = p->shape[inner], ds = es * p->dst_stride[inner];
    int64_t c[DMLS_MAX_RANK] = {0};
    for (;;) {
        if (p->dst_stride[inner] == 1) {
            memset(dst, 0, (size_t)(n * es));
        } else {
            unsigned char *d = dst;
            for (int64_t k = 0; k < n; k++, d += ds) memset(d, 0, (size_t)es);
        }
        int i = inner - 1;
        for (; i >= 0; i--) {
            dst += es * p->dst_stride[i];
            if (++c[i] < p->shape[i]) break;
            dst -= es * p->dst_stride[i] * p->shape[i];
            c[i] = 0;
        }
        if (i < 0) return;
    }
}
