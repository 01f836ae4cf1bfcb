/* The CPU prepare: a normalized copy plan becomes a dmls_cpu_prepared whose
 * rows one kernel copies. The kernel and its ISA variant are chosen here,
 * once, at create, from one table, best first: the first row whose features
 * the CPU has and whose pick accepts the copy wins. */
#include <string.h>

#include "../checked.h"
#include "copy_tiled.h"
#include "features.h"
#include "interleave.h"
#include "kernels.h"
#include "split.h"

/* Largest item a fold may produce: the strided kernels move at most 32 bytes
 * as two 16-byte halves. */
#define MAX_FOLD_BYTES 32

/* Byte-shuffle masks for a packed row of items of width w (1, 2, 4 or 8)
 * read every ss bytes: one 16-byte output block holds 16 / w items, which lie
 * within `span` input bytes from the lowest of them. Two 16-byte loads cover
 * that span (at 0 and span - 16), so it must be 16..32 bytes. Returns false
 * when the pattern does not fit. (The x86 and AArch64 gathers use them; a
 * build with neither has no SIMD kernels.) */
#if defined(__x86_64__) || defined(__i386__) || DMLS_CPU_NEON_KERNELS || DMLS_CPU_SIMD128_KERNELS
#define DMLS_CPU_SIMD_KERNELS 1
#else
#define DMLS_CPU_SIMD_KERNELS 0
#endif
#if DMLS_CPU_SIMD_KERNELS
static bool shuffle_masks(dmls_cpu_prepared *cp, int32_t w, int64_t ss) {
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

/* ------------------------------------------------------------ the table */

/* Contiguous rows on both sides: the memcpy kernels. */
static bool contiguous(const dmls_cpu_prepared *cp) {
    return cp->item_src_step == cp->width && cp->item_dst_step == cp->width;
}

#if DMLS_CPU_SIMD_KERNELS
/* Output packed and rows of at least 32 output bytes (one AVX2 vector, two
 * NEON ones): the SIMD gathers; shorter rows would pay the setup for the
 * scalar tail alone. */
static bool packed_long_rows(const dmls_cpu_prepared *cp) {
    return !contiguous(cp) && cp->item_dst_step == cp->width && cp->shape[cp->ndim - 1] * cp->width >= 32;
}
#endif

/* Output packed, an item between powers of two, room to read a power of two
 * from each item but a row's last: the wide move's K, else 0. */
static int64_t wide_fit(const dmls_cpu_prepared *cp) {
    const int64_t w = cp->width, ss = cp->item_src_step, k = dmls_cpu_wide_bytes(cp->width);
    bool fits = !contiguous(cp) && k != 0 && cp->item_dst_step == w && ss > 0 && ss + w >= k &&
                cp->shape[cp->ndim - 1] >= 2;
    return fits ? k : 0;
}

static dmls_cpu_rows_fn pick_contig(dmls_cpu_prepared *cp) {
    return contiguous(cp) ? dmls_cpu_rows_contig : NULL;
}

static dmls_cpu_rows_fn pick_wide(dmls_cpu_prepared *cp) {
    const int64_t k = wide_fit(cp);
    return k != 0 && k <= 16 ? dmls_cpu_pick_wide(k) : NULL;
}

static dmls_cpu_rows_fn pick_tiled(dmls_cpu_prepared *cp) {
    return cp->tiled ? dmls_cpu_pick_tiled(cp->width) : NULL;
}

/* The register transposes: rows read contiguously (forwards or backwards). */
static bool tiled_in_registers(const dmls_cpu_prepared *cp) {
    return cp->tiled && (cp->row_src_step == cp->width || cp->row_src_step == -(int64_t)cp->width);
}

static dmls_cpu_rows_fn pick_strided(dmls_cpu_prepared *cp) {
    return contiguous(cp) ? NULL : dmls_cpu_pick_strided(cp->width);
}

/* The 16-byte SIMD cases, the same minimum row on AArch64 (kernels_neon.c,
 * kernels_tiled_neon.c) and in WebAssembly (kernels_wasm_simd128.c): one
 * set of pickers per ISA, differing only in the kernels they name. */
#define DEFINE_SIMD16_PICKS(isa)                                                                                       \
    static dmls_cpu_rows_fn pick_reverse_##isa(dmls_cpu_prepared *cp) {                                                \
        return packed_long_rows(cp) ? dmls_cpu_pick_reverse_##isa(cp->width, cp->item_src_step) : NULL;                \
    }                                                                                                                  \
    static dmls_cpu_rows_fn pick_tiled_##isa(dmls_cpu_prepared *cp) {                                                  \
        return tiled_in_registers(cp) ? dmls_cpu_pick_tiled_##isa(cp->width) : NULL;                                   \
    }                                                                                                                  \
    static dmls_cpu_rows_fn pick_shuffle_##isa(dmls_cpu_prepared *cp) {                                                \
        bool fits = packed_long_rows(cp) && shuffle_masks(cp, cp->width, cp->item_src_step);                           \
        return fits ? dmls_cpu_rows_shuffle_##isa : NULL;                                                              \
    }

#if DMLS_CPU_NEON_KERNELS
DEFINE_SIMD16_PICKS(neon)
static dmls_cpu_rows_fn pick_deinterleave_neon(dmls_cpu_prepared *cp) {
    return packed_long_rows(cp) && dmls_deinterleave_fits(cp) ? dmls_cpu_rows_deinterleave_neon : NULL;
}
#endif

#if DMLS_CPU_SIMD128_KERNELS
DEFINE_SIMD16_PICKS(simd128)
static dmls_cpu_rows_fn pick_stride2_simd128(dmls_cpu_prepared *cp) {
    return packed_long_rows(cp) ? dmls_cpu_pick_stride2_simd128(cp->width, cp->item_src_step) : NULL;
}
static dmls_cpu_rows_fn pick_deinterleave_simd128(dmls_cpu_prepared *cp) {
    return packed_long_rows(cp) && dmls_deinterleave_fits(cp) ? dmls_cpu_rows_deinterleave_simd128 : NULL;
}
#endif

#if defined(__x86_64__) || defined(__i386__)
static dmls_cpu_rows_fn pick_contig_nt_avx2(dmls_cpu_prepared *cp) {
    return contiguous(cp) && cp->nontemporal ? dmls_cpu_rows_contig_nt_avx2 : NULL;
}

static dmls_cpu_rows_fn pick_tiled_avx2(dmls_cpu_prepared *cp) {
    return tiled_in_registers(cp) ? dmls_cpu_pick_tiled_avx2(cp->width) : NULL;
}

static dmls_cpu_rows_fn pick_reverse_avx2(dmls_cpu_prepared *cp) {
    if (!packed_long_rows(cp) || cp->item_src_step != -(int64_t)cp->width) return NULL;
    return dmls_cpu_pick_permute_avx2(cp->width, cp->item_src_step);
}

static dmls_cpu_rows_fn pick_stride2_avx2(dmls_cpu_prepared *cp) {
    if (!packed_long_rows(cp) || cp->item_src_step == -(int64_t)cp->width) return NULL;
    return dmls_cpu_pick_permute_avx2(cp->width, cp->item_src_step);
}

static dmls_cpu_rows_fn pick_shuffle3_avx2(dmls_cpu_prepared *cp) {
    bool fits = packed_long_rows(cp) && shuffle_masks(cp, cp->width, cp->item_src_step) && cp->shuffle3_ok;
    return fits ? dmls_cpu_rows_shuffle3_avx2 : NULL;
}

static dmls_cpu_rows_fn pick_shuffle_avx2(dmls_cpu_prepared *cp) {
    bool fits = packed_long_rows(cp) && shuffle_masks(cp, cp->width, cp->item_src_step) && !cp->shuffle3_ok;
    return fits ? dmls_cpu_rows_shuffle_avx2 : NULL;
}

/* Pixels to planes (interleave.h): an output row's 16 bytes are in the k
 * vectors of 16 / w pixels. */
static dmls_cpu_rows_fn pick_deinterleave_avx2(dmls_cpu_prepared *cp) {
    return packed_long_rows(cp) && dmls_deinterleave_fits(cp) ? dmls_cpu_rows_deinterleave_avx2 : NULL;
}

static dmls_cpu_rows_fn pick_wide32_avx2(dmls_cpu_prepared *cp) {
    return wide_fit(cp) > 16 ? dmls_cpu_rows_wide32_avx2 : NULL;
}
#endif

typedef struct kernel_row {
    dmls_cpu_kernel id;
    const char *name;
    unsigned needs; /* dmls_cpu_features() bits the kernel runs on */
    bool streams;   /* writes with streaming stores when the copy is past the cache */
    /* The row function when the copy suits the kernel, else NULL. A pick may
     * store what its kernel needs (shuffle masks) into cp. */
    dmls_cpu_rows_fn (*pick)(dmls_cpu_prepared *cp);
} kernel_row;

/* Best first. A tiled copy (cp->tiled) is one no other kernel reads whole
 * lines of, so its rows come first. The permute kernels (reverse, stride 2), the shuffles and the
 * wide moves never suit the same copy (powers of two against widths between
 * them), so among them the order is only the order of preference. */
static const kernel_row kernels[] = {
    {DMLS_CPU_EMPTY, "empty", 0, false, NULL}, /* count 0: set before the selector runs */
#if defined(__x86_64__) || defined(__i386__)
    {DMLS_CPU_CONTIG_NT_AVX2, "contig_nt_avx2", DMLS_CPU_AVX2, true, pick_contig_nt_avx2},
#endif
    {DMLS_CPU_CONTIG, "contig", 0, false, pick_contig},
#if defined(__x86_64__) || defined(__i386__)
    {DMLS_CPU_TILED_AVX2, "tiled_avx2", DMLS_CPU_AVX2, true, pick_tiled_avx2},
#endif
#if DMLS_CPU_NEON_KERNELS
    {DMLS_CPU_TILED_NEON, "tiled_neon", DMLS_CPU_NEON, false, pick_tiled_neon},
#endif
#if DMLS_CPU_SIMD128_KERNELS
    {DMLS_CPU_TILED_SIMD128, "tiled_simd128", DMLS_CPU_SIMD128, false, pick_tiled_simd128},
#endif
    {DMLS_CPU_TILED, "tiled", 0, false, pick_tiled},
#if defined(__x86_64__) || defined(__i386__)
    {DMLS_CPU_REVERSE_AVX2, "reverse_avx2", DMLS_CPU_AVX2, true, pick_reverse_avx2},
    {DMLS_CPU_STRIDE2_AVX2, "stride2_avx2", DMLS_CPU_AVX2, true, pick_stride2_avx2},
    {DMLS_CPU_DEINTERLEAVE_AVX2, "deinterleave_avx2", DMLS_CPU_AVX2, true, pick_deinterleave_avx2},
    {DMLS_CPU_SHUFFLE3_AVX2, "shuffle3_avx2", DMLS_CPU_AVX2, true, pick_shuffle3_avx2},
    {DMLS_CPU_SHUFFLE_AVX2, "shuffle_avx2", DMLS_CPU_AVX2, true, pick_shuffle_avx2},
    {DMLS_CPU_STRIDED_WIDE_AVX2, "strided_wide_avx2", DMLS_CPU_AVX2, false, pick_wide32_avx2},
#endif
#if DMLS_CPU_NEON_KERNELS
    {DMLS_CPU_REVERSE_NEON, "reverse_neon", DMLS_CPU_NEON, false, pick_reverse_neon},
    {DMLS_CPU_DEINTERLEAVE_NEON, "deinterleave_neon", DMLS_CPU_NEON, false, pick_deinterleave_neon},
    {DMLS_CPU_SHUFFLE_NEON, "shuffle_neon", DMLS_CPU_NEON, false, pick_shuffle_neon},
#endif
#if DMLS_CPU_SIMD128_KERNELS
    {DMLS_CPU_REVERSE_SIMD128, "reverse_simd128", DMLS_CPU_SIMD128, false, pick_reverse_simd128},
    {DMLS_CPU_STRIDE2_SIMD128, "stride2_simd128", DMLS_CPU_SIMD128, false, pick_stride2_simd128},
    {DMLS_CPU_DEINTERLEAVE_SIMD128, "deinterleave_simd128", DMLS_CPU_SIMD128, false, pick_deinterleave_simd128},
    {DMLS_CPU_SHUFFLE_SIMD128, "shuffle_simd128", DMLS_CPU_SIMD128, false, pick_shuffle_simd128},
#endif
    {DMLS_CPU_STRIDED_WIDE, "strided_wide", 0, false, pick_wide},
    {DMLS_CPU_STRIDED, "strided", 0, false, pick_strided},
};
#define KERNEL_ROWS (sizeof kernels / sizeof kernels[0])

const char *dmls_cpu_kernel_name(dmls_cpu_kernel k) {
    for (size_t i = 0; i < KERNEL_ROWS; i++)
        if (kernels[i].id == k) return kernels[i].name;
    return "?"; /* not a kernel, or one this architecture does not build */
}

/* The selector: the first row, best first, that the features allow and whose
 * pick accepts the copy. The last row (strided) accepts every copy that is
 * not contiguous, and contig every one that is, so one always wins. */
static void select_kernel(dmls_cpu_prepared *cp, unsigned features) {
    for (size_t i = 0; i < KERNEL_ROWS; i++) {
        const kernel_row *r = &kernels[i];
        if (r->pick == NULL || (features & r->needs) != r->needs) continue;
        dmls_cpu_rows_fn rows = r->pick(cp);
        if (rows == NULL) continue;
        cp->kernel = r->id;
        cp->rows = rows;
        cp->nontemporal = cp->nontemporal && r->streams;
        return;
    }
}

/* ------------------------------------------------------------ prepare */


/* A transposed copy (copy_tiled.h): the output packed along the innermost
 * dim, which the input walks in steps past what the gathers read whole
 * (more than 32 bytes), while an outer dim steps through the input by less
 * than a line. That dim (the smallest step) moves next to the innermost, to
 * be the rows of the tiled kernels. Computed here, on the items after the
 * fold, rather than from the plan's tile_dim: a pair of 8-byte halves
 * contiguous on both sides is one 16-byte item to transpose. */
static void tile_rows(dmls_cpu_prepared *cp) {
    const int n = cp->ndim, inner = n - 1;
    if (n < 2 || cp->dst_step[inner] != cp->width || dmls_abs_i64(cp->src_step[inner]) <= 32) return;
    int a = -1;
    for (int i = 0; i < inner; i++) {
        uint64_t s = dmls_abs_i64(cp->src_step[i]);
        if (s != 0 && (a < 0 || s < dmls_abs_i64(cp->src_step[a]))) a = i;
    }
    if (a < 0 || dmls_abs_i64(cp->src_step[a]) >= DMLS_TILE_BYTES) return;
    const int64_t shape = cp->shape[a], src = cp->src_step[a], dst = cp->dst_step[a];
    for (int i = a; i < inner - 1; i++) {
        cp->shape[i] = cp->shape[i + 1];
        cp->src_step[i] = cp->src_step[i + 1];
        cp->dst_step[i] = cp->dst_step[i + 1];
    }
    cp->shape[inner - 1] = shape;
    cp->src_step[inner - 1] = src;
    cp->dst_step[inner - 1] = dst;
    cp->tiled = true;
}

void dmls_cpu_prepare(dmls_cpu_prepared *cp, const dmls_copy_plan *plan, unsigned features,
                      uint64_t nt_threshold, uint64_t cache_bytes) {
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
    tile_rows(cp);
    cp->items = 1;
    for (int i = 0; i < n; i++) cp->items *= (uint64_t)cp->shape[i];
    cp->out_bytes = cp->items * (uint64_t)cp->width;

    const int64_t w = cp->width, ss = cp->src_step[n - 1];
    const int64_t row = cp->shape[n - 1];
    cp->item_src_step = ss;
    cp->item_dst_step = cp->dst_step[n - 1];
    cp->row_src_step = n >= 2 ? cp->src_step[n - 2] : 0;
    cp->row_dst_step = n >= 2 ? cp->dst_step[n - 2] : 0;
    /* a tiled copy reads the input along its rows, a line for a line's worth of items */
    uint64_t per_item = dmls_abs_i64(cp->tiled ? cp->row_src_step : ss);
    if (per_item > 64) per_item = 64;
    if (per_item < (uint64_t)w) per_item = (uint64_t)w;
    const uint64_t in_bytes = cp->items > UINT64_MAX / per_item ? UINT64_MAX : cp->items * per_item;
    cp->traffic_bytes = in_bytes > UINT64_MAX - cp->out_bytes ? UINT64_MAX : in_bytes + cp->out_bytes;
    cp->nontemporal = cp->traffic_bytes >= nt_threshold;
    cp->cached = cp->traffic_bytes <= cache_bytes;
    cp->split_grain = row * w <= DMLS_SPLIT_ROW_BYTES
                          ? (uint64_t)row
                          : (uint64_t)(w < DMLS_SPLIT_GRAIN_BYTES ? DMLS_SPLIT_GRAIN_BYTES / w : 1);
    if (cp->tiled) {
        /* Column blocks to share out: the output's row blocks of a plane
         * are as many as its column blocks are in the transposed view. */
        const uint64_t b = (uint64_t)dmls_tile_items(w), col_blocks = (uint64_t)(row + (int64_t)b - 1) / b;
        const uint64_t plane = (uint64_t)cp->shape[n - 2] * (uint64_t)row;
        const uint64_t units = cp->items / (plane ? plane : 1) * col_blocks;
        const uint64_t row_units = cp->items / (plane ? plane : 1) * (((uint64_t)cp->shape[n - 2] + b - 1) / b);
        dmls_cpu_split_tiled(cp, units >= DMLS_TILE_SPLIT_SHARES || units >= row_units);
    }
    select_kernel(cp, features);
}

void dmls_cpu_split_tiled(dmls_cpu_prepared *cp, bool by_input_rows) {
    if (!cp->tiled || cp->ndim < 2) return;
    const int n = cp->ndim;
    const int64_t b = dmls_tile_items(cp->width);
    /* whole blocks on the side that is cut, so no share starts inside a block */
    const int64_t cut_len = by_input_rows ? cp->shape[n - 1] : cp->shape[n - 2];
    const int64_t whole = by_input_rows ? cp->shape[n - 2] : cp->shape[n - 1];
    const uint64_t blk = (uint64_t)(cut_len < b ? cut_len : b);
    cp->split_cols = by_input_rows;
    cp->split_grain = (uint64_t)whole > UINT64_MAX / blk ? UINT64_MAX : (uint64_t)whole * blk;
}
