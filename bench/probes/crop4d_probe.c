/* Probe: what bounds crop4d_f32 on this machine's memory system?
 *
 * crop4d_f32 (bench/cases.json) cuts (64, 48, 224, 192) out of a float32
 * (64, 64, 256, 256) input at (0, 8, 16, 32): 688,128 rows of 768 bytes, each
 * 12 of the 16 lines of a 1 KiB input row (lines 2-13), written as one
 * contiguous 504 MiB output. Counting only the lines it needs, it moves what
 * a copy of its output moves. If the hardware prefetchers also pull in each
 * row's 4 skipped lines, it reads 4/3 of that, and its ceiling is
 * (1 + 1) / (4/3 + 1) = 0.86 of the copy.
 * This program times, on N threads, each share a contiguous block of rows:
 *   copy       memcpy of the output's bytes from a contiguous source (the
 *              baseline, as the bench's)
 *   needed     read 768-byte rows packed one after another (only the
 *              needed lines) + write them streaming: the copy in rows
 *   readall    read the rows' whole 1 KiB (what overfetching costs) + write
 *              768 bytes streaming
 *   crop_nt    the crop: 768 bytes from each 1 KiB row, streaming stores
 *              (the library's loop for these rows, contig_nt_row)
 *   crop       the same with ordinary stores
 *   crop_pf    crop_nt asking for the row PF_ROWS ahead (prefetcht0) first
 * Build: cc -O2 -mavx2 -pthread bench/probes/crop4d_probe.c -o crop4d_probe
 * Run:   ./crop4d_probe [threads] [reps] */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_threads.h"

#define ROW_FLOATS 256                 /* input row: 1 KiB */
#define OUT_FLOATS 192                 /* output row: 768 bytes */
#define COL0 32                        /* the window's first column */
#define OUT_ROWS (64 * 48 * 224)       /* 688,128 rows */
#define IN_ROWS (64 * 64 * 256)        /* 1 GiB */
#define PF_ROWS 8

static float *in, *out, *packed;
static int nthreads;
static volatile float sink;


/* The input row of output row r: batch n, channel 8 + c, row 16 + h. */
static inline const float *in_row(int64_t r) {
    const int64_t h = r % 224, c = r / 224 % 48, n = r / (224 * 48);
    return in + ((n * 64 + 8 + c) * 256 + 16 + h) * ROW_FLOATS;
}

static void w_copy(int64_t r0, int64_t r1) {
    memcpy(out + r0 * OUT_FLOATS, packed + r0 * OUT_FLOATS, (size_t)(r1 - r0) * OUT_FLOATS * 4);
}

static void rows_nt(float *d, const float *s, int64_t skip_from, int64_t skip_to) {
    __m256 acc = _mm256_setzero_ps();
    for (int k = 0; k < ROW_FLOATS; k += 8)
        if (k < skip_from || k >= skip_to) acc = _mm256_add_ps(acc, _mm256_load_ps(s + k));
    for (int k = 0; k < OUT_FLOATS; k += 8) _mm256_stream_ps(d + k, _mm256_add_ps(acc, _mm256_load_ps(s + COL0 + k)));
}

static void w_needed(int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r++) {
        const float *s = packed + r * OUT_FLOATS;
        float *d = out + r * OUT_FLOATS;
        for (int k = 0; k < OUT_FLOATS; k += 8) _mm256_stream_ps(d + k, _mm256_load_ps(s + k));
    }
    _mm_sfence();
}

static void w_readall(int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r++) rows_nt(out + r * OUT_FLOATS, in_row(r), COL0, COL0 + OUT_FLOATS);
    _mm_sfence();
}

static void w_crop_nt(int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r++) {
        const float *s = in_row(r) + COL0;
        float *d = out + r * OUT_FLOATS;
        for (int k = 0; k < OUT_FLOATS; k += 8) _mm256_stream_ps(d + k, _mm256_load_ps(s + k));
    }
    _mm_sfence();
}

static void w_crop_pf(int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r++) {
        if (r + PF_ROWS < r1) {
            const char *a = (const char *)(in_row(r + PF_ROWS) + COL0);
            for (int k = 0; k < OUT_FLOATS * 4; k += 64) _mm_prefetch(a + k, _MM_HINT_T0);
        }
        const float *s = in_row(r) + COL0;
        float *d = out + r * OUT_FLOATS;
        for (int k = 0; k < OUT_FLOATS; k += 8) _mm256_stream_ps(d + k, _mm256_load_ps(s + k));
    }
    _mm_sfence();
}

static void w_crop(int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; r++) memcpy(out + r * OUT_FLOATS, in_row(r) + COL0, OUT_FLOATS * 4);
}

int main(int argc, char **argv) {
    nthreads = argc > 1 ? atoi(argv[1]) : 16;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    if (nthreads < 1 || nthreads > 256 || reps < 1 || reps > 64) return 2;
    const size_t in_b = (size_t)IN_ROWS * ROW_FLOATS * 4, out_b = (size_t)OUT_ROWS * OUT_FLOATS * 4;
    in = aligned_alloc(4096, in_b);
    out = aligned_alloc(4096, out_b);
    packed = aligned_alloc(4096, out_b);
    if (!in || !out || !packed) return 1;
    for (size_t i = 0; i < in_b / 4; i++) in[i] = (float)(i & 0xFFFF);
    memset(out, 1, out_b);
    memset(packed, 2, out_b);
    const char *names[] = {"copy", "needed", "readall", "crop_nt", "crop", "crop_pf"};
    work_fn fns[] = {w_copy, w_needed, w_readall, w_crop_nt, w_crop, w_crop_pf};
    enum { NV = 6 };
    double t[NV][64];
    for (int r = 0; r < reps; r++)
        for (int v = 0; v < NV; v++) t[v][r] = probe_run(fns[v], OUT_ROWS, nthreads);
    probe_run(w_crop_nt, OUT_ROWS, nthreads); /* checked once */
    for (int64_t r = 0; r < OUT_ROWS; r += 4099)
        for (int k = 0; k < OUT_FLOATS; k++)
            if (out[r * OUT_FLOATS + k] != in_row(r)[COL0 + k]) {
                printf("WRONG at row %lld, item %d\n", (long long)r, k);
                return 1;
            }
    sink = out[0];
    printf("threads %d, reps %d, out %zu MiB; GB/s = 2 x out bytes / time\n", nthreads, reps, out_b >> 20);
    double copy = 0;
    for (int v = 0; v < NV; v++) {
        qsort(t[v], (size_t)reps, sizeof(double), probe_cmp);
        const double m = t[v][reps / 2], gbs = 2.0 * out_b / m / 1e9;
        if (v == 0) copy = gbs;
        printf("%-10s %8.2f ms %8.1f GB/s  %5.2f x copy\n", names[v], m * 1e3, gbs, gbs / copy);
    }
    return 0;
}
