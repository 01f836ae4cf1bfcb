/* A persistent thread pool whose tasks are claimed, not assigned: a job is
 * one word (its number and its task count) and a claim word per task, and
 * the caller and any worker that is awake claim tasks until none is left,
 * each starting with its own run of them (claim_and_run). The caller works
 * as soon as it has posted and waits only for tasks a worker has claimed,
 * never for a worker that has not arrived yet: on a
 * busy machine or with more threads than CPUs a job then costs at most
 * about what the caller alone would take, instead of a descheduled worker's
 * time slice (issue 24: a batch of 1,024 tiny crops was 7 to 50 times
 * slower than a loop of single executes).
 *
 * Workers spin briefly on the job word before sleeping, because
 * back-to-back executes (a model's layers, a benchmark) would otherwise pay a
 * futex wake-up per thread per call; they do not spin when the pool has
 * more threads than the process has CPUs, where a spinning worker only takes
 * the caller's CPU. The caller wakes at most one sleeping worker, and a
 * worker that claims a task wakes one more while tasks are left, so the
 * wake-up system calls are spread over the workers instead of paid in a row
 * by the caller.
 *
 * Workers start when the first job that needs them comes (dmls_pool_start),
 * not at create: a context asked for many threads costs nothing until a copy
 * is large enough to share, and a process short of threads (a low
 * RLIMIT_NPROC, a container's pids limit) then runs with the workers it
 * could start instead of failing. */
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
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

/* The job word: the job's number in the high 48 bits (numbers start at 1
 * and never wrap: 2^48 jobs are years of back-to-back calls) and its task
 * count in the low 16; each task's claim has a word of its own
 * (claim_and_run). */
#define JOB_SEQ(w)   ((w) >> 16)
#define JOB_TASKS(w) ((int)((w)&0xFFFF))

struct dmls_pool {
    int wanted;           /* threads asked for at create, caller included */
    atomic_int threads;   /* wanted until a start fails, then 1 + started */
    bool tried;           /* dmls_pool_start has run (only the job's caller touches it) */
    bool spin;            /* no more threads than CPUs: waiting may poll */
    int cpus;             /* CPUs the process may use, at create */
    dmls_thread *workers; /* wanted - 1 */
    dmls_mutex mu;
    dmls_cond wake, done_cv;
    atomic_uint_fast64_t job;    /* the job word, above */
    atomic_uint_fast64_t *claim; /* max_tasks task words: the number of the last job that claimed each */
    int max_tasks;
    atomic_int done;     /* tasks finished by workers in the current job */
    atomic_int sleepers; /* workers waiting on wake (changed under mu) */
    atomic_int waiting;  /* the caller sleeps on done_cv */
    atomic_int woken;    /* wake-ups sent for the current job */
    int wakes;           /* the most the current job may send */
    int next_wakes;      /* dmls_pool_limit_wakes for the next job (caller only) */
    bool stop;           /* under mu */
    int started;         /* workers actually created */
    /* The current job; written by the caller while no task is claimable
     * and none claimed is running, read only by a thread that claimed one. */
    void (*fn)(void *arg, int task);
    void *arg;
};

typedef struct worker_start {
    dmls_pool *pool;
    uint64_t seen; /* the job number when the worker was started: jobs up to it are not its own */
    int index;     /* 1 to started: which tasks of a job it takes first (the caller is 0) */
} worker_start;

/* Each side of a handshake (the caller's "waiting" and a worker's "done";
 * the job word and "sleepers") writes, then loads what the other side
 * writes: either side must see the other's write. seq_cst accesses alone
 * promise that in C11, but each write here is a read-modify-write, which
 * an emulator also keeps ordered before the next load: qemu-user running
 * ARM64 code on x86 (CI's ARM64 suite) let a plain seq_cst store be passed
 * by the next load, and the caller then slept for good on done_cv while
 * the worker that finished the last task read "waiting" as 0. */

/* Wakes a sleeping worker, unless the job has woken a worker per CPU
 * already: more would only take turns holding claimed tasks. */
static void wake_one(dmls_pool *pool) {
    /* After the job word's exchange (or a claim): either this sees the
     * sleeper or the sleeper sees the job. */
    if (atomic_load_explicit(&pool->sleepers, memory_order_seq_cst) == 0) return;
    if (atomic_fetch_add_explicit(&pool->woken, 1, memory_order_relaxed) >= pool->wakes) return;
    dmls_mutex_lock(&pool->mu);
    dmls_cond_signal(&pool->wake);
    dmls_mutex_unlock(&pool->mu);
}

/* Claims and runs tasks of the current job until none is left; returns
 * how many it ran, and *seq the job it looked at. A task's word holds the
 * number of the last job that claimed it; job s claims it by a
 * compare-and-swap from any smaller number to s. Job numbers only grow, so
 * a thread slow to look, still holding an older job's number, finds every
 * task of its job claimed (a job ends only when all are) and claims
 * nothing, and no word needs resetting between jobs. Thread
 * `self` of `threads` tries its own run of tasks first (tasks * self /
 * threads onwards), then the others': back-to-back jobs of the same shape
 * (a model's layers, a batch run again) give each thread the same share
 * each time, which its own caches still hold; with one shared counter the
 * shares fell to whoever came first, and every thread's data moved between
 * cores on every call (1,024 tiny crops on a 16-core host: 9-12 us on 16
 * threads, 6-7 us with each thread's own run first; bench/RESULTS.md). A
 * worker passes the wake-up on after its first claim and reports what it
 * ran once, when it stops: every report is a read-modify-write of a line
 * all the threads share. */
static int claim_and_run(dmls_pool *pool, int self, bool worker, uint64_t *seq) {
    const uint64_t w = atomic_load_explicit(&pool->job, memory_order_acquire);
    const uint64_t s = JOB_SEQ(w);
    const int tasks = JOB_TASKS(w), threads = atomic_load_explicit(&pool->threads, memory_order_relaxed);
    *seq = s;
    int ran = 0;
    const int first = self < threads ? (int)((int64_t)tasks * self / threads) : 0;
    for (int j = 0; j < tasks; j++) {
        const int task = first + j < tasks ? first + j : first + j - tasks;
        uint64_t v = atomic_load_explicit(&pool->claim[task], memory_order_relaxed);
        if (v >= s || !atomic_compare_exchange_strong_explicit(&pool->claim[task], &v, s, memory_order_acq_rel,
                                                               memory_order_relaxed))
            continue;
        if (worker && ran == 0 && tasks > 1) wake_one(pool);
        pool->fn(pool->arg, task); /* the job cannot end, nor fn change, while this task is unfinished */
        ran++;
    }
    if (worker && ran > 0) {
        atomic_fetch_add_explicit(&pool->done, ran, memory_order_seq_cst);
        if (atomic_load_explicit(&pool->waiting, memory_order_seq_cst)) {
            dmls_mutex_lock(&pool->mu);
            dmls_cond_signal(&pool->done_cv);
            dmls_mutex_unlock(&pool->mu);
        }
    }
    return ran;
}

static DMLS_THREAD_MAIN(worker_main, p) {
    dmls_pool *pool = ((worker_start *)p)->pool;
    uint64_t seen = ((worker_start *)p)->seen;
    const int self = ((worker_start *)p)->index;
    free(p);
    for (;;) {
        uint64_t w = atomic_load_explicit(&pool->job, memory_order_acquire);
        for (int spin = 0; pool->spin && JOB_SEQ(w) == seen && spin < SPIN_ROUNDS; spin++) {
            CPU_RELAX();
            w = atomic_load_explicit(&pool->job, memory_order_acquire);
        }
        if (JOB_SEQ(w) == seen) {
            dmls_mutex_lock(&pool->mu);
            atomic_fetch_add_explicit(&pool->sleepers, 1, memory_order_seq_cst);
            while (!pool->stop && JOB_SEQ(w = atomic_load_explicit(&pool->job, memory_order_seq_cst)) == seen)
                dmls_cond_wait(&pool->wake, &pool->mu);
            atomic_fetch_sub_explicit(&pool->sleepers, 1, memory_order_acq_rel);
            bool stop = pool->stop;
            dmls_mutex_unlock(&pool->mu);
            if (stop) DMLS_THREAD_RETURN;
        }
        claim_and_run(pool, self, true, &seen);
    }
}

dmls_pool *dmls_pool_create(int threads, int max_tasks) {
    if (threads < 1 || threads > 0xFFFF || max_tasks < 1 || max_tasks > 0xFFFF) return NULL;
    dmls_pool *pool = calloc(1, sizeof *pool);
    if (!pool) return NULL;
    pool->claim = calloc((size_t)max_tasks, sizeof *pool->claim);
    if (!pool->claim) {
        free(pool);
        return NULL;
    }
    pool->max_tasks = max_tasks;
    for (int t = 0; t < max_tasks; t++) atomic_init(&pool->claim[t], 0); /* jobs are numbered from 1 */
    pool->wanted = threads;
    pool->cpus = dmls_cpu_count();
    pool->next_wakes = INT_MAX;
    pool->spin = threads <= pool->cpus;
    atomic_init(&pool->threads, threads);
    atomic_init(&pool->job, 0);
    atomic_init(&pool->done, 0);
    atomic_init(&pool->sleepers, 0);
    atomic_init(&pool->waiting, 0);
    atomic_init(&pool->woken, 0);
    if (dmls_mutex_init(&pool->mu)) goto fail_mu;
    if (dmls_cond_init(&pool->wake)) goto fail_wake;
    if (dmls_cond_init(&pool->done_cv)) goto fail_done;
    if (threads > 1) {
        pool->workers = calloc((size_t)threads - 1, sizeof *pool->workers);
        if (!pool->workers) goto fail_workers;
    }
    return pool;

fail_workers:
    dmls_cond_destroy(&pool->done_cv);
fail_done:
    dmls_cond_destroy(&pool->wake);
fail_wake:
    dmls_mutex_destroy(&pool->mu);
fail_mu:
    free(pool->claim);
    free(pool);
    return NULL;
}

int dmls_pool_start(dmls_pool *pool) {
    if (pool->tried) return atomic_load_explicit(&pool->threads, memory_order_relaxed);
    pool->tried = true;
    /* No job runs now (one caller at a time), so every new worker starts
     * with the current job number as already seen. */
    const uint64_t seen = JOB_SEQ(atomic_load_explicit(&pool->job, memory_order_relaxed));
    for (int i = 1; i < pool->wanted; i++) {
        worker_start *ws = malloc(sizeof *ws);
        if (!ws) break;
        ws->pool = pool;
        ws->seen = seen;
        ws->index = i;
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
    dmls_cond_destroy(&pool->done_cv);
    dmls_cond_destroy(&pool->wake);
    dmls_mutex_destroy(&pool->mu);
    free(pool->claim);
    free(pool);
}

int dmls_pool_threads(const dmls_pool *pool) { return atomic_load_explicit(&pool->threads, memory_order_relaxed); }

int dmls_pool_cpus(const dmls_pool *pool) { return pool->cpus; }

void dmls_pool_limit_wakes(dmls_pool *pool, int wakes) { pool->next_wakes = wakes < 0 ? 0 : wakes; }

/* Waits until workers have finished `claimed` tasks of the current job. */
static void wait_done(dmls_pool *pool, int claimed) {
    for (int spin = 0; pool->spin && spin < SPIN_ROUNDS; spin++) {
        if (atomic_load_explicit(&pool->done, memory_order_acquire) == claimed) return;
        CPU_RELAX();
    }
    dmls_mutex_lock(&pool->mu);
    atomic_exchange_explicit(&pool->waiting, 1, memory_order_seq_cst); /* a read-modify-write: see above */
    while (atomic_load_explicit(&pool->done, memory_order_seq_cst) != claimed)
        dmls_cond_wait(&pool->done_cv, &pool->mu);
    atomic_store_explicit(&pool->waiting, 0, memory_order_relaxed);
    dmls_mutex_unlock(&pool->mu);
}

void dmls_pool_run(dmls_pool *pool, void (*fn)(void *arg, int task), void *arg, int tasks) {
    const int workers = dmls_pool_start(pool) - 1;
    if (workers == 0 || tasks <= 1 || tasks > pool->max_tasks) { /* the last: a caller past pool.h's bound */
        for (int i = 0; i < tasks; i++) fn(arg, i);
        return;
    }
    pool->fn = fn;
    pool->arg = arg;
    atomic_store_explicit(&pool->done, 0, memory_order_relaxed);
    atomic_store_explicit(&pool->woken, 0, memory_order_relaxed);
    pool->wakes = pool->next_wakes < pool->cpus - 1 ? pool->next_wakes : pool->cpus - 1;
    pool->next_wakes = INT_MAX;
    const uint64_t seq = JOB_SEQ(atomic_load_explicit(&pool->job, memory_order_relaxed)) + 1;
    atomic_exchange_explicit(&pool->job, seq << 16 | (uint64_t)tasks, memory_order_seq_cst);
    wake_one(pool);
    uint64_t last;
    const int mine = claim_and_run(pool, 0, false, &last);
    wait_done(pool, tasks - mine);
}
