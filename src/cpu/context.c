/* Execution contexts: a thread pool plus the rule for cutting a copy into
 * per-thread shares. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "../error.h"
#include "../operator.h"
#include "cpu.h"

#define MAX_THREADS 1024

/* Below this many bytes of memory traffic (dmls_cpu_plan.traffic_bytes: an
 * item read from a stride of a cache line or more costs a whole line, so a
 * column of 8-byte items out of a wide matrix counts 72 bytes an item, not
 * 8; such a gather is latency-bound and gains the most from more threads,
 * whatever its small output) a copy takes about as long as waking the
 * workers, so the caller does it alone. */
#define PARALLEL_MIN_BYTES (512 * 1024)

struct dmls_context {
    dmls_pool *pool;
    pthread_mutex_t turn; /* one job on the pool at a time */
    uint64_t *splits;     /* threads + 1 item indices, under turn */
    uint64_t parallel_min_bytes;
};

/* One job on the pool: a copy (cp) or SLICE_GRAD's zero fill (fill), cut at
 * splits[task]..splits[task + 1] (items of cp, or elements of fill). */
typedef struct share_job {
    const dmls_cpu_plan *cp;
    const dmls_copy_plan *fill;
    const void *src;
    void *dst;
    const uint64_t *splits;
} share_job;

static void run_share(void *arg, int task) {
    const share_job *job = arg;
    if (job->fill) dmls_cpu_fill_zero_range(job->fill, job->dst, job->splits[task], job->splits[task + 1]);
    else dmls_cpu_run_range(job->cp, job->src, job->dst, job->splits[task], job->splits[task + 1]);
}

/* Cuts `items` into at most `threads` shares that start on multiples of
 * `grain`, into splits[0..tasks]; returns tasks. */
static int cut(uint64_t *splits, uint64_t items, uint64_t grain, int threads) {
    uint64_t units = (items + grain - 1) / grain;
    int tasks = units < (uint64_t)threads ? (int)units : threads;
    for (int i = 0; i < tasks; i++) {
        /* units * i / tasks without overflowing 64 bits */
        uint64_t u = (units / (uint64_t)tasks) * (uint64_t)i + (units % (uint64_t)tasks) * (uint64_t)i / (uint64_t)tasks;
        splits[i] = u * grain;
    }
    splits[tasks] = items;
    return tasks;
}

/* The zero fill's grain: whole rows when a row is at most 64 KiB, else 4 KiB
 * of elements, as for copies (kernels.c). */
static uint64_t fill_grain(const dmls_copy_plan *f) {
    if (f->ndim == 0) return 1;
    const uint64_t row = (uint64_t)f->shape[f->ndim - 1], es = (uint64_t)f->esize;
    return row * es <= 64 * 1024 ? row : 4096 / es;
}

static dmls_status threads_from_env(int *threads) {
    const char *env = getenv("DMLSLICE_THREADS");
    if (env == NULL || *env == '\0') {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        *threads = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
        return DMLS_OK;
    }
    char *end;
    errno = 0;
    long n = strtol(env, &end, 10);
    RETURN_IF(errno != 0 || *end != '\0' || end == env || n < 1 || n > MAX_THREADS,
              DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "context: DMLSLICE_THREADS='%s' is not a thread count from 1 to %d", env, MAX_THREADS);
    *threads = (int)n;
    return DMLS_OK;
}

dmls_status dmls_context_create(int num_threads, dmls_context **ctx) {
    dmls_clear_error();
    RETURN_IF(ctx == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "context: ctx is NULL");
    *ctx = NULL;
    RETURN_IF(num_threads < 0 || num_threads > MAX_THREADS, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "context: num_threads = %d is outside 0..%d", num_threads, MAX_THREADS);
    int threads = num_threads;
    if (threads == 0) RETURN_IF_ERROR(threads_from_env(&threads));

    dmls_context *c = calloc(1, sizeof *c);
    RETURN_IF(c == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "context: out of memory");
    c->splits = calloc((size_t)threads + 1, sizeof *c->splits);
    if (c->splits == NULL || pthread_mutex_init(&c->turn, NULL) != 0) {
        free(c->splits);
        free(c);
        return dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "context: out of memory");
    }
    c->pool = dmls_pool_create(threads);
    if (c->pool == NULL) {
        pthread_mutex_destroy(&c->turn);
        free(c->splits);
        free(c);
        return dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "context: could not start %d threads", threads);
    }
    c->parallel_min_bytes = PARALLEL_MIN_BYTES;
    *ctx = c;
    return DMLS_OK;
}

void dmls_context_destroy(dmls_context *ctx) {
    if (ctx == NULL) return;
    dmls_pool_destroy(ctx->pool);
    pthread_mutex_destroy(&ctx->turn);
    free(ctx->splits);
    free(ctx);
}

int dmls_context_threads(const dmls_context *ctx) { return dmls_pool_threads(ctx->pool); }

void dmls_context_set_parallel_min_bytes(dmls_context *ctx, uint64_t bytes) { ctx->parallel_min_bytes = bytes; }

dmls_status dmls_execute_on(const dmls_operator *op, dmls_context *ctx, const void *input,
                            uint64_t input_bytes, void *output, uint64_t output_bytes) {
    dmls_clear_error();
    RETURN_IF(op == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "execute: operator is NULL");
    RETURN_IF_ERROR(dmls_check_binding(op, input, input_bytes, output, output_bytes));
    const int threads = ctx ? dmls_pool_threads(ctx->pool) : 1;
    const uint64_t min_bytes = ctx ? ctx->parallel_min_bytes : 0;
    if (op->zero_fill) {
        const dmls_copy_plan *f = &op->fill;
        if (threads == 1 || f->count == 0 || f->count * (uint64_t)f->esize < min_bytes) {
            dmls_cpu_fill_zero(f, output);
        } else {
            pthread_mutex_lock(&ctx->turn);
            int tasks = cut(ctx->splits, f->count, fill_grain(f), threads);
            share_job job = {NULL, f, NULL, output, ctx->splits};
            dmls_pool_run(ctx->pool, run_share, &job, tasks);
            pthread_mutex_unlock(&ctx->turn);
        }
    }
    const dmls_cpu_plan *cp = &op->cpu;
    if (cp->items == 0) return DMLS_OK;
    if (threads == 1 || cp->traffic_bytes < min_bytes) {
        dmls_cpu_run_range(cp, input, output, 0, cp->items);
        return DMLS_OK;
    }
    /* Shares start on a multiple of the plan's grain, so short rows are
     * never cut between threads. */
    pthread_mutex_lock(&ctx->turn);
    int tasks = cut(ctx->splits, cp->items, cp->split_grain, threads);
    share_job job = {cp, NULL, input, output, ctx->splits};
    dmls_pool_run(ctx->pool, run_share, &job, tasks);
    pthread_mutex_unlock(&ctx->turn);
    return DMLS_OK;
}
