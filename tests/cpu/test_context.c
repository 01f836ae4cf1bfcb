/* Execution contexts and the thread pool under them:
 *   - DMLSLICE_THREADS, read when a context is created with 0 threads:
 *     accepted counts, and malformed values rejected with a message that
 *     quotes them;
 *   - the pool's contract (pool.h): every task exactly once, fewer tasks
 *     than threads, a one-thread pool, slow tasks shared with workers, a
 *     job limited to no wake-up running on the caller while the workers
 *     sleep, dmls_pool_run returning only when every task is done,
 *     whether the workers were spinning or asleep, a job's arguments
 *     reaching every task whole, tasks that run only when every thread
 *     of the pool runs one at once (after the workers fell asleep too),
 *     and pools whose claim words fill their block;
 *   - dmls_execute_on's own checks: a NULL operator, the binding rules
 *     before anything is written (R-X-BOUNDS), and a NULL context, which
 *     must equal dmls_execute; and shares that begin and end inside a row. */
#include <stdatomic.h>

#include "cpu/context.h"
#include "cpu/pool.h"
#include "dmlslice/dmlslice.h"
#include "platform/platform.h"
#include "support/test.h"

static void test_threads_env(void) {
    dmls_context *ctx = NULL;
    const int cpus = dmls_cpu_count();
    const int online = cpus > 1024 ? 1024 : cpus;

    dmls_env_set("DMLSLICE_THREADS", "3");
    CHECK_STATUS(dmls_context_create(0, &ctx), DMLS_OK);
    CHECK(ctx && dmls_context_threads(ctx) == 3, "DMLSLICE_THREADS=3 gave %d threads",
          ctx ? dmls_context_threads(ctx) : 0);
    dmls_context_destroy(ctx);
    /* An explicit count wins over the variable. */
    CHECK_STATUS(dmls_context_create(2, &ctx), DMLS_OK);
    CHECK(ctx && dmls_context_threads(ctx) == 2, "explicit 2 threads");
    dmls_context_destroy(ctx);
    dmls_env_set("DMLSLICE_THREADS", "1");
    CHECK_STATUS(dmls_context_create(0, &ctx), DMLS_OK);
    CHECK(ctx && dmls_context_threads(ctx) == 1, "DMLSLICE_THREADS=1");
    dmls_context_destroy(ctx);
    /* Decimal, up to 1024 (no worker starts before a copy needs it). */
    dmls_env_set("DMLSLICE_THREADS", "12");
    CHECK_STATUS(dmls_context_create(0, &ctx), DMLS_OK);
    CHECK(ctx && dmls_context_threads(ctx) == 12, "DMLSLICE_THREADS=12 gave %d threads",
          ctx ? dmls_context_threads(ctx) : 0);
    dmls_context_destroy(ctx);
    dmls_env_set("DMLSLICE_THREADS", "1024");
    CHECK_STATUS(dmls_context_create(0, &ctx), DMLS_OK);
    CHECK(ctx && dmls_context_threads(ctx) == 1024, "DMLSLICE_THREADS=1024");
    dmls_context_destroy(ctx);
    CHECK_STATUS(dmls_context_create(1024, &ctx), DMLS_OK);
    CHECK(ctx && dmls_context_threads(ctx) == 1024, "explicit 1024 threads");
    dmls_context_destroy(ctx);

    static const char *const bad[] = {"0", "-2", "1025", "abc", "3x", "2.5", "99999999999999999999"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        dmls_env_set("DMLSLICE_THREADS", bad[k]);
        ctx = (dmls_context *)&ctx;
        CHECK_STATUS(dmls_context_create(0, &ctx), DMLS_ERROR_INVALID_ARGUMENT);
        CHECK(ctx == NULL, "DMLSLICE_THREADS=%s: handle not reset to NULL", bad[k]);
        char want[96];
        snprintf(want, sizeof want, "context: DMLSLICE_THREADS='%s' is not a thread count from 1 to 1024", bad[k]);
        CHECK(strcmp(dmls_last_error(), want) == 0, "message: %s", dmls_last_error());
    }
    /* Empty or unset: one thread per online CPU. */
    dmls_env_set("DMLSLICE_THREADS", "");
    CHECK_STATUS(dmls_context_create(0, &ctx), DMLS_OK);
    CHECK(ctx && dmls_context_threads(ctx) == online, "DMLSLICE_THREADS='': %d threads, %d CPUs",
          ctx ? dmls_context_threads(ctx) : 0, online);
    dmls_context_destroy(ctx);
    dmls_env_set("DMLSLICE_THREADS", NULL);
    CHECK_STATUS(dmls_context_create(0, &ctx), DMLS_OK);
    CHECK(ctx && dmls_context_threads(ctx) == online, "unset: %d threads, %d CPUs",
          ctx ? dmls_context_threads(ctx) : 0, online);
    dmls_context_destroy(ctx);
}

/* What each task saw: how often it ran, on which thread, and (for the slow
 * variant) that it finished before dmls_pool_run returned. */
typedef struct record {
    atomic_int runs[8];
    atomic_int done[8];
    uintptr_t thread[8];
    long delay_ms;
} record;

/* The job's arguments: a pointer to the record (the pool copies them). */
static void note(const void *args, int task) {
    record *r = *(record *const *)args;
    r->thread[task] = dmls_thread_self();
    if (r->delay_ms) dmls_sleep_ms(r->delay_ms);
    atomic_fetch_add(&r->runs[task], 1);
    atomic_store(&r->done[task], 1);
}

/* Runs tasks on pool and checks every task ran once and was done on
 * return; returns how many threads ran them. */
static int run_and_check(dmls_pool *pool, int tasks, long delay_ms, const char *what) {
    record r;
    memset(&r, 0, sizeof r);
    r.delay_ms = delay_ms;
    record *rp = &r;
    dmls_pool_run(pool, note, &rp, sizeof rp, tasks);
    for (int i = 0; i < 8; i++) {
        int want = i < tasks ? 1 : 0;
        CHECK(atomic_load(&r.runs[i]) == want && atomic_load(&r.done[i]) == want,
              "%s: task %d ran %d times (want %d) or was not done on return", what, i, atomic_load(&r.runs[i]), want);
    }
    int distinct = 0;
    for (int i = 0; i < tasks; i++) {
        bool seen = false;
        for (int j = 0; j < i; j++) seen |= r.thread[j] == r.thread[i];
        distinct += !seen;
    }
    if (tasks == 1) CHECK(r.thread[0] == dmls_thread_self(), "%s: a lone task not on the caller", what);
    return distinct;
}

static void test_pool(void) {
    CHECK(dmls_pool_create(0, 8) == NULL && dmls_pool_create(-1, 8) == NULL, "a pool of fewer than 1 thread was made");
    CHECK(dmls_pool_create(2, 0) == NULL && dmls_pool_create(2, 65536) == NULL, "a pool for 0 or 65,536 tasks");
    CHECK(dmls_pool_create(65536, 8) == NULL, "a pool of 65,536 threads was made");
    /* The bounds themselves are accepted (no worker starts before a job). */
    const int edges[3][2] = {{65535, 8}, {2, 1}, {2, 65535}};
    for (int k = 0; k < 3; k++) {
        dmls_pool *edge = dmls_pool_create(edges[k][0], edges[k][1]);
        CHECK(edge != NULL, "a pool of %d threads for %d tasks was refused", edges[k][0], edges[k][1]);
        dmls_pool_destroy(edge);
    }

    dmls_pool *one = dmls_pool_create(1, 8);
    CHECK(one != NULL && dmls_pool_threads(one) == 1, "one-thread pool");
    if (one) {
        run_and_check(one, 1, 0, "one thread, one task");
        run_and_check(one, 0, 0, "one thread, no task");
        dmls_pool_destroy(one);
    }

    dmls_pool *pool = dmls_pool_create(4, 8);
    CHECK(pool != NULL && dmls_pool_threads(pool) == 4, "four-thread pool");
    if (!pool) return;
    for (int round = 0; round < 50; round++) run_and_check(pool, 4, 0, "back to back, 4 tasks");
    /* Jobs of changing sizes back to back: each task's claim word must be
     * open for its own job only (a word left open by a smaller job, or
     * claimed for an earlier one, would run a task twice or never). */
    for (int round = 0; round < 200; round++) run_and_check(pool, (round * 5) % 9, 0, "back to back, 0 to 8 tasks");
    run_and_check(pool, 3, 0, "3 tasks on 4 threads");
    run_and_check(pool, 2, 0, "2 tasks on 4 threads");
    run_and_check(pool, 1, 0, "1 task on 4 threads: the caller alone");
    run_and_check(pool, 0, 0, "no task");
    /* Workers asleep: they stop spinning after a while without a job. */
    for (int round = 0; round < 3; round++) {
        dmls_sleep_ms(50);
        run_and_check(pool, 4, 0, "after an idle pause");
    }
    /* Slow tasks: the caller finishes first and must wait for the workers. */
    if (dmls_pool_cpus(pool) >= 2) {
        int threads = run_and_check(pool, 4, 30, "slow tasks");
        CHECK(threads >= 2, "slow tasks: all 4 on %d thread, none on a woken worker", threads);
    }
    /* Asleep and allowed no wake-up: the caller runs the job alone rather
     * than wait for a worker (a tiny batch, batch_run.c). A negative limit
     * is none too. */
    const int no_wakes[2] = {0, -3};
    for (int k = 0; k < 2; k++) {
        dmls_sleep_ms(50);
        dmls_pool_limit_wakes(pool, no_wakes[k]);
        record r;
        memset(&r, 0, sizeof r);
        r.delay_ms = 20; /* slow enough that a woken worker would take a task */
        record *rp = &r;
        dmls_pool_run(pool, note, &rp, sizeof rp, 4);
        for (int i = 0; i < 4; i++)
            CHECK(r.thread[i] == dmls_thread_self() && atomic_load(&r.runs[i]) == 1,
                  "wake-ups limited to %d: task %d ran %d times, on a worker %d", no_wakes[k], i,
                  atomic_load(&r.runs[i]), r.thread[i] != dmls_thread_self());
    }
    /* The limit holds for one job: the next wakes workers again. */
    dmls_sleep_ms(50);
    if (dmls_pool_cpus(pool) >= 2) {
        int threads = run_and_check(pool, 4, 30, "slow tasks after a limited job");
        CHECK(threads >= 2, "after a limited job: all 4 tasks on %d thread", threads);
    }
    dmls_pool_destroy(pool);
    dmls_pool_destroy(NULL);

    /* A pool no larger than the CPUs: its caller waits by polling the
     * workers' reports before it sleeps, and must not return while a
     * worker still runs a task (the job before wakes the worker, so it
     * claims its share of the slow one at once). */
    dmls_pool *two = dmls_pool_create(2, 8);
    if (two && dmls_pool_cpus(two) >= 2)
        for (int round = 0; round < 3; round++) {
            run_and_check(two, 2, 0, "a job that wakes the worker");
            run_and_check(two, 4, 20, "slow tasks, the caller polling");
        }
    dmls_pool_destroy(two);

    /* Exactly as many tasks as the pool was made for: shared by the
     * workers, as any job is. */
    dmls_pool *exact = dmls_pool_create(4, 4);
    if (exact && dmls_pool_cpus(exact) >= 2) {
        int threads = run_and_check(exact, 4, 30, "4 slow tasks on a pool made for 4");
        CHECK(threads >= 2, "4 slow tasks on a pool made for 4: all on %d thread", threads);
    }
    dmls_pool_destroy(exact);

    /* More tasks than the pool was made for: all run, on the caller. */
    dmls_pool *small = dmls_pool_create(4, 2);
    if (small) {
        record big;
        memset(&big, 0, sizeof big);
        record *bp = &big;
        dmls_pool_run(small, note, &bp, sizeof bp, 6);
        for (int i = 0; i < 6; i++)
            CHECK(atomic_load(&big.runs[i]) == 1 && big.thread[i] == dmls_thread_self(),
                  "6 tasks on a pool made for 2: task %d ran %d times", i, atomic_load(&big.runs[i]));
        dmls_pool_destroy(small);
    }
}

/* A job's arguments as fn sees them: a pointer to these counts first, then
 * bytes i = 7i + 1 up to the job's size. */
typedef struct args_seen {
    size_t size;
    long delay_ms;
    atomic_int tasks, wrong_bytes, on_worker;
    uintptr_t caller;
} args_seen;

static void check_args(const void *args, int task) {
    (void)task;
    const unsigned char *a = args;
    args_seen *seen;
    memcpy(&seen, a, sizeof seen);
    for (size_t i = sizeof seen; i < seen->size; i++)
        if (a[i] != (unsigned char)(7 * i + 1)) atomic_fetch_add(&seen->wrong_bytes, 1);
    if (dmls_thread_self() != seen->caller) atomic_fetch_add(&seen->on_worker, 1);
    if (seen->delay_ms) dmls_sleep_ms(seen->delay_ms);
    atomic_fetch_add(&seen->tasks, 1);
}

/* Runs 20 jobs of 8 tasks (each delay_ms long) with `size` bytes of
 * arguments; returns how many tasks ran on a worker, after checking each
 * task saw every byte. */
static int run_with_args(dmls_pool *pool, size_t size, long delay_ms) {
    unsigned char blob[DMLS_POOL_ARGS + 8];
    args_seen seen;
    memset(&seen, 0, sizeof seen);
    seen.size = size;
    seen.delay_ms = delay_ms;
    seen.caller = dmls_thread_self();
    args_seen *sp = &seen;
    memcpy(blob, &sp, sizeof sp);
    for (size_t i = sizeof sp; i < sizeof blob; i++) blob[i] = (unsigned char)(7 * i + 1);
    for (int round = 0; round < 20; round++) dmls_pool_run(pool, check_args, blob, size, 8);
    CHECK(atomic_load(&seen.tasks) == 160 && atomic_load(&seen.wrong_bytes) == 0,
          "%zu bytes of arguments: %d of 160 tasks ran, %d bytes seen wrong", size, atomic_load(&seen.tasks),
          atomic_load(&seen.wrong_bytes));
    return atomic_load(&seen.on_worker);
}

/* A job whose arguments are the one byte one_byte_want holds. */
static atomic_int one_byte_want, one_byte_wrong;

static void check_one_byte(const void *args, int task) {
    (void)task;
    if (*(const unsigned char *)args != atomic_load(&one_byte_want)) atomic_fetch_add(&one_byte_wrong, 1);
}

/* The pool copies a job's arguments next to its job word (pool.h): every
 * byte up to DMLS_POOL_ARGS reaches every task, on any thread; a larger
 * set (a caller past pool.h's bound) is never copied, and the job runs on
 * the caller with the caller's bytes. */
static void test_pool_args(void) {
    dmls_pool *pool = dmls_pool_create(4, 8);
    CHECK(pool != NULL, "pool of 4 for 8 tasks");
    if (pool == NULL) return;
    /* Slow tasks, so that workers run some (where there is a CPU for them). */
    const int on_workers = run_with_args(pool, DMLS_POOL_ARGS, 1);
    CHECK(on_workers > 0 || dmls_pool_cpus(pool) < 2, "%d bytes of arguments: no task ran on a worker", DMLS_POOL_ARGS);
    run_with_args(pool, sizeof(args_seen *) + 1, 0);
    /* One byte, a new value each job: every task sees this job's. */
    for (int job = 0; job < 20; job++) {
        const unsigned char byte = (unsigned char)(37 * job + 1);
        atomic_store(&one_byte_want, byte);
        dmls_pool_run(pool, check_one_byte, &byte, 1, 8);
    }
    CHECK(atomic_load(&one_byte_wrong) == 0, "1 byte of arguments: %d tasks saw another", atomic_load(&one_byte_wrong));
    CHECK(run_with_args(pool, DMLS_POOL_ARGS + 8, 0) == 0, "arguments past DMLS_POOL_ARGS: tasks ran on a worker");
    dmls_pool_destroy(pool);
}

/* Tasks that wait for each other: each returns once all `want` of them
 * have started, or after 10 s (counted as missed). Only a job whose tasks
 * run on `want` threads at once finishes without a miss, so a pool that
 * left a task to the caller, or a worker asleep, shows up as a miss. */
typedef struct meeting {
    int want;
    atomic_int started, missed;
} meeting;

static void meet(const void *args, int task) {
    (void)task;
    meeting *m = *(meeting *const *)args;
    atomic_fetch_add(&m->started, 1);
    for (int ms = 0; atomic_load(&m->started) < m->want; ms++) {
        if (ms == 10000) {
            atomic_fetch_add(&m->missed, 1);
            return;
        }
        dmls_sleep_ms(1);
    }
}

/* Runs `tasks` meeting tasks on pool, at most `wakes` wake-ups allowed
 * (< 0: no limit); returns how many missed. */
static int run_meeting(dmls_pool *pool, int tasks, int wakes) {
    meeting m;
    m.want = tasks;
    atomic_init(&m.started, 0);
    atomic_init(&m.missed, 0);
    meeting *mp = &m;
    if (wakes >= 0) dmls_pool_limit_wakes(pool, wakes);
    dmls_pool_run(pool, meet, &mp, sizeof mp, tasks);
    return atomic_load(&m.missed);
}

/* Workers run tasks, whether polling or asleep: two threads' tasks that
 * meet, on a two-thread pool whose one wake-up a job allows must be spent
 * again on every job; then a thread per CPU, which only the tree of
 * wake-ups (the caller wakes one worker, each woken one two more) gets all
 * awake. */
static void test_pool_meetings(void) {
    dmls_pool *two = dmls_pool_create(2, 8);
    CHECK(two != NULL, "pool of 2 for 8 tasks");
    if (two && dmls_pool_cpus(two) >= 2)
        for (int round = 0; round < 4; round++) {
            if (round > 0) dmls_sleep_ms(50); /* the worker falls asleep */
            const int missed = run_meeting(two, 2, 1);
            CHECK(missed == 0, "2 threads' tasks on a 2-thread pool, one wake-up allowed (round %d): %d missed", round,
                  missed);
        }
    dmls_pool_destroy(two);

    /* As many threads as CPUs (up to 64), all asleep: the caller's one
     * wake-up and the tree must reach every worker, within the limit of
     * one wake-up per CPU beside the caller's. */
    const int cpus = dmls_cpu_count(), n = cpus < 64 ? cpus : 64;
    dmls_pool *all = n >= 2 ? dmls_pool_create(n, n) : NULL;
    if (all)
        for (int round = 0; round < 3; round++) {
            dmls_sleep_ms(50);
            const int missed = run_meeting(all, n, -1);
            CHECK(missed == 0, "%d threads' tasks on %d sleeping threads (round %d): %d missed", n, n, round, missed);
        }
    dmls_pool_destroy(all);
}

/* Every task of a job runs once, on pools whose claim words fill their
 * block to its last lines: 65 threads and jobs of 977 to 992 tasks give
 * the last thread a run that ends in the block's last line, and a run laid
 * out one line too far would claim from worker 1's report line after it.
 * That breaks a job only after worker 1 has reported, which needs it awake
 * (a machine with CPUs for several workers): ten jobs a pool. */
typedef struct tally {
    atomic_int runs[1024];
} tally;

static void count_task(const void *args, int task) {
    tally *t = *(tally *const *)args;
    atomic_fetch_add(&t->runs[task], 1);
}

static void test_pool_wide(void) {
    static tally t;
    for (int tasks = 977; tasks <= 992; tasks += 5) {
        dmls_pool *pool = dmls_pool_create(65, tasks);
        CHECK(pool != NULL, "pool of 65 for %d tasks", tasks);
        if (pool == NULL) continue;
        for (int job = 1; job <= 10; job++) {
            for (int i = 0; i < tasks; i++) atomic_store(&t.runs[i], 0);
            tally *tp = &t;
            dmls_pool_run(pool, count_task, &tp, sizeof tp, tasks);
            int wrong = 0, first = -1;
            for (int i = 0; i < tasks; i++)
                if (atomic_load(&t.runs[i]) != 1 && wrong++ == 0) first = i;
            CHECK(wrong == 0, "65 threads, job %d of %d tasks: %d tasks not run once (first: task %d, %d times)", job,
                  tasks, wrong, first, first >= 0 ? atomic_load(&t.runs[first]) : 0);
        }
        dmls_pool_destroy(pool);
    }
}

static void test_execute_on(void) {
    dmls_context *ctx = NULL;
    CHECK_STATUS(dmls_context_create(2, &ctx), DMLS_OK);
    if (!ctx) return;
    dmls_context_set_parallel_min_bytes(ctx, 0); /* cut even small copies */
    unsigned char in[8 * 64], out[4 * 64], ref[4 * 64];
    test_fill_random(in, sizeof in);

    CHECK_STATUS(dmls_execute_on(NULL, ctx, in, sizeof in, out, sizeof out), DMLS_ERROR_INVALID_ARGUMENT);
    CHECK(strcmp(dmls_last_error(), "execute: operator is NULL") == 0, "message: %s", dmls_last_error());

    /* SLICE_GRAD of rows 1, 3, 5, 7 of an 8x64 uint8 gradient, reversed. */
    int64_t small[2] = {4, 64}, big[2] = {8, 64}, off[2] = {1, 0}, size[2] = {7, 64}, step[2] = {2, -1};
    dmls_tensor ts = {DMLS_UINT8, 2, small, NULL, 0}, tb = {DMLS_UINT8, 2, big, NULL, 0};
    dmls_window w = {off, size, step};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_grad(&ts, &tb, &w, &op), DMLS_OK);
    if (op) {
        unsigned char grad_out[8 * 64], grad_ref[8 * 64];
        memset(grad_out, 0x5A, sizeof grad_out);
        CHECK_STATUS(dmls_execute_on(op, ctx, in, 4 * 64, grad_out, 8 * 64 - 1), DMLS_ERROR_BUFFER_TOO_SMALL);
        CHECK_MESSAGE("R-X-BOUNDS", "slice_grad: output buffer holds 511 bytes but the output tensor needs 512");
        bool untouched = true;
        for (size_t i = 0; i < sizeof grad_out; i++) untouched &= grad_out[i] == 0x5A;
        CHECK(untouched, "a failed execute_on wrote its output");
        CHECK_STATUS(dmls_execute_reference(op, in, 4 * 64, grad_ref, sizeof grad_ref), DMLS_OK);
        CHECK_STATUS(dmls_execute_on(op, ctx, in, 4 * 64, grad_out, sizeof grad_out), DMLS_OK);
        CHECK(memcmp(grad_out, grad_ref, sizeof grad_ref) == 0, "SLICE_GRAD on 2 threads differs from the reference");
        memset(grad_out, 0x5A, sizeof grad_out);
        CHECK_STATUS(dmls_execute_on(op, NULL, in, 4 * 64, grad_out, sizeof grad_out), DMLS_OK);
        CHECK(memcmp(grad_out, grad_ref, sizeof grad_ref) == 0, "SLICE_GRAD with no context differs");
        dmls_destroy(op);
    }
    /* The forward slice with no context. */
    CHECK_STATUS(dmls_create(&tb, &ts, &w, &op), DMLS_OK);
    if (op) {
        CHECK_STATUS(dmls_execute_reference(op, in, sizeof in, ref, sizeof ref), DMLS_OK);
        memset(out, 0, sizeof out);
        CHECK_STATUS(dmls_execute_on(op, NULL, in, sizeof in, out, sizeof out), DMLS_OK);
        CHECK(memcmp(out, ref, sizeof ref) == 0, "execute_on with no context differs from the reference");
        CHECK(out[0] == in[64 + 63] && out[63] == in[64], "row 1 reversed");
        dmls_destroy(op);
    }
    /* Rows over 64 KiB are cut inside a row: shares of 3 threads over two
     * rows of 70000 bytes start and end mid-row, and still give the
     * reference's bytes, with the bytes around the output untouched. */
    dmls_context *three = NULL;
    CHECK_STATUS(dmls_context_create(3, &three), DMLS_OK);
    int64_t long_in[2] = {2, 70003}, long_out[2] = {2, 70000}, long_off[2] = {0, 2}, long_size[2] = {2, 70000};
    int64_t unit[2] = {1, 1};
    dmls_tensor li = {DMLS_UINT8, 2, long_in, NULL, 0}, lo = {DMLS_UINT8, 2, long_out, NULL, 0};
    dmls_window lw = {long_off, long_size, unit};
    if (three) dmls_context_set_parallel_min_bytes(three, 0);
    CHECK_STATUS(dmls_create(&li, &lo, &lw, &op), DMLS_OK);
    if (op && three) {
        unsigned char *x = malloc(2 * 70003), *y = malloc(140000 + 2), *r = malloc(140000 + 2);
        test_fill_random(x, 2 * 70003);
        memset(y, 0xEE, 140002), memset(r, 0xEE, 140002);
        CHECK_STATUS(dmls_execute_reference(op, x, 2 * 70003, r, 140000), DMLS_OK);
        CHECK_STATUS(dmls_execute_on(op, three, x, 2 * 70003, y, 140000), DMLS_OK);
        CHECK(memcmp(y, r, 140002) == 0, "long rows on 3 threads differ from the reference");
        CHECK(y[0] == x[2] && y[70000] == x[70003 + 2] && y[139999] == x[2 * 70003 - 2], "long rows misplaced");
        free(x), free(y), free(r);
    }
    dmls_destroy(op);
    dmls_context_destroy(three);
    dmls_context_destroy(ctx);
}

int main(void) {
    test_seed_rng();
    test_threads_env();
    test_pool();
    test_pool_args();
    test_pool_meetings();
    test_pool_wide();
    test_execute_on();
    TEST_MAIN_END();
}
