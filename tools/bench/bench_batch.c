/* dmlslice bench's batch rows on the CPU, and the crops case both devices
 * share; see bench.h. The yardsticks run in the same process, on the same
 * data, interleaved with the batch rep by rep, so that each ratio compares
 * like with like. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "platform.h"

bool bench_crops_make(bench_crops *c) {
    memset(c, 0, sizeof *c);
    const int64_t shape[3] = {3, 512, 512}, size[3] = {3, 4, 4}, strides[3] = {512 * 512, 512, 1};
    c->image = malloc(BENCH_IMAGE_FLOATS * sizeof(float));
    if (c->image == NULL) {
        fprintf(stderr, "dmlslice bench: out of memory for the crops' image\n");
        return false;
    }
    bench_fill(c->image, BENCH_IMAGE_FLOATS * sizeof(float), 24);
    uint64_t x = 0x2545F4914F6CDD1DULL;
    for (int i = 0; i < BENCH_CROPS; i++) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        const int64_t y = (int64_t)(x % 509), z = (int64_t)((x >> 20) % 509);
        c->starts[3 * i] = 0, c->starts[3 * i + 1] = y, c->starts[3 * i + 2] = z;
        c->offsets[i] = (uint64_t)(y * 512 + z) * sizeof(float);
    }
    const dmls_tensor t = {DMLS_FLOAT32, 3, shape, NULL, 0};
    const dmls_tensor in = {DMLS_FLOAT32, 3, size, strides, 0}, out = {DMLS_FLOAT32, 3, size, NULL, 0};
    const int64_t zeros[3] = {0, 0, 0}, ones[3] = {1, 1, 1};
    const dmls_window w = {zeros, size, ones};
    if (dmls_batch_create_crops(&t, size, BENCH_CROPS, c->starts, DMLS_STARTS_INT64, &c->batch) != DMLS_OK ||
        dmls_create(&in, &out, &w, &c->one) != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: the crops case: %s\n", dmls_last_error());
        return false;
    }
    return true;
}

void bench_crops_free(bench_crops *c) {
    dmls_batch_destroy(c->batch);
    dmls_destroy(c->one);
    free(c->image);
    memset(c, 0, sizeof *c);
}

void bench_gpu_case_free(bench_gpu_case *g) {
    dmls_batch_destroy(g->batch);
    free(g->in[0]), free(g->in[1]);
    memset(g, 0, sizeof *g);
}

/* g's first input of bytes, random; false after saying why. */
static bool gpu_case_input(bench_gpu_case *g, uint64_t bytes, unsigned seed) {
    g->in[0] = malloc(bytes), g->in_bytes[0] = bytes;
    if (g->in[0] == NULL)
        fprintf(stderr, "dmlslice bench: %s: out of memory for %llu bytes\n", g->name, (unsigned long long)bytes);
    else
        bench_fill(g->in[0], bytes, seed);
    return g->in[0] != NULL;
}

bool bench_kv_make(bool quick, bench_gpu_case *g) {
    memset(g, 0, sizeof *g);
    const int64_t pages = quick ? 512 : 4096, shape[4] = {pages, 16, 8, 128}, size[4] = {1, 16, 8, 128};
    const uint64_t page = 16 * 8 * 128 * 2;
    g->name = quick ? "kv_gather_512_of_512_f16" : "kv_gather_512_of_4096_f16";
    g->n_in = 2, g->parts = 1, g->items = 512, g->out_bytes = 512 * page;
    int32_t *starts = calloc(512 * 4, sizeof *starts);
    g->in[1] = starts, g->in_bytes[1] = 512 * 4 * sizeof *starts;
    for (int i = 0; starts != NULL && i < 512; i++) starts[4 * i] = (int32_t)((i * 2654435761u) % (uint32_t)pages);
    const dmls_tensor t = {DMLS_FLOAT16, 4, shape, NULL, 0};
    if (starts == NULL || !gpu_case_input(g, (uint64_t)pages * page, 7)) return false;
    if (dmls_batch_create_crops(&t, size, 512, NULL, DMLS_STARTS_INT32, &g->batch) == DMLS_OK) return true;
    fprintf(stderr, "dmlslice bench: %s: %s\n", g->name, dmls_last_error());
    return false;
}

bool bench_split_make(bool quick, bench_gpu_case *g) {
    memset(g, 0, sizeof *g);
    const int64_t cols = quick ? 1024 : 65536, shape[2] = {4096, cols};
    const int64_t sizes[8] = {cols / 8, cols / 8, cols / 8, cols / 8, cols / 8, cols / 8, cols / 8, cols / 8};
    g->name = quick ? "split_16MiB_f32_into_8_axis1" : "split_1GiB_f32_into_8_axis1";
    g->n_in = 1, g->parts = 8, g->items = 8, g->out_bytes = (uint64_t)4096 * (uint64_t)cols * 4;
    const dmls_tensor t = {DMLS_FLOAT32, 2, shape, NULL, 0};
    if (!gpu_case_input(g, g->out_bytes, 8)) return false;
    if (dmls_batch_create_split(&t, 1, sizes, 8, 0, &g->batch) == DMLS_OK) return true;
    fprintf(stderr, "dmlslice bench: %s: %s\n", g->name, dmls_last_error());
    return false;
}

enum { CPU_BATCH, CPU_LOOP_ON, CPU_LOOP, CPU_COPY, CPU_MEASURES };

/* Runs measure m once over the crops into out; false on a library error. */
static bool cpu_issue(int m, const bench_crops *c, dmls_context *ctx, float *out) {
    const uint64_t crop_bytes = BENCH_CROP_FLOATS * sizeof(float), in_bytes = dmls_input_bytes(c->one);
    if (m == CPU_BATCH) {
        const dmls_batch_input in = {c->image, BENCH_IMAGE_FLOATS * sizeof(float)};
        const dmls_batch_output o = {out, BENCH_CROPS * crop_bytes};
        return dmls_batch_execute(c->batch, ctx, &in, 1, &o, 1) == DMLS_OK;
    }
    if (m == CPU_COPY) {
        memcpy(out, c->image, BENCH_CROPS * crop_bytes);
        return true;
    }
    for (int i = 0; i < BENCH_CROPS; i++) {
        const void *at = (const char *)c->image + c->offsets[i];
        const dmls_status s = m == CPU_LOOP_ON
                                  ? dmls_execute_on(c->one, ctx, at, in_bytes, out + i * BENCH_CROP_FLOATS, crop_bytes)
                                  : dmls_execute(c->one, at, in_bytes, out + i * BENCH_CROP_FLOATS, crop_bytes);
        if (s != DMLS_OK) return false;
    }
    return true;
}

int bench_cpu_batches(bench_cpu *b, int reps, bench_batch_row *rows) {
    static const char *const names[CPU_MEASURES] = {"batch", "loop_execute_on", "loop_execute", "copy"};
    bench_batch_row *r = &rows[0];
    memset(r, 0, sizeof *r);
    r->name = "crops_1024_3x4x4_f32", r->timing = "call", r->items = BENCH_CROPS;
    r->out_bytes = BENCH_CROPS * BENCH_CROP_FLOATS * sizeof(float);
    bench_crops c;
    float *out[CPU_MEASURES] = {NULL};
    double *times = malloc(sizeof *times * (size_t)reps * CPU_MEASURES);
    bool ok = bench_crops_make(&c) && times != NULL;
    for (int m = 0; ok && m < CPU_MEASURES; m++) ok = (out[m] = malloc(r->out_bytes)) != NULL;
    dmls_context *ctx = bench_cpu_context(b);
    /* Rounds of 50 calls of each measure in turn, the order rotating, so
     * no measure always follows the same one; each round after a warm-up
     * of untimed calls (at least one, for at least a millisecond), the
     * steady state a library serves: the pool's workers fall asleep while
     * the other measures run, and waking them all is a tree of futex
     * wake-ups over several calls (src/cpu/pool.c), a cost of the pause,
     * not of the batch. */
    for (int rep = 0; ok && rep < reps; rep++)
        for (int k = 0; ok && k < CPU_MEASURES; k++) {
            const int m = (rep + k) % CPU_MEASURES;
            const double w0 = bench_now();
            do ok = cpu_issue(m, &c, ctx, out[m]);
            while (ok && bench_now() - w0 < 1e-3);
            const double t0 = bench_now();
            for (int i = 0; ok && i < 50; i++) ok = cpu_issue(m, &c, ctx, out[m]);
            times[m * reps + rep] = (bench_now() - t0) / 50 * 1e6;
        }
    if (!ok) {
        fprintf(stderr, "dmlslice bench: %s: %s\n", r->name, dmls_last_error());
    } else {
        r->us = bench_median(times, reps);
        for (int m = 1; m < CPU_MEASURES; m++) {
            r->yard[r->nyard].name = names[m];
            r->yard[r->nyard++].us = bench_median(times + m * reps, reps);
        }
        /* The batch equals the crops run one by one, both loops alike. */
        r->correct = memcmp(out[CPU_BATCH], out[CPU_LOOP_ON], r->out_bytes) == 0 &&
                     memcmp(out[CPU_BATCH], out[CPU_LOOP], r->out_bytes) == 0;
        r->timed = true;
    }
    for (int m = 0; m < CPU_MEASURES; m++) free(out[m]);
    free(times);
    bench_crops_free(&c);
    return 1;
}
