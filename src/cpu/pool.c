/* A persistent thread pool with a fixed split: task i runs on thread i (the
 * caller is thread 0), so a job is one broadcast and one countdown, with no
 * queue. Copy tasks are balanced by bytes when they are cut, so work
 * stealing would buy nothing here.
 *
 * Workers spin briefly on the job counter before sleeping, because
 * back-to-back executes (a model's layers, a benchmark) would otherwise pay a
 * futex wake-up per thread per call. Every worker checks in on every job, even
 * one with fewer tasks than threads, so no worker is still reading a job when
 * the caller posts the next one.
 *
 * Workers start when the first job that needs them comes (dmls_pool_start),
 * not at create: a context asked for many threads costs nothing until a copy
 * is large enough to share, and a process short of threads (a low
 * RLIMIT_NPROC, a container's pids limit) then runs with the workers it
 * could start instead of failing. */
#include <stdbool.h>
#include <stdint.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../compiler.h"
#include "../platform/platform.h"
#include "pool.h"

/* The spin-wait hint (x86 PAUSE, ARM YIELD) through whatever the compiler
 * offers: the SSE2 intrinsic on x86, inline assembly on GCC-compatible ARM
 * compilers, MSVC's intrinsic on ARM64, else nothing (a plain spin). */
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#include <emmintrin.h>
#define CPU_RELAX() _mm_pause()
#elif (defined(__aarch64__) || defined(__arm__)) && DMLS_GNU_C
#define CPU_RELAX() __asm__ __volatile__("yield" ::: "memory")
#elif defined(_M_ARM64) || defined(_M_ARM)
#include <intrin.h>
#define CPU_RELAX() __yield()
#else
#define CPU_RELAX() ((void)0)
#endif

/* Tens to hundreds of microseconds of polling (PAUSE takes 10 to 140
 * cycles by CPU model): longer than a futex round trip, short enough that an
 * idle pool soon stops burning a core. */
#define SPIN_ROUNDS 4000

struct dmls_pool {
    int wanted;          /* threads asked for at create, caller included */
    atomic_int threads;  /* wanted until a start fails, then 1 + started */
    bool tried;          /* dmls_pool_start has run (only the job's caller touches it) */
    dmls_thread *workers; /* wanted - 1 */
    dmls_mutex mu;
    dmls_cond wake, done;
    atomic_uint_fast64_t job;  /* bumped once per posted job */
    atomic_int pending;        /* workers yet to finish the current job */
    bool stop;                 /* under mu */
    int started;               /* workers actually created */
    /* The current job; written by the caller before job is bumped. */
    void (*fn)(void *arg, int task);
    void *arg;
    int tasks;
};

typedef struct worker_start {
    dmls_pool *pool;
    int index;
    uint64_t seen; /* the job counter when the worker was started: jobs up to it are not its own */
} worker_start;

static DMLS_THREAD_MAIN(worker_main, p) {
    dmls_pool *pool = ((worker_start *)p)->pool;
    const int index = ((worker_start *)p)->index;
    uint64_t seen = ((worker_start *)p)->seen;
    free(p);
    for (;;) {
        uint64_t job = atomic_load_explicit(&pool->job, memory_order_acquire);
        for (int spin = 0; job == seen && spin < SPIN_ROUNDS; spin++) {
            CPU_RELAX();
            job = atomic_load_explicit(&pool->job, memory_order_acquire);
        }
        if (job == seen) {
            dmls_mutex_lock(&pool->mu);
            while (!pool->stop && (job = atomic_load_explicit(&pool->job, memory_order_acquire)) == seen)
                dmls_cond_wait(&pool->wake, &pool->mu);
            bool stop = pool->stop;
            dmls_mutex_unlock(&pool->mu);
            if (stop) DMLS_THREAD_RETURN;
        }
        seen = job;
        if (index < pool->tasks) pool->fn(pool->arg, index);
        if (atomic_fetch_sub_explicit(&pool->pending, 1, memory_order_acq_rel) == 1) {
            dmls_mutex_lock(&pool->mu);
            dmls_cond_signal(&pool->done);
            dmls_mutex_unlock(&pool->mu);
        }
    }
}

dmls_pool *dmls_pool_create(int threads) {
    if (threads < 1) return NULL;
    dmls_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return NULL;
    pool->wanted = threads;
    atomic_init(&pool->threads, threads);
    atomic_init(&pool->job, 0);
    atomic_init(&pool->pending, 0);
    if (dmls_mutex_init(&pool->mu)) goto fail_mu;
    if (dmls_cond_init(&pool->wake)) goto fail_wake;
    if (dmls_cond_init(&pool->done)) goto fail_done;
    if (threads > 1) {
        pool->workers = calloc((size_t)threads - 1, sizeof *pool->workers);
        if (!pool->workers) goto fail_workers;
    }
    return pool;

fail_workers:
    dmls_cond_destroy(&pool->done);
fail_done:
    dmls_cond_destroy(&pool->wake);
fail_wake:
    dmls_mutex_destroy(&pool->mu);
fail_mu:
    free(pool);
    return NULL;
}

int dmls_pool_start(dmls_pool *pool) {
    if (pool->tried) return atomic_load_explicit(&pool->threads, memory_order_relaxed);
    pool->tried = true;
    /* No job runs now (one caller at a time), so every new worker starts
     * with the current job counter as already seen. */
    const uint64_t seen = atomic_load_explicit(&pool->job, memory_order_relaxed);
    for (int i = 1; i < pool->wanted; i++) {
        worker_start *ws = malloc(sizeof *ws);
        if (!ws) break;
        ws->pool = pool;
        ws->index = i;
        ws->seen = seen;
        if (dmls_thread_start(&pool->workers[i - 1], worker_main, ws)) {
            free(ws);
            break;
        }
        pool->started++;
    }
    atomic_store_explicit(&pool->threads, 1 + pool->started, memory_order_relaxed);
    return 1 + pool->started;
}

void dmls_pool_destroy(dmls_pool *pool) {
    if (!pool) return;
    dmls_mutex_lock(&pool->mu);
    pool->stop = true;
    dmls_cond_broadcast(&pool->wake);
    dmls_mutex_unlock(&pool->mu);
    for (int i = 0; i < pool->started; i++) dmls_thread_join(&pool->workers[i]);
    free(pool->workers);
    dmls_cond_destroy(&pool->done);
    dmls_cond_destroy(&pool->wake);
    dmls_mutex_destroy(&pool->mu);
    free(pool);
}

int dmls_pool_threads(const dmls_pool *pool) { return atomic_load_explicit(&pool->threads, memory_order_relaxed); }

void dmls_pool_run(dmls_pool *pool, void (*fn)(void *arg, int task), void *arg, int tasks) {
    const int workers = dmls_pool_start(pool) - 1;
    if (workers == 0 || tasks <= 1) {
        for (int i = 0; i < tasks; i++) fn(arg, i);
        return;
    }
    pool->fn = fn;
    pool->arg = arg;
    pool->tasks = tasks;
    atomic_store_explicit(&pool->pending, workers, memory_order_relaxed);
    dmls_mutex_lock(&pool->mu);
    atomic_fetch_add_explicit(&pool->job, 1, memory_order_release);
    dmls_cond_broadcast(&pool->wake);
    dmls_mutex_unlock(&pool->mu);

    fn(arg, 0);
    /* Tasks past the workers that started are the caller's too. */
    for (int i = workers + 1; i < tasks; i++) fn(arg, i);

    for (int spin = 0; spin < SPIN_ROUNDS; spin++) {
        if (atomic_load_explicit(&pool->pending, memory_order_acquire) == 0) return;
        CPU_RELAX();
    }
    dmls_mutex_lock(&pool->mu);
    while (atomic_load_explicit(&pool->pending, memory_order_acquire) != 0)
        dmls_cond_wait(&pool->done, &pool->mu);
    dmls_mutex_unlock(&pool->mu);
}
