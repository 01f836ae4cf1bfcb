/* What the memory probes share (gather_probe.c, crop4d_probe.c): a variant
 * is a function of a block of output rows [r0, r1); probe_run times it on
 * `threads` threads, each a contiguous share of `rows`, on the monotonic
 * clock; probe_cmp sorts seconds for a median. */
#ifndef DMLS_BENCH_PROBE_THREADS_H
#define DMLS_BENCH_PROBE_THREADS_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

typedef void (*work_fn)(int64_t r0, int64_t r1);

typedef struct probe_task {
    work_fn fn;
    int i, threads;
    int64_t rows;
} probe_task;

static void *probe_task_run(void *p) {
    const probe_task *t = p;
    const int64_t per = t->rows / t->threads, r0 = per * t->i;
    t->fn(r0, t->i == t->threads - 1 ? t->rows : r0 + per);
    return NULL;
}

static double probe_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* threads: 1 to 256. */
static double probe_run(work_fn fn, int64_t rows, int threads) {
    pthread_t th[256];
    probe_task ts[256];
    const double t0 = probe_now();
    for (int i = 0; i < threads; i++) {
        ts[i] = (probe_task){fn, i, threads, rows};
        pthread_create(&th[i], NULL, probe_task_run, &ts[i]);
    }
    for (int i = 0; i < threads; i++) pthread_join(th[i], NULL);
    return probe_now() - t0;
}

static int probe_cmp(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
