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
 * Every word that more than one thread writes during a job lives on a cache
 * line of its own: the job word (written by the caller only), each thread's
 * run of claim words, each worker's report of what it ran. A tiny job is
 * a handful of cache-line transfers per thread, and one thread's write
 * never takes a line away from a thread polling another word (when the
 * reports were one shared counter beside the job word, every worker's
 * report took the line from every poller in turn; bench/RESULTS.md).
 *
 * Workers spin briefly on the job word before sleeping, because
 * back-to-back executes (a model's layers, a benchmark) would otherwise pay a
 * futex wake-up per thread per call; they do not spin when the pool has
 * more threads than the process has CPUs, where a spinning worker only takes
 * the caller's CPU. The caller wakes one sleeping worker and each worker
 * that wakes up wakes two more, so the wake-up system calls form a tree
 * spread over the workers instead of a row paid by the caller, and a pool
 * asleep after a pause is all awake again within a few wake-up latencies.
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
#include <string.h>

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

/* A cache line, at least as large as any CPU's this runs on (64 bytes on
 * x86-64 and most ARM64 cores; 128 on Apple's and POWER's). */
#define LINE 128
#define LINE_WORDS (LINE / sizeof(atomic_uint_fast64_t))

/* The job word: the job's number in the high 48 bits (numbers start at 1
 * and never wrap: 2^48 jobs are years of back-to-back calls) and its task
 * count in the low 16. A worker's report has the same form: the number of
 * the job and how many of its tasks the worker ran. */
#define JOB_SEQ(w)   ((w) >> 16)
#define JOB_TASKS(w) ((int)((w)&0xFFFF))

/* One worker's report, on a line of its own: only that worker writes it. */
typedef struct report {
    atomic_uint_fast64_t word;
    unsigned char pad[LINE - sizeof(atomic_uint_fast64_t)];
} report;

struct dmls_pool {
    /* Written by the caller once per job (fn, args, then the job word),
     * read by every thread that claims: a line no one else writes. The
     * arguments are a copy in the job word's 64 bytes: with a pointer to the
     * caller's, a worker's first task would start with one more cache miss,
     * to a line the caller has just written. */
    _Alignas(LINE) atomic_uint_fast64_t job; /* the job word, above */
    void (*fn)(const void *args, int task);
    _Alignas(16) unsigned char args[DMLS_POOL_ARGS];
    atomic_uint_fast64_t *claim; /* threads runs of `stride` task words: the number of the last job that claimed each */
    atomic_int threads;          /* wanted until a start fails, then 1 + started */
    int stride;                  /* claim words per thread's run: a whole number of lines */
    bool spin;                   /* no more threads than CPUs: waiting may poll */

    /* The sleeping side, touched only on the way to and from sleep. */
    _Alignas(LINE) atomic_int sleepers; /* workers waiting on wake (changed under mu) */
    atomic_int waiting;                 /* the caller sleeps on done_cv */
    atomic_int woken;                   /* wake-ups sent for the current job */
    atomic_int wakes;                   /* the most the current job may send */
    bool stop;                          /* under mu */
    dmls_mutex mu;
    dmls_cond wake, done_cv;

    /* The caller's own. */
    int wanted;     /* threads asked for at create, caller included */
    int max_tasks;  /* the most tasks a job may have */
    int cpus;       /* CPUs the process may use, at create */
    int next_wakes; /* dmls_pool_limit_wakes for the next job */
    bool tried;     /* dmls_pool_start has run */
    int started;    /* workers actually created */
    dmls_thread *workers; /* wanted - 1 */
    report *reports;      /* wanted: [i] for worker i (0, the caller's, unused) */
    void *block;          /* the allocation all of the above lies in (dmls_pool_create) */
};

typedef struct worker_start {
    dmls_pool *pool;
    uint64_t seen; /* the job number when the worker was started: jobs up to it are not its own */
    int index;     /* 1 to started: which tasks of a job it takes first (the caller is 0) */
} worker_start;

/* Each side of a handshake (the caller's "waiting" and a worker's report;
 * the job word and "sleepers") writes, then loads what the other side
 * writes: either side must see the other's write. seq_cst accesses alone
 * promise that in C11, but each write here is a read-modify-write, which
 * an emulator also keeps ordered before the next load: qemu-user running
 * ARM64 code on x86 (CI's ARM64 suite) let a plain seq_cst store be passed
 * by the next load, and the caller then slept for good on done_cv while
 * the worker that finished the last task read "waiting" as 0. */

/* Wakes up to n sleeping workers, unless the job has woken a worker per
 * CPU already: more would only take turns holding claimed tasks. */
static void wake_some(dmls_pool *pool, int n) {
    /* After the job word's exchange: either this sees the sleeper or the
     * sleeper sees the job. */
    if (atomic_load_explicit(&pool->sleepers, memory_order_seq_cst) == 0) return;
    /* A worker may read the limit as the next job sets it: either limit
     * is a fine one, as a wake-up changes only speed. */
    const int wakes = atomic_load_explicit(&pool->wakes, memory_order_relaxed);
    const int before = atomic_fetch_add_explicit(&pool->woken, n, memory_order_relaxed);
    if (before >= wakes) return;
    if (n > wakes - before) n = wakes - before;
    dmls_mutex_lock(&pool->mu);
    for (int i = 0; i < n; i++) dmls_cond_signal(&pool->wake);
    dmls_mutex_unlock(&pool->mu);
}

/* Worker self's report that it ran `ran` tasks of job s, and the caller's
 * wake-up if it sleeps. */
static void report_ran(dmls_pool *pool, int self, uint64_t s, int ran) {
    atomic_exchange_explicit(&pool->reports[self].word, s << 16 | (uint64_t)ran, memory_order_seq_cst);
    if (atomic_load_explicit(&pool->waiting, memory_order_seq_cst)) {
        dmls_mutex_lock(&pool->mu);
        dmls_cond_signal(&pool->done_cv);
        dmls_mutex_unlock(&pool->mu);
    }
}

/* Claims and runs tasks of the current job until none is left; returns
 * how many it ran, and *seq the job it looked at. A task's word holds the
 * number of the last job that claimed it; job s claims it by a
 * compare-and-swap from any smaller number to s. Job numbers only grow, so
 * a thread slow to look, still holding an older job's number, finds every
 * task of its job claimed (a job ends only when all are) and claims
 * nothing, and no word needs resetting between jobs.
 *
 * The tasks are cut into one run per thread (tasks * r / threads onwards),
 * each run's words on lines of their own, and thread `self` tries its own
 * run first, then the others': back-to-back jobs of the same shape (a
 * model's layers, a batch run again) give each thread the same share each
 * time, which its own caches still hold (with one shared counter the
 * shares fell to whoever came first, and every thread's data moved between
 * cores on every call: 1,024 tiny crops on a 16-core host took 9-12 us on
 * 16 threads, 6-7 us with each thread's own run first; bench/RESULTS.md),
 * and a thread claims its own run without taking a line from another. */
static int claim_and_run(dmls_pool *pool, int self, bool worker, uint64_t *seq) {
    const uint64_t w = atomic_load_explicit(&pool->job, memory_order_acquire);
    const uint64_t s = JOB_SEQ(w);
    const int tasks = JOB_TASKS(w), threads = atomic_load_explicit(&pool->threads, memory_order_relaxed);
    *seq = s;
    int ran = 0, reported_ran = 0;
    for (int k = 0; k < threads; k++) {
        const int r = self + k < threads ? self + k : self + k - threads;
        const int lo = (int)((int64_t)tasks * r / threads), hi = (int)((int64_t)tasks * (r + 1) / threads);
        atomic_uint_fast64_t *word = pool->claim + (size_t)r * (size_t)pool->stride;
        for (int task = lo; task < hi; task++, word++) {
            uint64_t v = atomic_load_explicit(word, memory_order_relaxed);
            if (v >= s ||
                !atomic_compare_exchange_strong_explicit(word, &v, s, memory_order_acq_rel, memory_order_relaxed))
                continue;
            pool->fn(pool->args, task); /* the job cannot end, nor fn or args change, while this task is unfinished */
            ran++;
        }
        /* A worker reports its own run before it looks at the others',
         * and again only if it took some of theirs: the caller waits for
         * the last report, and a look over every other run is a cache miss
         * per thread. */
        if (worker && ran > reported_ran && (k == 0 || k == threads - 1)) {
            report_ran(pool, self, s, ran);
            reported_ran = ran;
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
            if (JOB_TASKS(w) > 1) wake_some(pool, 2); /* the tree of wake-ups: see the top */
        }
        claim_and_run(pool, self, true, &seen);
    }
}

/* n rounded up to whole lines. */
static size_t whole_lines(size_t n) { return (n + LINE - 1) / LINE * LINE; }

dmls_pool *dmls_pool_create(int threads, int max_tasks) {
    if (threads < 1 || threads > 0xFFFF || max_tasks < 1 || max_tasks > 0xFFFF) return NULL;
    /* However many workers start, every run fits: thread r's run is at
     * most ceil(max_tasks / threads) words, rounded up to whole lines. */
    const int words = max_tasks + (int)LINE_WORDS * threads;
    /* One block, aligned by hand (calloc promises less than a line): the
     * pool, its claim words, then a report line per thread. */
    const size_t head = whole_lines(sizeof(dmls_pool)), claims = whole_lines((size_t)words * sizeof(atomic_uint_fast64_t));
    void *block = calloc(1, head + claims + (size_t)threads * sizeof(report) + LINE - 1);
    if (!block) return NULL;
    unsigned char *at = (unsigned char *)block + (LINE - (uintptr_t)block % LINE) % LINE;
    dmls_pool *pool = (dmls_pool *)at;
    pool->block = block;
    pool->claim = (atomic_uint_fast64_t *)(at + head);
    pool->reports = (report *)(at + head + claims);
    for (int t = 0; t < words; t++) atomic_init(&pool->claim[t], 0); /* jobs are numbered from 1 */
    for (int t = 0; t < threads; t++) atomic_init(&pool->reports[t].word, 0);
    pool->max_tasks = max_tasks;
    pool->wanted = threads;
    pool->cpus = dmls_cpu_count();
    pool->next_wakes = INT_MAX;
    pool->spin = threads <= pool->cpus;
    atomic_init(&pool->threads, threads);
    atomic_init(&pool->job, 0);
    atomic_init(&pool->sleepers, 0);
    atomic_init(&pool->waiting, 0);
    atomic_init(&pool->woken, 0);
    atomic_init(&pool->wakes, 0);
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
    free(block);
    return NULL;
}

/* Each thread's run of claim words for a pool of `threads`: the longest
 * run, ceil(max_tasks / threads), in whole lines. */
static int run_stride(const dmls_pool *pool, int threads) {
    const int longest = (pool->max_tasks + threads - 1) / threads;
    return (int)(((size_t)longest + LINE_WORDS - 1) / LINE_WORDS * LINE_WORDS);
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
    /* Workers read both only after the next job word, which publishes them. */
    pool->stride = run_stride(pool, 1 + pool->started);
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
    free(pool->block);
}

int dmls_pool_threads(const dmls_pool *pool) { return atomic_load_explicit(&pool->threads, memory_order_relaxed); }

int dmls_pool_cpus(const dmls_pool *pool) { return pool->cpus; }

void dmls_pool_limit_wakes(dmls_pool *pool, int wakes) { pool->next_wakes = wakes < 0 ? 0 : wakes; }

/* The tasks of job s that workers have reported done. */
static int reported(const dmls_pool *pool, uint64_t s) {
    int sum = 0;
    for (int i = 1; i <= pool->started; i++) {
        const uint64_t v = atomic_load_explicit(&pool->reports[i].word, memory_order_acquire);
        if (JOB_SEQ(v) == s) sum += JOB_TASKS(v);
    }
    return sum;
}

/* Waits until workers have reported `claimed` tasks of job s done. */
static void wait_done(dmls_pool *pool, uint64_t s, int claimed) {
    for (int spin = 0; pool->spin && spin < SPIN_ROUNDS; spin++) {
        if (reported(pool, s) == claimed) return;
        CPU_RELAX();
    }
    dmls_mutex_lock(&pool->mu);
    atomic_exchange_explicit(&pool->waiting, 1, memory_order_seq_cst); /* a read-modify-write: see above */
    while (reported(pool, s) != claimed) dmls_cond_wait(&pool->done_cv, &pool->mu);
    atomic_store_explicit(&pool->waiting, 0, memory_order_relaxed);
    dmls_mutex_unlock(&pool->mu);
}

void dmls_pool_run(dmls_pool *pool, void (*fn)(const void *args, int task), const void *args, size_t size, int tasks) {
    const int workers = dmls_pool_start(pool) - 1;
    /* The last two: a caller past pool.h's bounds. */
    if (workers == 0 || tasks <= 1 || tasks > pool->max_tasks || size > DMLS_POOL_ARGS) {
        for (int i = 0; i < tasks; i++) fn(args, i);
        return;
    }
    pool->fn = fn;
    if (size > 0) memcpy(pool->args, args, size); /* args may be NULL when size is 0 */
    /* Written only when they change: a worker that reports reads `waiting`
     * on the same line, which then stays in every cache from job to job. */
    const int wakes = pool->next_wakes < pool->cpus - 1 ? pool->next_wakes : pool->cpus - 1;
    if (atomic_load_explicit(&pool->woken, memory_order_relaxed) != 0)
        atomic_store_explicit(&pool->woken, 0, memory_order_relaxed);
    if (atomic_load_explicit(&pool->wakes, memory_order_relaxed) != wakes)
        atomic_store_explicit(&pool->wakes, wakes, memory_order_relaxed);
    pool->next_wakes = INT_MAX;
    const uint64_t seq = JOB_SEQ(atomic_load_explicit(&pool->job, memory_order_relaxed)) + 1;
    atomic_exchange_explicit(&pool->job, seq << 16 | (uint64_t)tasks, memory_order_seq_cst);
    wake_some(pool, 1);
    uint64_t last;
    const int mine = claim_and_run(pool, 0, false, &last);
    wait_done(pool, seq, tasks - mine);
}
