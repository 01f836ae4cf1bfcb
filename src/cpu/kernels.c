/* CPU planning and the portable kernels. A dmls_copy_plan becomes a
 * dmls_cpu_plan whose rows one kernel copies; the kernel and its ISA variant
 * are chosen here, once, at create. Execution walks rows with an odometer
 * from any starting item, so the same code runs a whole plan on one thread
 * or one thread's share of it. */
#include <string.h>

#include "../operator.h"
#include "cpu.h"

const char *dmls_cpu_kernel_name(dmls_cpu_kernel k) {
    static const char *const names[DMLS_CPU_KERNEL_COUNT] = {
        "empty",        "contig",            "contig_nt_avx2", "strided",        "shuffle_avx2",
        "strided_wide", "strided_wide_avx2", "reverse_avx2",   "stride2_avx2",   "shuffle3_avx2",
        "reverse_neon", "shuffle_neon",
    };
    return (unsigned)k < DMLS_CPU_KERNEL_COUNT ? names[k] : "?";
}

static void rows_contig(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                        const dmls_cpu_plan *p) {
    const size_t bytes = (size_t)(n * p->width);
    for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) memcpy(dst, src, bytes);
}

/* Strided items, one width class each, the item loop inline. Fixed-size
 * memcpy compiles to plain loads and stores and stays defined on the
 * misaligned addresses the native API allows; widths between powers of two
 * move as two overlapping halves, both read before either is written. */
#define DEFINE_STRIDED(suffix, MOVE)                                                           \
    static void rows_strided_##suffix(unsigned char *dst, const unsigned char *src, int64_t n, \
                                      int64_t rows, const dmls_cpu_plan *p) {                  \
        const int64_t ss = p->item_src_step, ds = p->item_dst_step;                           \
        const size_t w = (size_t)p->width;                                                    \
        (void)w;                                                                              \
        for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {            \
            unsigned char *d = dst;                                                           \
            const unsigned char *s = src;                                                     \
            for (int64_t i = 0; i < n; i++, d += ds, s += ss) { MOVE(d, s); }                 \
        }                                                                                     \
    }
#define MOVE_FIXED(k, d, s) memcpy(d, s, k)
#define MOVE_PAIR(k, d, s)                                                                     \
    do {                                                                                       \
        unsigned char a_[k], b_[k];                                                            \
        memcpy(a_, s, k);                                                                      \
        memcpy(b_, s + w - k, k);                                                              \
        memcpy(d, a_, k);                                                                      \
        memcpy(d + w - k, b_, k);                                                              \
    } while (0)
#define MOVE_1(d, s) MOVE_FIXED(1, d, s)
#define MOVE_2(d, s) MOVE_FIXED(2, d, s)
#define MOVE_4(d, s) MOVE_FIXED(4, d, s)
#define MOVE_8(d, s) MOVE_FIXED(8, d, s)
#define MOVE_16(d, s) MOVE_FIXED(16, d, s)
#define MOVE_PAIR2(d, s) MOVE_PAIR(2, d, s)
#define MOVE_PAIR4(d, s) MOVE_PAIR(4, d, s)
#define MOVE_PAIR8(d, s) MOVE_PAIR(8, d, s)
#define MOVE_PAIR16(d, s) MOVE_PAIR(16, d, s)
DEFINE_STRIDED(1, MOVE_1)
DEFINE_STRIDED(2, MOVE_2)
DEFINE_STRIDED(4, MOVE_4)
DEFINE_STRIDED(8, MOVE_8)
DEFINE_STRIDED(16, MOVE_16)
DEFINE_STRIDED(3_4, MOVE_PAIR2)    /* 3 */
DEFINE_STRIDED(5_8, MOVE_PAIR4)    /* 5..7 */
DEFINE_STRIDED(9_16, MOVE_PAIR8)   /* 9..15 */
DEFINE_STRIDED(17_32, MOVE_PAIR16) /* 17..31, and 32 */

static dmls_cpu_rows_fn pick_strided(int32_t w) {
    switch (w) {
    case 1: return rows_strided_1;
    case 2: return rows_strided_2;
    case 4: return rows_strided_4;
    case 8: return rows_strided_8;
    case 16: return rows_strided_16;
    case 3: return rows_strided_3_4;
    default:
        return w < 8 ? rows_strided_5_8 : w < 16 ? rows_strided_9_16 : rows_strided_17_32;
    }
}

/* Packed output rows of items whose width lies between powers of two: every
 * item but a row's last moves as one K-byte move (K the next power of two),
 * whose extra bytes land on the next item's destination and are rewritten by
 * the next move; the last item moves exactly, as two halves. Needs
 * item_dst_step == width, item_src_step > 0 and item_src_step + width >= K,
 * so the read stays within the row's items; K < 2 * width keeps the write
 * within the row. */
#define DEFINE_WIDE(K, HALF)                                                                   \
    static void rows_wide_##K(unsigned char *dst, const unsigned char *src, int64_t n,         \
                              int64_t rows, const dmls_cpu_plan *p) {                          \
        const int64_t ss = p->item_src_step;                                                  \
        const size_t w = (size_t)p->width;                                                    \
        for (; rows > 0; rows--, src += p->row_src_step, dst += p->row_dst_step) {            \
            unsigned char *d = dst;                                                           \
            const unsigned char *s = src;                                                     \
            for (int64_t i = 1; i < n; i++, d += w, s += ss) memcpy(d, s, K);                 \
            MOVE_PAIR(HALF, d, s);                                                            \
        }                                                                                     \
    }
DEFINE_WIDE(4, 2)   /* 3 */
DEFINE_WIDE(8, 4)   /* 5..7 */
DEFINE_WIDE(16, 8)  /* 9..15 */

/* The power of two a wide move of items of w bytes uses, 0 if w is one. */
static int64_t wide_bytes(int32_t w) {
    if ((w & (w - 1)) == 0) return 0;
    int64_t k = 4;
    while (k < w) k *= 2;
    return k;
}

/* Largest item a fold may produce: the strided kernels move at most 32 bytes
 * as two 16-byte halves. */
#define MAX_FOLD_BYTES 32

/* Rows longer than this (output bytes) may be split between threads; shorter
 * ones never are, so a thread's share starts on a row. */
#define SPLIT_ROW_BYTES (64 * 1024)
#define SPLIT_GRAIN_BYTES 4096

/* Byte-shuffle masks for a packed row of items of width w (1, 2, 4 or 8)
 * read every ss bytes: one 16-byte output block holds 16 / w items, which lie
 * within `span` input bytes from the lowest of them. Two 16-byte loads cover
 * that span (at 0 and span - 16), so it must be 16..32 bytes. Returns false
 * when the pattern does not fit. */
#if defined(__x86_64__) || defined(__i386__) || DMLS_CPU_NEON_KERNELS
static bool shuffle_masks(dmls_cpu_plan *cp, int32_t w, int64_t ss) {
    if (w != 1 && w != 2 && w != 4 && w != 8) return false;
    const int64_t items = 16 / w, step = ss < 0 ? -ss : ss;
    if (step > 32) return false;
    const int64_t span = (items - 1) * step + w;
    if (span < 16 || span > 32) return false;
    for (int j = 0; j < 16; j++) {
        int64_t g = j / w, b = j % w;
        int64_t pos = (ss > 0 ? g : items - 1 - g) * step + b;
        cp->shuffle[0][j] = pos < 16 ? (unsigned char)pos : 0x80;
        cp->shuffle[1][j] = pos < 16 ? 0x80 : (unsigned char)(pos - (span - 16));
    }
    cp->shuffle_span = span;
    cp->shuffle_items = items;
    /* Forward steps with a lane step L = items * ss of at most 32 bytes (and
     * span <= L, true when items do not overlap): the 32-byte load at
     * L - 16 holds lane 0's high window [L - 16, L) and lane 1's low window
     * [L, L + 16); a blend of the loads at 0 and L + span - 32 holds lane 0's
     * low window [0, 16) and lane 1's high one [L + span - 16, L + span).
     * shuffle3[0] picks from the blend, shuffle3[1] from the middle load. */
    const int64_t L = items * ss;
    cp->shuffle3_ok = ss > 0 && L <= 32 && span <= L;
    if (cp->shuffle3_ok) {
        for (int j = 0; j < 16; j++) {
            int64_t g = j / w, b = j % w, pos = g * ss + b;
            cp->shuffle3[0][j] = pos < 16 ? (unsigned char)pos : 0x80;                 /* lane 0 from [0, 16) */
            cp->shuffle3[1][j] = pos < 16 ? 0x80 : (unsigned char)(pos - (L - 16));    /* lane 0 from [L-16, L) */
            cp->shuffle3[0][16 + j] = pos < 16 ? 0x80 : (unsigned char)(pos - (span - 16)); /* lane 1, high */
            cp->shuffle3[1][16 + j] = pos < 16 ? (unsigned char)pos : 0x80;            /* lane 1 from [L, L+16) */
        }
    }
    return true;
}
#endif

void dmls_cpu_plan_build(dmls_cpu_plan *cp, const dmls_copy_plan *plan, unsigned features,
                         uint64_t nt_threshold) {
    memset(cp, 0, sizeof *cp);
    if (plan->count == 0) {
        cp->kernel = DMLS_CPU_EMPTY;
        return;
    }
    const int64_t es = plan->esize;
    int n = plan->ndim;
    cp->width = plan->esize;
    cp->src_offset = plan->src_offset;
    cp->dst_offset = plan->dst_offset;
    if (n == 0) { /* a single element: a row of one */
        n = 1;
        cp->shape[0] = 1;
        cp->src_step[0] = cp->dst_step[0] = es;
    } else {
        for (int i = 0; i < n; i++) {
            cp->shape[i] = plan->shape[i];
            cp->src_step[i] = es * plan->src_stride[i];
            cp->dst_step[i] = es * plan->dst_stride[i];
        }
    }
    /* Fold a short run contiguous on both sides into the item. */
    if (n >= 2 && plan->src_stride[n - 1] == 1 && plan->dst_stride[n - 1] == 1 &&
        cp->shape[n - 1] * es <= MAX_FOLD_BYTES) {
        cp->width = (int32_t)(cp->shape[n - 1] * es);
        n--;
    }
    cp->ndim = n;
    for (int i = n; i < DMLS_MAX_RANK; i++) cp->shape[i] = 1;
    cp->items = 1;
    for (int i = 0; i < n; i++) cp->items *= (uint64_t)cp->shape[i];
    cp->out_bytes = cp->items * (uint64_t)cp->width;

    const int64_t w = cp->width, ss = cp->src_step[n - 1], ds = cp->dst_step[n - 1];
    const int64_t row = cp->shape[n - 1];
    cp->item_src_step = ss;
    cp->item_dst_step = ds;
    cp->row_src_step = n >= 2 ? cp->src_step[n - 2] : 0;
    cp->row_dst_step = n >= 2 ? cp->dst_step[n - 2] : 0;
    uint64_t per_item = (uint64_t)(ss < 0 ? -ss : ss);
    if (per_item > 64) per_item = 64;
    if (per_item < (uint64_t)w) per_item = (uint64_t)w;
    const uint64_t in_bytes = cp->items > UINT64_MAX / per_item ? UINT64_MAX : cp->items * per_item;
    cp->traffic_bytes = in_bytes > UINT64_MAX - cp->out_bytes ? UINT64_MAX : in_bytes + cp->out_bytes;
    cp->nontemporal = cp->traffic_bytes >= nt_threshold;
    cp->split_grain = row * w <= SPLIT_ROW_BYTES ? (uint64_t)row
                      : (uint64_t)(w < SPLIT_GRAIN_BYTES ? SPLIT_GRAIN_BYTES / w : 1);
    const bool avx2 = (features & DMLS_CPU_AVX2) != 0, neon = (features & DMLS_CPU_NEON) != 0;
    (void)avx2, (void)neon; /* each is read only where its kernels are built */

    if (ss == w && ds == w) {
        cp->kernel = DMLS_CPU_CONTIG;
        cp->rows = rows_contig;
#if defined(__x86_64__) || defined(__i386__)
        if (avx2 && cp->nontemporal) {
            cp->kernel = DMLS_CPU_CONTIG_NT_AVX2;
            cp->rows = dmls_cpu_rows_contig_nt_avx2;
        }
#endif
    } else {
        cp->kernel = DMLS_CPU_STRIDED;
        cp->rows = pick_strided(cp->width);
        /* Packed output, an item between powers of two, room to read a
         * power of two from each item but a row's last. */
        const int64_t k = wide_bytes(cp->width);
        if (k != 0 && ds == w && ss > 0 && ss + w >= k && row >= 2) {
            if (k <= 16) {
                cp->kernel = DMLS_CPU_STRIDED_WIDE;
                cp->rows = k == 4 ? rows_wide_4 : k == 8 ? rows_wide_8 : rows_wide_16;
            }
#if defined(__x86_64__) || defined(__i386__)
            else if (avx2) {
                cp->kernel = DMLS_CPU_STRIDED_WIDE_AVX2;
                cp->rows = dmls_cpu_rows_wide32_avx2;
            }
#endif
        }
#if defined(__x86_64__) || defined(__i386__)
        /* Rows shorter than one vector step (32 output bytes) would pay
         * the setup for the scalar tail alone. */
        dmls_cpu_rows_fn permute = NULL;
        if (avx2 && ds == w && row * w >= 32 && (permute = dmls_cpu_pick_permute_avx2(cp->width, ss))) {
            cp->kernel = ss == -w ? DMLS_CPU_REVERSE_AVX2 : DMLS_CPU_STRIDE2_AVX2;
            cp->rows = permute;
        } else if (avx2 && ds == w && row * w >= 32 && shuffle_masks(cp, (int32_t)w, ss)) {
            cp->kernel = cp->shuffle3_ok ? DMLS_CPU_SHUFFLE3_AVX2 : DMLS_CPU_SHUFFLE_AVX2;
            cp->rows = cp->shuffle3_ok ? dmls_cpu_rows_shuffle3_avx2 : dmls_cpu_rows_shuffle_avx2;
        }
#endif
#if DMLS_CPU_NEON_KERNELS
        /* The same cases on AArch64 (kernels_neon.c), the same minimum row. */
        dmls_cpu_rows_fn reverse = NULL;
        if (neon && ds == w && row * w >= 32 && (reverse = dmls_cpu_pick_reverse_neon(cp->width, ss))) {
            cp->kernel = DMLS_CPU_REVERSE_NEON;
            cp->rows = reverse;
        } else if (neon && ds == w && row * w >= 32 && shuffle_masks(cp, (int32_t)w, ss)) {
            cp->kernel = DMLS_CPU_SHUFFLE_NEON;
            cp->rows = dmls_cpu_rows_shuffle_neon;
        }
#endif
    }
    if (cp->kernel != DMLS_CPU_CONTIG_NT_AVX2 && cp->kernel != DMLS_CPU_SHUFFLE_AVX2 &&
        cp->kernel != DMLS_CPU_SHUFFLE3_AVX2 && cp->kernel != DMLS_CPU_REVERSE_AVX2 &&
        cp->kernel != DMLS_CPU_STRIDE2_AVX2)
        cp->nontemporal = false; /* only these variants stream */
}

/* Steps the odometer of the dims outside the rows dim (`outer`) by one. */
static inline void carry(const dmls_cpu_plan *cp, int outer, int64_t *c, const unsigned char **src,
                         unsigned char **dst) {
    for (int i = outer - 1; i >= 0; i--) {
        *src += cp->src_step[i];
        *dst += cp->dst_step[i];
        if (++c[i] < cp->shape[i]) return;
        *src -= cp->src_step[i] * cp->shape[i];
        *dst -= cp->dst_step[i] * cp->shape[i];
        c[i] = 0;
    }
}

/* Streaming stores are weakly ordered: fence them before anyone (the
 * caller, or the thread that waits for this one) reads the output. */
static inline void finish(const dmls_cpu_plan *cp) {
#if defined(__x86_64__) || defined(__i386__)
    if (cp->nontemporal) dmls_cpu_store_fence();
#else
    (void)cp; /* no kernel streams here */
#endif
}

void dmls_cpu_run_range(const dmls_cpu_plan *cp, const void *src_base, void *dst_base,
                        uint64_t first, uint64_t last) {
    if (first >= last) return;
    const int inner = cp->ndim - 1, outer = inner - 1; /* outer: the rows dim, -1 if none */
    const int64_t n = cp->shape[inner], ss = cp->src_step[inner], ds = cp->dst_step[inner];
    const unsigned char *src = (const unsigned char *)src_base + cp->src_offset;
    unsigned char *dst = (unsigned char *)dst_base + cp->dst_offset;

    int64_t c[DMLS_MAX_RANK] = {0}, col = 0;
    if (first != 0) { /* a thread's share: place it (divisions cost ~40 cycles, so not at 0) */
        uint64_t row = first / (uint64_t)n;
        col = (int64_t)(first % (uint64_t)n);
        for (int i = inner - 1; i >= 0; i--) {
            c[i] = (int64_t)(row % (uint64_t)cp->shape[i]);
            row /= (uint64_t)cp->shape[i];
            src += c[i] * cp->src_step[i];
            dst += c[i] * cp->dst_step[i];
        }
    }
    uint64_t left = last - first;
    if (col != 0 || left < (uint64_t)n) { /* a share that starts or ends inside a row */
        int64_t len = n - col;
        if ((uint64_t)len > left) len = (int64_t)left;
        cp->rows(dst + col * ds, src + col * ss, len, 1, cp);
        left -= (uint64_t)len;
        if (left == 0) {
            finish(cp);
            return;
        }
        /* left > 0 means the row ran to its end and another follows (outer >= 0) */
        src += cp->src_step[outer];
        dst += cp->dst_step[outer];
        if (++c[outer] == cp->shape[outer]) {
            src -= cp->src_step[outer] * cp->shape[outer];
            dst -= cp->dst_step[outer] * cp->shape[outer];
            c[outer] = 0;
            carry(cp, outer, c, &src, &dst);
        }
    }
    /* Whole rows, a tile (the rest of the rows dim) per call. */
    for (;;) {
        int64_t rows = outer >= 0 ? cp->shape[outer] - c[outer] : 1;
        if (left < (uint64_t)rows * (uint64_t)n) { /* the last tile: divide once */
            rows = (int64_t)(left / (uint64_t)n);
            if (rows == 0) {
                cp->rows(dst, src, (int64_t)left, 1, cp);
                break;
            }
        }
        cp->rows(dst, src, n, rows, cp);
        left -= (uint64_t)rows * (uint64_t)n;
        if (left == 0) break;
        /* left > 0, so outer >= 0: next row after the tile */
        if (c[outer] + rows < cp->shape[outer]) { /* only the partial row is left */
            c[outer] += rows;
            src += cp->src_step[outer] * rows;
            dst += cp->dst_step[outer] * rows;
        } else {
            src -= cp->src_step[outer] * c[outer];
            dst -= cp->dst_step[outer] * c[outer];
            c[outer] = 0;
            carry(cp, outer, c, &src, &dst);
        }
    }
    finish(cp);
}
