/* The default CPU executor: runs a normalized copy plan. The innermost dim
 * is either one memcpy (unit stride on both sides) or a tight loop chosen by
 * element size; the outer dims are walked with an odometer. */
#include <string.h>

#include "../operator.h"

/* Fixed-size memcpy compiles to one load and one store, and stays defined
 * for the misaligned addresses the native API allows. */
#define DEFINE_STRIDED_ROW(bytes)                                                            \
    static void strided_row_##bytes(unsigned char *dst, int64_t dst_step,                  \
                                    const unsigned char *src, int64_t src_step, int64_t n) { \
        for (int64_t i = 0; i < n; i++) {                                                    \
            memcpy(dst, src, bytes);                                                         \
            dst += dst_step;                                                                 \
            src += src_step;                                                                 \
        }                                                                                    \
    }
DEFINE_STRIDED_ROW(1)
DEFINE_STRIDED_ROW(2)
DEFINE_STRIDED_ROW(4)
DEFINE_STRIDED_ROW(8)

typedef void (*row_fn)(unsigned char *, int64_t, const unsigned char *, int64_t, int64_t);

static void contiguous_row(unsigned char *dst, int64_t dst_step, const unsigned char *src,
                           int64_t src_step, int64_t n) {
    (void)src_step;
    memcpy(dst, src, (size_t)(n * dst_step));
}

static row_fn pick_row(int32_t esize, int64_t src_stride, int64_t dst_stride) {
    if (src_stride == 1 && dst_stride == 1) return contiguous_row;
    switch (esize) {
    case 1: return strided_row_1;
    case 2: return strided_row_2;
    case 4: return strided_row_4;
    default: return strided_row_8;
    }
}

void dmls_cpu_copy(const dmls_copy_plan *p, const void *src_base, void *dst_base) {
    if (p->count == 0) return;
    const unsigned char *src = (const unsigned char *)src_base + p->src_offset;
    unsigned char *dst = (unsigned char *)dst_base + p->dst_offset;
    const int64_t es = p->esize;
    if (p->ndim == 0) {
        memcpy(dst, src, (size_t)es);
        return;
    }
    const int inner = p->ndim - 1;
    const row_fn row = pick_row(p->esize, p->src_stride[inner], p->dst_stride[inner]);
    const int64_t n = p->shape[inner];
    const int64_t ss = es * p->src_stride[inner], ds = es * p->dst_stride[inner];

    int64_t c[DMLS_MAX_RANK] = {0};
    for (;;) {
        row(dst, ds, src, ss, n);
        int i = inner - 1;
        for (; i >= 0; i--) {
            src += es * p->src_stride[i];
            dst += es * p->dst_stride[i];
            if (++c[i] < p->shape[i]) break;
            src -= es * p->src_stride[i] * p->shape[i];
            dst -= es * p->dst_stride[i] * p->shape[i];
            c[i] = 0;
        }
        if (i < 0) return;
    }
}

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
