/* Planning: turn a validated problem into normalized copy plans.
 *
 * Normalization makes every backend's job small: a copy of N-d shape with two
 * stride vectors. Worked examples (esize 4, strides in elements):
 *
 *   Crop of a packed 1x1x4x4 input to 1x1x3x2 at (0,0,1,2):
 *     shape {1,1,3,2} src {16,16,4,1} dst {6,6,2,1}
 *     -> drop size-1 dims:  shape {3,2} src {4,1} dst {2,1}
 *     -> no merge (src row pitch 4 != 2): two dims, inner run of 2 elements.
 *
 *   Channel slice of a packed 2x8x4x4 input to 2x3x4x4:
 *     shape {2,3,4,4} src {128,16,4,1} dst {48,16,4,1}
 *     -> merge 4x4 (4 == 1*4 on both sides), then 3x16 (16 == 1*16):
 *        shape {2,48} src {128,1} dst {48,1}: two memcpy runs of 48 elements.
 *
 *   Reversal of the last axis of a packed 2x3 tensor (step -1):
 *     shape {2,3} src {3,-1} dst {3,1}: dst already positive; src keeps its
 *     sign, so the inner loop walks the input backwards.
 *
 *   A scatter whose destination runs backwards (SLICE_GRAD, step -1):
 *     shape {3} src {1} dst {-1} -> flip both: src {-1} dst {1}, with each
 *     offset moved to the other end, so writes always go forwards.
 */
#include <string.h>

#include "checked.h"
#include "operator.h"

void dmls_normalize(dmls_copy_plan *p) {
    uint64_t count = 1;
    for (int i = 0; i < p->ndim; i++) count *= (uint64_t)p->shape[i]; /* fits: validated */
    p->count = count;
    if (count == 0) {
        p->ndim = 0;
        return;
    }

    /* Drop size-1 dims and point every destination stride forwards. */
    int n = 0;
    for (int i = 0; i < p->ndim; i++) {
        if (p->shape[i] == 1) continue;
        int64_t shape = p->shape[i], src = p->src_stride[i], dst = p->dst_stride[i];
        if (dst < 0) {
            p->dst_offset += (int64_t)p->esize * (shape - 1) * dst;
            p->src_offset += (int64_t)p->esize * (shape - 1) * src;
            dst = -dst;
            src = -src;
        }
        p->shape[n] = shape;
        p->src_stride[n] = src;
        p->dst_stride[n] = dst;
        n++;
    }

    /* Order dims by decreasing destination stride (insertion sort: stable,
     * and a packed output is already in order). */
    for (int i = 1; i < n; i++) {
        int64_t shape = p->shape[i], src = p->src_stride[i], dst = p->dst_stride[i];
        int j = i;
        while (j > 0 && p->dst_stride[j - 1] < dst) {
            p->shape[j] = p->shape[j - 1];
            p->src_stride[j] = p->src_stride[j - 1];
            p->dst_stride[j] = p->dst_stride[j - 1];
            j--;
        }
        p->shape[j] = shape;
        p->src_stride[j] = src;
        p->dst_stride[j] = dst;
    }

    /* Merge an outer dim into its inner neighbour when both sides step over
     * the inner dim exactly. */
    int out = 0;
    for (int i = 0; i < n; i++) {
        if (out > 0) {
            int k = out - 1; /* the kept outer dim; i is its inner neighbour */
            int64_t src_span, dst_span;
            if (!dmls_mul_i64(p->src_stride[i], p->shape[i], &src_span) &&
                !dmls_mul_i64(p->dst_stride[i], p->shape[i], &dst_span) &&
                src_span == p->src_stride[k] && dst_span == p->dst_stride[k]) {
                p->shape[k] *= p->shape[i];
                p->src_stride[k] = p->src_stride[i];
                p->dst_stride[k] = p->dst_stride[i];
                continue;
            }
        }
        p->shape[out] = p->shape[i];
        p->src_stride[out] = p->src_stride[i];
        p->dst_stride[out] = p->dst_stride[i];
        out++;
    }
    p->ndim = out;
    for (int i = out; i < DMLS_MAX_RANK; i++) p->shape[i] = 1, p->src_stride[i] = 0, p->dst_stride[i] = 0;
}

void dmls_plan(dmls_operator *op) {
    const dmls_problem *pr = &op->problem;
    const bool grad = pr->kind == DMLS_KIND_GRAD;
    const dmls_layout *small = grad ? &pr->in : &pr->out; /* walked in order */
    const dmls_layout *big = grad ? &pr->out : &pr->in;   /* walked through the window */

    dmls_copy_plan c;
    memset(&c, 0, sizeof c);
    c.esize = pr->esize;
    c.ndim = pr->ndim;
    bool small_empty = false;
    for (int i = 0; i < pr->ndim; i++) small_empty |= small->shape[i] == 0;
    int64_t big_offset = big->byte_offset;
    /* An empty copy has no addresses; its window may even sit at the end. */
    for (int i = 0; i < (small_empty ? 0 : pr->ndim); i++) {
        c.shape[i] = small->shape[i];
        /* A size-1 dim never moves, and its step may be huge: skip the product. */
        int64_t big_step = small->shape[i] > 1 ? big->strides[i] * pr->step[i] : 0;
        big_offset += (int64_t)pr->esize * pr->start[i] * big->strides[i];
        if (grad) {
            c.src_stride[i] = small->strides[i];
            c.dst_stride[i] = big_step;
        } else {
            c.src_stride[i] = big_step;
            c.dst_stride[i] = small->strides[i];
        }
    }
    if (small_empty) c.shape[0] = 0;
    c.src_offset = grad ? small->byte_offset : big_offset;
    c.dst_offset = grad ? big_offset : small->byte_offset;
    dmls_normalize(&c);
    op->copy = c;

    op->zero_fill = grad;
    memset(&op->fill, 0, sizeof op->fill);
    if (grad) {
        dmls_copy_plan f;
        memset(&f, 0, sizeof f);
        f.esize = pr->esize;
        f.ndim = pr->ndim;
        for (int i = 0; i < pr->ndim; i++) {
            f.shape[i] = pr->out.shape[i];
            f.dst_stride[i] = pr->out.strides[i];
        }
        f.dst_offset = pr->out.byte_offset;
        dmls_normalize(&f);
        op->fill = f;
    }
#ifdef DMLS_HAVE_CUDA
    /* Launch state is derived here, once, so a GPU execute only launches. */
    dmls_cuda_prepare(op);
#endif
}

bool dmls_layout_injective(int32_t ndim, const int64_t *shape, const int64_t *strides) {
    uint64_t stride[DMLS_MAX_RANK], size[DMLS_MAX_RANK];
    for (int i = 0; i < ndim; i++)
        if (shape[i] == 0) return true; /* no elements, nothing can collide, whatever the strides */
    int n = 0;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] == 1) continue;
        if (strides[i] == 0) return false;
        stride[n] = dmls_abs_i64(strides[i]);
        size[n] = (uint64_t)shape[i];
        n++;
    }
    /* Decision (R-T-OUTLAYOUT): accept a layout when its dims, taken by
     * increasing |stride|, nest: each stride steps past everything the smaller
     * ones reach. That covers packed, padded, transposed and reversed layouts;
     * an interleaved layout that happens to be injective is rejected too,
     * because proving it in general is a knapsack problem. */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && stride[j - 1] > stride[j]; j--) {
            uint64_t t = stride[j]; stride[j] = stride[j - 1]; stride[j - 1] = t;
            t = size[j]; size[j] = size[j - 1]; size[j - 1] = t;
        }
    uint64_t reach = 0; /* highest |offset| the smaller dims reach */
    for (int i = 0; i < n; i++) {
        if (stride[i] <= reach) return false;
        uint64_t extent;
        if (dmls_mul_u64(stride[i], size[i] - 1, &extent) || dmls_add_u64(reach, extent, &reach))
            return false;
    }
    return true;
}
