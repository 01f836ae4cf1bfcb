/* Probe: what bounds deep8d_f32 on this machine?
 *
 * deep8d reads a 6^8 window (offset 1 on every axis) of an 8^8 float32 input
 * (64 MiB) and writes 6.4 MiB. The bench's copy baseline copies 6.4 MiB
 * between the same two buffers on every call, so each thread's share stays
 * in its own L2; the slice's input (64 MiB, of which it needs 6 of every 8
 * 32-byte rows in 6 of every 8 blocks...) cannot stay in the L2s. This
 * program times, on the same pool and in the same run, each back to back:
 *   copy_l2    memcpy of 6.4 MiB, same buffers every call (the bench's copy)
 *   copy_l3    memcpy of 6.4 MiB from a source that rotates over the 64 MiB
 *              input, so it comes from L3 as the slice's input does
 *   lines      read every 256-byte block the window touches (11.9 MB) and
 *              write 6.4 MiB: the slice's traffic without its gather
 *   slice      the library's deep8d operator (dmls_execute_on)
 * Build: the CMake build makes it (target deep8d_probe, bench/probes/CMakeLists.txt).
 * Run: build/bench/probes/deep8d_probe [threads] */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu/pool.h"
#include "dmlslice/dmlslice.h"
#include "platform/platform.h"

#define N8 (1 << 24)            /* 8^8 elements */
#define OUT_ELEMS (1679616)     /* 6^8 */
#define BLOCKS (46656)          /* 6^6 blocks of 8x8 floats (256 B) touched */

static float *in, *out, *csrc;
static int nthreads;
static int rot;
static const dmls_operator *op;
static dmls_context *ctx;

static void share(int i, uint64_t n, uint64_t *a, uint64_t *b) {
    *a = n * (uint64_t)i / (uint64_t)nthreads;
    *b = n * (uint64_t)(i + 1) / (uint64_t)nthreads;
}

static void t_copy_l2(const void *args, int i) {
    (void)args;
    uint64_t a, b;
    share(i, OUT_ELEMS, &a, &b);
    memcpy(out + a, csrc + a, (b - a) * 4);
}

static void t_copy_l3(const void *args, int i) {
    (void)args;
    uint64_t a, b;
    share(i, OUT_ELEMS, &a, &b);
    const float *s = in + (uint64_t)(rot % 9) * OUT_ELEMS;
    memcpy(out + a, s + a, (b - a) * 4);
}

static void t_lines(const void *args, int i) {
    (void)args;
    uint64_t a, b;
    share(i, BLOCKS, &a, &b);
    /* Block k of the 6^6 touched blocks: axes 0..5 at 1 + digit k (base 6),
     * walked with an odometer so no division runs per block. */
    int dig[6];
    uint64_t k = a;
    for (int ax = 5; ax >= 0; ax--) dig[ax] = (int)(k % 6), k /= 6;
    __m256 acc = _mm256_setzero_ps();
    for (k = a; k < b; k++) {
        uint64_t off = 0;
        for (int ax = 0; ax < 6; ax++) off = off * 8 + (uint64_t)(1 + dig[ax]);
        const float *p = in + off * 64;
        for (int j = 8; j < 56; j += 8) acc = _mm256_add_ps(acc, _mm256_loadu_ps(p + j)); /* rows 1..6 */
        float *d = out + k * 36;
        for (int j = 0; j + 8 <= 36; j += 8) _mm256_storeu_ps(d + j, acc);
        d[32] = d[33] = d[34] = d[35] = 0;
        for (int ax = 5; ax >= 0 && ++dig[ax] == 6; ax--) dig[ax] = 0;
    }
}

static dmls_pool *pool;
static double now(void) { return 1e-9 * (double)dmls_monotonic_ns(); }

static void run(int v) {
    if (v == 0)
        dmls_pool_run(pool, t_copy_l2, NULL, 0, nthreads);
    else if (v == 1)
        dmls_pool_run(pool, t_copy_l3, NULL, 0, nthreads), rot++;
    else if (v == 2)
        dmls_pool_run(pool, t_lines, NULL, 0, nthreads);
    else dmls_execute_on(op, ctx, in, (uint64_t)N8 * 4, out, (uint64_t)OUT_ELEMS * 4);
}

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    nthreads = argc > 1 ? atoi(argv[1]) : 16;
    in = dmls_aligned_alloc(64, (size_t)N8 * 4);
    out = dmls_aligned_alloc(64, (size_t)OUT_ELEMS * 4);
    csrc = dmls_aligned_alloc(64, (size_t)OUT_ELEMS * 4);
    for (size_t i = 0; i < N8; i++) in[i] = (float)(i % 1000003);
    memset(out, 1, (size_t)OUT_ELEMS * 4);
    memset(csrc, 2, (size_t)OUT_ELEMS * 4);
    int64_t shape[8], off[8], size[8], step[8], oshape[8];
    for (int i = 0; i < 8; i++) shape[i] = 8, off[i] = 1, size[i] = 6, step[i] = 1, oshape[i] = 6;
    dmls_tensor ti = {DMLS_FLOAT32, 8, shape, NULL, 0}, to = {DMLS_FLOAT32, 8, oshape, NULL, 0};
    dmls_window w = {off, size, step};
    dmls_operator *o = NULL;
    if (dmls_create(&ti, &to, &w, &o) != DMLS_OK || dmls_context_create(nthreads, &ctx) != DMLS_OK) {
        fprintf(stderr, "%s\n", dmls_last_error());
        return 1;
    }
    op = o;
    pool = dmls_pool_create(nthreads, nthreads);
    const char *names[] = {"copy_l2", "copy_l3", "lines", "slice"};
    enum { REPS = 9, BATCH = 200 };
    double t[4][REPS];
    for (int r = 0; r < REPS; r++)
        for (int v = 0; v < 4; v++) {
            dmls_sleep_ms(2);
            run(v);
            double t0 = now();
            for (int k = 0; k < BATCH; k++) run(v);
            t[v][r] = (now() - t0) / BATCH;
        }
    printf("deep8d probe, %d threads, median of %d batches of %d; GB/s = 2 x 6.4 MiB / time\n", nthreads, REPS, BATCH);
    for (int v = 0; v < 4; v++) {
        qsort(t[v], REPS, sizeof(double), cmpd);
        double m = t[v][REPS / 2];
        printf("%-8s %8.1f us %8.1f GB/s\n", names[v], m * 1e6, 2.0 * OUT_ELEMS * 4 / m / 1e9);
    }
    dmls_pool_destroy(pool);
    dmls_context_destroy(ctx);
    dmls_destroy(o);
    return 0;
}
