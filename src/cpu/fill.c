/* The zero fill of SLICE_GRAD's output gradient: memset rows, walked with an
 * odometer from any starting element, so a thread can fill its share. (The
 * copy itself runs through the kernels of kernels.c.) */
#include <string.h>

#include "execute.h"
#include "split.h"

void dmls_cpu_fill_zero_range(const dmls_copy_plan *p, void *dst_base, uint64_t first, uint64_t last) {
    if (last > p->count) last = p->count;
    if (first >= last) return;
    unsigned char *dst = (unsigned char *)dst_base + p->dst_offset;
    const int64_t es = p->esize;
    if (p->ndim == 0) { /* a single element */
        memset(dst, 0, (size_t)es);
        return;
    }
    const int inner = p->ndim - 1;
    const int64_t n = p->shape[inner], ds = es * p->dst_stride[inner];
    int64_t c[DMLS_MAX_RANK] = {0}, col = 0;
    if (first != 0) { /* a thread's share: place it (no divisions for the whole fill) */
        uint64_t row = first / (uint64_t)n;
        col = (int64_t)(first % (uint64_t)n);
        for (int i = inner - 1; i >= 0; i--) {
            c[i] = (int64_t)(row % (uint64_t)p->shape[i]);
            row /= (uint64_t)p->shape[i];
            dst += c[i] * es * p->dst_stride[i];
        }
    }
    uint64_t left = last - first;
    for (;;) {
        int64_t len = n - col;
        if ((uint64_t)len > left) len = (int64_t)left;
        unsigned char *d = dst + col * ds;
        if (p->dst_stride[inner] == 1) {
            memset(d, 0, (size_t)(len * es));
        } else {
            for (int64_t k = 0; k < len; k++, d += ds) memset(d, 0, (size_t)es);
        }
        left -= (uint64_t)len;
        if (left == 0) return;
        col = 0;
        for (int i = inner - 1; i >= 0; i--) {
            dst += es * p->dst_stride[i];
            if (++c[i] < p->shape[i]) break;
            dst -= es * p->dst_stride[i] * p->shape[i];
            c[i] = 0;
        }
    }
}

void dmls_cpu_fill_zero(const dmls_copy_plan *p, void *dst_base) {
    dmls_cpu_fill_zero_range(p, dst_base, 0, p->count);
}

/* Whole rows when a row is at most DMLS_SPLIT_ROW_BYTES, else
 * DMLS_SPLIT_GRAIN_BYTES of elements, as for copies (prepare.c). */
uint64_t dmls_cpu_fill_grain(const dmls_copy_plan *f) {
    if (f->ndim == 0) return 1;
    const uint64_t row = (uint64_t)f->shape[f->ndim - 1], es = (uint64_t)f->esize;
    return row * es <= DMLS_SPLIT_ROW_BYTES ? row : DMLS_SPLIT_GRAIN_BYTES / es;
}
