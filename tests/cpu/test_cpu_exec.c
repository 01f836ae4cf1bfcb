/* The CPU executor's and pool's own decisions, seen from outside the
 * output, which stays right whichever way they go (mutation testing found
 * each free to change; docs/mutation.md):
 *   - when a copy or SLICE_GRAD's zero fill is handed to the pool (the
 *     default 512 KiB threshold, a threshold met exactly, empty copies and
 *     fills, a one-element fill);
 *   - how dmls_cpu_run_range calls the row kernel (a tile of rows per call,
 *     nothing for an empty or inverted range) and fences streaming stores;
 *   - dmls_cpu_fill_zero_range over a share that starts inside the fill or
 *     runs past its end;
 *   - the pool: task i on worker i, every started worker joined, the
 *     allocations of a context and its pool;
 *   - the CPU feature detection's fallbacks: an unknown cache size (argument
 *     "cache N": dmls_cpu_cache_bytes answers N) and a disable list read to
 *     its terminator only (argument "list-end").
 * Everything is observed through the GNU linker's --wrap (tests/cpu/
 * CMakeLists.txt): dmls_pool_run (recorded, tasks run one by one on this
 * thread, or passed through), dmls_cpu_store_fence, dmls_thread_join,
 * calloc and dmls_cpu_cache_bytes. Reads internal headers. */
#define _XOPEN_SOURCE 700 /* putenv */
#include <stdbool.h>
#include <stdlib.h>

#include "cpu/context.h"
#include "dmlslice/batch.h"
#include "cpu/execute.h"
#include "cpu/features.h"
#include "cpu/kernels.h"
#include "cpu/pool.h"
#include "cpu/prepare.h"
#include "operator.h"
#include "platform/platform.h"
#include "support/native_op.h"
#include "support/test.h"

/* ------------------------------------------------------------ the wrappers */

/* dmls_pool_run: recorded (jobs and their task counts, tasks run here in
 * order) unless passing through to the real pool. */
static bool pass_through;
static int jobs, job_tasks[8];
void __real_dmls_pool_run(dmls_pool *pool, void (*fn)(const void *args, int task), const void *args, size_t size,
                          int tasks);
void __wrap_dmls_pool_run(dmls_pool *pool, void (*fn)(const void *args, int task), const void *args, size_t size,
                          int tasks);
void __wrap_dmls_pool_run(dmls_pool *pool, void (*fn)(const void *args, int task), const void *args, size_t size,
                          int tasks) {
    if (pass_through) {
        __real_dmls_pool_run(pool, fn, args, size, tasks);
        return;
    }
    if (jobs < 8) job_tasks[jobs] = tasks;
    jobs++;
    for (int t = 0; t < tasks; t++) fn(args, t);
}

/* dmls_pool_limit_wakes: the last limit asked for (-1: none since reset);
 * dmls_pool_cpus: a fixed count when fake_cpus > 0. */
static int last_wakes = -1, fake_cpus;
void __real_dmls_pool_limit_wakes(dmls_pool *pool, int wakes);
void __wrap_dmls_pool_limit_wakes(dmls_pool *pool, int wakes);
void __wrap_dmls_pool_limit_wakes(dmls_pool *pool, int wakes) {
    last_wakes = wakes;
    __real_dmls_pool_limit_wakes(pool, wakes);
}
int __real_dmls_pool_cpus(const dmls_pool *pool);
int __wrap_dmls_pool_cpus(const dmls_pool *pool);
int __wrap_dmls_pool_cpus(const dmls_pool *pool) { return fake_cpus > 0 ? fake_cpus : __real_dmls_pool_cpus(pool); }

#if defined(__x86_64__) || defined(__i386__)
static int fences;
void __real_dmls_cpu_store_fence(void);
void __wrap_dmls_cpu_store_fence(void);
void __wrap_dmls_cpu_store_fence(void) {
    fences++;
    __real_dmls_cpu_store_fence();
}
#endif

static int joins;
void __real_dmls_thread_join(dmls_thread *t);
void __wrap_dmls_thread_join(dmls_thread *t);
void __wrap_dmls_thread_join(dmls_thread *t) {
    joins++;
    __real_dmls_thread_join(t);
}

static bool count_callocs;
static int callocs;
static size_t calloc_nmemb[8];
void *__real_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size);
void *__wrap_calloc(size_t nmemb, size_t size) {
    if (count_callocs) {
        if (callocs < 8) calloc_nmemb[callocs] = nmemb;
        callocs++;
    }
    return __real_calloc(nmemb, size);
}

static uint64_t fake_cache_bytes;
uint64_t __wrap_dmls_cpu_cache_bytes(void);
uint64_t __wrap_dmls_cpu_cache_bytes(void) { return fake_cache_bytes; }

/* ------------------------------------------------- when the pool is used */

/* Runs op on ctx with jobs recorded; returns the number of pool jobs. */
static int pool_jobs(dmls_operator *op, dmls_context *ctx) {
    const size_t ib = (size_t)dmls_input_bytes(op), ob = (size_t)dmls_output_bytes(op);
    unsigned char *x = calloc(ib ? ib : 1, 1), *y = malloc(ob ? ob : 1);
    memset(y, 0xee, ob ? ob : 1);
    jobs = 0;
    CHECK_STATUS(dmls_execute_on(op, ctx, x, ib, y, ob), DMLS_OK);
    free(x), free(y);
    return jobs;
}

/* A uint8 copy of the first `size` of n elements. */
static dmls_operator *packed_copy(int64_t n, int64_t size) {
    const int64_t in_shape[1] = {n}, out_shape[1] = {size};
    return OP_MAKE(.dtype = DMLS_UINT8, .ndim = 1, .in_shape = in_shape, .out_shape = out_shape);
}

/* SLICE_GRAD of a uint8 gradient of in_n elements into out_n elements. */
static dmls_operator *grad_1d(int64_t in_n, int64_t out_n) {
    const int64_t in_shape[1] = {in_n}, out_shape[1] = {out_n};
    return OP_MAKE(.dtype = DMLS_UINT8, .ndim = 1, .grad = true, .in_shape = in_shape, .out_shape = out_shape);
}

static void threshold_tests(void) {
    dmls_context *ctx = NULL;
    CHECK_STATUS(dmls_context_create(3, &ctx), DMLS_OK);
    if (!ctx) return;
    /* The default threshold, 512 KiB of traffic: a packed byte copy moves
     * 2 bytes an item, so 262144 items go to the pool and 262143 do not. */
    for (int k = 0; k < 2; k++) {
        const int64_t n = 262144 - k;
        dmls_operator *op = packed_copy(n, n);
        if (!op) continue;
        CHECK(dmls_cpu_prepared_of(op)->traffic_bytes == 2 * (uint64_t)n, "packed copy of %lld bytes: traffic %llu, want %llu",
              (long long)n, (unsigned long long)dmls_cpu_prepared_of(op)->traffic_bytes, 2 * (unsigned long long)n);
        const int got = pool_jobs(op, ctx);
        CHECK(got == (k == 0), "copy of %llu bytes of traffic by default: %d pool jobs, want %d",
              (unsigned long long)dmls_cpu_prepared_of(op)->traffic_bytes, got, k == 0);
        dmls_destroy(op);
    }
    /* A threshold met exactly is met; one byte more is not. */
    dmls_operator *op = packed_copy(1000, 1000);
    if (op) {
        const uint64_t t = dmls_cpu_prepared_of(op)->traffic_bytes;
        dmls_context_set_parallel_min_bytes(ctx, t);
        CHECK(pool_jobs(op, ctx) == 1, "copy of %llu bytes at a threshold of as many: not cut", (unsigned long long)t);
        dmls_context_set_parallel_min_bytes(ctx, t + 1);
        CHECK(pool_jobs(op, ctx) == 0, "copy of %llu bytes at a threshold of one more: cut", (unsigned long long)t);
        dmls_destroy(op);
    }
    /* The fill, measured by the bytes it writes: 1000 here (the copy of one
     * byte stays below either threshold). */
    op = grad_1d(1, 1000);
    if (op) {
        dmls_context_set_parallel_min_bytes(ctx, 1000);
        CHECK(pool_jobs(op, ctx) == 1 && job_tasks[0] == 1, "fill of 1000 bytes at a threshold of 1000: %d jobs", jobs);
        dmls_context_set_parallel_min_bytes(ctx, 1001);
        CHECK(pool_jobs(op, ctx) == 0, "fill of 1000 bytes at a threshold of 1001: %d jobs, want none", jobs);
        dmls_destroy(op);
    }
    /* With every copy cut (threshold 0): nothing empty reaches the pool, and
     * a one-element fill is one share of one element. */
    dmls_context_set_parallel_min_bytes(ctx, 0);
    op = packed_copy(4, 0);
    if (op) {
        CHECK(pool_jobs(op, ctx) == 0, "empty copy at threshold 0: %d pool jobs, want none", jobs);
        dmls_destroy(op);
    }
    op = grad_1d(0, 0);
    if (op) {
        CHECK(pool_jobs(op, ctx) == 0, "empty SLICE_GRAD at threshold 0: %d pool jobs, want none", jobs);
        dmls_destroy(op);
    }
    for (int in_n = 0; in_n < 2; in_n++) {
        op = grad_1d(in_n, 1);
        if (!op) continue;
        CHECK(op->fill.ndim == 0 && op->fill.count == 1, "one-element fill: ndim %d count %llu", op->fill.ndim,
              (unsigned long long)op->fill.count);
        unsigned char x = 0x5a, y[3] = {0xee, 0xee, 0xee};
        jobs = 0;
        CHECK_STATUS(dmls_execute_on(op, ctx, &x, 1, y + 1, 1), DMLS_OK);
        CHECK(jobs == 1 + in_n && job_tasks[0] == 1, "one-element SLICE_GRAD (%d in) at threshold 0: %d jobs, "
              "first of %d tasks", in_n, jobs, job_tasks[0]);
        CHECK(y[0] == 0xee && y[1] == (in_n ? 0x5a : 0) && y[2] == 0xee,
              "one-element SLICE_GRAD (%d in): %02x [%02x] %02x", in_n, y[0], y[1], y[2]);
        /* The same on one thread. */
        y[1] = 0xee;
        CHECK_STATUS(dmls_execute(op, &x, 1, y + 1, 1), DMLS_OK);
        CHECK(y[1] == (in_n ? 0x5a : 0), "one-element SLICE_GRAD (%d in), one thread: %02x", in_n, y[1]);
        dmls_destroy(op);
    }
    dmls_context_destroy(ctx);
}

/* --------------------------------------------------- the row kernel calls */

static struct {
    int calls;
    int64_t n[8], rows[8];
    dmls_cpu_rows_fn real;
} rk;

static void record_rows(unsigned char *dst, const unsigned char *src, int64_t n, int64_t rows,
                        const dmls_cpu_prepared *p) {
    if (rk.calls < 8) rk.n[rk.calls] = n, rk.rows[rk.calls] = rows;
    rk.calls++;
    rk.real(dst, src, n, rows, p);
}

/* Every other float of rows of 11 (so no dims merge and no run folds into
 * the item width) into a packed {outer..., 5} output. */
static void run_calls(int ndim, const int64_t *out_shape, int ncalls, const int64_t *want_n,
                      const int64_t *want_rows) {
    int64_t in_shape[3], off[3] = {0, 0, 0}, size[3], step[3];
    for (int i = 0; i < ndim; i++) {
        /* Outer dims one longer than the window's keep them from merging. */
        in_shape[i] = i == ndim - 1 ? 11 : out_shape[i] + 1;
        size[i] = i == ndim - 1 ? 10 : out_shape[i];
        step[i] = i == ndim - 1 ? 2 : 1;
    }
    dmls_tensor ti = {DMLS_FLOAT32, ndim, in_shape, NULL, 0};
    dmls_tensor to = {DMLS_FLOAT32, ndim, out_shape, NULL, 0};
    dmls_window w = {off, size, step};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&ti, &to, &w, &op), DMLS_OK);
    if (!op) return;
    dmls_cpu_prepared cp = *dmls_cpu_prepared_of(op);
    CHECK(cp.ndim == ndim && cp.shape[ndim - 1] == 5, "rank %d: prepared rank %d, rows of %lld", ndim, cp.ndim,
          (long long)cp.shape[cp.ndim - 1]);
    rk.real = cp.rows;
    cp.rows = record_rows;
    const size_t ib = (size_t)dmls_input_bytes(op), ob = (size_t)dmls_output_bytes(op);
    float *x = malloc(ib), *y = malloc(ob), *r = malloc(ob);
    for (size_t i = 0; i < ib / 4; i++) x[i] = (float)i;
    memset(y, 0xee, ob);
    CHECK_STATUS(dmls_execute_reference(op, x, ib, r, ob), DMLS_OK);
    rk.calls = 0;
    dmls_cpu_run_range(&cp, x, y, 0, cp.items);
    CHECK(memcmp(y, r, ob) == 0, "rank %d: output differs from the reference", ndim);
    CHECK(rk.calls == ncalls, "rank %d: %d row kernel calls, want %d (a tile per call)", ndim, rk.calls, ncalls);
    for (int c = 0; c < ncalls && c < rk.calls && c < 8; c++)
        CHECK(rk.n[c] == want_n[c] && rk.rows[c] == want_rows[c], "rank %d: call %d copied %lld rows of %lld, "
              "want %lld of %lld", ndim, c, (long long)rk.rows[c], (long long)rk.n[c], (long long)want_rows[c],
              (long long)want_n[c]);
    /* Empty and inverted ranges call nothing and write nothing. */
    memset(y, 0xee, ob);
    rk.calls = 0;
    dmls_cpu_run_range(&cp, x, y, 7, 7);
    dmls_cpu_run_range(&cp, x, y, 0, 0);
    dmls_cpu_run_range(&cp, x, y, 8, 3);
    CHECK(rk.calls == 0, "rank %d: empty or inverted ranges made %d row kernel calls", ndim, rk.calls);
    bool untouched = true;
    for (size_t b = 0; b < ob; b++) untouched &= ((unsigned char *)y)[b] == 0xee;
    CHECK(untouched, "rank %d: an empty or inverted range wrote output", ndim);
    free(x), free(y), free(r);
    dmls_destroy(op);
}

static void row_call_tests(void) {
    /* Rank 2: all 3 rows in one call. */
    { const int64_t shape[2] = {3, 5}, n[1] = {5}, rows[1] = {3};
      run_calls(2, shape, 1, n, rows); }
    /* Rank 3: one call per tile of the rows dim, none empty. */
    { const int64_t shape[3] = {2, 3, 5}, n[2] = {5, 5}, rows[2] = {3, 3};
      run_calls(3, shape, 2, n, rows); }
}

/* Streaming stores are fenced once per range, and only then. */
static void fence_tests(void) {
#if defined(__x86_64__) || defined(__i386__)
    if (!(dmls_cpu_features() & DMLS_CPU_AVX2)) {
        printf("fence_tests: no AVX2 here, skipped\n");
        return;
    }
    dmls_operator *op = packed_copy(8192, 8192);
    if (!op) return;
    unsigned char *x = calloc(8192, 1), *y = malloc(8192);
    for (int nt = 0; nt < 2; nt++) {
        dmls_cpu_prepared cp;
        dmls_cpu_prepare(&cp, &op->copy, DMLS_CPU_AVX2, nt ? 0 : UINT64_MAX, nt ? 0 : UINT64_MAX);
        CHECK(cp.nontemporal == (nt != 0), "8 KiB contiguous copy, threshold %s: nontemporal %d", nt ? "0" : "max",
              cp.nontemporal);
        fences = 0;
        dmls_cpu_run_range(&cp, x, y, 0, cp.items);
        dmls_cpu_run_range(&cp, x, y, 4096, cp.items);
        CHECK(fences == 2 * nt, "two ranges of a %s copy: %d fences, want %d", nt ? "streaming" : "cached", fences,
              2 * nt);
    }
    free(x), free(y);
    dmls_destroy(op);
#endif
}

/* ------------------------------------------------------ the fill's shares */

static void fill_range_tests(void) {
    /* A {4, 6} byte output gradient in rows padded to 7: a fill of rank 2. */
    const int64_t out_shape[2] = {4, 6}, out_strides[2] = {7, 1}, in_shape[2] = {1, 1}, off[2] = {0, 0},
                  one[2] = {1, 1};
    dmls_tensor ti = {DMLS_UINT8, 2, in_shape, NULL, 0};
    dmls_tensor to = {DMLS_UINT8, 2, out_shape, out_strides, 0};
    dmls_window w = {off, in_shape, one};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create_grad(&ti, &to, &w, &op), DMLS_OK);
    if (!op) return;
    CHECK(op->fill.ndim == 2 && op->fill.count == 24, "padded fill: rank %d, %llu elements", op->fill.ndim,
          (unsigned long long)op->fill.count);
    const struct { uint64_t first, last; } cases[] = {{1, 3}, {2, 26}, {5, 14}};
    unsigned char y[40];
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        memset(y, 0xee, sizeof y);
        dmls_cpu_fill_zero_range(&op->fill, y, cases[k].first, cases[k].last);
        /* Elements [first, min(last, 24)), each at row * 7 + column. */
        for (int b = 0; b < (int)sizeof y; b++) {
            const int e = b % 7 < 6 && b / 7 < 4 ? b / 7 * 6 + b % 7 : -1;
            const bool zeroed = e >= (int)cases[k].first && e < (int)cases[k].last && e < 24;
            if (y[b] != (zeroed ? 0 : 0xee)) {
                CHECK(false, "fill of elements [%llu, %llu): byte %d (element %d) is %02x", (unsigned long long)cases[k].first,
                      (unsigned long long)cases[k].last, b, e, y[b]);
                break;
            }
        }
    }
    dmls_destroy(op);
}

/* --------------------------------------------------------------- the pool */

static uintptr_t task_thread[4];
static void note_thread(const void *args, int task) {
    (void)args;
    task_thread[task] = dmls_thread_self();
}

/* A batch's wake-ups and shares (batch_run.c): with more threads than
 * CPUs, one wake-up per 512 KiB of traffic beyond the first, and shares for
 * as many threads as CPUs (two at least); with no more threads than CPUs,
 * no limit. A split of a 1 MiB contiguous tensor into 8 moves 2 MiB: 3
 * wake-ups, and 32 shares of 64 KiB at most, cut as the same number per
 * thread (1 to 4): 20 for 20 threads, 40 for 40 (never 32, which would
 * leave runs of one and two shares, or threads with none). */
static void batch_wake_tests(void) {
    int64_t shape[1] = {1 << 18}, sizes[8];
    for (int i = 0; i < 8; i++) sizes[i] = 1 << 15;
    dmls_tensor t = {DMLS_FLOAT32, 1, shape, NULL, 0};
    dmls_batch *b = NULL;
    CHECK_STATUS(dmls_batch_create_split(&t, 0, sizes, 8, 1, &b), DMLS_OK);
    float *in = calloc(1u << 18, sizeof *in), *out = calloc(1u << 18, sizeof *out);
    const struct {
        int threads, cpus, wakes, tasks;
    } cases[] = {{6, 2, 3, 8}, {6, 8, -1, 24}, {4, 4, -1, 16}, {2, 1, 3, 8}, {20, 20, -1, 20}, {40, 40, -1, 40}};
    for (size_t k = 0; b && in && out && k < sizeof cases / sizeof cases[0]; k++) {
        dmls_context *ctx = NULL;
        fake_cpus = cases[k].cpus;
        CHECK_STATUS(dmls_context_create(cases[k].threads, &ctx), DMLS_OK);
        if (!ctx) continue;
        dmls_batch_input bi = {in, (uint64_t)sizeof *in << 18};
        dmls_batch_output bo = {out, (uint64_t)sizeof *out << 18};
        last_wakes = -1;
        jobs = 0;
        CHECK_STATUS(dmls_batch_execute(b, ctx, &bi, 1, &bo, 1), DMLS_OK);
        CHECK(last_wakes == cases[k].wakes && jobs == 1 && job_tasks[0] == cases[k].tasks,
              "batch of 2 MiB on %d threads, %d CPUs: wake limit %d, %d jobs of %d tasks; want %d, 1 of %d",
              cases[k].threads, cases[k].cpus, last_wakes, jobs, job_tasks[0], cases[k].wakes, cases[k].tasks);
        dmls_context_destroy(ctx);
    }
    fake_cpus = 0;
    free(in);
    free(out);
    dmls_batch_destroy(b);
}

static void pool_tests(void) {
    pass_through = true;
    /* Two threads: both tasks run, on the caller or the worker. */
    dmls_pool *pool = dmls_pool_create(2, 8);
    CHECK(pool != NULL, "pool of 2");
    if (pool) {
        memset(task_thread, 0, sizeof task_thread);
        dmls_pool_run(pool, note_thread, NULL, 0, 2);
        CHECK(task_thread[0] != 0 && task_thread[1] != 0, "pool of 2: a task did not run");
        joins = 0;
        dmls_pool_destroy(pool);
        CHECK(joins == 1, "pool of 2 destroyed: %d joins, want 1", joins);
    }
    /* Every started worker is joined. */
    pool = dmls_pool_create(4, 16);
    if (pool) {
        CHECK(dmls_pool_start(pool) == 4, "pool of 4 started with %d threads", dmls_pool_threads(pool));
        joins = 0;
        dmls_pool_destroy(pool);
        CHECK(joins == 3, "pool of 4 destroyed: %d joins, want 3", joins);
    }
    joins = 0;
    dmls_pool_destroy(NULL);
    CHECK(joins == 0, "NULL pool destroyed: %d joins", joins);
    pass_through = false;

    /* What a context allocates: itself, threads + 1 share bounds (a copy
     * is cut into one share per thread at most, run.c; a batch computes its
     * shares' ends, batch_run.c), the pool (one block with its claim words
     * and reports), and the pool's threads - 1 workers (none for one
     * thread). */
    const struct {
        int threads, n;
        size_t nmemb[5];
    } cases[] = {{3, 4, {1, 4, 1, 2}}, {1, 3, {1, 2, 1}}};
    for (size_t k = 0; k < 2; k++) {
        dmls_context *ctx = NULL;
        callocs = 0;
        count_callocs = true;
        CHECK_STATUS(dmls_context_create(cases[k].threads, &ctx), DMLS_OK);
        count_callocs = false;
        CHECK(callocs == cases[k].n, "context of %d threads: %d callocs, want %d", cases[k].threads, callocs,
              cases[k].n);
        for (int c = 0; c < cases[k].n && c < callocs; c++)
            CHECK(calloc_nmemb[c] == cases[k].nmemb[c], "context of %d threads: calloc %d of %zu items, want %zu",
                  cases[k].threads, c, calloc_nmemb[c], cases[k].nmemb[c]);
        dmls_context_destroy(ctx);
    }
}

/* ------------------------------------------------------ feature detection */

static int cache_mode(const char *arg) {
    fake_cache_bytes = strtoull(arg, NULL, 10);
    const uint64_t cache = fake_cache_bytes > 0 ? fake_cache_bytes : (uint64_t)32 << 20, want = cache / 4; /* a quarter */
    CHECK(dmls_cpu_nontemporal_threshold() == want, "cache of %llu bytes: streaming from %llu bytes, want %llu",
          (unsigned long long)fake_cache_bytes, (unsigned long long)dmls_cpu_nontemporal_threshold(),
          (unsigned long long)want);
    CHECK(dmls_cpu_cache_size() == cache, "cache of %llu bytes: cached up to %llu bytes, want %llu",
          (unsigned long long)fake_cache_bytes, (unsigned long long)dmls_cpu_cache_size(), (unsigned long long)cache);
    TEST_MAIN_END();
}

/* The disable list is read to its terminator: a buffer given to putenv
 * holds this machine's feature name past it, which must stay unread. */
static int list_end_mode(void) {
#if defined(__x86_64__) || defined(__i386__)
    static char env[] = "DMLSLICE_DISABLE_CPU_FEATURES=sse4\0avx2\0";
    const unsigned bit = DMLS_CPU_AVX2;
#if defined(__GNUC__) && !defined(DMLS_PORTABLE_FALLBACKS)
    __builtin_cpu_init();
    const bool has = __builtin_cpu_supports("avx2");
#else
    const bool has = false; /* the library detects AVX2 through GNU C only (src/compiler.h) */
#endif
#elif DMLS_CPU_NEON_KERNELS
    static char env[] = "DMLSLICE_DISABLE_CPU_FEATURES=sse4\0neon\0";
    const unsigned bit = DMLS_CPU_NEON;
    const bool has = true; /* every AArch64 Linux has Advanced SIMD */
#else
    static char env[] = "DMLSLICE_DISABLE_CPU_FEATURES=sse4\0";
    const unsigned bit = 0;
    const bool has = false;
#endif
    putenv(env);
    CHECK(((dmls_cpu_features() & bit) != 0) == has, "DMLSLICE_DISABLE_CPU_FEATURES=sse4 (then a feature name "
          "past its end): features 0x%x", dmls_cpu_features());
    TEST_MAIN_END();
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "cache") == 0) return cache_mode(argv[2]);
    if (argc == 2 && strcmp(argv[1], "list-end") == 0) return list_end_mode();
    fake_cache_bytes = (uint64_t)32 << 20;
    threshold_tests();
    row_call_tests();
    fence_tests();
    fill_range_tests();
    pool_tests();
    batch_wake_tests();
    TEST_MAIN_END();
}
