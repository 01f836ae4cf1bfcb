/* The CUDA kernels emulated on the CPU: each launch of a launch plan
 * (src/cuda/launch.h) replayed index by index with the kernels' own index
 * arithmetic (multiply-high quotients, 32-bit wrapping where the device
 * wraps), every load and store checked for bounds and alignment as the GPU
 * needs. It lets test_cuda check every launch plan without a GPU. Reports
 * through test.h's CHECK, so include it after test.h in the one test
 * program that uses it. */
#ifndef DMLS_TEST_CUDA_EMULATOR_H
#define DMLS_TEST_CUDA_EMULATOR_H

#include <string.h>

#include "cuda/launch.h"
#include "support/test.h"

/* The kernels' quotients (kernels.cu: quotient): 32-bit arithmetic, wrapping
 * as the device's does, and 64-bit with a 128-bit product. */
static uint32_t emu_q32(uint32_t n, uint32_t magic, uint32_t shift) {
    uint32_t hi = (uint32_t)(((uint64_t)n * magic) >> 32);
    return (uint32_t)(hi + n) >> shift;
}
static uint64_t emu_q64(uint64_t n, uint64_t magic, uint32_t shift) {
    uint64_t hi = (uint64_t)(((unsigned __int128)n * magic) >> 64);
    return (hi + n) >> shift;
}

/* Byte offsets from the bound bases of index i, as locate() computes them
 * from the general block (S NULL) or the compact one; false when a
 * multiply-high quotient differs from the exact one. */
static bool emu_locate(const dmls_cuda_launch *L, const dmls_cuda_compact *S, uint64_t i, int64_t *src, int64_t *dst) {
    const int ndim = S ? (int)S->ndim : L->ndim;
    const bool narrow = S != NULL || !L->wide;
    int64_t s = S ? 0 : L->src_offset, d = S ? 0 : L->dst_offset;
    for (int k = 0; k < ndim; k++) {
        const int64_t ss = S ? S->src_stride[k] : L->src_stride[k], ds = S ? S->dst_stride[k] : L->dst_stride[k];
        if (k == ndim - 1) {
            s += (int64_t)i * ss;
            d += (int64_t)i * ds;
            break;
        }
        const uint64_t shape = S ? S->shape[k] : (uint64_t)L->shape[k];
        uint64_t q, c;
        if (narrow) {
            const uint32_t n = (uint32_t)i;
            q = emu_q32(n, S ? S->magic[k] : (uint32_t)L->magic[k], S ? S->shift[k] : L->shift[k]);
            c = (uint32_t)(n - (uint32_t)q * (uint32_t)shape);
        } else {
            q = emu_q64(i, L->magic[k], L->shift[k]);
            c = i - q * shape;
        }
        if (q != i / shape) return false;
        s += (int64_t)c * ss;
        d += (int64_t)c * ds;
        i = q;
    }
    if (S) s += L->src_offset, d += L->dst_offset; /* execute adds them to the bases */
    *src = s, *dst = d;
    return true;
}

/* One access of width bytes at base + off: inside [base, base + bytes) and
 * aligned to its width, as the GPU needs (it faults on a misaligned access). */
static bool emu_access(const unsigned char *base, uint64_t bytes, int64_t off, int width, const char *what,
                       const char *label, uint64_t i) {
    const bool inside = off >= 0 && (uint64_t)off + (uint64_t)width <= bytes;
    const bool aligned = inside && ((uintptr_t)base + (uintptr_t)off) % (uintptr_t)width == 0;
    if (inside && aligned) return true; /* not counted as a check: millions of them */
    CHECK(false, "%s: emulated %d-byte %s at offset %lld (index %llu) is %s", label, width, what, (long long)off,
          (unsigned long long)i, inside ? "misaligned" : "out of bounds");
    return false;
}

/* A tiled copy (launch.h: DMLS_CUDA_TILE), tile by tile as the kernel
 * moves it: the tile's place from its index by the kernel's quotients, its
 * rows loaded along B into a buffer (16-byte vectors or elements, as the
 * launch's widths say), then its columns stored along A. A block runs
 * tiles first, first + step, ... (all of them: 0, 1). */
static void emulate_tile(const dmls_cuda_launch *L, const unsigned char *src, uint64_t src_bytes, unsigned char *dst,
                         uint64_t dst_bytes, const char *label, uint64_t first, uint64_t step) {
    static unsigned char tile[DMLS_CUDA_TILE_A * DMLS_CUDA_TILE_ROW];
    const int e = L->unit, vl = L->vec & 0xff, vs = L->vec >> 8, tb = DMLS_CUDA_TILE_ROW / e;
    const int64_t na = L->pattern[DMLS_CUDA_TILE_NA], nb = L->pattern[DMLS_CUDA_TILE_NB];
    const int64_t sa = L->pattern[DMLS_CUDA_TILE_SA], sb = L->pattern[DMLS_CUDA_TILE_SB], db = L->pattern[DMLS_CUDA_TILE_DB];
    CHECK(!L->wide && L->ndim >= 2 && (vl == 16 || vl == e) && (vs == 16 || vs == e), "%s: a tiled launch of %d dims, widths %d/%d",
          label, L->ndim, vl, vs);
    for (uint64_t t = first; t < L->count; t += step) {
        int64_t s, d;
        if (!emu_locate(L, NULL, t, &s, &d)) {
            CHECK(false, "%s: tile %llu: a multiply-high quotient is wrong", label, (unsigned long long)t);
            return;
        }
        const uint32_t q0 = emu_q32((uint32_t)t, (uint32_t)L->magic[0], L->shift[0]);
        const int64_t ia = (int64_t)t - (int64_t)q0 * L->shape[0];
        const int64_t ib = q0 - (int64_t)emu_q32(q0, (uint32_t)L->magic[1], L->shift[1]) * L->shape[1];
        const int64_t ea = na - ia * DMLS_CUDA_TILE_A < DMLS_CUDA_TILE_A ? na - ia * DMLS_CUDA_TILE_A : DMLS_CUDA_TILE_A;
        const int64_t eb = nb - ib * tb < tb ? nb - ib * tb : tb;
        CHECK(ea >= 1 && eb >= 1, "%s: tile %llu lies outside the extents", label, (unsigned long long)t);
        for (int64_t a = 0; a < ea; a++)
            for (int64_t b = 0; b < eb; b += vl / e) {
                const int64_t at = s + a * sa + (vl == 16 ? b * e : b * sb);
                if (!emu_access(src, src_bytes, at, vl, "tile load", label, t)) return;
                memcpy(tile + a * DMLS_CUDA_TILE_ROW + b * e, src + at, (size_t)vl);
            }
        for (int64_t b = 0; b < eb; b++)
            for (int64_t a = 0; a < ea; a += vs / e) {
                const int64_t at = d + b * db + a * e;
                if (!emu_access(dst, dst_bytes, at, vs, "tile store", label, t)) return;
                for (int k = 0; k < vs / e; k++)
                    memcpy(dst + at + k * e, tile + (a + k) * DMLS_CUDA_TILE_ROW + b * e, (size_t)e);
            }
    }
}

/* Runs launch L (from S when not NULL) on the CPU as the kernels would,
 * with the bound bases src and dst. */
static void emulate(const dmls_cuda_launch *L, const dmls_cuda_compact *S, const unsigned char *src, uint64_t src_bytes,
                    unsigned char *dst, uint64_t dst_bytes, const char *label) {
    if (L->kernel == DMLS_CUDA_NOTHING) return;
    if (L->kernel == DMLS_CUDA_MEMSET) {
        if (L->count == 0 || (emu_access(dst, dst_bytes, L->dst_offset, 1, "memset", label, 0) &&
                              emu_access(dst, dst_bytes, L->dst_offset + (int64_t)L->count - 1, 1, "memset", label, 0)))
            memset(dst + L->dst_offset, 0, (size_t)L->count);
        return;
    }
    CHECK(L->blocks >= 1 && L->blocks <= ((uint64_t)1 << 31), "%s: %llu blocks", label, (unsigned long long)L->blocks);
    if (L->kernel == DMLS_CUDA_TILE) {
        CHECK(S == NULL, "%s: a tiled launch has no compact form", label);
        emulate_tile(L, src, src_bytes, dst, dst_bytes, label, 0, 1);
        return;
    }
    const int u = L->unit, v = L->vec;
    const int32_t *pattern = S ? S->pattern : L->pattern;
    for (uint64_t i = 0; i < L->count; i++) {
        int64_t s, d;
        if (!emu_locate(L, S, i, &s, &d)) {
            CHECK(false, "%s: index %llu: a multiply-high quotient is wrong (%s block)", label, (unsigned long long)i,
                  S ? "compact" : "general");
            return;
        }
        switch (L->kernel) {
        case DMLS_CUDA_COPY:
            if (!emu_access(src, src_bytes, s, u, "load", label, i) || !emu_access(dst, dst_bytes, d, u, "store", label, i))
                return;
            memcpy(dst + d, src + s, (size_t)u);
            break;
        case DMLS_CUDA_FILL:
            if (!emu_access(dst, dst_bytes, d, u, "store", label, i)) return;
            memset(dst + d, 0, (size_t)u);
            break;
        case DMLS_CUDA_GATHER:
            if (!emu_access(dst, dst_bytes, d, v, "store", label, i)) return;
            for (int k = 0; k < v / u; k++) {
                if (!emu_access(src, src_bytes, s + pattern[k], u, "load", label, i)) return;
                memcpy(dst + d + k * u, src + s + pattern[k], (size_t)u);
            }
            break;
        case DMLS_CUDA_REVERSE:
            if (!emu_access(src, src_bytes, s, v, "load", label, i) || !emu_access(dst, dst_bytes, d, v, "store", label, i))
                return;
            for (int k = 0; k < v / u; k++) memcpy(dst + d + k * u, src + s + (v / u - 1 - k) * u, (size_t)u);
            break;
        default: CHECK(false, "%s: unknown kernel %d", label, L->kernel); return;
        }
    }
}

/* An execute, emulated: the launches dmls_execute_cuda would choose for
 * these bases, in its order. */
static void emulate_op(const dmls_operator *op, const unsigned char *in, unsigned char *out, const char *label) {
    /* dmls_cuda_choose tests alignments by mask (batch_rules.h): each must
     * be a power of two, and a usable launch's output alignment non-zero. */
    for (int c = 0; c < DMLS_CUDA_CHOICES; c++)
        for (int f = 0; f < 2; f++) {
            const dmls_cuda_launch *L = f ? &dmls_cuda_state_of(op)->fill[c] : &dmls_cuda_state_of(op)->copy[c];
            CHECK((L->src_align & (L->src_align - 1)) == 0 && (L->dst_align & (L->dst_align - 1)) == 0 &&
                      (L->src_align == 0 || L->dst_align != 0),
                  "%s: launch %d aligns %lld/%lld: not powers of two", label, c, (long long)L->src_align,
                  (long long)L->dst_align);
        }
    if (op->zero_fill) {
        const int i = dmls_cuda_choose(dmls_cuda_state_of(op)->fill, out, out);
        emulate(&dmls_cuda_state_of(op)->fill[i], dmls_cuda_state_of(op)->fill[i].compact ? &dmls_cuda_state_of(op)->fill_compact[i] : NULL, out, op->needs.out_bytes, out,
                op->needs.out_bytes, label);
    }
    const int i = dmls_cuda_choose(dmls_cuda_state_of(op)->copy, in, out);
    emulate(&dmls_cuda_state_of(op)->copy[i], dmls_cuda_state_of(op)->copy[i].compact ? &dmls_cuda_state_of(op)->copy_compact[i] : NULL, in, op->needs.in_bytes, out,
            op->needs.out_bytes, label);
}

#endif
