/* AVX2 kernel variants. Each function carries target("avx2"), so the rest of
 * the build stays portable and these run only where dmls_cpu_features() saw
 * AVX2 at plan time. */
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <string.h>

#include "cpu.h"

#define AVX2 __attribute__((target("avx2")))

void dmls_cpu_store_fence(void) { _mm_sfence(); }

/* Bytes of dst to write with ordinary stores before dst is 32-byte aligned. */
static inline size_t head_to_align32(const unsigned char *dst) {
    return (size_t)((32 - ((uintptr_t)dst & 31)) & 31);
}

/* A contiguous row with streaming stores: the output is bigger than the
 * last-level cache, so writing around it saves the read-for-ownership of
 * every destination line and leaves the cache to the input. */
static inline AVX2 void contig_nt_row(unsigned char *dst, const unsigned char *src, size_t bytes) {
    if (bytes < 256) {
        memcpy(dst, src, bytes);
        return;
    }
    size_t head = head_to_align32(dst);
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
    for (; bytes >= 32; bytes -= 32, dst += 32, src += 32)
        _mm256_stream_si256((__m256i *)dst, _mm256_loadu_si256((const __m256i *)src));
    memcpy(dst, src, bytes);
}

AVX2 void dmls_cpu_rows_contig_nt_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                       const dmls_cpu_plan *p) {
    const size_t bytes = (size_t)n * (size_t)p->width;
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) contig_nt_row(dst, src, bytes);
}

/* Packed rows gathered by byte shuffles (see shuffle_masks in kernels.c):
 * each 128-bit lane makes 16 output bytes from two loads that cover exactly
 * the input bytes of its items, so nothing outside the tensor is read. */
AVX2 void dmls_cpu_rows_shuffle_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                     const dmls_cpu_plan *p) {
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
        bool stream = false;
        if (p->nontemporal) {
            size_t head = head_to_align32(d);
            if (head % (size_t)w == 0 && (int64_t)head / w <= n) {
                for (int64_t k = (int64_t)head / w; k > 0; k--, i++, d += w, s += ss) memcpy(d, s, (size_t)w);
                stream = true;
            }
        }
        for (; i + per_iter <= n; i += per_iter, d += 32, s += 2 * lane_step) {
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

/* Packed rows of items of 17..32 bytes (the wide kernel of kernels.c with a
 * 32-byte move): every item but a row's last is one 32-byte load and store
 * whose extra bytes the next item's store rewrites; the last moves as 16 + 8
 * when it is 24 bytes, else as two overlapping 16s. Needs item_dst_step ==
 * width, item_src_step > 0 and item_src_step + width >= 32. */
AVX2 void dmls_cpu_rows_wide32_avx2(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                                    const dmls_cpu_plan *p) {
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
#endif
