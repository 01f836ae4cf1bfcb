/* The Vulkan backend's launches, prepared once per operator at create
 * (plain C: create.c calls it whether or not a device exists). The plan is
 * the CPU and CUDA backends' (copy_plan.h: dims merged, offsets folded);
 * this turns it into byte strides, innermost first, and the shader
 * families of the CUDA backend (src/cuda/prepare.c), best first:
 *   - wide units: a contiguous inner run on both sides (or a fill) moves as
 *     16-, 8- or 4-byte units when its length and every outer stride allow;
 *   - tile: a transposed copy (the plan's tile_dim) through shared memory,
 *     one tile of the two fast dims per item (tile.comp);
 *   - reversal: a reversed inner run loads 16 bytes and reverses its
 *     elements in registers;
 *   - gather: a contiguous output row from a strided input: each item
 *     builds 16 output bytes (or one word, for 1- and 2-byte elements) from
 *     element loads at a pattern fixed per launch, so it owns whole words;
 *   - natural units: 4- and 8-byte elements as themselves, any strides;
 *   - bytes.comp: any element size at any byte position.
 * Whether the bound offsets meet a family's alignment is known only at
 * execute (dmls_vk_choose), so the last two always follow as fallbacks.
 * Worked example, stride2_f32 (packed 64x64x256x256 float, steps 1,1,2,2):
 * plan shape {4096, 128, 128}, src strides {65536, 512, 2}, dst {16384,
 * 128, 1} (elements) -> gather of 4 floats per item: shape {32, 128, 4096},
 * src bytes {32, 2048, 262144}, dst {16, 512, 65536}, pattern run 4, step 8. */
#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "../operator.h"
#include "launch.h"

static bool divides(int64_t v, int64_t m) { return v % m == 0; }

/* The stride of a dim whose k indices became one: stride * k lies inside
 * the tensor when the dim keeps several indices, but may overflow when it
 * keeps one, where no stride is ever taken. */
static int64_t grouped_stride(int64_t stride, int64_t k, int64_t shape) { return shape > 1 ? stride * k : 0; }

void dmls_vk_magic(uint64_t d, uint32_t *magic, uint32_t *shift) {
    uint32_t l = 0;
    while (((uint64_t)1 << l) < d) l++;
    *magic = (uint32_t)((((uint64_t)1 << l) - d) * ((uint64_t)1 << 32) / d + 1);
    *shift = l;
}

uint64_t dmls_vk_items(const dmls_vk_launch *L) {
    uint64_t n = 1;
    for (int i = 0; i < L->ndim; i++) n *= (uint64_t)L->shape[i];
    return n;
}

/* The multipliers of every dim; a shape past 2^31 gets none, as it can
 * only be the outermost dim of a dispatch (execute keeps items below 2^31,
 * and an inner dim's shape divides the items). */
static void set_magic(dmls_vk_launch *L) {
    for (int i = 0; i < L->ndim; i++)
        if (L->shape[i] <= ((int64_t)1 << 31))
            dmls_vk_magic((uint64_t)L->shape[i], &L->magic[i], &L->shift[i]);
        else
            L->magic[i] = L->shift[i] = 0;
}

/* bytes.comp's launch of a plan: byte strides, innermost first. */
static dmls_vk_launch from_plan(const dmls_copy_plan *p, bool fill) {
    dmls_vk_launch L;
    memset(&L, 0, sizeof L);
    L.shader = p->count == 0 ? DMLS_VK_NOTHING : DMLS_VK_BYTES;
    L.unit = L.esize = p->esize;
    L.fill = fill;
    L.src_unit = 1;
    L.src_align = L.dst_align = 1;
    L.src_hi = p->esize;
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

/* Every stride of one side of L from dim `from` on divisible by v. */
static bool side_divides(const dmls_vk_launch *L, const int64_t *stride, int from, int64_t v) {
    for (int i = from; i < L->ndim; i++)
        if (!divides(stride[i], v)) return false;
    return true;
}

static int units_shader(int64_t v) { return v == 16 ? DMLS_VK_UNITS16 : v == 8 ? DMLS_VK_UNITS8 : DMLS_VK_UNITS4; }

/* L as a units launch of v bytes (its inner dim already in units of v). */
static void as_units(dmls_vk_launch *L, int64_t v) {
    L->shader = units_shader(v);
    L->unit = L->src_unit = (int32_t)v;
    L->src_align = L->fill ? 1 : (uint32_t)v;
    L->dst_align = (uint32_t)v;
    L->src_lo = 0, L->src_hi = v;
}

/* One element per item: 4- and 8-byte elements, any strides. */
static bool natural(const dmls_vk_launch *B, dmls_vk_launch *out) {
    if (B->esize != 4 && B->esize != 8) return false;
    *out = *B;
    as_units(out, B->esize);
    return true;
}

/* A contiguous inner run on both sides (or a fill) as units wider than an
 * element. */
static bool widen(const dmls_vk_launch *B, dmls_vk_launch *out) {
    const int64_t es = B->esize;
    if (B->dst_stride[0] != es || (!B->fill && B->src_stride[0] != es)) return false;
    for (int64_t v = 16; v > es && v >= 4; v /= 2) {
        if (!divides(B->shape[0] * es, v) || !side_divides(B, B->dst_stride, 1, v) ||
            !side_divides(B, B->src_stride, 1, v))
            continue;
        *out = *B;
        out->shape[0] = B->shape[0] * es / v;
        out->src_stride[0] = B->fill ? 0 : v;
        out->dst_stride[0] = v;
        as_units(out, v);
        return true;
    }
    return false;
}

/* A reversed inner run (source step -1 element, destination +1): 16 bytes
 * per item from one 16-byte load whose lowest byte is the item's last
 * element. */
static bool reverse(const dmls_vk_launch *B, dmls_vk_launch *out) {
    const int64_t es = B->esize, k = 16 / es;
    if (B->fill || es >= 16 || B->dst_stride[0] != es || B->src_stride[0] != -es || !divides(B->shape[0], k) ||
        !side_divides(B, B->dst_stride, 1, 16) || !side_divides(B, B->src_stride, 1, 16))
        return false;
    *out = *B;
    out->shape[0] = B->shape[0] / k;
    out->src_stride[0] = -16;
    out->dst_stride[0] = 16;
    out->src_offset = B->src_offset - (k - 1) * es;
    as_units(out, 16);
    out->shader = DMLS_VK_REVERSE1 + (es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3);
    return true;
}

/* B's items grouped k elements at a time into v-byte output units: the k
 * elements either lie in one inner row (k divides it) or cover k / n whole
 * rows of n (the output contiguous across them). */
static bool group(const dmls_vk_launch *B, int64_t v, dmls_vk_launch *out) {
    const int64_t es = B->esize, k = v / es, n = B->shape[0];
    *out = *B;
    if (divides(n, k)) {
        out->run = k, out->step = B->src_stride[0], out->row = 0;
        out->shape[0] = n / k;
        out->src_stride[0] = grouped_stride(B->src_stride[0], k, out->shape[0]);
        out->dst_stride[0] = v;
    } else if (B->ndim >= 2 && divides(k, n) && B->dst_stride[1] == n * es && divides(B->shape[1], k / n)) {
        const int64_t q = k / n;
        out->run = n, out->step = B->src_stride[0], out->row = B->src_stride[1];
        out->ndim = B->ndim - 1;
        for (int i = 0; i < out->ndim; i++) {
            out->shape[i] = B->shape[i + 1];
            out->src_stride[i] = B->src_stride[i + 1];
            out->dst_stride[i] = B->dst_stride[i + 1];
        }
        out->shape[0] /= q;
        out->src_stride[0] = grouped_stride(out->src_stride[0], q, out->shape[0]);
        out->dst_stride[0] = v;
    } else {
        return false;
    }
    return side_divides(out, out->dst_stride, 1, v);
}

/* A contiguous output row from any input step: v = 16 output bytes per
 * item (or 4, for 1- and 2-byte elements). */
static bool gather(const dmls_vk_launch *B, dmls_vk_launch *out) {
    const int64_t es = B->esize;
    if (B->fill || B->dst_stride[0] != es || es > 8) return false;
    for (int64_t v = 16; v >= 4; v -= 12) {
        if (v / es < 2 || !group(B, v, out)) continue;
        const int64_t k = v / es;
        int64_t lo = 0, hi = 0;
        for (int64_t j = 0; j < k; j++) {
            const int64_t at = (j / out->run) * out->row + (j % out->run) * out->step;
            lo = at < lo ? at : lo, hi = at > hi ? at : hi;
        }
        /* The shader walks the pattern in 32-bit steps. */
        if (lo < INT32_MIN || hi > INT32_MAX - es) return false;
        const int e = es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3;
        out->shader = v == 16 ? DMLS_VK_GATHER16 + e : DMLS_VK_GATHER4 + e;
        out->unit = (int32_t)v;
        out->src_unit = 1;
        out->src_align = (uint32_t)es;
        out->dst_align = (uint32_t)v;
        out->src_lo = lo, out->src_hi = hi + es;
        return true;
    }
    return false;
}

static int64_t magnitude(int64_t v) { return v < 0 ? -v : v; }

/* tile.comp's 16-byte sides for tile launch T of B (dims A and b): a load
 * side whose rows of B are contiguous, whole vectors and 16-byte apart; a
 * store side whose rows of A are whole vectors and 16-byte apart (the
 * bound positions' alignment is dmls_vk_choose's). */
static int tile_wide(const dmls_vk_launch *B, const dmls_vk_launch *T, int b) {
    const int64_t es = B->esize;
    const bool load = B->src_stride[b] == es && divides(B->shape[b] * es, 16) && divides(B->src_stride[0], 16) &&
                      side_divides(T, T->src_stride, 1, 16);
    const bool store = divides(B->shape[0] * es, 16) && divides(B->dst_stride[b], 16) && side_divides(T, T->dst_stride, 0, 16);
    return (load ? DMLS_VK_TILE_LOAD16 : 0) | (store ? DMLS_VK_TILE_STORE16 : 0);
}

/* T as tile.comp's launch with 16-byte sides `wide`. */
static void tile_sides(dmls_vk_launch *T, int wide) {
    const int64_t es = T->esize;
    T->shader = DMLS_VK_TILE1 + (es == 1 ? 0 : es == 2 ? 1 : es == 4 ? 2 : 3) + 4 * wide;
    /* An element within one word, or whole words; a vector side, vectors. */
    T->src_align = wide & DMLS_VK_TILE_LOAD16 ? 16 : (uint32_t)(es < 4 ? es : 4);
    T->dst_align = wide & DMLS_VK_TILE_STORE16 ? 16 : 4;
}

/* A transposed copy through shared-memory tiles (tile.comp): the launch's
 * dims become tiles, A's (dim 0, the output's contiguous dim) and B's (the
 * plan's tile_dim, the input's fastest) first, the others after them;
 * run and step keep the extents of A and B for the partial last tiles.
 * Each output word must belong to one tile row (the shader stores whole
 * words): rows of A of whole words, every other destination stride a
 * multiple of 4 bytes. A tile's in-tile strides stay below 2^25 bytes, so
 * they are exact 32-bit values in the shader and a whole tile fits any
 * binding (maxStorageBufferRange is at least 2^27). With 16-byte sides,
 * *words is the same tile with none, for positions not 16-byte aligned. */
static bool tile(const dmls_copy_plan *p, const dmls_vk_launch *B, dmls_vk_launch *out, dmls_vk_launch *words) {
    const int64_t es = B->esize;
    if (B->fill || p->tile_dim < 0 || p->ndim != B->ndim || es > 8 || B->dst_stride[0] != es) return false;
    const int b = p->ndim - 1 - p->tile_dim; /* the launch's dims run innermost first */
    const int64_t na = B->shape[0], nb = B->shape[b], ta = dmls_vk_tile_a(es), tb = dmls_vk_tile_b(es);
    /* Narrower than 64 bytes on a side, the gather's element loads do as well. */
    if (b < 1 || na * es < 64 || nb * es < 64 || !divides(na * es, 4) || !side_divides(B, B->dst_stride, 1, 4))
        return false;
    const int64_t sa = B->src_stride[0], sb = B->src_stride[b], db = B->dst_stride[b], limit = (int64_t)1 << 25;
    if (magnitude(sa) * ta >= limit || magnitude(sb) * tb >= limit || db * tb >= limit) return false;
    *out = *B;
    out->shape[0] = (na + ta - 1) / ta, out->src_stride[0] = sa * ta, out->dst_stride[0] = es * ta;
    out->shape[1] = (nb + tb - 1) / tb, out->src_stride[1] = sb * tb, out->dst_stride[1] = db * tb;
    for (int i = 1, k = 2; i < B->ndim; i++)
        if (i != b) {
            out->shape[k] = B->shape[i], out->src_stride[k] = B->src_stride[i], out->dst_stride[k] = B->dst_stride[i];
            k++;
        }
    out->unit = out->src_unit = 1; /* positions in bytes */
    out->run = na, out->step = nb, out->row = 0;
    const int64_t src_reach = (ta - 1) * magnitude(sa) + (tb - 1) * magnitude(sb) + es, dst_reach = (tb - 1) * db + ta * es;
    out->src_lo = 0, out->src_hi = src_reach > dst_reach ? src_reach : dst_reach;
    const int wide = tile_wide(B, out, b);
    tile_sides(out, 0);
    if (wide != 0) {
        *words = *out;
        tile_sides(out, wide);
    }
    return true;
}

static void prepare_plan(const dmls_copy_plan *p, bool fill, dmls_vk_launch *choices) {
    const dmls_vk_launch bytes = from_plan(p, fill);
    for (int i = 0; i < DMLS_VK_CHOICES; i++) choices[i] = bytes;
    if (bytes.shader == DMLS_VK_NOTHING) return;
    dmls_vk_launch *best = &choices[0], *second = &choices[1];
    if (!natural(&bytes, second)) *second = bytes;
    if (!widen(&bytes, best) && !tile(p, &bytes, best, second) && !reverse(&bytes, best) && !gather(&bytes, best))
        *best = *second;
    for (int i = 0; i < DMLS_VK_CHOICES; i++) set_magic(&choices[i]);
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
        for (int i = 0; i < DMLS_VK_CHOICES; i++) v->fill[i].shader = DMLS_VK_NOTHING;
    return DMLS_OK;
}

void dmls_vulkan_destroy(void *prepared) { free(prepared); }

const dmls_vk_launch *dmls_vk_choose(const dmls_vk_launch *choices, uint64_t src, uint64_t dst, uint64_t reach) {
    for (int i = 0; i < DMLS_VK_CHOICES - 1; i++) {
        const dmls_vk_launch *L = &choices[i];
        if ((uint64_t)(L->src_hi - L->src_lo) > reach) continue;
        if ((L->fill || (src + (uint64_t)L->src_offset) % L->src_align == 0) &&
            (dst + (uint64_t)L->dst_offset) % L->dst_align == 0)
            return L;
    }
    return &choices[DMLS_VK_CHOICES - 1];
}

/* How far dim i of L reaches from its first element on one side: for a
 * tile's A and B, to their last elements rather than their last tiles'
 * first. */
static int64_t reach_of(const dmls_vk_launch *L, const int64_t *stride, int i) {
    if (dmls_vk_is_tile(L->shader) && i < 2) {
        const int64_t per = i == 0 ? dmls_vk_tile_a(L->esize) : dmls_vk_tile_b(L->esize);
        return ((i == 0 ? L->run : L->step) - 1) * (stride[i] / per);
    }
    return (L->shape[i] - 1) * stride[i];
}

void dmls_vk_span(const dmls_vk_launch *L, bool dst_side, int64_t pos, int64_t *lo, int64_t *hi) {
    const int64_t *stride = dst_side ? L->dst_stride : L->src_stride;
    int64_t low = pos, high = pos;
    for (int i = 0; i < L->ndim; i++) {
        const int64_t reach = reach_of(L, stride, i);
        if (reach < 0)
            low += reach;
        else
            high += reach;
    }
    if (dmls_vk_is_tile(L->shader)) { /* one element at the far end, either side */
        *lo = low, *hi = high + L->esize;
        return;
    }
    *lo = low + (dst_side ? 0 : L->src_lo);
    *hi = high + (dst_side ? L->unit : L->src_hi);
}
