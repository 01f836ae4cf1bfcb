/* The CPU executor's pieces that tests reach directly: the operator's CPU
 * data, the N-d walk of a prepared copy (run.c) and SLICE_GRAD's zero fill
 * (fill.c), each over all of it or one thread's share. */
#ifndef DMLS_CPU_RUN_H
#define DMLS_CPU_RUN_H

#include "../operator.h"
#include "kernels.h"
#include "prepare.h"

/* The CPU backend's data in op (backend.c made it at create). */
static inline const dmls_cpu_prepared *dmls_cpu_prepared_of(const dmls_operator *op) {
    return (const dmls_cpu_prepared *)dmls_operator_prepared(op, DMLS_BACKEND_CPU);
}

/* Copies items [first, last) (row-major over the prepared shape). */
void dmls_cpu_run_range(const dmls_cpu_prepared *cp, const void *src_base, void *dst_base, uint64_t first,
                        uint64_t last);

/* Copies all the items: dmls_cpu_run_range(cp, src_base, dst_base, 0,
 * cp->items), without its placing of a share's ends, for the many tiny items
 * of a batch (up to 3 dims it is one row call per plane). Inline, as a
 * batch runs it once per item. */
static inline void dmls_cpu_run_whole(const dmls_cpu_prepared *cp, const void *src_base, void *dst_base) {
    const int inner = cp->ndim - 1;
    if (cp->items == 0 || inner > 2) {
        dmls_cpu_run_range(cp, src_base, dst_base, 0, cp->items);
        return;
    }
    const unsigned char *src = (const unsigned char *)src_base + cp->src_offset;
    unsigned char *dst = (unsigned char *)dst_base + cp->dst_offset;
    const int64_t n = cp->shape[inner], rows = inner > 0 ? cp->shape[inner - 1] : 1;
    const int64_t planes = inner == 2 ? cp->shape[0] : 1;
    const int64_t ss = inner == 2 ? cp->src_step[0] : 0, ds = inner == 2 ? cp->dst_step[0] : 0;
    for (int64_t p = 0; p < planes; p++, src += ss, dst += ds) cp->rows(dst, src, n, rows, cp);
#if defined(__x86_64__) || defined(__i386__)
    if (cp->nontemporal) dmls_cpu_store_fence(); /* as in dmls_cpu_run_range */
#endif
}

/* The zero fill: all of it, or elements [first, last) in row-major order
 * over plan->shape. */
void dmls_cpu_fill_zero(const dmls_copy_plan *plan, void *dst_base);
void dmls_cpu_fill_zero_range(const dmls_copy_plan *plan, void *dst_base, uint64_t first, uint64_t last);

/* The grain the zero fill is cut at between threads (split.h). */
uint64_t dmls_cpu_fill_grain(const dmls_copy_plan *plan);

#endif
