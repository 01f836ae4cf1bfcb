/* Execution contexts: a thread pool, created with its thread count, whose
 * workers start when a copy first needs them (pool.c). The cutting of work
 * between them lives in run.c. */
#include <errno.h>
#include <stdlib.h>

#include "../error.h"
#include "context.h"
#include "split.h"

#define MAX_THREADS 1024

static dmls_status threads_from_env(int *threads) {
    const char *env = getenv("DMLSLICE_THREADS");
    if (env == NULL || *env == '\0') {
        int n = dmls_cpu_count();
        *threads = n > MAX_THREADS ? MAX_THREADS : n;
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
    if (c->splits == NULL || dmls_mutex_init(&c->turn) != 0) {
        free(c->splits);
        free(c);
        return dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "context: out of memory");
    }
    c->pool = dmls_pool_create(threads, DMLS_SHARES_PER_THREAD * threads);
    if (c->pool == NULL) {
        dmls_mutex_destroy(&c->turn);
        free(c->splits);
        free(c);
        return dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "context: out of memory for a pool of %d threads", threads);
    }
    c->parallel_min_bytes = DMLS_PARALLEL_MIN_BYTES;
    *ctx = c;
    return DMLS_OK;
}

void dmls_context_destroy(dmls_context *ctx) {
    if (ctx == NULL) return;
    dmls_pool_destroy(ctx->pool);
    dmls_mutex_destroy(&ctx->turn);
    free(ctx->splits);
    free(ctx);
}

int dmls_context_threads(const dmls_context *ctx) { return ctx ? dmls_pool_threads(ctx->pool) : 1; }

void dmls_context_set_parallel_min_bytes(dmls_context *ctx, uint64_t bytes) { ctx->parallel_min_bytes = bytes; }

