/* Tiled copies: the transposed copies, where the output's fast axis is not
 * the input's. prepare.c moves the input's fast dim next to the innermost, so
 * a kernel's rows are that dim: row r of item c is read at
 * src + r * row_src_step + c * item_src_step and written at
 * dst + r * row_dst_step + c * width. Walking either side alone touches a new
 * line per item on the other; a block of one line's worth of items on both
 * sides (64 bytes a row, 64 bytes a column) reads and writes every line whole
 * while it sits in L1. The kernels move a block as square sub-tiles,
 * transposed in registers (kernels_tiled_avx2.c, kernels_tiled_neon.c) or
 * item by item (copy_tiled.c, the portable path the others are tested
 * against). */
#ifndef DMLS_CPU_COPY_TILED_H
#define DMLS_CPU_COPY_TILED_H

#include <stdlib.h>
#include <string.h>

#include "prepare.h"

/* Bytes of a block's side: one cache line. */
#define DMLS_TILE_BYTES 64

/* Items on a block's side for items of w bytes: a line's worth, at least 2. */
static inline int64_t dmls_tile_items(int64_t w) {
    return w >= DMLS_TILE_BYTES / 2 ? 2 : DMLS_TILE_BYTES / w;
}

/* The walk of the SIMD kernels: panels of columns, each walked down a chunk
 * of rows (its blocks row block by row block) before the next panel, chunk
 * by chunk. The walk is chosen by the shape, from ss = item_src_step, the
 * input's step from one column to the next:
 * - strips (panels of one block's columns, chunks of DMLS_TILE_CHUNK_ROWS
 *   rows) where a wide panel's columns lie far apart in the input: the input
 *   is then read as b = 64 / W streams in order, which the hardware
 *   prefetchers follow, and the chunk's output rows (a page each, in a wide
 *   output) stay in the TLB from one strip to the next. A panel of 256
 *   float32 columns 32 KiB apart, walked down all the rows, reads one line
 *   from each of 256 pages in turn, which no prefetcher follows: in a sweep
 *   of walks of the 8192 x 8192 float32 transpose on the 16-core Xeon host
 *   that ran at 0.4x the speed of strips, on one thread and on 16
 *   (bench/RESULTS.md);
 * - panels of DMLS_TILE_PANEL_BYTES of output row down all the rows where
 *   the panel's columns lie within DMLS_TILE_PANEL_SPAN of input (short
 *   input rows, as NHWC to NCHW's 256 channels): the panel's input then
 *   stays in L2 while its row blocks walk down it, and its output goes out
 *   as b rows of a kilobyte each, where a strip would write one line into
 *   each of all the rows (NHWC to NCHW: 256 rows 12 KiB apart) and ran at
 *   0.42 of the copy on the 16-core host against the panels' 0.57. */
#define DMLS_TILE_CHUNK_ROWS 512
#define DMLS_TILE_PANEL_BYTES 1024
#define DMLS_TILE_PANEL_SPAN (256 * 1024)
static inline bool dmls_tile_strips(int64_t w, int64_t ss) {
    const int64_t a = ss < 0 ? -ss : ss;
    return a > DMLS_TILE_PANEL_SPAN / DMLS_TILE_PANEL_BYTES * w; /* a panel's columns span more */
}
static inline int64_t dmls_tile_panel(int64_t w, int64_t ss) {
    return dmls_tile_strips(w, ss) ? dmls_tile_items(w) : DMLS_TILE_PANEL_BYTES / w;
}
static inline int64_t dmls_tile_chunk(int64_t w, int64_t ss) {
    return dmls_tile_strips(w, ss) ? DMLS_TILE_CHUNK_ROWS : INT64_MAX;
}

/* Staged strips. A strip writes one line into each of its chunk's rows, so
 * the output goes to DRAM a line at a time, rows apart; and it reads b = 64 / W
 * columns at once, more streams than the hardware prefetchers follow for
 * items under 4 bytes. Staged, the strips covering dmls_tile_stage_bytes of
 * output row are transposed into a buffer of the chunk's rows (it stays in
 * L2), which then goes out a row at a time in whole runs, and each block asks
 * for its columns' lines DMLS_TILE_PREFETCH_BLOCKS row blocks ahead. Measured
 * on the layout cases (bench/RESULTS.md, 2026-11-29), 16 threads of the
 * Xeon host, slice GB/s, medians of same-run rounds:
 * - 2-byte items in blocks of 32 columns, runs of 256 bytes:
 *   nchw_to_nhwc_f16 +14% (runs of 1 KiB, or no prefetch, did not gain);
 * - 4-byte items, runs of 1 KiB: t2d_f32 (columns 32 KiB apart) +14%, but
 *   t3d_021_f32 (4 KiB apart) -21%, and -14% with the prefetch alone: only
 *   columns at least DMLS_TILE_STAGE_SPAN apart are staged (8-byte items
 *   alike, runs of the same bytes);
 * - 1-byte items in blocks of 64 columns: t2d_u8 gained nothing, and lost
 *   10-25% with the prefetch.
 * Staged strips of items under 4 bytes are therefore DMLS_TILE_NARROW_COLS
 * columns wide, not b: a block is 16 columns by a line of rows (64 rows of
 * 1 byte, 32 of 2), so a strip reads 16 streams, each a whole line a block,
 * and writes 16 items into each of the block's 64 / W stage rows. On the
 * 2-core VM (bench/RESULTS.md, issue 34), 1 and 2 threads, slice GB/s of
 * same-run rounds against 64 and 32 columns: t2d_u8 1.4-2.0x in runs of 256
 * bytes (1 KiB: about half the gain; chunks of 1024 or 2048 rows: no more);
 * nchw_to_nhwc_f16 1.2-1.5x in runs of 512 bytes (256 bytes or 1 KiB: no
 * gain); without the prefetch, nchw_to_nhwc_f16 lost 30%, t2d_u8 gained
 * nothing. On 16 threads of the Xeon host both stayed within the run-to-run
 * spread (ratios to the same-run copy, three rounds each: t2d_u8 0.29-0.33
 * against 0.27-0.33, nchw_to_nhwc_f16 0.44-0.56 against 0.54-0.58).
 * That holds where the input comes from DRAM. A call whose traffic fits in
 * the last-level cache (p->cached) finds its input there when called back
 * to back, and its staged blocks are b columns wide, as unstaged ones: a
 * stage line is then written whole by one block, not piecemeal by 64 / (16
 * W) strips, each a chunk of rows later. On 16 threads of the Xeon host
 * (300 MiB of L3), three rounds of the layout cases: t2d_u8 (128 MiB of
 * traffic) 0.38-0.42 of the copy at 16 columns, 0.52-0.58 at 64;
 * nchw_to_nhwc_f16 100-119 GB/s at 16 columns, 106-123 at 32. On the 2-core
 * VM (32 MiB of L3) t2d_u8 ran 1.2x faster at 16 columns than at 64, and
 * calls of 8-24 MiB of traffic the same either way (bench/RESULTS.md,
 * twelfth session).
 * A call moving less than DMLS_TILE_STAGE_MIN bytes is not staged (the
 * buffer is allocated per call), nor one whose buffer cannot be had. */
#define DMLS_TILE_PREFETCH_BLOCKS 2
#define DMLS_TILE_STAGE_SPAN (16 * 1024)
#define DMLS_TILE_STAGE_MIN (64 * 1024)
#define DMLS_TILE_NARROW_COLS 16 /* a multiple of the sub-tiles' 16 and 8 */
static inline int64_t dmls_tile_stage_bytes(int64_t w, int64_t ss) {
    const int64_t a = ss < 0 ? -ss : ss;
    if (!dmls_tile_strips(w, ss)) return 0;
    return w == 1 ? 256 : w == 2 ? 512 : a >= DMLS_TILE_STAGE_SPAN ? 1024 : 0;
}

/* The staging buffer of a tiled call moving n columns of `rows` rows of w
 * bytes with input step ss between columns, aligned to a line, or NULL where
 * the call is not staged (above); the caller frees *allocation. */
unsigned char *dmls_tile_stage(int64_t w, int64_t ss, int64_t n, int64_t rows, void **allocation);

/* The walk's blocks read whole input lines and write whole output lines
 * (streaming them where the output is past the cache) only where the call's
 * first row and first column start on a line; NumPy places a large array 16
 * bytes past one. So a call whose column step (input) or row step (output)
 * is a whole number of lines is walked from the first row and column that
 * do (*pr rows and *pc columns in), after a walk of the first row block
 * (the rows before it, and some after) and of the first column block:
 * those blocks' overlap is written twice, with the same bytes. Rows run at
 * rs = +-w; read backwards, a block's lowest address is its last row's. A
 * call with fewer than DMLS_TILE_PEEL_BLOCKS blocks each way is walked as it
 * comes, the extra blocks costing more than a sixteenth of it. */
#define DMLS_TILE_PEEL_BLOCKS 16
static inline void dmls_tile_peel(int64_t w, const unsigned char *src, const unsigned char *dst, int64_t n,
                                  int64_t rows, const dmls_cpu_prepared *p, int64_t *pr, int64_t *pc) {
    const uint64_t line = DMLS_TILE_BYTES, s = (uintptr_t)src, d = (uintptr_t)dst, uw = (uint64_t)w;
    const int64_t b = dmls_tile_items(w);
    *pr = *pc = 0;
    if (p->item_src_step % DMLS_TILE_BYTES == 0 && s % uw == 0 && rows >= DMLS_TILE_PEEL_BLOCKS * b)
        *pr = (int64_t)((p->row_src_step > 0 ? line - s % line : s + uw) % line / uw);
    if (p->row_dst_step % DMLS_TILE_BYTES == 0 && d % uw == 0 && n >= DMLS_TILE_PEEL_BLOCKS * b)
        *pc = (int64_t)((line - d % line) % line / uw);
}

/* A tiled kernel: `walk` (a DMLS_TILED_WALK) over the call, its blocks on
 * lines (above). */
static inline void dmls_tile_on_lines(int64_t w, unsigned char *dst, const unsigned char *src, int64_t n,
                                      int64_t rows, const dmls_cpu_prepared *p, dmls_cpu_rows_fn walk) {
    int64_t pr, pc;
    dmls_tile_peel(w, src, dst, n, rows, p, &pr, &pc);
    const int64_t b = dmls_tile_items(w), rs = p->row_src_step, rd = p->row_dst_step;
    if (pr > 0) walk(dst, src, n, b, p);
    if (pc > 0) walk(dst + pr * rd, src + pr * rs, b, rows - pr, p);
    walk(dst + pr * rd + pc * w, src + pr * rs + pc * p->item_src_step, n - pc, rows - pr, p);
}

/* The body of a SIMD tiled kernel (dst, src, n, rows, p in scope, and
 * LOAD64(to, from), STORE64(to, from, nt) moving one line from any address,
 * PREFETCH(at) asking for one): blocks of b = 64 / W items a side. A block's b input
 * lines are copied whole into `in`, transposed there by S x S sub-tiles,
 * TILE(s, ss, d, ds) (input vector j, a column, at s + j * ss; output vector
 * i, a row, at d + i * ds), into `out`, whose b lines go out whole, streaming
 * where the output is past the cache (nt) and the line is aligned; or, where
 * the call is staged, into the staging buffer's rows, which go out when the
 * stage is full, streaming from their first whole line (a staged block of
 * items under 4 bytes in a call not cached is b rows by
 * DMLS_TILE_NARROW_COLS columns, as many lines copied into `in`). Staging a
 * block's input matters at power-of-two row pitches (an 8192-wide matrix):
 * a block's lines then all fall in one cache set, so lines read or written
 * piecemeal would evict each other. Rows read backwards (row_src_step ==
 * -W) are staged from the block's last row, whose address is lowest, and go
 * out last to first. A ragged last block of a row or column moves back to
 * end on the edge, writing some items twice; one with less than a block
 * there goes item by item. */
#define DMLS_TILED_WALK(W, S, TILE)                                                                           \
    do {                                                                                                      \
        enum { LINE = DMLS_TILE_BYTES, B = LINE / W };                                                        \
        _Alignas(64) unsigned char in[B * LINE];                                                              \
        _Alignas(64) unsigned char out[B * LINE];                                                             \
        const int64_t ss = p->item_src_step, rs = p->row_src_step, rd = p->row_dst_step;                      \
        const int64_t flip = rs < 0 ? B - 1 : 0;                                                              \
        const bool nt = p->nontemporal;                                                                       \
        void *allocation;                                                                                     \
        unsigned char *const stage = dmls_tile_stage(W, ss, n, rows, &allocation);                            \
        const int64_t bc = stage && W < 4 && !p->cached ? DMLS_TILE_NARROW_COLS : B; /* B rows by bc */       \
        const int64_t ahead = stage ? DMLS_TILE_PREFETCH_BLOCKS * B * rs : 0;                                 \
        /* a stage is `panel` columns by `chunk` rows, a row every `tp` bytes: as many columns as the call */ \
        /* has where that is fewer, so that its rows lie as whole output rows do (joined, below) */           \
        const int64_t panel = stage ? dmls_tile_stage_bytes(W, ss) / W : dmls_tile_panel(W, ss);              \
        const int64_t chunk = dmls_tile_chunk(W, ss), tp = (n < panel ? n : panel) * W;                       \
        for (int64_t q0 = 0; q0 < rows; q0 += chunk) {                                                        \
            const int64_t q1 = rows - q0 < chunk ? rows : q0 + chunk;                                         \
            for (int64_t p0 = 0; p0 < n; p0 += panel) {                                                       \
                const int64_t p1 = n - p0 < panel ? n : p0 + panel;                                           \
                /* blocks go to the output, or to the stage, whose row 0 is row q0, column 0 column p0 */     \
                unsigned char *const to = stage ? stage : dst;                                                \
                const int64_t q = stage ? q0 : 0, o = stage ? p0 : 0;                                         \
                const int64_t td = stage ? tp : rd, ts = rs < 0 ? -td : td;                                   \
                /* unstaged, a row block crosses the panel; staged, a strip goes down the chunk */            \
                const int64_t rstep = stage ? q1 - q0 : B, cstep = stage ? bc : p1 - p0;                      \
                for (int64_t c1 = p0; c1 < p1; c1 += cstep)                                                   \
                    for (int64_t r1 = q0; r1 < q1; r1 += rstep)                                               \
                        for (int64_t rn = r1; rn < r1 + rstep && rn < q1; rn += B)                            \
                            for (int64_t cn = c1; cn < c1 + cstep && cn < p1; cn += bc) {                     \
                                /* a ragged last block moves back to end on the edge, over items */           \
                                /* already written (the same bytes again), where a whole one fits */          \
                                const int64_t r0 = q1 - rn < B && q1 - q0 >= B ? q1 - B : rn;                 \
                                const int64_t c0 = p1 - cn < bc && p1 - p0 >= bc ? p1 - bc : cn;              \
                                const int64_t rb = q1 - r0 < B ? q1 - r0 : B;                                 \
                                const int64_t cb = p1 - c0 < bc ? p1 - c0 : bc;                               \
                                if (rb < B || cb < bc) {                                                      \
                                    for (int64_t c = 0; c < cb; c++)                                          \
                                        for (int64_t r = 0; r < rb; r++)                                      \
                                            memcpy(to + (r0 - q + r) * td + (c0 - o + c) * W,                 \
                                                   src + (r0 + r) * rs + (c0 + c) * ss, W);                   \
                                    continue;                                                                 \
                                }                                                                             \
                                const unsigned char *s0 = src + (r0 + flip) * rs + c0 * ss;                   \
                                for (int64_t c = 0; c < bc; c++) LOAD64(in + c * LINE, s0 + c * ss);          \
                                if (ahead != 0)                                                               \
                                    for (int64_t c = 0; c < bc; c++) /* no fault, maybe past the input */     \
                                        PREFETCH((const void *)((uintptr_t)s0 + (uintptr_t)(c * ss + ahead)));  \
                                unsigned char *d0 = to + (r0 - q + flip) * td + (c0 - o) * W;                 \
                                if (stage) {                                                                  \
                                    for (int64_t r = 0; r < B; r += S)                                        \
                                        for (int64_t c = 0; c < bc; c += S)                                   \
                                            TILE(in + c * LINE + r * W, LINE, d0 + r * ts + c * W, ts);       \
                                    continue;                                                                 \
                                }                                                                             \
                                for (int64_t r = 0; r < B; r += S)                                            \
                                    for (int64_t c = 0; c < B; c += S)                                        \
                                        TILE(in + c * LINE + r * W, LINE, out + r * LINE + c * W, LINE);      \
                                for (int64_t r = 0; r < B; r++) STORE64(d0 + r * ts, out + r * LINE, nt);     \
                            }                                                                                 \
                if (stage) { /* the stage's rows go out whole, streaming from their first line */             \
                    /* rows adjacent in the stage and in the output (whole output rows) go as one run */      \
                    const bool joined = (p1 - p0) * W == tp && rd == tp;                                      \
                    const int64_t len = joined ? tp * (q1 - q0) : (p1 - p0) * W, q2 = joined ? q0 + 1 : q1;   \
                    for (int64_t r = q0; r < q2; r++) {                                                       \
                        unsigned char *d = dst + r * rd + p0 * W;                                             \
                        const unsigned char *t = stage + (r - q0) * tp;                                       \
                        int64_t k = nt ? (int64_t)((LINE - (uintptr_t)d % LINE) % LINE) : 0;                  \
                        if (k > len) k = len;                                                                 \
                        memcpy(d, t, (size_t)k);                                                              \
                        for (; k + LINE <= len; k += LINE) STORE64(d + k, t + k, nt);                         \
                        if (k < len) memcpy(d + k, t + k, (size_t)(len - k));                                 \
                    }                                                                                         \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
        free(allocation);                                                                                     \
    } while (0)

/* The portable tiled kernel, for items of any width and any steps. */
dmls_cpu_rows_fn dmls_cpu_pick_tiled(int32_t w);

#if defined(__x86_64__) || defined(__i386__)
/* Items of 1, 2, 4 or 8 bytes read contiguously along the rows (row_src_step
 * == +-width); NULL otherwise. */
dmls_cpu_rows_fn dmls_cpu_pick_tiled_avx2(int32_t w);
#endif

#if DMLS_CPU_NEON_KERNELS
/* The same cases on AArch64. */
dmls_cpu_rows_fn dmls_cpu_pick_tiled_neon(int32_t w);
#endif

#if DMLS_CPU_SIMD128_KERNELS
/* The same cases in WebAssembly (kernels_wasm_simd128.c). */
dmls_cpu_rows_fn dmls_cpu_pick_tiled_simd128(int32_t w);
#endif

#endif
