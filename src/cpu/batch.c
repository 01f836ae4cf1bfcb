/* A batch on the CPU: one pass of the pool over all the items' work.
 *
 * create summed each item's memory traffic into a prefix (batch.c: work);
 * the total is cut into contiguous shares, as many for every thread, and
 * a share's ends are mapped back to (item, element) places, so a share may
 * start inside one item, run many tiny ones whole and stop inside another:
 * tiny items are grouped, no worker is woken per item, and a huge item is
 * cut as dmls_execute_on cuts one operator (at its grain, split.h). Both
 * ends of a share are computed by the same function of the same work
 * position, so the shares tile the batch exactly. A SLICE_GRAD item's place is always
 * its start: its zero fill must precede its scatter, so one thread does it
 * whole. */
#include "../batch/batch.h"
#include "../error.h"
#include "context.h"
#include "../checked.h"
#include "execute.h"
#include "split.h"

/* The CPU's work prefix: an item costs its memory traffic (split.h), in
 * whole units per element so that a share boundary maps to an element. */
dmls_status dmls_cpu_batch_work(dmls_batch *b) {
    b->work[0] = 0;
    for (size_t i = 0; i < b->count; i++) {
        const dmls_operator *op = b->ops[b->items[i].op];
        const dmls_cpu_prepared *cp = dmls_cpu_prepared_of(op);
        uint64_t cost = 0, fill = op->zero_fill ? op->fill.count * (uint64_t)op->fill.esize : 0;
        bool over = false;
        if (cp->items > 0) over = dmls_mul_u64((cp->traffic_bytes + cp->items - 1) / cp->items, cp->items, &cost);
        over = over || dmls_add_u64(cost, fill, &cost) || dmls_add_u64(b->work[i], cost, &b->work[i + 1]);
        /* Only operators no buffer could hold get here: execute could never bind them. */
        RETURN_IF(over, DMLS_ERROR_OVERFLOW, "R-B-ITEM", "batch item %zu: the batch's bytes overflow 64 bits", i);
    }
    return DMLS_OK;
}

/* Where work position pos falls: item *item (count at the end) and its
 * first element *elem, rounded down to the item's grain. */
static void place(const dmls_batch *b, uint64_t pos, size_t *item, uint64_t *elem) {
    size_t a = 0, z = b->count + 1; /* the first index with work > pos, in [1, count + 1] */
    while (a < z) {
        size_t m = a + (z - a) / 2;
        if (b->work[m] <= pos)
            a = m + 1;
        else
            z = m;
    }
    *item = a - 1;
    *elem = 0;
    if (*item == b->count) return;
    const dmls_operator *op = b->ops[b->items[*item].op];
    const dmls_cpu_prepared *cp = dmls_cpu_prepared_of(op);
    if (op->zero_fill || cp->items == 0) return;
    const uint64_t unit = (b->work[*item + 1] - b->work[*item]) / cp->items; /* batch.c: whole units */
    const uint64_t e = (pos - b->work[*item]) / unit;
    *elem = e - e % cp->split_grain;
}

/* Runs elements [first, last) of item i (for a SLICE_GRAD item, all of it). */
static void run_item(const dmls_batch *b, const dmls_batch_input *in, const dmls_batch_output *out, size_t i,
                     uint64_t first, uint64_t last) {
    const dmls_batch_entry *e = &b->items[i];
    const dmls_operator *op = b->ops[e->op];
    const dmls_cpu_prepared *cp = dmls_cpu_prepared_of(op);
    unsigned char *dst = (unsigned char *)out[e->out_slot].data;
    if (op->zero_fill && op->fill.count > 0) dmls_cpu_fill_zero(&op->fill, dst + e->out_offset);
    if (cp->items == 0 || first >= last) return;
    const uint64_t in_off = b->crops.on ? dmls_batch_crop_offset(&b->crops, in[1].data, i) : e->in_offset;
    const unsigned char *src = (const unsigned char *)in[e->in_slot].data + in_off;
    if (first == 0 && last == cp->items) dmls_cpu_run_whole(cp, src, dst + e->out_offset);
    else dmls_cpu_run_range(cp, src, dst + e->out_offset, first, last);
}

/* Items [a, z), each whole and none a SLICE_GRAD: the body of most
 * batches (crops, a split, many windows of one operator), looked up once
 * per run of items of one operator, so a tiny item costs little more than
 * its row calls (1,024 crops of 3x4x4 on one thread: 20.6-21.8 us
 * through run_item, 17.7-18.1 us here; bench/RESULTS.md). */
static void run_whole_items(const dmls_batch *b, const dmls_batch_input *in, const dmls_batch_output *out, size_t a,
                            size_t z) {
    /* A slot's bound address is read again only when an item's slot
     * differs from the one before, not per item: the caller's arrays may
     * share a line with what the caller writes while workers run. */
    uint32_t in_slot = UINT32_MAX, out_slot = UINT32_MAX;
    const unsigned char *src = NULL;
    unsigned char *dst = NULL;
    const bool bound = b->crops.on; /* the starts come at execute, in input slot 1 */
    const void *starts = a < z && bound ? in[1].data : NULL;
    while (a < z) {
        const uint32_t id = b->items[a].op;
        const dmls_cpu_prepared *cp = dmls_cpu_prepared_of(b->ops[id]);
        if (cp->items == 0) { /* an empty item's offsets may be any value: no address is formed from them */
            while (a < z && b->items[a].op == id) a++;
            continue;
        }
        for (; a < z && b->items[a].op == id; a++) {
            const dmls_batch_entry *e = &b->items[a];
            if (e->in_slot != in_slot) src = (const unsigned char *)in[in_slot = e->in_slot].data;
            if (e->out_slot != out_slot) dst = (unsigned char *)out[out_slot = e->out_slot].data;
            const uint64_t in_off = bound ? dmls_batch_crop_offset(&b->crops, starts, a) : e->in_offset;
            dmls_cpu_run_whole(cp, src + in_off, dst + e->out_offset);
        }
    }
}

/* Runs the work between positions lo and hi. */
static void run_between(const dmls_batch *b, const dmls_batch_input *in, const dmls_batch_output *out, uint64_t lo,
                        uint64_t hi) {
    size_t a0, a1;
    uint64_t e0, e1;
    place(b, lo, &a0, &e0);
    place(b, hi, &a1, &e1);
    if (b->has_grad) {
        for (size_t a = a0; a < b->count && a <= a1; a++) {
            const dmls_operator *op = b->ops[b->items[a].op];
            if (op->zero_fill && a == a1) break; /* its place is its start: the next share's */
            const uint64_t items = dmls_cpu_prepared_of(op)->items;
            const uint64_t first = a == a0 ? e0 : 0, last = a == a1 ? e1 : items;
            if (first < last || (op->zero_fill && a < a1)) run_item(b, in, out, a, first, last);
        }
        return;
    }
    /* No zero fills: only the two ends' items may be cut. */
    size_t a = a0;
    if (a < b->count && (e0 > 0 || a == a1)) {
        const uint64_t last = a == a1 ? e1 : dmls_cpu_prepared_of(b->ops[b->items[a].op])->items;
        if (e0 < last) run_item(b, in, out, a, e0, last);
        if (a == a1) return;
        a++;
    }
    run_whole_items(b, in, out, a, a1 < b->count ? a1 : b->count);
    if (a1 < b->count && e1 > 0) run_item(b, in, out, a1, 0, e1);
}

/* Where share t of `tasks` starts: total * t / tasks, without overflowing
 * 64 bits (t == tasks gives total). Each thread finds its share's ends from
 * the job's arguments alone, with no table to read from the caller's
 * memory. */
static uint64_t share_start(uint64_t total, int tasks, int t) {
    return total / (uint64_t)tasks * (uint64_t)t + total % (uint64_t)tasks * (uint64_t)t / (uint64_t)tasks;
}

typedef struct batch_job {
    const dmls_batch *b;
    const dmls_batch_input *in;
    const dmls_batch_output *out;
    uint64_t total;
    int tasks;
} batch_job;
_Static_assert(sizeof(batch_job) <= DMLS_POOL_ARGS, "a batch job is the pool's arguments");

static void run_share(const void *args, int task) {
    const batch_job *job = args;
    run_between(job->b, job->in, job->out, share_start(job->total, job->tasks, task),
                share_start(job->total, job->tasks, task + 1));
}

/* No share smaller than an eighth of the one-thread threshold (64 KiB by
 * default): below it a wake-up costs more than the copy. The tests' hook
 * (threshold 0) cuts every batch. */
static uint64_t min_share(const dmls_context *ctx) {
    return ctx->parallel_min_bytes / 8 > 0 ? ctx->parallel_min_bytes / 8 : 1;
}

dmls_status dmls_batch_execute(const dmls_batch *b, dmls_context *ctx, const dmls_batch_input *inputs,
                               uint32_t n_inputs, const dmls_batch_output *outputs, uint32_t n_outputs) {
    RETURN_IF_ERROR(dmls_batch_check_bindings("batch_execute", b, inputs, n_inputs, outputs, n_outputs));
    const uint64_t total = b->work[b->count];
    const int threads = ctx ? dmls_pool_threads(ctx->pool) : 1;
    if (threads == 1 || total < ctx->parallel_min_bytes || total < 2 * min_share(ctx)) {
        run_between(b, inputs, outputs, 0, total);
        return DMLS_OK;
    }
    dmls_mutex_lock(&ctx->turn);
    /* Threads beyond the CPUs would only be descheduled holding a share
     * the caller must then wait for. */
    const int cpus = dmls_pool_cpus(ctx->pool), started = dmls_pool_start(ctx->pool);
    const int useful = cpus >= 2 && cpus < started ? cpus : started;
    /* The same number of shares for every thread, so that each thread's
     * run of the pool's tasks is as long as any other's (15 shares on 16
     * threads left the caller none of its own), as many as the shares'
     * floor allows up to DMLS_SHARES_PER_THREAD, at least one. */
    uint64_t per = total / min_share(ctx) / (uint64_t)useful;
    per = per < 1 ? 1 : per > DMLS_SHARES_PER_THREAD ? DMLS_SHARES_PER_THREAD : per;
    const int tasks = (int)per * useful;
    /* With more threads than CPUs, waking a sleeping worker costs about
     * what copying the one-thread threshold does (split.h) and the woken
     * worker takes a CPU from the caller, so a sleeper is woken per such
     * amount of work beyond the caller's first: a tiny batch runs on the
     * caller, as a tiny single copy does. Otherwise the caller sends one
     * wake-up at most (workers pass it on, pool.c) and never waits for a
     * worker that has not arrived, so waking them all costs the caller
     * little and keeps them polling for the next call. */
    if (started > cpus) {
        const uint64_t per_wake = ctx->parallel_min_bytes;
        const uint64_t wakes = per_wake == 0 ? (uint64_t)tasks : total / per_wake - 1;
        dmls_pool_limit_wakes(ctx->pool, wakes < (uint64_t)tasks ? (int)wakes : tasks);
    }
    const batch_job job = {b, inputs, outputs, total, tasks};
    dmls_pool_run(ctx->pool, run_share, &job, sizeof job, tasks);
    dmls_mutex_unlock(&ctx->turn);
    return DMLS_OK;
}
