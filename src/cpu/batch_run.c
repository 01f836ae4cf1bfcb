/* A batch on the CPU: one pass of the pool over all the items' work.
 *
 * create summed each item's memory traffic into a prefix (batch.c: work);
 * the total is cut into one contiguous share per thread, and a share's ends
 * are mapped back to (item, element) places, so a share may start inside
 * one item, run many tiny ones whole and stop inside another: tiny items
 * are grouped, no worker is woken per item, and a huge item is cut as
 * dmls_execute_on cuts one operator (at its grain, split.h). Both ends of a
 * share are computed by the same function of the same work position, so
 * the shares tile the batch exactly. A SLICE_GRAD item's place is always
 * its start: its zero fill must precede its scatter, so one thread does it
 * whole. */
#include "../batch.h"
#include "../error.h"
#include "context.h"
#include "../checked.h"
#include "run.h"
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

/* Runs the work between positions lo and hi. */
static void run_between(const dmls_batch *b, const dmls_batch_input *in, const dmls_batch_output *out, uint64_t lo,
                        uint64_t hi) {
    size_t a0, a1;
    uint64_t e0, e1;
    place(b, lo, &a0, &e0);
    place(b, hi, &a1, &e1);
    for (size_t a = a0; a < b->count && a <= a1; a++) {
        const dmls_operator *op = b->ops[b->items[a].op];
        if (op->zero_fill && a == a1) break; /* its place is its start: the next share's */
        const uint64_t items = dmls_cpu_prepared_of(op)->items;
        const uint64_t first = a == a0 ? e0 : 0, last = a == a1 ? e1 : items;
        if (first < last || (op->zero_fill && a < a1)) run_item(b, in, out, a, first, last);
    }
}

typedef struct batch_job {
    const dmls_batch *b;
    const dmls_batch_input *in;
    const dmls_batch_output *out;
    const uint64_t *splits; /* work positions, tasks + 1 */
} batch_job;

static void run_share(void *arg, int task) {
    const batch_job *job = arg;
    run_between(job->b, job->in, job->out, job->splits[task], job->splits[task + 1]);
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
    const uint64_t most = total / min_share(ctx);
    const int shares = DMLS_SHARES_PER_THREAD * useful;
    const int tasks = most < (uint64_t)shares ? (int)most : shares;
    for (int t = 0; t < tasks; t++) /* total * t / tasks without overflowing 64 bits */
        ctx->splits[t] =
            total / (uint64_t)tasks * (uint64_t)t + total % (uint64_t)tasks * (uint64_t)t / (uint64_t)tasks;
    ctx->splits[tasks] = total;
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
    batch_job job = {b, inputs, outputs, ctx->splits};
    dmls_pool_run(ctx->pool, run_share, &job, tasks);
    dmls_mutex_unlock(&ctx->turn);
    return DMLS_OK;
}
