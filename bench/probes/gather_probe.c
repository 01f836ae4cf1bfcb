/* Probe: what bounds a stride-2 gather on this machine's memory system?
 *
 * stride2_f32 reads every other 1 KiB row of a 1 GiB float32 input and every
 * other float of those rows, writing 256 MiB. Counting only the cache lines
 * it needs, it moves 512 MiB in and 256 MiB out: 3/2 of a copy of its output,
 * so its ceiling is 0.67 x copy. If the hardware prefetchers also pull in the
 * skipped rows, it moves the whole 1 GiB in, and the ceiling is 0.4 x copy.
 * This program times, on N threads, each share a contiguous block of rows:
 *   copy      memcpy of the output's bytes (the baseline)
 *   readall   read all 1 GiB + write 256 MiB (what overfetching costs)
 *   readhalf  read the needed 512 MiB (every other row) + write 256 MiB, rows
 *             contiguous, no gather (what the needed lines cost)
 *   gather    the stride-2 gather, 32-byte loads + vpermd, plain stores
 *   gather_nt the same with streaming stores
 *   gather_pf the same, prefetchnta of the next needed row first
 * Build: cc -O2 -mavx2 -pthread bench/probes/gather_probe.c -o gather_probe
 * Run:   ./gather_probe [threads] [reps] */
#define _GNU_SOURCE
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe_threads.h"

#define ROW_FLOATS 256
#define ROWS (64 * 64 * 256) /* input rows of 1 KiB: 1 GiB */
#define OUT_ROWS (ROWS / 2)
#define OUT_FLOATS (ROW_FLOATS / 2)

static float *in, *out, *csrc;
static int nthreads;
static volatile double sink;


static void w_copy(int64_t r0, int64_t r1) {
    memcpy(out + r0 * OUT_FLOATS, csrc + r0 * OUT_FLOATS, (size_t)(r1 - r0) * OUT_FLOATS * 4);
}

static void w_readall(int64_t r0, int64_t r1) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t r = r0; r < r1; r++) {
        const float *s = in + 2 * r * ROW_FLOATS;
        for (int k = 0; k < 2 * ROW_FLOATS; k += 8) acc = _mm256_add_ps(acc, _mm256_load_ps(s + k));
        float *d = out + r * OUT_FLOATS;
        for (int k = 0; k < OUT_FLOATS; k += 8) _mm256_stream_ps(d + k, acc);
    }
    _mm_sfence();
}

static void w_readhalf(int64_t r0, int64_t r1) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t r = r0; r < r1; r++) {
        const float *s = in + 2 * r * ROW_FLOATS;
        for (int k = 0; k < ROW_FLOATS; k += 8) acc = _mm256_add_ps(acc, _mm256_load_ps(s + k));
        float *d = out + r * OUT_FLOATS;
        for (int k = 0; k < OUT_FLOATS; k += 8) _mm256_stream_ps(d + k, acc);
    }
    _mm_sfence();
}

static inline __m256 pack_even(const float *s, __m256i idx) {
    __m256 a = _mm256_permutevar8x32_ps(_mm256_load_ps(s), idx);      /* evens in low half */
    __m256 b = _mm256_permutevar8x32_ps(_mm256_load_ps(s + 8), idx);
    return _mm256_permute2f128_ps(a, b, 0x20);
}

static void gather_rows(int64_t r0, int64_t r1, int nt, int pf) {
    const __m256i idx = _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7);
    for (int64_t r = r0; r < r1; r++) {
        const float *s = in + 2 * r * ROW_FLOATS;
        if (pf && r + 1 < r1)
            for (int k = 0; k < ROW_FLOATS; k += 16) _mm_prefetch((const char *)(s + 2 * ROW_FLOATS + k), _MM_HINT_NTA);
        float *d = out + r * OUT_FLOATS;
        for (int k = 0; k < OUT_FLOATS; k += 8) {
            __m256 v = pack_even(s + 2 * k, idx);
            if (nt) _mm256_stream_ps(d + k, v);
            else _mm256_store_ps(d + k, v);
        }
    }
    if (nt) _mm_sfence();
}
static void w_gather(int64_t r0, int64_t r1) { gather_rows(r0, r1, 0, 0); }
static void w_gather_nt(int64_t r0, int64_t r1) { gather_rows(r0, r1, 1, 0); }
static void w_gather_pf(int64_t r0, int64_t r1) { gather_rows(r0, r1, 1, 1); }

int main(int argc, char **argv) {
    nthreads = argc > 1 ? atoi(argv[1]) : 16;
    int reps = argc > 2 ? atoi(argv[2]) : 7;
    if (nthreads < 1 || nthreads > 256 || reps < 1) return 2;
    size_t in_b = (size_t)ROWS * ROW_FLOATS * 4, out_b = (size_t)OUT_ROWS * OUT_FLOATS * 4;
    in = aligned_alloc(4096, in_b);
    out = aligned_alloc(4096, out_b);
    csrc = aligned_alloc(4096, out_b);
    if (!in || !out || !csrc) return 1;
    for (size_t i = 0; i < in_b / 4; i++) in[i] = (float)(i & 0xFFFF);
    memset(out, 1, out_b);
    memset(csrc, 2, out_b);
    const char *names[] = {"copy", "readall", "readhalf", "gather", "gather_nt", "gather_pf"};
    work_fn fns[] = {w_copy, w_readall, w_readhalf, w_gather, w_gather_nt, w_gather_pf};
    const int nv = 6;
    double t[6][64];
    for (int r = 0; r < reps && r < 64; r++)
        for (int v = 0; v < nv; v++) t[v][r] = probe_run(fns[v], OUT_ROWS, nthreads);
    /* check the gather once */
    probe_run(w_gather_pf, OUT_ROWS, nthreads);
    for (int64_t r = 0; r < OUT_ROWS; r += 4099)
        for (int k = 0; k < OUT_FLOATS; k++)
            if (out[r * OUT_FLOATS + k] != in[2 * r * ROW_FLOATS + 2 * k]) { printf("WRONG at %lld %d\n", (long long)r, k); return 1; }
    printf("threads %d, reps %d, out %zu MiB; GB/s = 2 x out bytes / time\n", nthreads, reps, out_b >> 20);
    double copy = 0;
    for (int v = 0; v < nv; v++) {
        qsort(t[v], (size_t)reps, sizeof(double), probe_cmp);
        double m = t[v][reps / 2], gbs = 2.0 * out_b / m / 1e9;
        if (v == 0) copy = gbs;
        printf("%-10s %8.2f ms %8.1f GB/s  %5.2f x copy\n", names[v], m * 1e3, gbs, gbs / copy);
    }
    return 0;
}
