/* The portable tiled kernel (copy_tiled.h): blocks of a line a side, each
 * copied column by column, so the reads of a column run along its line and
 * the writes of a block's rows stay in the lines the block holds in L1. */
#include <string.h>

#include "copy_tiled.h"

unsigned char *dmls_tile_stage(int64_t w, int64_t ss, int64_t n, int64_t rows, void **allocation) {
    *allocation = NULL;
    const int64_t bytes = dmls_tile_stage_bytes(w, ss);
    /* n * rows * w: the call's output bytes, which the plan has checked fit */
    if (bytes == 0 || n * rows * w < DMLS_TILE_STAGE_MIN) return NULL;
    const int64_t chunk = rows < DMLS_TILE_CHUNK_ROWS ? rows : DMLS_TILE_CHUNK_ROWS;
    *allocation = malloc((size_t)(chunk * bytes) + DMLS_TILE_BYTES - 1);
    if (*allocation == NULL) return NULL; /* the unstaged walk needs no memory */
    const uintptr_t at = (uintptr_t)*allocation;
    return (unsigned char *)*allocation + ((DMLS_TILE_BYTES - at % DMLS_TILE_BYTES) % DMLS_TILE_BYTES);
}

/* One width class: W a constant for the widths a move handles whole, so the
 * memcpy compiles to one load and one store (defined on the misaligned
 * addresses the native API allows); 0 for the others, moved by length. */
#define DEFINE_TILED(suffix, W)                                                                     \
    static void rows_tiled_##suffix(unsigned char *dst, const unsigned char *src, int64_t n,          \
                                    int64_t rows, const dmls_cpu_prepared *p) {                       \
        const int64_t ss = p->item_src_step, rs = p->row_src_step, rd = p->row_dst_step;            \
        const size_t w = W != 0 ? (size_t)W : (size_t)p->width;                                     \
        const int64_t b = dmls_tile_items((int64_t)w);                                             \
        for (int64_t r0 = 0; r0 < rows; r0 += b) {                                                  \
            const int64_t rb = rows - r0 < b ? rows - r0 : b;                                       \
            for (int64_t c0 = 0; c0 < n; c0 += b) {                                                 \
                const int64_t cb = n - c0 < b ? n - c0 : b;                                         \
                const unsigned char *s = src + r0 * rs + c0 * ss;                                   \
                unsigned char *d = dst + r0 * rd + c0 * (int64_t)w;                                 \
                for (int64_t c = 0; c < cb; c++, s += ss, d += w) {                                 \
                    const unsigned char *si = s;                                                    \
                    unsigned char *di = d;                                                          \
                    for (int64_t r = 0; r < rb; r++, si += rs, di += rd) memcpy(di, si, w);         \
                }                                                                                   \
            }                                                                                       \
        }                                                                                           \
    }
DEFINE_TILED(1, 1)
DEFINE_TILED(2, 2)
DEFINE_TILED(4, 4)
DEFINE_TILED(8, 8)
DEFINE_TILED(16, 16)
DEFINE_TILED(any, 0)

dmls_cpu_rows_fn dmls_cpu_pick_tiled(int32_t w) {
    static const dmls_cpu_rows_fn by_width[4] = {rows_tiled_1, rows_tiled_2, rows_tiled_4, rows_tiled_8};
    if (w == 16) return rows_tiled_16;
    const dmls_cpu_rows_fn f = dmls_cpu_pick_width(w, by_width);
    return f != NULL ? f : rows_tiled_any;
}
