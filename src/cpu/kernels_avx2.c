/* AVX2 kernel variants. Each function carries target("avx2"), so the rest of
 * the build stays portable and these run only where dmls_cpu_features() saw
 * AVX2 at plan time. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#include "../compiler.h"
#include "interleave.h"
#include "kernels.h"

#if DMLS_GNU_C
#define AVX2 __attribute__((target("avx2")))
#else
/* No target attributes: MSVC would compile AVX2 intrinsics in any function
 * (it builds no AVX2 kernels yet, having no __x86_64__ and no detection in
 * features.c), and gcc or clang building the portable fallbacks compile
 * this file with -mavx2 instead (src/CMakeLists.txt). */
#define AVX2
#endif

void dmls_cpu_store_fence(void) { _mm_sfence(); }

/* Bytes of dst to write with ordinary stores before dst is 32-byte aligned. */
static inline size_t head_to_align32(const unsigned char *dst) {
    return (size_t)((32 - ((uintptr_t)dst & 31)) & 31);
}

/* Streaming stores fill whole 64-byte lines only: a line that also takes an
 * ordinary store (a row's first or last bytes, or the neighbouring row's)
 * leaves its write-combining buffer part full, and each such line then costs
 * more than streaming saves (a row starting 16 bytes past a line, as NumPy
 * places its large arrays, ran 5x slower than a line-aligned one). So the
 * streamed part of a row starts on a line and is whole lines; the bytes
 * before and after it take ordinary stores. */
static inline size_t head_to_line(const unsigned char *dst) {
    return (size_t)((64 - ((uintptr_t)dst & 63)) & 63);
}

static inline AVX2 void put_block(unsigned char *d, __m256i v, bool stream) {
    if (stream) _mm256_stream_si256((__m256i *)d, v);
    else _mm256_storeu_si256((__m256i *)d, v);
}

/* A contiguous row with streaming stores: the copy moves more than the
 * cache keeps (features.h), so writing around it saves the read-for-ownership
 * of every destination line and leaves the cache to the input. */
static inline AVX2 void contig_nt_row(unsigned char *dst, const unsigned char *src, size_t bytes) {
    if (bytes < 256) {
        memcpy(dst, src, bytes);
        return;
    }
    size_t head = head_to_line(dst);
    memcpy(dst, src, head);
    dst += head, src += head, bytes -= head;
    for (; bytes >= 128; bytes -= 128, dst += 128, src += 128) {
        __m256i a = _mm256_loadu_si256((const __m256i *)src);
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + 32));
        __m256i c = _mm256_loadu_si256((const __m256i *)(src + 64));
        __m256i d = _mm256_loadu_si256((const __m256i *)(src + 96));
        _mm256_stream_si256((__m256i *)dst, a);
        _mm256_stream_si256((__m256i *)(dst + 32), b);
        _mm256_stream_si256((__m256i *)(dst + 64), c);
        _mm256_stream_si256((__m256i *)(dst + 96), d);
    }
    if (bytes >= 64) {
        _mm256_stream_si256((__m256i *)dst, _mm256_loadu_si256((const __m256i *)src));
        _mm256_stream_si256((__m256i *)(dst + 32), _mm256_loadu_si256((const __m256i *)(src + 32)));
        dst += 64, src += 64, bytes -= 64;
    }
    memcpy(dst, src, bytes);
}

/* Rows adjacent in the output (the heads permutation's 256-byte rows, a
 * crop's) stream as the one run of output they are: written row by row, a
 * row starting inside a line (NumPy's arrays start 16 bytes past one) leaves
 * that line to ordinary stores from two rows, each read for ownership. A
 * line spanning two rows is cut from a row's last 64 bytes and the next
 * row's first 64, put side by side on the stack (loads and stores of fixed
 * sizes: no call to memcpy). */
static inline AVX2 void contig_nt_joined(unsigned char *dst, const unsigned char *src, size_t bytes, int64_t rows,
                                         int64_t rs) {
    size_t j = head_to_line(dst); /* where row i's first whole line of output starts */
    memcpy(dst, src, j);          /* j < 64 <= bytes: within row 0 */
    unsigned char *d = dst + j;
    for (int64_t i = 0;; i++) {
        const unsigned char *s = src + i * rs;
        size_t k = j;
        for (; k + 64 <= bytes; k += 64, d += 64) {
            _mm256_stream_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)(s + k)));
            _mm256_stream_si256((__m256i *)(d + 32), _mm256_loadu_si256((const __m256i *)(s + k + 32)));
        }
        const size_t a = bytes - k; /* under a line left in this row */
        if (i + 1 == rows) {
            memcpy(d, s + k, a);
            return;
        }
        if (a == 0) {
            j = 0;
            continue;
        }
        _Alignas(32) unsigned char two[128];
        const unsigned char *end = s + bytes - 64, *next = s + rs;
        _mm256_store_si256((__m256i *)two, _mm256_loadu_si256((const __m256i *)end));
        _mm256_store_si256((__m256i *)(two + 32), _mm256_loadu_si256((const __m256i *)(end + 32)));
        _mm256_store_si256((__m256i *)(two + 64), _mm256_loadu_si256((const __m256i *)next));
        _mm256_store_si256((__m256i *)(two + 96), _mm256_loadu_si256((const __m256i *)(next + 32)));
        _mm256_stream_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)(two + 64 - a)));
        _mm256_stream_si256((__m256i *)(d + 32), _mm256_loadu_si256((const __m256i *)(two + 96 - a)));
        d += 64, j = 64 - a;
    }
}

AVX2 void dmls_cpu_rows_contig_nt_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                       const dmls_cpu_prepared *p) {
    const size_t bytes = (size_t)n * (size_t)p->width;
    if (rows > 1 && bytes >= 64 && p->row_dst_step == (int64_t)bytes && head_to_line(dst) != 0) {
        contig_nt_joined(dst, src, bytes, rows, p->row_src_step);
        return;
    }
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) contig_nt_row(dst, src, bytes);
}

/* Before streaming stores: copies items one by one until d is on a 64-byte
 * line (advancing d, s and i); false when an item boundary never lands
 * there within the row, and the row then uses ordinary stores. The caller
 * streams whole lines (pairs of 32-byte blocks) from there. */
static inline bool stream_head(unsigned char **d, const unsigned char **s, int64_t *i, int64_t n, int64_t w,
                               int64_t ss) {
    const size_t head = head_to_line(*d);
    if (head % (size_t)w != 0 || (int64_t)head / w > n) return false;
    for (int64_t k = (int64_t)head / w; k > 0; k--, (*i)++, *d += w, *s += ss) memcpy(*d, *s, (size_t)w);
    return true;
}

/* Packed rows gathered by byte shuffles (see shuffle_masks in kernels.c):
 * each 128-bit lane makes 16 output bytes from two loads that cover exactly
 * the input bytes of its items, so nothing outside the tensor is read. */
AVX2 void dmls_cpu_rows_shuffle_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                     const dmls_cpu_prepared *p) {
    const int64_t w = p->width, ss = p->item_src_step;
    const int64_t per_lane = p->shuffle_items, per_iter = 2 * per_lane;
    const int64_t lane_step = per_lane * ss, hi_at = p->shuffle_span - 16;
    /* The lowest-addressed item of a lane is its last one when ss < 0. */
    const int64_t low = ss < 0 ? (per_lane - 1) * ss : 0;
    const __m256i mlo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p->shuffle[0]));
    const __m256i mhi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)p->shuffle[1]));
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {
        unsigned char *d = dst;
        const unsigned char *s = src;
        int64_t i = 0;
        const bool stream = p->nontemporal && stream_head(&d, &s, &i, n, w, ss);
        int64_t blocks = (n - i) / per_iter;
        if (stream) blocks &= ~(int64_t)1; /* whole lines */
        for (; blocks > 0; blocks--, i += per_iter, d += 32, s += 2 * lane_step) {
            const unsigned char *a = s + low, *b = s + lane_step + low;
            __m256i lo = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)a)),
                                                 _mm_loadu_si128((const __m128i *)b), 1);
            __m256i hi = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(a + hi_at))),
                _mm_loadu_si128((const __m128i *)(b + hi_at)), 1);
            __m256i v = _mm256_or_si256(_mm256_shuffle_epi8(lo, mlo), _mm256_shuffle_epi8(hi, mhi));
            if (stream) _mm256_stream_si256((__m256i *)d, v);
            else _mm256_storeu_si256((__m256i *)d, v);
        }
        for (; i < n; i++, d += w, s += ss) memcpy(d, s, (size_t)w);
    }
}

/* The shuffle gather for forward steps with a lane step L <= 32 bytes (see
 * shuffle_masks): per 32 output bytes three loads, at the block's start, at
 * L - 16 and ending at lane 1's last item, one blend, two vpshufb and an or.
 * The loads cover [0, L + span), exactly the block's items. */
static inline AVX2 __m256i shuffle3_block(const unsigned char *a, int64_t L, int64_t end32, __m256i mx,
                                          __m256i mm) {
    __m256i x = _mm256_blend_epi32(_mm256_loadu_si256((const __m256i *)a),
                                   _mm256_loadu_si256((const __m256i *)(a + end32)), 0xF0);
    __m256i m = _mm256_loadu_si256((const __m256i *)(a + L - 16));
    return _mm256_or_si256(_mm256_shuffle_epi8(x, mx), _mm256_shuffle_epi8(m, mm));
}

/* Pixels to planes (kernels.h): a round of 16 / w pixels is k vectors of
 * input; each row's 16 output bytes are ORed from the k vectors, each by a
 * byte shuffle, mask[r][v] picking row r's bytes from vector v (0x80, a
 * zero, elsewhere): k shuffles for 16 bytes out. Four rounds go to each row
 * in turn, a whole line of it (streamed where the output is past the cache
 * and its rows start on lines): lines written 16 bytes at a time by turns
 * across the rows ran at less than half the speed on the 2-core VM. */
static inline AVX2 __m128i planes_round(const unsigned char *s, int64_t k, const unsigned char (*mask)[16]) {
    __m128i o = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)s),
                                 _mm_load_si128((const __m128i *)(const void *)mask[0]));
    for (int64_t v = 1; v < k; v++)
        o = _mm_or_si128(o, _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + 16 * v)),
                                             _mm_load_si128((const __m128i *)(const void *)mask[v])));
    return o;
}
static inline DMLS_ALWAYS_INLINE AVX2 void deinterleave(unsigned char *dst, const unsigned char *src, int64_t n,
                                                   int64_t rows, const dmls_cpu_prepared *p, const int64_t w,
                                                   const int64_t k) {
    const int64_t ss = k * w, per = 16 / w, rd = p->row_dst_step;
    _Alignas(16) unsigned char mask[DMLS_INTERLEAVE_MAX][DMLS_INTERLEAVE_MAX][16];
    dmls_planes_masks(w, ss, rows, mask);
    const bool nt = p->nontemporal && (uintptr_t)dst % 64 == 0 && rd % 64 == 0; /* lines whole */
    const int64_t end = dmls_planes_end(n, rows, w, ss); /* interleave.h */
    int64_t i = 0;
    for (; i * ss + 64 * k <= end; i += 4 * per)
        for (int64_t r = 0; r < rows; r++) {
            unsigned char *d = dst + r * rd + i * w;
            for (int64_t q = 0; q < 4; q++) {
                const __m128i o = planes_round(src + (i + q * per) * ss, k, mask[r]);
                if (nt) _mm_stream_si128((__m128i *)(void *)(d + 16 * q), o);
                else _mm_storeu_si128((__m128i *)(void *)(d + 16 * q), o);
            }
        }
    for (; i * ss + 16 * k <= end; i += per)
        for (int64_t r = 0; r < rows; r++)
            _mm_storeu_si128((__m128i *)(void *)(dst + r * rd + i * w), planes_round(src + i * ss, k, mask[r]));
    for (; i < n; i++)
        for (int64_t r = 0; r < rows; r++) memcpy(dst + r * rd + i * w, src + i * ss + r * w, (size_t)w);
}

/* The body compiled for the common shapes with their numbers constant (interleave.h). */
AVX2 void dmls_cpu_rows_deinterleave_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                          const dmls_cpu_prepared *p) {
    const int64_t w = p->width, k = p->item_src_step / w;
#define RUN(W, K) deinterleave(dst, src, n, rows, p, W, K)
    DMLS_DEINTERLEAVE_BY_SHAPE(w, k, RUN)
#undef RUN
}

AVX2 void dmls_cpu_rows_shuffle3_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                      const dmls_cpu_prepared *p) {
    const int64_t w = p->width, ss = p->item_src_step;
    const int64_t per_iter = 2 * p->shuffle_items, L = p->shuffle_items * ss;
    const int64_t end32 = L + p->shuffle_span - 32; /* the load ending at lane 1's last byte */
    const __m256i mx = _mm256_loadu_si256((const __m256i *)p->shuffle3[0]);
    const __m256i mm = _mm256_loadu_si256((const __m256i *)p->shuffle3[1]);
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {
        unsigned char *d = dst;
        const unsigned char *s = src;
        int64_t i = 0;
        const bool stream = p->nontemporal && stream_head(&d, &s, &i, n, w, ss);
        for (; i + 2 * per_iter <= n; i += 2 * per_iter, d += 64, s += 2 * per_iter * ss) {
            __m256i v0 = shuffle3_block(s, L, end32, mx, mm);
            __m256i v1 = shuffle3_block(s + per_iter * ss, L, end32, mx, mm);
            put_block(d, v0, stream);
            put_block(d + 32, v1, stream);
        }
        if (!stream && i + per_iter <= n) { /* half a line: streamed only in pairs */
            put_block(d, shuffle3_block(s, L, end32, mx, mm), stream);
            i += per_iter, d += 32, s += per_iter * ss;
        }
        for (; i < n; i++, d += w, s += ss) memcpy(d, s, (size_t)w);
    }
}

/* Packed rows of items of 17..32 bytes (the wide kernel of kernels.c with a
 * 32-byte move): every item but a row's last is one 32-byte load and store
 * whose extra bytes the next item's store rewrites; the last moves as 16 + 8
 * when it is 24 bytes, else as two overlapping 16s. Needs item_dst_step ==
 * width, item_src_step > 0 and item_src_step + width >= 32. */
AVX2 void dmls_cpu_rows_wide32_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                    const dmls_cpu_prepared *p) {
    const int64_t ss = p->item_src_step;
    const size_t w = (size_t)p->width;
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {
        unsigned char *d = dst;
        const unsigned char *s = src;
        for (int64_t i = 1; i < n; i++, d += w, s += ss)
            _mm256_storeu_si256((__m256i *)d, _mm256_loadu_si256((const __m256i *)s));
        __m128i a = _mm_loadu_si128((const __m128i *)s);
        if (w == 24) {
            __m128i b = _mm_loadl_epi64((const __m128i *)(s + 16));
            _mm_storeu_si128((__m128i *)d, a);
            _mm_storel_epi64((__m128i *)(d + 16), b);
        } else {
            __m128i b = _mm_loadu_si128((const __m128i *)(s + w - 16));
            _mm_storeu_si128((__m128i *)d, a);
            _mm_storeu_si128((__m128i *)(d + w - 16), b);
        }
    }
}

/* ------------------------------------------------------------------
 * Permuting gathers into packed rows: reversal (step -width, items of 1, 2,
 * 4 or 8 bytes) and stride +-2 (items of 4 or 8 bytes). Each 32-byte output
 * block is made from loads that cover exactly the input bytes of its items,
 * from the lowest item's first byte to the highest item's last, so nothing
 * outside the tensor is read. Blocks lie on the destination's 32-byte grid
 * when the destination is item-aligned (streaming stores need that; ordinary
 * stores then never split a line; streamed rows use the 64-byte grid of
 * head_to_line and whole lines), items before and after the grid move one
 * at a time. Reversed rows are walked from the destination's end, so the
 * source is read ascending, as for the forward ones.
 * ------------------------------------------------------------------ */

/* Input bytes one 32-byte output block reads for items of w bytes k apart
 * (k = |step| / w). */
#define BLOCK_SPAN(w, k) ((32 / (w) - 1) * (k) * (w) + (w))

/* One output block from the input block whose lowest byte is at lo. */
static inline AVX2 __m256i permute_block(const unsigned char *lo, int w, int k, bool rev) {
    if (k == 1) { /* reversal */
        if (w == 8) return _mm256_permute4x64_epi64(_mm256_loadu_si256((const __m256i *)lo), 0x1B);
        if (w == 4)
            return _mm256_permutevar8x32_epi32(_mm256_loadu_si256((const __m256i *)lo),
                                               _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0));
        /* 1 and 2 bytes: halves loaded swapped, then reversed within lanes */
        __m256i v = _mm256_inserti128_si256(_mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(lo + 16))),
                                            _mm_loadu_si128((const __m128i *)lo), 1);
        const __m256i m = w == 2 ? _mm256_setr_epi8(14, 15, 12, 13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1, 14, 15, 12,
                                                    13, 10, 11, 8, 9, 6, 7, 4, 5, 2, 3, 0, 1)
                                 : _mm256_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13,
                                                    12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        return _mm256_shuffle_epi8(v, m);
    }
    /* k == 2: a at the lowest item, b ending at the highest item's last
     * byte, so items sit at even elements of a and odd ones of b; one blend
     * picks them (in the order 0 4 1 5 2 6 3 7 for 4 bytes, 0 2 1 3 for 8)
     * and one permute sorts, or reverses, them. */
    __m256i a = _mm256_loadu_si256((const __m256i *)lo);
    __m256i b = _mm256_loadu_si256((const __m256i *)(lo + 32 - w));
    if (w == 8) {
        __m256i v = _mm256_blend_epi32(a, b, 0xCC);
        return rev ? _mm256_permute4x64_epi64(v, 0x27) : _mm256_permute4x64_epi64(v, 0xD8);
    }
    __m256i v = _mm256_blend_epi32(a, b, 0xAA);
    return _mm256_permutevar8x32_epi32(v, rev ? _mm256_setr_epi32(7, 5, 3, 1, 6, 4, 2, 0)
                                              : _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
}

/* Rows of n items of w bytes read k * w bytes apart, forward or (rev) back. */
static inline AVX2 void permute_rows(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                     const dmls_cpu_prepared *p, const int w, const int k, const bool rev) {
    const int64_t ss = rev ? -(int64_t)k * w : (int64_t)k * w, per = 32 / w;
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {
        const size_t bytes = (size_t)n * (size_t)w;
        /* The grid: items [h, h + nb * per) in blocks; head [0, h), tail after. */
        size_t h = 0;
        const bool aligned = ((uintptr_t)dst % (size_t)w) == 0;
        const bool stream = aligned && p->nontemporal;
        if (aligned) h = (stream ? head_to_line(dst) : head_to_align32(dst)) / (size_t)w;
        if (h > (size_t)n) h = (size_t)n;
        int64_t nb = (int64_t)((bytes - h * (size_t)w) / 32);
        if (stream) nb &= ~(int64_t)1; /* whole lines */
        const int64_t t0 = (int64_t)h + nb * per;
        if (!rev) {
            int64_t i = 0;
            for (; i < (int64_t)h; i++) memcpy(dst + i * w, src + i * ss, (size_t)w);
            int64_t b = 0;
            for (; b + 2 <= nb; b += 2, i += 2 * per) {
                __m256i v0 = permute_block(src + i * ss, w, k, false);
                __m256i v1 = permute_block(src + (i + per) * ss, w, k, false);
                put_block(dst + i * w, v0, stream);
                put_block(dst + (i + per) * w, v1, stream);
            }
            if (b < nb) put_block(dst + i * w, permute_block(src + i * ss, w, k, false), stream), i += per;
            for (; i < n; i++) memcpy(dst + i * w, src + i * ss, (size_t)w);
        } else {
            /* From the destination's end: the tail items, the blocks in
             * descending order, the head items: the source ascends. */
            for (int64_t i = n - 1; i >= t0; i--) memcpy(dst + i * w, src + i * ss, (size_t)w);
            int64_t j = t0; /* one past the block's last item */
            int64_t b = 0;
            for (; b + 2 <= nb; b += 2, j -= 2 * per) {
                __m256i v0 = permute_block(src + (j - 1) * ss, w, k, true);
                __m256i v1 = permute_block(src + (j - 1 - per) * ss, w, k, true);
                put_block(dst + (j - per) * w, v0, stream);
                put_block(dst + (j - 2 * per) * w, v1, stream);
            }
            if (b < nb) put_block(dst + (j - per) * w, permute_block(src + (j - 1) * ss, w, k, true), stream), j -= per;
            for (int64_t i = j - 1; i >= 0; i--) memcpy(dst + i * w, src + i * ss, (size_t)w);
        }
    }
}

#define DEFINE_PERMUTE(name, w, k, rev)                                                                  \
    static AVX2 void rows_##name(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows, \
                                 const dmls_cpu_prepared *p) {                                               \
        permute_rows(dst, src, n, rows, p, w, k, rev);                                                   \
    }
DEFINE_PERMUTE(reverse1, 1, 1, true)
DEFINE_PERMUTE(reverse2, 2, 1, true)
DEFINE_PERMUTE(reverse4, 4, 1, true)
DEFINE_PERMUTE(reverse8, 8, 1, true)
DEFINE_PERMUTE(stride2_4, 4, 2, false)
DEFINE_PERMUTE(stride2_8, 8, 2, false)
DEFINE_PERMUTE(stride_neg2_4, 4, 2, true)
DEFINE_PERMUTE(stride_neg2_8, 8, 2, true)

dmls_cpu_rows_fn dmls_cpu_pick_permute_avx2(int32_t w, int64_t ss) {
    static const dmls_cpu_rows_fn reverse[4] = {rows_reverse1, rows_reverse2, rows_reverse4, rows_reverse8};
    if (ss == -w) return dmls_cpu_pick_width(w, reverse);
    if (w == 4) return ss == 8 ? rows_stride2_4 : ss == -8 ? rows_stride_neg2_4 : NULL;
    if (w == 8) return ss == 16 ? rows_stride2_8 : ss == -16 ? rows_stride_neg2_8 : NULL;
    return NULL;
}
#endif
