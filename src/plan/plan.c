/* Planning: turn a validated problem into normalized copy plans.
 *
 * Byte offsets are sums of products of an element size, a coordinate and a
 * stride. Validation proved every element's byte address fits a signed 64-bit
 * value, but a partial product need not (esize * start overflows for a start
 * near 2^62 even when the stride is 0), so offsets are accumulated with
 * dmls_wrap_* (modulo 2^64), which gives the exact result whenever the
 * result itself fits.
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
#include "copy_plan.h"

/* See dmls_copy_plan.tile_dim: among the outer dims, the one with the
 * smallest non-zero |src_stride|, when it is smaller than the innermost's
 * and the output is packed along the innermost. A broadcast dim (stride 0)
 * reads one element and is no fast axis. */
static int32_t tile_dim(const dmls_copy_plan *p) {
    const int inner = p->ndim - 1;
    if (p->ndim < 2 || p->dst_stride[inner] != 1) return -1;
    int32_t best = -1;
    for (int i = 0; i < inner; i++) {
        uint64_t s = dmls_abs_i64(p->src_stride[i]);
        if (s != 0 && (best < 0 || s < dmls_abs_i64(p->src_stride[best]))) best = i;
    }
    if (best < 0 || dmls_abs_i64(p->src_stride[best]) >= dmls_abs_i64(p->src_stride[inner])) return -1;
    return best;
}

void dmls_normalize(dmls_copy_plan *p) {
    p->tile_dim = -1;
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
            p->dst_offset = dmls_wrap_add(p->dst_offset, dmls_wrap_mul3(p->esize, shape - 1, dst));
            p->src_offset = dmls_wrap_add(p->src_offset, dmls_wrap_mul3(p->esize, shape - 1, src));
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
    p->tile_dim = tile_dim(p);
}

void dmls_plan_copies(const dmls_problem *pr, dmls_copy_plan *copy, dmls_copy_plan *fill, bool *zero_fill) {
    const bool grad = pr->kind == DMLS_KIND_GRAD;
    const dmls_layout *walked = grad ? &pr->in : &pr->out; /* walked in order */
    const dmls_layout *windowed = grad ? &pr->out : &pr->in; /* walked through the window */

    dmls_copy_plan c;
    memset(&c, 0, sizeof c);
    c.esize = pr->esize;
    c.ndim = pr->ndim;
    bool walked_empty = false;
    for (int i = 0; i < pr->ndim; i++) walked_empty |= walked->shape[i] == 0;
    int64_t windowed_offset = windowed->byte_offset;
    /* An empty copy has no addresses; its window may even sit at the end. */
    for (int i = 0; i < (walked_empty ? 0 : pr->ndim); i++) {
        c.shape[i] = walked->shape[i];
        /* A size-1 dim never moves, and its step may be huge: skip the product. */
        int64_t windowed_step = walked->shape[i] > 1 ? windowed->strides[i] * pr->step[i] : 0;
        windowed_offset =
            dmls_wrap_add(windowed_offset, dmls_wrap_mul3(pr->esize, pr->start[i], windowed->strides[i]));
        if (grad) {
            c.src_stride[i] = walked->strides[i];
            c.dst_stride[i] = windowed_step;
        } else {
            c.src_stride[i] = windowed_step;
            c.dst_stride[i] = walked->strides[i];
        }
    }
    if (walked_empty) c.shape[0] = 0;
    c.src_offset = grad ? walked->byte_offset : windowed_offset;
    c.dst_offset = grad ? windowed_offset : walked->byte_offset;
    dmls_normalize(&c);
    *copy = c;

    *zero_fill = grad;
    memset(fill, 0, sizeof *fill);
    if (grad) {
        fill->esize = pr->esize;
        fill->ndim = pr->ndim;
        for (int i = 0; i < pr->ndim; i++) {
            fill->shape[i] = pr->out.shape[i];
            fill->dst_stride[i] = pr->out.strides[i];
        }
        fill->dst_offset = pr->out.byte_offset;
        dmls_normalize(fill);
    }
}
