/* The CUDA launch set: turns a normalized copy plan into the launches
 * execute chooses from, once, at create time. Plain C, no CUDA header: it
 * runs inside create.c's dmls_operator_build.
 *
 * Three launches per copy plan, best first (execute takes the first whose
 * alignment the bound bases meet):
 *   1. vectorized: 16- or 8-byte accesses. A contiguous inner run becomes a
 *      run of wider units (crop: 768-byte rows as 48 units of 16 bytes); a
 *      reversed run loads 16 bytes and reverses the elements in registers; a
 *      strided inner dim with contiguous output gathers 16/E scalar loads
 *      into one 16-byte store (stride 2, image channels). The gather's load
 *      pattern is fixed per launch, so it lives in the kernel parameters.
 *   2. natural: one element per index, addresses aligned to the element.
 *   3. byte-wise: the native API allows any byte_offset and base, and a GPU
 *      faults on a misaligned 4-byte load, so each element is split into its
 *      bytes (an extra innermost dim).
 * Each launch that indexes in 32 bits with at most 4 dims and 32-bit byte
 * strides also gets a compact form (dmls_cuda_compact), which execute passes
 * instead: fewer parameter bytes per launch, the same kernel bodies.
 * Worked example, stride2_f32 (packed 64x64x256x256 float, steps 1,1,2,2):
 *   plan shape {4096,128,128} src {65536,512,2} dst {16384,128,1} (elements)
 *   -> gather, 16 bytes = 4 floats per index: shape {4096,128,32},
 *      src bytes {262144,2048,32}, dst bytes {65536,512,16}, pattern {0,8,16,24}. */
#include <string.h>

#include "launch.h"

enum { ILP = DMLS_CUDA_ILP, THREADS = DMLS_CUDA_THREADS };

/* Dims outer to inner, strides in bytes, before they become a launch. */
typedef struct dims {
    int n;
    int64_t shape[DMLS_CUDA_MAX_DIMS];
    int64_t src[DMLS_CUDA_MAX_DIMS];
    int64_t dst[DMLS_CUDA_MAX_DIMS];
    int64_t src_offset, dst_offset;
} dims;

static dims from_plan(const dmls_copy_plan *p) {
    dims d;
    memset(&d, 0, sizeof d);
    const int64_t es = p->esize;
    d.n = p->ndim;
    for (int i = 0; i < p->ndim; i++) {
        d.shape[i] = p->shape[i];
        d.src[i] = p->src_stride[i] * es;
        d.dst[i] = p->dst_stride[i] * es;
    }
    if (d.n == 0) { /* a single element */
        d.n = 1;
        d.shape[0] = 1;
    }
    d.src_offset = p->src_offset;
    d.dst_offset = p->dst_offset;
    return d;
}

static bool multiple(int64_t v, int64_t m) { return v % m == 0; }

static bool fits32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

/* The stride of a dim whose k indices became one: stride * k lies inside
 * the tensor when the dim keeps several indices, but may overflow when it
 * keeps one, where no stride is ever taken. */
static int64_t grouped_stride(int64_t stride, int64_t k, int64_t shape) { return shape > 1 ? stride * k : 0; }

/* Granlund-Montgomery: for d <= 2^(bits-1) and l = ceil(log2 d),
 * m = floor(2^bits * (2^l - d) / d) + 1 gives n / d = (mulhi(n, m) + n) >> l
 * for every n below 2^(bits-1), where the sum cannot wrap. */
static void magic_for(uint64_t d, bool wide, uint64_t *magic, uint32_t *shift) {
    uint32_t l = 0;
    while (l < 64 && ((uint64_t)1 << l) < d) l++;
    unsigned __int128 num = (unsigned __int128)(((unsigned __int128)1 << l) - d) << (wide ? 64 : 32);
    *magic = (uint64_t)(num / d) + 1;
    *shift = l;
}

static dmls_cuda_launch finish(const dims *d, int kernel, int unit, int vec, uint32_t src_align,
                               uint32_t dst_align) {
    dmls_cuda_launch L;
    memset(&L, 0, sizeof L);
    L.kernel = kernel;
    L.unit = unit;
    L.vec = vec;
    L.ndim = d->n;
    L.src_align = src_align;
    L.dst_align = dst_align;
    L.src_offset = d->src_offset;
    L.dst_offset = d->dst_offset;
    uint64_t count = 1;
    for (int i = 0; i < d->n; i++) count *= (uint64_t)d->shape[i];
    L.count = count;
    L.wide = count >= ((uint64_t)1 << 31);
    for (int i = 0; i < d->n; i++) { /* innermost first */
        int k = d->n - 1 - i;
        L.shape[i] = d->shape[k];
        L.src_stride[i] = d->src[k];
        L.dst_stride[i] = d->dst[k];
        magic_for((uint64_t)d->shape[k], L.wide, &L.magic[i], &L.shift[i]);
    }
    uint64_t blocks = (count + ILP * THREADS - 1) / (ILP * THREADS);
    /* The kernels loop over the grid, so capping it only costs iterations. */
    const uint64_t max_blocks = (uint64_t)1 << 30;
    L.blocks = blocks > max_blocks ? max_blocks : blocks;
    return L;
}

/* Byte-wise: every element as esize bytes, for bases of any alignment. */
static dmls_cuda_launch bytewise(dims d, int32_t esize, bool fill) {
    if (esize > 1) {
        int in = d.n - 1;
        if (d.dst[in] == esize && (fill || d.src[in] == esize)) {
            d.shape[in] *= esize;
            d.src[in] = fill ? 0 : 1;
            d.dst[in] = 1;
        } else {
            d.shape[d.n] = esize;
            d.src[d.n] = fill ? 0 : 1;
            d.dst[d.n] = 1;
            d.n++;
        }
    } else {
        for (int i = 0; i < d.n; i++)
            if (fill) d.src[i] = 0;
    }
    return finish(&d, fill ? DMLS_CUDA_FILL : DMLS_CUDA_COPY, 1, 0, 1, 1);
}

static dmls_cuda_launch natural(const dims *d, int32_t esize, bool fill) {
    bool ok = multiple(d->dst_offset, esize) && (fill || multiple(d->src_offset, esize));
    dmls_cuda_launch L = finish(d, fill ? DMLS_CUDA_FILL : DMLS_CUDA_COPY, esize, 0, (uint32_t)esize,
                                (uint32_t)esize);
    if (!ok) L.src_align = L.dst_align = 0;
    return L;
}

/* True when every outer stride and the offset of one side are multiples of v. */
static bool side_aligned(const dims *d, const int64_t *stride, int64_t offset, int64_t v) {
    if (!multiple(offset, v)) return false;
    for (int i = 0; i < d->n - 1; i++)
        if (!multiple(stride[i], v)) return false;
    return true;
}

/* Contiguous inner run on both sides (or a fill): wider units. */
static bool try_widen(const dims *d0, int32_t esize, bool fill, dmls_cuda_launch *out) {
    const int in = d0->n - 1;
    if (d0->dst[in] != esize || (!fill && d0->src[in] != esize)) return false;
    for (int64_t v = 16; v > esize; v /= 2) {
        if (!multiple(d0->shape[in] * esize, v)) continue;
        if (!side_aligned(d0, d0->dst, d0->dst_offset, v)) continue;
        if (!fill && !side_aligned(d0, d0->src, d0->src_offset, v)) continue;
        dims d = *d0;
        d.shape[in] = d0->shape[in] * esize / v;
        d.dst[in] = v;
        d.src[in] = fill ? 0 : v;
        *out = finish(&d, fill ? DMLS_CUDA_FILL : DMLS_CUDA_COPY, (int)v, 0, fill ? 1 : (uint32_t)v,
                      (uint32_t)v);
        return true;
    }
    return false;
}

/* Reversed inner run (src step -1 element, dst +1): one 16-byte load per
 * 16 output bytes, elements swapped in registers. */
static bool try_reverse(const dims *d0, int32_t esize, dmls_cuda_launch *out) {
    const int in = d0->n - 1;
    const int64_t v = 16, k = v / esize;
    if (esize >= v || d0->dst[in] != esize || d0->src[in] != -esize) return false;
    if (!multiple(d0->shape[in], k)) return false;
    const int64_t src_first = d0->src_offset - (k - 1) * esize; /* lowest byte of the first load */
    if (src_first < 0) return false;
    if (!side_aligned(d0, d0->dst, d0->dst_offset, v) || !side_aligned(d0, d0->src, src_first, v)) return false;
    dims d = *d0;
    d.shape[in] /= k;
    d.dst[in] = v;
    d.src[in] = -v;
    d.src_offset = src_first;
    dmls_cuda_launch L = finish(&d, DMLS_CUDA_REVERSE, esize, (int)v, (uint32_t)v, (uint32_t)v);
    if (L.wide) return false; /* the reversal kernels have the 32-bit index path only */
    *out = L;
    return true;
}

/* Contiguous output, any input step: k = vec / esize scalar loads per
 * vector store, at offsets fixed for the whole launch. The k elements either
 * lie in one inner row (k divides it) or cover k / n whole rows of n. */
static bool try_gather(const dims *d0, int32_t esize, dmls_cuda_launch *out) {
    const int in = d0->n - 1;
    if (d0->dst[in] != esize) return false;
    for (int64_t v = 16; v >= 8; v /= 2) {
        const int64_t k = v / esize;
        if (k < 2) continue;
        dims d = *d0;
        int64_t pattern[DMLS_CUDA_MAX_GATHER];
        if (multiple(d0->shape[in], k)) {
            for (int64_t j = 0; j < k; j++) pattern[j] = j * d0->src[in];
            d.shape[in] = d0->shape[in] / k;
            d.src[in] = grouped_stride(d0->src[in], k, d.shape[in]);
            d.dst[in] = v;
        } else if (in >= 1 && multiple(k, d0->shape[in]) && d0->dst[in - 1] == d0->shape[in] * esize &&
                   multiple(d0->shape[in - 1], k / d0->shape[in])) {
            const int64_t n = d0->shape[in], q = k / n;
            for (int64_t j = 0; j < k; j++) pattern[j] = (j / n) * d0->src[in - 1] + (j % n) * d0->src[in];
            d.n = d0->n - 1;
            d.shape[in - 1] = d0->shape[in - 1] / q;
            d.src[in - 1] = grouped_stride(d0->src[in - 1], q, d.shape[in - 1]);
            d.dst[in - 1] = v;
        } else {
            continue;
        }
        bool fits = true;
        for (int64_t j = 0; j < k; j++) fits &= pattern[j] >= INT32_MIN && pattern[j] <= INT32_MAX;
        if (!fits || !multiple(d0->src_offset, esize)) return false;
        if (!side_aligned(&d, d.dst, d.dst_offset, v)) continue;
        dmls_cuda_launch L = finish(&d, DMLS_CUDA_GATHER, esize, (int)v, (uint32_t)esize, (uint32_t)v);
        if (L.wide) return false; /* the gather kernels have the 32-bit index path only */
        for (int64_t j = 0; j < k; j++) L.pattern[j] = (int32_t)pattern[j];
        *out = L;
        return true;
    }
    return false;
}

/* The widest access (16 bytes, else the element) a tile side can make:
 * its fast dim contiguous, its extent and every other stride and the
 * offset multiples of 16. */
static int32_t tile_width(const dims *d, const int64_t *stride, int64_t offset, int fast, int other, int64_t n,
                          int32_t es) {
    if (stride[fast] != es || !multiple(n * es, 16) || !multiple(offset, 16) || !multiple(stride[other], 16))
        return es;
    for (int i = 0; i < d->n; i++)
        if (i != fast && i != other && !multiple(stride[i], 16)) return es;
    return 16;
}

/* A transposed copy (p->tile_dim >= 0) through shared-memory tiles
 * (launch.h: DMLS_CUDA_TILE). Its extents and in-tile strides must fit the
 * 32-bit pattern, and both fast dims must fill a good part of a tile. */
static bool try_tile(const dmls_copy_plan *p, const dims *d0, dmls_cuda_launch *out) {
    const int32_t es = p->esize, a = d0->n - 1, b = p->tile_dim;
    if (b < 0 || d0->n != p->ndim) return false;
    const int64_t na = d0->shape[a], nb = d0->shape[b], tb = DMLS_CUDA_TILE_ROW / es;
    if (na * es < 64 || nb * es < 64 || es > 8) return false; /* no dtype is wider */
    const int64_t geo[5] = {na, nb, d0->src[a], d0->src[b], d0->dst[b]};
    for (int k = 0; k < 5; k++)
        if (!fits32(geo[k]) || !fits32(geo[k] * DMLS_CUDA_TILE_A)) return false;
    dims d;
    memset(&d, 0, sizeof d);
    for (int i = 0; i < d0->n; i++) /* the other dims, outermost first */
        if (i != a && i != b) {
            d.shape[d.n] = d0->shape[i], d.src[d.n] = d0->src[i], d.dst[d.n] = d0->dst[i];
            d.n++;
        }
    d.shape[d.n] = (nb + tb - 1) / tb, d.src[d.n] = d0->src[b] * tb, d.dst[d.n] = d0->dst[b] * tb, d.n++;
    d.shape[d.n] = (na + DMLS_CUDA_TILE_A - 1) / DMLS_CUDA_TILE_A, d.src[d.n] = d0->src[a] * DMLS_CUDA_TILE_A;
    d.dst[d.n] = (int64_t)es * DMLS_CUDA_TILE_A, d.n++;
    d.src_offset = d0->src_offset, d.dst_offset = d0->dst_offset;
    if (!multiple(d.src_offset, es) || !multiple(d.dst_offset, es)) return false;
    const int32_t load = tile_width(d0, d0->src, d0->src_offset, b, a, nb, es);
    const int32_t store = tile_width(d0, d0->dst, d0->dst_offset, a, b, na, es);
    dmls_cuda_launch L = finish(&d, DMLS_CUDA_TILE, es, load | store << 8, (uint32_t)load, (uint32_t)store);
    if (L.wide) return false; /* the tile kernels index tiles in 32 bits */
    for (int k = 0; k < 5; k++) L.pattern[k] = (int32_t)geo[k];
    L.blocks = L.count; /* one block per tile */
    *out = L;
    return true;
}

static void prepare_plan(const dmls_copy_plan *p, bool fill, dmls_cuda_launch *choices) {
    memset(choices, 0, sizeof(dmls_cuda_launch) * DMLS_CUDA_CHOICES);
    if (p->count == 0) return; /* DMLS_CUDA_NOTHING everywhere */
    const dims d = from_plan(p);
    const int32_t es = p->esize;
    dmls_cuda_launch *best = &choices[0];
    if (fill && d.n == 1 && d.dst[0] == es) {
        /* One contiguous range: the driver's memset is as fast as it gets and
         * has no alignment needs. */
        memset(best, 0, sizeof *best);
        best->kernel = DMLS_CUDA_MEMSET;
        best->count = (uint64_t)d.shape[0] * (uint64_t)es;
        best->dst_offset = d.dst_offset;
        best->src_align = best->dst_align = 1;
    } else if (!try_widen(&d, es, fill, best) && (fill || (!try_tile(p, &d, best) && !try_reverse(&d, es, best) &&
                                                             !try_gather(&d, es, best)))) {
        *best = natural(&d, es, fill);
    }
    choices[1] = natural(&d, es, fill);
    choices[2] = bytewise(d, es, fill);
}

/* What the kernel headers promise (launch.h: 156 and 472 parameter bytes
 * with the two pointers). */
_Static_assert(sizeof(dmls_cuda_compact) == 140, "dmls_cuda_compact changed size");
_Static_assert(sizeof(dmls_cuda_launch) == 456, "dmls_cuda_launch changed size");

/* Dim i of L narrowed into S, each value beside the range check its cast
 * needs; false (S partly written) where one does not fit. */
static bool narrow_dim(const dmls_cuda_launch *L, int i, dmls_cuda_compact *S) {
    if (!fits32(L->src_stride[i]) || !fits32(L->dst_stride[i]) || L->magic[i] > UINT32_MAX || L->shape[i] > INT32_MAX)
        return false;
    S->shape[i] = (uint32_t)L->shape[i];
    S->magic[i] = (uint32_t)L->magic[i];
    S->shift[i] = (uint8_t)L->shift[i];
    S->src_stride[i] = (int32_t)L->src_stride[i];
    S->dst_stride[i] = (int32_t)L->dst_stride[i];
    return true;
}

/* The compact form of L (launch.h), when L has one: a kernel launch with
 * the 32-bit index (count < 2^31, so every shape and multiplier fits too),
 * at most DMLS_CUDA_COMPACT_DIMS dims and 32-bit byte strides. Sets L->compact. */
static void compact(dmls_cuda_launch *L, dmls_cuda_compact *S) {
    memset(S, 0, sizeof *S);
    L->compact = 0;
    const bool kernel = L->kernel == DMLS_CUDA_COPY || L->kernel == DMLS_CUDA_FILL ||
                        L->kernel == DMLS_CUDA_GATHER || L->kernel == DMLS_CUDA_REVERSE; /* a tile: general only */
    if (!kernel || L->wide || L->ndim < 1 || L->ndim > DMLS_CUDA_COMPACT_DIMS) return;
    for (int i = 0; i < L->ndim; i++)
        if (!narrow_dim(L, i, S)) {
            memset(S, 0, sizeof *S); /* no compact form: S all zeros, as for every other launch without one */
            return;
        }
    S->count = (uint32_t)L->count;
    S->ndim = (uint32_t)L->ndim;
    memcpy(S->pattern, L->pattern, sizeof S->pattern);
    L->compact = 1;
}

void dmls_cuda_prepare(dmls_cuda_state *state, const dmls_copy_plan *copy, const dmls_copy_plan *fill) {
    prepare_plan(copy, false, state->copy);
    if (fill != NULL) prepare_plan(fill, true, state->fill);
    else memset(state->fill, 0, sizeof state->fill);
    for (int i = 0; i < DMLS_CUDA_CHOICES; i++) {
        compact(&state->copy[i], &state->copy_compact[i]);
        compact(&state->fill[i], &state->fill_compact[i]);
    }
}
