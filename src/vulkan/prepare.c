/* The Vulkan backend's launches, prepared once per operator at create
 * (plain C: create.c calls it whether or not a device exists). The plan is
 * the CPU and CUDA backends' (copy_plan.h: dims merged, offsets folded);
 * this turns it into byte strides, innermost first, and picks the widest
 * unit a units shader can move:
 *   - a contiguous inner run on both sides (or a fill) becomes units of 16
 *     or 8 bytes when its length and every outer stride allow it;
 *   - else 4- and 8-byte elements move as themselves;
 *   - 1- and 2-byte elements, and any layout a unit does not divide, go to
 *     bytes.comp, which owns whole output words.
 * Whether a unit also divides the bound offsets is known only at execute
 * (dmls_vk_choose), so bytes.comp is always the second choice.
 * Worked example, crop of a packed 8x768 float row block (plan shape
 * {8, 512}, src strides {768, 1}, dst {512, 1}, elements): units of 16
 * bytes, shape {128, 8}, src strides {16, 3072}, dst {16, 2048}. */
#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "../operator.h"
#include "launch.h"

static bool divides(int64_t v, int64_t m) { return v % m == 0; }

static dmls_vk_launch from_plan(const dmls_copy_plan *p, bool fill) {
    dmls_vk_launch L;
    memset(&L, 0, sizeof L);
    L.shader = p->count == 0 ? DMLS_VK_NOTHING : DMLS_VK_BYTES;
    L.unit = p->esize;
    L.fill = fill;
    L.ndim = p->ndim > 0 ? p->ndim : 1;
    /* A single element (ndim 0 in the plan): one dim of 1, with strides of
     * one element so that bytes.comp's divisions stay defined. */
    L.shape[0] = 1;
    L.src_stride[0] = fill ? 0 : p->esize;
    L.dst_stride[0] = p->esize;
    for (int i = 0; i < p->ndim; i++) {
        const int k = p->ndim - 1 - i;
        L.shape[i] = p->shape[k];
        L.src_stride[i] = fill ? 0 : p->src_stride[k] * p->esize;
        L.dst_stride[i] = p->dst_stride[k] * p->esize;
    }
    L.src_offset = fill ? 0 : p->src_offset;
    L.dst_offset = p->dst_offset;
    return L;
}

/* Every stride of L (inner one included when `inner`) divisible by v. */
static bool strides_divide(const dmls_vk_launch *L, bool inner, int64_t v) {
    for (int i = inner ? 0 : 1; i < L->ndim; i++)
        if (!divides(L->src_stride[i], v) || !divides(L->dst_stride[i], v)) return false;
    return true;
}

/* The widest units launch of B, or false when none fits. */
static bool units(const dmls_vk_launch *B, dmls_vk_launch *out) {
    const int64_t es = B->unit;
    const bool contiguous = B->dst_stride[0] == es && (B->fill || B->src_stride[0] == es);
    for (int64_t v = 16; v >= 4; v /= 2) {
        dmls_vk_launch L = *B;
        if (v > es && contiguous && divides(B->shape[0] * es, v) && strides_divide(B, false, v)) {
            L.shape[0] = B->shape[0] * es / v;
            L.src_stride[0] = B->fill ? 0 : v;
            L.dst_stride[0] = v;
        } else if (v != es || !strides_divide(B, true, v)) {
            continue;
        }
        L.shader = v == 16 ? DMLS_VK_UNITS16 : v == 8 ? DMLS_VK_UNITS8 : DMLS_VK_UNITS4;
        L.unit = (int32_t)v;
        *out = L;
        return true;
    }
    return false;
}

static void prepare_plan(const dmls_copy_plan *p, bool fill, dmls_vk_launch *choices) {
    const dmls_vk_launch bytes = from_plan(p, fill);
    choices[0] = choices[1] = bytes;
    if (bytes.shader != DMLS_VK_NOTHING) units(&bytes, &choices[0]);
}

dmls_status dmls_vulkan_prepare(const dmls_operator *op, void **prepared) {
    dmls_vk_prepared *v = calloc(1, sizeof *v);
    *prepared = v;
    RETURN_IF(v == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL,
              "%s: out of memory creating the operator (its Vulkan launches)", op->problem.name);
    v->zero_fill = op->zero_fill;
    prepare_plan(&op->copy, false, v->copy);
    if (op->zero_fill)
        prepare_plan(&op->fill, true, v->fill);
    else
        v->fill[0].shader = v->fill[1].shader = DMLS_VK_NOTHING;
    return DMLS_OK;
}

void dmls_vulkan_destroy(void *prepared) { free(prepared); }

const dmls_vk_launch *dmls_vk_choose(const dmls_vk_launch *choices, uint64_t src, uint64_t dst) {
    const dmls_vk_launch *L = &choices[0];
    const uint64_t u = (uint64_t)L->unit;
    if (L->shader != DMLS_VK_BYTES && (L->fill || (src + (uint64_t)L->src_offset) % u == 0) &&
        (dst + (uint64_t)L->dst_offset) % u == 0)
        return L;
    return &choices[1];
}

void dmls_vk_span(const dmls_vk_launch *L, bool dst_side, int64_t pos, int64_t *lo, int64_t *hi) {
    const int64_t *stride = dst_side ? L->dst_stride : L->src_stride;
    int64_t low = pos, high = pos;
    for (int i = 0; i < L->ndim; i++) {
        const int64_t reach = (L->shape[i] - 1) * stride[i];
        if (reach < 0)
            low += reach;
        else
            high += reach;
    }
    *lo = low;
    *hi = high + L->unit;
}
