/* Resource failures, injected: this program is linked with the GNU linker's
 * --wrap for malloc, calloc, pthread_create, pthread_mutex_init and
 * pthread_cond_init, so every such call the library makes goes through the
 * wrappers below. Each public call that acquires resources is run again and
 * again, failing its 1st, 2nd, 3rd ... acquisition, until a run needs no
 * more than it got. Every failed run must return DMLS_ERROR_OUT_OF_MEMORY
 * with a message and no rule, leave the result handle NULL, write no output,
 * and release what it had taken (the sanitizer builds check for leaks and
 * for threads left running); the final run must succeed.
 *
 * A context starts no thread at create: its workers start at the first
 * execute that shares a copy. There a failed start is no error: the copy
 * runs on the caller and the workers that did start, and the context keeps
 * that smaller count (dmls_context_create in dmlslice.h). */
#include <errno.h>
#include <pthread.h>

#include <stdatomic.h>

#include "cpu/context.h" /* dmls_context_set_parallel_min_bytes */
#include "cpu/pool.h"
#include "dmlslice/batch.h"
#include "dmlslice/dml.h"
#include "support/test.h"

/* ------------------------------------------------------------ injection */

static bool armed;    /* count acquisitions only inside the call under test */
static int countdown; /* the acquisition that fails: 1 = the next one */
static int taken;     /* acquisitions seen while armed */
static bool fired;

static bool fail_now(void) {
    if (!armed) return false;
    taken++;
    if (--countdown != 0) return false;
    fired = true;
    return true;
}

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
int __real_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);
int __real_pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr);
int __real_pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr);

void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t count, size_t size);
int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);
int __wrap_pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr);
int __wrap_pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr);

void *__wrap_malloc(size_t size) { return fail_now() ? NULL : __real_malloc(size); }
void *__wrap_calloc(size_t count, size_t size) { return fail_now() ? NULL : __real_calloc(count, size); }
int __wrap_pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg) {
    return fail_now() ? EAGAIN : __real_pthread_create(thread, attr, start, arg);
}
int __wrap_pthread_mutex_init(pthread_mutex_t *mutex, const pthread_mutexattr_t *attr) {
    return fail_now() ? ENOMEM : __real_pthread_mutex_init(mutex, attr);
}
int __wrap_pthread_cond_init(pthread_cond_t *cond, const pthread_condattr_t *attr) {
    return fail_now() ? ENOMEM : __real_pthread_cond_init(cond, attr);
}

/* ------------------------------------------------------------ the sweep */

/* One attempt of the call under test: returns its status, and on failure
 * checks its own postconditions (handle NULL, nothing written). */
typedef dmls_status (*attempt_fn)(void);

/* Fails each acquisition of attempt in turn. Returns how many acquisitions a
 * successful run makes; per_fragment[f] counts the failures whose message
 * contains fragments[f], and each failure must contain one of them. */
static int sweep(const char *what, attempt_fn attempt, const char *const *fragments, int n_fragments,
                 int *per_fragment) {
    for (int k = 1; k <= 200; k++) {
        countdown = k, taken = 0, fired = false, armed = true;
        dmls_status s = attempt();
        armed = false;
        if (!fired) {
            CHECK(s == DMLS_OK, "%s: with no failure injected: %s (%s)", what, dmls_status_name(s), dmls_last_error());
            printf("%s: %d acquisitions, each failed in turn\n", what, taken);
            return taken;
        }
        CHECK(s == DMLS_ERROR_OUT_OF_MEMORY, "%s, acquisition %d failed: %s (%s)", what, k, dmls_status_name(s),
              dmls_last_error());
        CHECK(dmls_last_error_rule()[0] == '\0', "%s, acquisition %d: rule %s", what, k, dmls_last_error_rule());
        bool named = false;
        for (int f = 0; f < n_fragments; f++)
            if (strstr(dmls_last_error(), fragments[f]) != NULL) per_fragment[f]++, named = true;
        CHECK(named, "%s, acquisition %d: unexpected message: %s", what, k, dmls_last_error());
    }
    CHECK(false, "%s: still failing after 200 acquisitions", what);
    return -1;
}

/* ------------------------------------------------------------ the calls */

static dmls_context *ctx;

static dmls_status context_attempt(void) {
    ctx = (dmls_context *)&ctx;
    dmls_status s = dmls_context_create(4, &ctx);
    if (s != DMLS_OK) CHECK(ctx == NULL, "a failed context create left a handle");
    return s;
}

static int64_t in_shape[2] = {4, 4}, out_shape[2] = {2, 2}, off[2] = {0, 1}, size[2] = {4, 3}, step[2] = {2, 2};
static _Alignas(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) const float input[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static _Alignas(DML_MINIMUM_BUFFER_TENSOR_ALIGNMENT) float output[4];

/* dmls_create, or dmls_create_grad on the same two tensors turned round. */
static dmls_status create_attempt(bool grad) {
    dmls_tensor big = {DMLS_FLOAT32, 2, in_shape, NULL, 0}, small = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {off, size, step};
    dmls_operator *op = (dmls_operator *)&op;
    dmls_status s = grad ? dmls_create_grad(&small, &big, &w, &op) : dmls_create(&big, &small, &w, &op);
    if (s != DMLS_OK) CHECK(op == NULL, "a failed %s left a handle", grad ? "create_grad" : "create");
    dmls_destroy(op);
    return s;
}
static dmls_status native_attempt(void) { return create_attempt(false); }
static dmls_status grad_attempt(void) { return create_attempt(true); }

static UINT dml_in[4] = {1, 1, 4, 4}, dml_out[4] = {1, 1, 2, 2}, dml_off[4] = {0, 0, 0, 1}, dml_size[4] = {1, 1, 4, 3};
static INT dml_step[4] = {1, 1, 2, 2};

static dmls_status dml_attempt(void) {
    DML_BUFFER_TENSOR_DESC ib = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, dml_in, NULL, 64, 0};
    DML_BUFFER_TENSOR_DESC ob = {DML_TENSOR_DATA_TYPE_FLOAT32, DML_TENSOR_FLAG_NONE, 4, dml_out, NULL, 16, 0};
    DML_TENSOR_DESC it = {DML_TENSOR_TYPE_BUFFER, &ib}, ot = {DML_TENSOR_TYPE_BUFFER, &ob};
    DML_SLICE1_OPERATOR_DESC d = {&it, &ot, 4, dml_off, dml_size, dml_step};
    DML_OPERATOR_DESC desc = {DML_OPERATOR_SLICE1, &d};
    for (int i = 0; i < 4; i++) output[i] = -1;
    dmls_status s = dmls_slice_dml(&desc, DML_FEATURE_LEVEL_4_1, input, sizeof input, output, sizeof output);
    if (s != DMLS_OK)
        CHECK(output[0] == -1 && output[3] == -1, "a failed dmls_slice_dml wrote its output");
    else
        CHECK(output[0] == 2 && output[1] == 4 && output[2] == 10 && output[3] == 12, "dmls_slice_dml result");
    return s;
}

static dmls_status one_shot_attempt(void) {
    dmls_tensor in = {DMLS_FLOAT32, 2, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {off, size, step};
    for (int i = 0; i < 4; i++) output[i] = -1;
    dmls_status s = dmls_slice(&in, input, sizeof input, &out, output, sizeof output, &w);
    if (s != DMLS_OK)
        CHECK(output[0] == -1 && output[3] == -1, "a failed dmls_slice wrote its output");
    else
        CHECK(output[0] == 2 && output[1] == 4 && output[2] == 10 && output[3] == 12, "dmls_slice result");
    return s;
}

/* Three 2x2 crops of the 4x4 input, stacked: the batch's operator array and
 * its item array are its first two acquisitions. */
static int64_t crop_size[2] = {2, 2}, crop_starts[3][2] = {{0, 0}, {2, 1}, {1, 2}};
static int crops_own_failures; /* failures of the crops' own two arrays */

static dmls_status crops_attempt(void) {
    dmls_tensor in = {DMLS_FLOAT32, 2, in_shape, NULL, 0};
    dmls_batch *b = (dmls_batch *)&b;
    dmls_status s = dmls_batch_create_crops(&in, crop_size, 3, crop_starts, DMLS_STARTS_INT64, &b);
    if (s != DMLS_OK) {
        CHECK(b == NULL, "a failed crops create left a handle");
        crops_own_failures += strcmp(dmls_last_error(), "crops: out of memory") == 0;
        return s;
    }
    float stacked[12];
    dmls_batch_input bin = {input, sizeof input};
    dmls_batch_output bout = {stacked, sizeof stacked};
    CHECK_STATUS(dmls_batch_execute(b, NULL, &bin, 1, &bout, 1), DMLS_OK);
    CHECK(stacked[0] == 1 && stacked[3] == 6 && stacked[4] == 10 && stacked[11] == 12, "crops result");
    dmls_batch_destroy(b);
    return s;
}

/* The first shared execute on a fresh 4-thread context, failing each worker
 * start (its start record, then its thread) in turn: every run succeeds with
 * the right output, and the context goes on with the caller plus the workers
 * started before the failure, without trying again. */
static void test_worker_start_failures(void) {
    dmls_tensor in = {DMLS_FLOAT32, 2, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {off, size, step};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    if (op == NULL) return;
    for (int k = 1; k <= 50; k++) {
        dmls_context *c = NULL;
        CHECK_STATUS(dmls_context_create(4, &c), DMLS_OK);
        if (c == NULL) break;
        CHECK(dmls_context_threads(c) == 4, "a new context has %d threads", dmls_context_threads(c));
        dmls_context_set_parallel_min_bytes(c, 0); /* share even this small copy */
        for (int i = 0; i < 4; i++) output[i] = -1;
        countdown = k, taken = 0, fired = false, armed = true;
        dmls_status s = dmls_execute_on(op, c, input, sizeof input, output, sizeof output);
        armed = false;
        const bool failed = fired;
        CHECK(s == DMLS_OK, "worker start failure %d: %s (%s)", k, dmls_status_name(s), dmls_last_error());
        CHECK(output[0] == 2 && output[1] == 4 && output[2] == 10 && output[3] == 12,
              "worker start failure %d: wrong output", k);
        /* Acquisition 2i-1 is worker i's start record, 2i its thread. */
        const int expect = failed ? 1 + (k - 1) / 2 : 4;
        CHECK(dmls_context_threads(c) == expect, "worker start failure %d: %d threads, expected %d", k,
              dmls_context_threads(c), expect);
        countdown = 1, taken = 0, fired = false, armed = true; /* a later execute starts nothing */
        for (int i = 0; i < 4; i++) output[i] = -1;
        s = dmls_execute_on(op, c, input, sizeof input, output, sizeof output);
        armed = false;
        CHECK(s == DMLS_OK && taken == 0, "worker start failure %d: the second execute acquired %d", k, taken);
        CHECK(output[0] == 2 && output[3] == 12, "worker start failure %d: second execute output", k);
        dmls_context_destroy(c);
        if (!failed) {
            printf("first shared execute on 4 threads: %d acquisitions, each failed in turn\n", k - 1);
            CHECK(k - 1 == 6, "the workers' start took %d acquisitions, expected 6", k - 1);
            break;
        }
    }
    dmls_destroy(op);
}

/* A context asked for 200 threads starts none of them for a copy it never
 * shares, so a process that could not start them still runs it. */
static void test_many_threads_unshared(void) {
    dmls_tensor in = {DMLS_FLOAT32, 2, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
    dmls_window w = {off, size, step};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    dmls_context *c = NULL;
    countdown = 1000000, taken = 0, fired = false, armed = true; /* count only */
    CHECK_STATUS(dmls_context_create(200, &c), DMLS_OK);
    CHECK_STATUS(dmls_execute_on(op, c, input, sizeof input, output, sizeof output), DMLS_OK);
    armed = false;
    CHECK(output[0] == 2 && output[3] == 12, "200-thread context: output");
    CHECK(taken <= 9, "a 200-thread context and an unshared copy acquired %d resources", taken);
    CHECK(dmls_context_threads(c) == 200, "threads %d", dmls_context_threads(c));
    dmls_context_destroy(c);
    dmls_destroy(op);
}

/* A pool that started fewer workers than it was made for still runs jobs of
 * up to its max_tasks, each task once: its runs of claim words are laid out
 * for the threads it has (pool.c; the sanitizer builds check the words'
 * bounds). */
static atomic_int pool_runs[64], pool_strays;
static int pool_tasks; /* the current job's */
static void count_task(const void *args, int task) {
    (void)args;
    if (task < 0 || task >= pool_tasks)
        atomic_fetch_add(&pool_strays, 1); /* a task the job does not have */
    else
        atomic_fetch_add(&pool_runs[task], 1);
}

static void test_pool_short_of_workers(void) {
    for (int k = 1; k <= 7; k++) { /* acquisition 2i-1 is worker i's start record, 2i its thread */
        dmls_pool *p = dmls_pool_create(4, 64);
        CHECK(p != NULL, "pool of 4 threads for 64 tasks");
        if (p == NULL) return;
        countdown = k, taken = 0, fired = false, armed = true;
        const int threads = dmls_pool_start(p);
        armed = false;
        CHECK(threads == (fired ? 1 + (k - 1) / 2 : 4), "start failure %d: %d threads", k, threads);
        for (int round = 0; round < 40; round++) {
            const int tasks = round % 2 ? 64 : 1 + round * 3 % 64;
            for (int t = 0; t < 64; t++) atomic_store(&pool_runs[t], 0);
            atomic_store(&pool_strays, 0);
            pool_tasks = tasks;
            dmls_pool_run(p, count_task, NULL, 0, tasks);
            CHECK(atomic_load(&pool_strays) == 0, "%d threads, %d tasks: %d tasks out of range ran", threads, tasks,
                  atomic_load(&pool_strays));
            for (int t = 0; t < 64; t++)
                CHECK(atomic_load(&pool_runs[t]) == (t < tasks), "%d threads, %d tasks: task %d ran %d times", threads,
                      tasks, t, atomic_load(&pool_runs[t]));
        }
        dmls_pool_destroy(p);
    }
}

int main(void) {
    int counts[1] = {0};
    static const char *const ctx_msgs[] = {"context: out of memory"};
    int n = sweep("dmls_context_create(4)", context_attempt, ctx_msgs, 1, counts);
    /* The context, its splits and its lock; the pool (one block with its
     * claim words and reports), its lock, its two conditions and its
     * worker array. No thread: they start when needed. */
    CHECK(n == 8, "dmls_context_create(4) acquired %d resources, expected 8", n);
    CHECK(counts[0] > 0, "no failure reported");
    test_worker_start_failures();
    test_many_threads_unshared();
    test_pool_short_of_workers();
    if (ctx) {
        /* The context that finally came up works. */
        dmls_tensor in = {DMLS_FLOAT32, 2, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 2, out_shape, NULL, 0};
        dmls_window w = {off, size, step};
        dmls_operator *op = NULL;
        CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
        if (op) {
            CHECK_STATUS(dmls_execute_on(op, ctx, input, sizeof input, output, sizeof output), DMLS_OK);
            CHECK(output[0] == 2 && output[3] == 12, "execute_on after the sweep");
            dmls_destroy(op);
        }
        CHECK(dmls_context_threads(ctx) == 4, "threads %d", dmls_context_threads(ctx));
        dmls_context_destroy(ctx);
    }

    /* Each create fails once at least, naming what it was creating. */
    static const struct {
        const char *what;
        attempt_fn attempt;
        const char *message;
    } creates[] = {
        {"dmls_create", native_attempt, "slice: out of memory creating the operator"},
        {"dmls_create_grad", grad_attempt, "slice_grad: out of memory creating the operator"},
        {"dmls_slice_dml", dml_attempt, "SLICE1: out of memory creating the operator"},
        {"dmls_slice", one_shot_attempt, "slice: out of memory creating the operator"},
    };
    int c;
    for (size_t k = 0; k < sizeof creates / sizeof creates[0]; k++) {
        c = 0;
        sweep(creates[k].what, creates[k].attempt, &creates[k].message, 1, &c);
        CHECK(c >= 1, "%s never failed", creates[k].what);
    }
    /* The allocation check of dmls_batch_create_crops: its operator array
     * and its item array each fail once, and each is reported as such. */
    static const char *const crops_msgs[] = {"out of memory"};
    c = 0;
    sweep("dmls_batch_create_crops", crops_attempt, crops_msgs, 1, &c);
    CHECK(crops_own_failures == 2, "crops: %d failures of its own arrays reported, expected 2", crops_own_failures);
    TEST_MAIN_END();
}
