/* The CPU plan's choices, tested as choices rather than through the output
 * (which stays right whichever way they go): how SLICE_GRAD's zero fill and
 * a copy are cut into per-thread shares (whole rows up to 64 KiB, 4 KiB of
 * items beyond), the fill's one memset per contiguous row, the traffic
 * estimate for negative steps, and the AVX2 byte shuffle for 8-byte items
 * at step +-24 bytes. Mutation testing found each free to change
 * (docs/mutation.md).
 *
 * Shares are observed through the GNU linker's --wrap: dmls_pool_run is
 * replaced by one that runs the tasks one at a time on this thread and
 * records which output bytes each task wrote; memset is counted while the
 * zero fill runs, in the test's own build of src/cpu/fill.c with memset a
 * plain call (tests/cpu/CMakeLists.txt: gcc for s390x expands it inline,
 * AddressSanitizer routes it to its own). Both read internals
 * (cpu/prepare.h, operator.h), whose names may change with the library's
 * layout. */
#include <stdbool.h>

#include "cpu/context.h"
#include "cpu/features.h"
#include "cpu/pool.h"
#include "cpu/prepare.h"
#include "cpu/execute.h"
#include "dmlslice/batch.h"
#include "operator.h"
#include "support/native_op.h"
#include "support/test.h"

/* ------------------------------------------------------------ the wrappers */

void *__real_memset(void *s, int c, size_t n);
void *__wrap_memset(void *s, int c, size_t n);
static bool count_memsets;
static int memset_calls;
/* Only the calls that write into [count_lo, count_hi), the output being
 * filled: a compiler may turn other zeroing on the way (a struct set to
 * {0}) into a memset call too (clang under ThreadSanitizer does). */
static const char *count_lo, *count_hi;
void *__wrap_memset(void *s, int c, size_t n) {
    if (count_memsets && (const char *)s >= count_lo && (const char *)s < count_hi) memset_calls++;
    return __real_memset(s, c, n);
}

/* What each pool job did: for each task, the first and last output byte it
 * changed (the output is pre-filled with a byte no share writes). */
#define MAX_JOBS 4
#define MAX_TASKS 8
static struct {
    int jobs;
    int tasks[MAX_JOBS];
    int64_t first[MAX_JOBS][MAX_TASKS], last[MAX_JOBS][MAX_TASKS];
} seen;
static unsigned char *watched, *shadow;
static size_t watched_bytes;

void __wrap_dmls_pool_run(dmls_pool *pool, void (*fn)(const void *args, int task), const void *args, size_t size,
                          int tasks);
/* In isolation (batch_share_tests), each task runs alone on an output
 * filled with FILL, and owner[b] records the task that wrote byte b
 * (NO_OWNER: none; a byte two tasks write counts a conflict). */
#define FILL     0xee
#define NO_OWNER 0xff
static bool isolate;
static unsigned char *owner;
static int owner_conflicts;

void __wrap_dmls_pool_run(dmls_pool *pool, void (*fn)(const void *args, int task), const void *args, size_t size,
                          int tasks) {
    (void)pool, (void)size;
    const int j = seen.jobs < MAX_JOBS ? seen.jobs++ : MAX_JOBS - 1;
    seen.tasks[j] = tasks;
    if (isolate) {
        for (int t = 0; t < tasks; t++) {
            memset(watched, FILL, watched_bytes);
            fn(args, t);
            for (size_t b = 0; b < watched_bytes; b++)
                if (watched[b] != FILL) {
                    if (owner[b] != NO_OWNER) owner_conflicts++;
                    owner[b] = (unsigned char)t;
                }
        }
        return;
    }
    for (int t = 0; t < tasks; t++) {
        memcpy(shadow, watched, watched_bytes);
        fn(args, t);
        int64_t first = -1, last = -1;
        for (size_t b = 0; b < watched_bytes; b++)
            if (watched[b] != shadow[b]) {
                if (first < 0) first = (int64_t)b;
                last = (int64_t)b;
            }
        if (t < MAX_TASKS) seen.first[j][t] = first, seen.last[j][t] = last;
    }
}

/* ------------------------------------------------------------- the shares */

/* SLICE_GRAD of a packed {rows, cols} uint8 gradient (one row less, every
 * column) into a packed {rows, cols} output gradient on a 3-thread context:
 * pool job 0 is the zero fill, job 1 the copy. Each task's share must be
 * [want[t], want[t + 1]) elements. */
static void check_shares(const char *what, int64_t rows, int64_t cols, int job, int tasks, const int64_t *want) {
    /* Rows padded by one byte, so that neither plan merges them into one run. */
    const int64_t out_shape[2] = {rows, cols}, out_strides[2] = {cols + 1, 1}, in_shape[2] = {rows - 1, cols},
                  off[2] = {1, 0};
    dmls_operator *op = OP_MAKE(.dtype = DMLS_UINT8, .ndim = 2, .grad = true, .in_shape = in_shape,
                                .out_shape = out_shape, .out_strides = out_strides, .offsets = off);
    dmls_context *ctx = NULL;
    CHECK_STATUS(dmls_context_create(3, &ctx), DMLS_OK);
    if (!op || !ctx) goto done;
    dmls_context_set_parallel_min_bytes(ctx, 0);
    const size_t ib = (size_t)dmls_input_bytes(op), ob = (size_t)dmls_output_bytes(op);
    unsigned char *x = malloc(ib);
    watched = malloc(ob), shadow = malloc(ob), watched_bytes = ob;
    memset(x, 0x11, ib);
    memset(watched, 0xee, ob);
    memset(&seen, 0, sizeof seen);
    CHECK_STATUS(dmls_execute_on(op, ctx, x, ib, watched, ob), DMLS_OK);
    CHECK(seen.jobs == 2, "%s: %d pool jobs, want 2 (fill, copy)", what, seen.jobs);
    CHECK(seen.tasks[job] == tasks, "%s: job %d has %d shares, want %d", what, job, seen.tasks[job], tasks);
    /* Element e of the share's tensor is byte pos(e); the copy's rows start
     * one row in (the window's offset). */
    const int64_t skip = job == 1 ? 1 : 0;
#define POS(e) (((e) / cols + skip) * (cols + 1) + (e) % cols)
    for (int t = 0; t < tasks && t < seen.tasks[job]; t++)
        CHECK(seen.first[job][t] == POS(want[t]) && seen.last[job][t] == POS(want[t + 1] - 1),
              "%s: job %d share %d wrote bytes [%lld, %lld], want [%lld, %lld]", what, job, t,
              (long long)seen.first[job][t], (long long)seen.last[job][t], (long long)POS(want[t]),
              (long long)POS(want[t + 1] - 1));
#undef POS
    free(x), free(watched), free(shadow);
done:
    dmls_context_destroy(ctx);
    dmls_destroy(op);
}

static void share_tests(void) {
    /* Rows of exactly 64 KiB are whole-row grains: 2 rows in 2 shares (cut
     * at 4 KiB they would make 3). */
    { const int64_t want[3] = {0, 65536, 131072};
      check_shares("fill, 2 rows of 64 KiB", 2, 65536, 0, 2, want); }
    /* Copy: 2 rows of 64 KiB in 2 shares (one per row). */
    { const int64_t want[3] = {0, 65536, 131072};
      check_shares("copy, 2 rows of 64 KiB", 3, 65536, 1, 2, want); }
    /* One byte more per row and rows are cut at 4096-byte grains: 3 rows of
     * 65537 bytes = 196611 bytes = 49 grains (the last short), cut 16/16/17. */
    { const int64_t want[4] = {0, 16 * 4096, 32 * 4096, 196611};
      check_shares("fill, 3 rows of 64 KiB + 1", 3, 65537, 0, 3, want); }
    /* Copy of 2 such rows: 131074 bytes = 33 grains, cut 11/11/11. */
    { const int64_t want[4] = {0, 11 * 4096, 22 * 4096, 131074};
      check_shares("copy, 2 rows of 64 KiB + 1", 3, 65537, 1, 3, want); }
    /* Short rows are never cut: 5 rows of 7 in shares of 1, 2 and 2 rows. */
    { const int64_t want[4] = {0, 7, 21, 35};
      check_shares("fill, 5 rows of 7", 5, 7, 0, 3, want); }
}

/* The copy plan's grain itself, for 4-byte items in rows of a padded
 * output: whole rows up to 64 KiB, else 4096 bytes of items. */
static void grain_tests(void) {
    const int64_t lens[3] = {16384, 16385, 1000};
    const uint64_t want[3] = {16384, 1024, 1000};
    for (int k = 0; k < 3; k++) {
        const int64_t shape[2] = {2, lens[k]}, strides[2] = {lens[k] + 1, 1};
        dmls_operator *op =
            OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 2, .in_shape = shape, .out_shape = shape, .out_strides = strides);
        if (!op) continue;
        CHECK(dmls_cpu_prepared_of(op)->split_grain == want[k], "rows of %lld floats: grain %llu items, want %llu", (long long)lens[k],
              (unsigned long long)dmls_cpu_prepared_of(op)->split_grain, (unsigned long long)want[k]);
        dmls_destroy(op);
    }
}

/* ----------------------------------------------------------- the zero fill */

/* SLICE_GRAD's fill on one thread: one memset per contiguous row of the
 * output gradient, and nothing written in the padding between rows or
 * between strided elements. */
static void fill_tests(void) {
    /* A {6, 10} float32 output gradient with rows padded to 12 elements
     * (ndim 2 after normalizing); the input gradient is one element. */
    const int64_t out_shape[2] = {6, 10}, out_strides[2] = {12, 1}, in_shape[2] = {1, 1}, off[2] = {2, 3};
    for (int strided = 0; strided < 2; strided++) {
        /* strided: every other element, rows of 20: only the fill's element
         * loop may run, and it must skip the gaps. */
        const int64_t sst[2] = {20, 2};
        dmls_operator *op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 2, .grad = true, .in_shape = in_shape,
                                    .out_shape = out_shape, .out_strides = strided ? sst : out_strides, .offsets = off);
        if (!op) continue;
        const size_t ob = (size_t)dmls_output_bytes(op);
        float x = 7.0f, *y = malloc(ob);
        __real_memset(y, 0xee, ob);
        memset_calls = 0;
        count_lo = (const char *)y, count_hi = (const char *)y + ob;
        count_memsets = true;
        CHECK_STATUS(dmls_execute(op, &x, sizeof x, y, ob), DMLS_OK);
        count_memsets = false;
        if (!strided)
            CHECK(memset_calls == 6, "fill of 6 padded rows: %d memset calls, want 6 (one per row)", memset_calls);
        const int64_t rs = strided ? 20 : 12, es = strided ? 2 : 1;
        for (int64_t e = 0; e < (int64_t)(ob / 4); e++) {
            const int64_t r = e / rs, c = e % rs;
            const bool inside = r < 6 && c % es == 0 && c / es < 10;
            uint32_t bits;
            memcpy(&bits, &y[e], 4);
            const uint32_t want = !inside ? 0xeeeeeeeeu : (r == 2 && c / es == 3) ? 0x40e00000u : 0u;
            if (bits != want) {
                CHECK(false, "%s fill: element %lld (row %lld, column %lld) is 0x%08x, want 0x%08x",
                      strided ? "strided" : "padded", (long long)e, (long long)r, (long long)c, (unsigned)bits,
                      (unsigned)want);
                break;
            }
        }
        free(y);
        dmls_destroy(op);
    }
}

/* ---------------------------------------------------- traffic and shuffles */

static dmls_operator *packed_1d_pair(int esize, int64_t len, int64_t cols, int64_t step) {
    static const dmls_dtype dt[9] = {0, DMLS_UINT8, DMLS_UINT16, 0, DMLS_FLOAT32, 0, 0, 0, DMLS_FLOAT64};
    const int64_t a = step < 0 ? -step : step;
    const int64_t in_shape[2] = {2, cols}, out_shape[2] = {2, 1 + (len - 1) / a}, size[2] = {2, len},
                  steps[2] = {1, step};
    return OP_MAKE(.dtype = dt[esize], .ndim = 2, .in_shape = in_shape, .out_shape = out_shape, .sizes = size,
                   .steps = steps);
}

/* Traffic: output bytes plus, per item, |input step| between its width and
 * one 64-byte line, the same for steps backwards as forwards. */
static void traffic_tests(void) {
    const struct { int esize; int64_t len, cols, step; uint64_t per_item; } cases[] = {
        {4, 64, 64, -1, 4},   /* reversed floats: 4 bytes an item */
        {4, 63, 64, -2, 8},   /* every other float, backwards */
        {8, 61, 64, -3, 24},  /* 8-byte items 24 bytes apart, backwards */
        {2, 800, 800, -100, 64}, /* far apart: one line an item */
        {1, 651, 651, -65, 64},  /* 65 bytes apart: still one line */
        {1, 640, 640, -64, 64},  /* exactly one line apart */
        {4, 63, 64, 2, 8},    /* the same forwards */
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        dmls_operator *op = packed_1d_pair(cases[k].esize, cases[k].len, cases[k].cols, cases[k].step);
        if (!op) continue;
        dmls_cpu_prepared cp;
        dmls_cpu_prepare(&cp, &op->copy, 0, UINT64_MAX, UINT64_MAX);
        const uint64_t items = cp.items, want = items * cases[k].per_item + items * (uint64_t)cases[k].esize;
        CHECK(cp.traffic_bytes == want, "esize %d step %lld: traffic %llu bytes, want %llu", cases[k].esize,
              (long long)cases[k].step, (unsigned long long)cp.traffic_bytes, (unsigned long long)want);
        dmls_destroy(op);
    }
}

/* 8-byte items 24 bytes apart: two items per 16-byte output block within
 * 32 input bytes, the largest span the two-load shuffle covers; the lane
 * step (48 bytes) is too long for the three-load variant. The plan is only
 * built, never run, so this holds on any CPU. */
static void shuffle_tests(void) {
#if defined(__x86_64__) || defined(__i386__)
    for (int dir = 0; dir < 2; dir++) {
        const int64_t step = dir ? -3 : 3;
        dmls_operator *op = packed_1d_pair(8, 3 * 40 - 2, 3 * 40, step);
        if (!op) continue;
        dmls_cpu_prepared cp;
        dmls_cpu_prepare(&cp, &op->copy, DMLS_CPU_AVX2, UINT64_MAX, UINT64_MAX);
        CHECK(cp.kernel == DMLS_CPU_SHUFFLE_AVX2, "8-byte items at step %lld: kernel %s, want shuffle_avx2",
              (long long)step * 8, dmls_cpu_kernel_name(cp.kernel));
        CHECK(cp.shuffle_span == 32 && cp.shuffle_items == 2, "step %lld: span %lld items %lld, want 32 and 2",
              (long long)step * 8, (long long)cp.shuffle_span, (long long)cp.shuffle_items);
        /* Forwards the first item is in the low load; backwards in the high one. */
        for (int j = 0; j < 16; j++) {
            const int lowfirst = dir == 0 ? j < 8 : j >= 8;
            const unsigned char lo = lowfirst ? (unsigned char)(j % 8) : 0x80;
            const unsigned char hi = lowfirst ? 0x80 : (unsigned char)(8 + j % 8);
            CHECK(cp.shuffle[0][j] == lo && cp.shuffle[1][j] == hi, "step %lld: mask byte %d is %02x/%02x, want %02x/%02x",
                  (long long)step * 8, j, cp.shuffle[0][j], cp.shuffle[1][j], lo, hi);
        }
        /* Without AVX2: the portable strided kernel. */
        dmls_cpu_prepare(&cp, &op->copy, 0, UINT64_MAX, UINT64_MAX);
        CHECK(cp.kernel == DMLS_CPU_STRIDED, "step %lld without AVX2: kernel %s", (long long)step * 8,
              dmls_cpu_kernel_name(cp.kernel));
        dmls_destroy(op);
    }
    /* 8-byte items (runs of 8 bytes, folded) read 25 and 7 bytes apart: spans
     * of 33 and 15 bytes, just outside the 16..32 the two loads cover. */
    const int64_t gaps[2] = {25, 7};
    for (int k = 0; k < 2; k++) {
        const int64_t shape[3] = {2, 40, 8}, strides[3] = {1000, gaps[k], 1};
        dmls_operator *op =
            OP_MAKE(.dtype = DMLS_UINT8, .ndim = 3, .in_shape = shape, .in_strides = strides, .out_shape = shape);
        if (!op) continue;
        dmls_cpu_prepared cp;
        dmls_cpu_prepare(&cp, &op->copy, DMLS_CPU_AVX2, UINT64_MAX, UINT64_MAX);
        CHECK(cp.width == 8 && cp.kernel == DMLS_CPU_STRIDED, "8-byte items %lld bytes apart: width %d kernel %s, "
              "want 8 and strided", (long long)gaps[k], cp.width, dmls_cpu_kernel_name(cp.kernel));
        /* Traffic: an item costs its step, but never less than its width
         * (the 7-byte step reads overlapping items). */
        const uint64_t per = gaps[k] < 8 ? 8 : (uint64_t)gaps[k];
        CHECK(cp.traffic_bytes == cp.items * per + cp.items * 8, "8-byte items %lld bytes apart: traffic %llu, want %llu",
              (long long)gaps[k], (unsigned long long)cp.traffic_bytes,
              (unsigned long long)(cp.items * per + cp.items * 8));
        dmls_destroy(op);
    }
#endif
}

/* A batch's shares (batch_run.c): each pool task, run alone, writes bytes
 * no other task writes, and together they write every output byte. Items
 * are rows of strided bytes (nothing folds them into one row), several rows
 * each, so shares begin and end inside items: a share that ran whole an item
 * it owns only part of would also write its neighbour's bytes (with the same
 * values, which the output alone never shows). n items cycle through ops,
 * packed into one output slot, each reading its own input. */
static void check_batch_shares(const char *what, dmls_operator *const *ops, int n_ops, int n) {
    dmls_context *ctx = NULL;
    CHECK_STATUS(dmls_context_create(3, &ctx), DMLS_OK);
    dmls_batch_item *items = calloc((size_t)n, sizeof *items);
    uint64_t in_bytes = 0, out_bytes = 0;
    for (int k = 0; k < n; k++) {
        const dmls_operator *op = ops[k % n_ops];
        items[k] = (dmls_batch_item){op, 0, 0, in_bytes, out_bytes};
        in_bytes += dmls_input_bytes(op), out_bytes += dmls_output_bytes(op);
    }
    dmls_batch *b = NULL;
    if (ctx) CHECK_STATUS(dmls_batch_create(items, (size_t)n, 1, 1, &b), DMLS_OK);
    if (!b) goto done;
    dmls_context_set_parallel_min_bytes(ctx, 0); /* every batch cut */
    unsigned char *x = malloc(in_bytes);
    for (uint64_t i = 0; i < in_bytes; i++) x[i] = (unsigned char)(i % 200 + 1); /* never FILL */
    watched = malloc(out_bytes), shadow = malloc(out_bytes), owner = malloc(out_bytes), watched_bytes = out_bytes;
    memset(owner, NO_OWNER, out_bytes);
    memset(&seen, 0, sizeof seen);
    owner_conflicts = 0;
    isolate = true;
    const dmls_batch_input bi = {x, in_bytes};
    const dmls_batch_output bo = {watched, out_bytes};
    CHECK_STATUS(dmls_batch_execute(b, ctx, &bi, 1, &bo, 1), DMLS_OK);
    isolate = false;
    size_t unowned = 0;
    for (uint64_t i = 0; i < out_bytes; i++) unowned += owner[i] == NO_OWNER;
    CHECK(seen.jobs == 1 && seen.tasks[0] >= 2, "%s: %d pool jobs of %d tasks, want 1 of 2 or more", what, seen.jobs,
          seen.tasks[0]);
    CHECK(owner_conflicts == 0 && unowned == 0, "%s, %d shares: %d bytes written by two shares, %zu of %llu by none",
          what, seen.tasks[0], owner_conflicts, unowned, (unsigned long long)out_bytes);
    free(x), free(watched), free(shadow), free(owner);
    dmls_batch_destroy(b);
done:
    free(items);
    dmls_context_destroy(ctx);
}

static void batch_share_tests(void) {
    /* Input rows one byte longer than the window reads, so that no dims
     * merge: 6 rows of 5, 8 rows of 3 and 64 rows of 5 after the plan's
     * merging. */
    const int64_t a_in[2] = {6, 11}, a_size[2] = {6, 10}, a_out[2] = {6, 5}, a_step[2] = {1, 2};
    const int64_t b_in[3] = {2, 4, 10}, b_size[3] = {2, 4, 9}, b_out[3] = {2, 4, 3}, b_step[3] = {1, 1, 3};
    const int64_t c_in[2] = {64, 11}, c_size[2] = {64, 10}, c_out[2] = {64, 5};
    /* SLICE_GRAD of 5 rows of 7 into 6: its zero fill and its scatter must
     * stay with one share. */
    const int64_t g_in[2] = {5, 7}, g_out[2] = {6, 7}, g_off[2] = {1, 0};
    dmls_operator *ops[4] = {
        OP_MAKE(.dtype = DMLS_UINT8, .ndim = 2, .in_shape = a_in, .out_shape = a_out, .sizes = a_size, .steps = a_step),
        OP_MAKE(.dtype = DMLS_UINT8, .ndim = 3, .in_shape = b_in, .out_shape = b_out, .sizes = b_size, .steps = b_step),
        OP_MAKE(.dtype = DMLS_UINT8, .ndim = 2, .in_shape = c_in, .out_shape = c_out, .sizes = c_size, .steps = a_step),
        OP_MAKE(.dtype = DMLS_UINT8, .ndim = 2, .grad = true, .in_shape = g_in, .out_shape = g_out, .offsets = g_off)};
    if (ops[0] && ops[1] && ops[2] && ops[3]) {
        check_batch_shares("batch of 30 items of two operators", ops, 2, 30);
        check_batch_shares("batch of one item of 64 rows", ops + 2, 1, 1);
        dmls_operator *mixed[3] = {ops[0], ops[3], ops[1]};
        check_batch_shares("batch of 30 items, a third SLICE_GRAD", mixed, 3, 30);
    }
    for (int k = 0; k < 4; k++) dmls_destroy(ops[k]);
}

/* ---- surv-core: a forward slice has no fill plan (issue 16) ---- */
/* copy_plan.h: when zero_fill is false, the fill plan is all zeros. */
static void no_fill_tests(void) {
    const int64_t in_shape[2] = {4, 4}, out_shape[2] = {2, 2}, off[2] = {0, 1}, size[2] = {4, 3}, st[2] = {2, 2};
    dmls_operator *op = OP_MAKE(.dtype = DMLS_FLOAT32, .ndim = 2, .in_shape = in_shape, .out_shape = out_shape,
                                .offsets = off, .sizes = size, .steps = st);
    if (!op) return;
    CHECK(!op->zero_fill, "a forward slice runs a zero fill");
    const unsigned char *b = (const unsigned char *)&op->fill;
    size_t nonzero = 0;
    for (size_t i = 0; i < sizeof op->fill; i++) nonzero += b[i] != 0;
    CHECK(nonzero == 0, "a forward slice's fill plan has %zu non-zero bytes (ndim %d, count %llu)", nonzero,
          (int)op->fill.ndim, (unsigned long long)op->fill.count);
    dmls_destroy(op);
}
/* ---- end surv-core ---- */

int main(void) {
    no_fill_tests(); /* surv-core */
    share_tests();
    batch_share_tests();
    grain_tests();
    fill_tests();
    traffic_tests();
    shuffle_tests();
    TEST_MAIN_END();
}
