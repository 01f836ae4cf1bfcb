/* The CPU backend's execute: dmls_execute_on (and through it dmls_execute)
 * walks a prepared copy with an odometer from any starting item, so the same
 * code runs a whole copy on one thread or one thread's share of it, and cuts
 * large copies between a context's threads (split.h says where). */
#include "execute.h"

#include "../bindings.h"
#include "../error.h"
#include "context.h"
#include "kernels.h"

/* Steps the odometer of the dims outside the rows dim (`outer`) by one. */
static inline void carry(const dmls_cpu_prepared *cp, int outer, int64_t *c, const unsigned char **src,
                         unsigned char **dst) {
    for (int i = outer - 1; i >= 0; i--) {
        *src += cp->src_step[i];
        *dst += cp->dst_step[i];
        if (++c[i] < cp->shape[i]) return;
        *src -= cp->src_step[i] * cp->shape[i];
        *dst -= cp->dst_step[i] * cp->shape[i];
        c[i] = 0;
    }
}

/* Items [first, last) of a tiled copy whose items run column by column in
 * each plane (split_cols): a share is then a band of the input's rows, the
 * output's columns, all rows each, so one thread reads one contiguous range
 * of input. A column cut short at either end is a band of one column. */
static void run_columns(const dmls_cpu_prepared *cp, const unsigned char *src, unsigned char *dst,
                        uint64_t first, uint64_t last) {
    const int inner = cp->ndim - 1, outer = inner - 1;
    const uint64_t R = (uint64_t)cp->shape[outer], C = (uint64_t)cp->shape[inner];
    const int64_t ss = cp->src_step[inner], ds = cp->dst_step[inner];
    const int64_t rs = cp->src_step[outer], rd = cp->dst_step[outer];
    int64_t c[DMLS_MAX_RANK] = {0};
    uint64_t col = first / R, r = first % R, plane = col / C;
    col %= C;
    for (int i = outer - 1; i >= 0; i--) { /* place the planes' odometer */
        c[i] = (int64_t)(plane % (uint64_t)cp->shape[i]);
        plane /= (uint64_t)cp->shape[i];
        src += c[i] * cp->src_step[i];
        dst += c[i] * cp->dst_step[i];
    }
    for (uint64_t left = last - first; left > 0;) {
        const int64_t k = (int64_t)col;
        if (r != 0 || left < R) { /* part of one column */
            const uint64_t len = R - r < left ? R - r : left;
            cp->rows(dst + k * ds + (int64_t)r * rd, src + k * ss + (int64_t)r * rs, 1, (int64_t)len, cp);
            left -= len;
            r += len;
            if (r < R) break;
            r = 0, col++;
        } else { /* whole columns */
            const uint64_t cols = C - col < left / R ? C - col : left / R;
            cp->rows(dst + k * ds, src + k * ss, (int64_t)cols, (int64_t)R, cp);
            left -= cols * R;
            col += cols;
        }
        if (col == C && left > 0) {
            col = 0;
            carry(cp, outer, c, &src, &dst);
        }
    }
}

/* Items [first, last) in row-major order over the prepared shape. */
static void run_rows(const dmls_cpu_prepared *cp, const void *src_base, void *dst_base, uint64_t first,
                     uint64_t last) {
    const int inner = cp->ndim - 1, outer = inner - 1; /* outer: the rows dim, -1 if none */
    const int64_t n = cp->shape[inner], ss = cp->src_step[inner], ds = cp->dst_step[inner];
    const unsigned char *src = (const unsigned char *)src_base + cp->src_offset;
    unsigned char *dst = (unsigned char *)dst_base + cp->dst_offset;

    int64_t c[DMLS_MAX_RANK] = {0}, col = 0;
    if (first != 0) { /* a thread's share: place it (divisions cost ~40 cycles, so not at 0) */
        uint64_t row = first / (uint64_t)n;
        col = (int64_t)(first % (uint64_t)n);
        for (int i = inner - 1; i >= 0; i--) {
            c[i] = (int64_t)(row % (uint64_t)cp->shape[i]);
            row /= (uint64_t)cp->shape[i];
            src += c[i] * cp->src_step[i];
            dst += c[i] * cp->dst_step[i];
        }
    }
    uint64_t left = last - first;
    if (col != 0 || left < (uint64_t)n) { /* a share that starts or ends inside a row */
        int64_t len = n - col;
        if ((uint64_t)len > left) len = (int64_t)left;
        cp->rows(dst + col * ds, src + col * ss, len, 1, cp);
        left -= (uint64_t)len;
        if (left == 0) return;
        /* left > 0 means the row ran to its end and another follows (outer >= 0) */
        src += cp->src_step[outer];
        dst += cp->dst_step[outer];
        if (++c[outer] == cp->shape[outer]) {
            src -= cp->src_step[outer] * cp->shape[outer];
            dst -= cp->dst_step[outer] * cp->shape[outer];
            c[outer] = 0;
            carry(cp, outer, c, &src, &dst);
        }
    }
    /* Whole rows, a tile (the rest of the rows dim) per call. */
    for (;;) {
        int64_t rows = outer >= 0 ? cp->shape[outer] - c[outer] : 1;
        if (left < (uint64_t)rows * (uint64_t)n) { /* the last tile: divide once */
            rows = (int64_t)(left / (uint64_t)n);
            if (rows == 0) {
                cp->rows(dst, src, (int64_t)left, 1, cp);
                break;
            }
        }
        cp->rows(dst, src, n, rows, cp);
        left -= (uint64_t)rows * (uint64_t)n;
        if (left == 0) break;
        /* left > 0, so outer >= 0: next row after the tile */
        if (c[outer] + rows < cp->shape[outer]) { /* only the partial row is left */
            c[outer] += rows;
            src += cp->src_step[outer] * rows;
            dst += cp->dst_step[outer] * rows;
        } else {
            src -= cp->src_step[outer] * c[outer];
            dst -= cp->dst_step[outer] * c[outer];
            c[outer] = 0;
            carry(cp, outer, c, &src, &dst);
        }
    }
}

void dmls_cpu_run_range(const dmls_cpu_prepared *cp, const void *src_base, void *dst_base,
                        uint64_t first, uint64_t last) {
    if (first >= last) return;
    /* a tiled copy's whole range is the same either way: row blocks are its walk */
    if (cp->split_cols && (first != 0 || last != cp->items))
        run_columns(cp, (const unsigned char *)src_base + cp->src_offset,
                    (unsigned char *)dst_base + cp->dst_offset, first, last);
    else
        run_rows(cp, src_base, dst_base, first, last);
#if defined(__x86_64__) || defined(__i386__)
    /* Streaming stores are weakly ordered: fence them before anyone (the
     * caller, or the thread that waits for this one) reads the output. */
    if (cp->nontemporal) dmls_cpu_store_fence();
#endif
}

/* One job on the pool: a copy (cp) or SLICE_GRAD's zero fill (fill), cut at
 * splits[task]..splits[task + 1] (items of cp, or elements of fill). */
typedef struct share_job {
    const dmls_cpu_prepared *cp;
    const dmls_copy_plan *fill;
    const void *src;
    void *dst;
    const uint64_t *splits;
} share_job;

_Static_assert(sizeof(share_job) <= DMLS_POOL_ARGS, "a share job is the pool's arguments");

static void run_share(const void *args, int task) {
    const share_job *job = args;
    if (job->fill) dmls_cpu_fill_zero_range(job->fill, job->dst, job->splits[task], job->splits[task + 1]);
    else dmls_cpu_run_range(job->cp, job->src, job->dst, job->splits[task], job->splits[task + 1]);
}

/* Cuts `items` into at most `threads` shares that start on multiples of
 * `grain`, into splits[0..tasks]; returns tasks. */
static int cut(uint64_t *splits, uint64_t items, uint64_t grain, int threads) {
    uint64_t units = (items + grain - 1) / grain;
    int tasks = units < (uint64_t)threads ? (int)units : threads;
    for (int i = 0; i < tasks; i++) {
        /* units * i / tasks without overflowing 64 bits */
        uint64_t u = (units / (uint64_t)tasks) * (uint64_t)i + (units % (uint64_t)tasks) * (uint64_t)i / (uint64_t)tasks;
        splits[i] = u * grain;
    }
    splits[tasks] = items;
    return tasks;
}

dmls_status dmls_execute_on(const dmls_operator *op, dmls_context *ctx, const void *input,
                            uint64_t input_bytes, void *output, uint64_t output_bytes) {
    RETURN_IF_ERROR(dmls_check_bindings("execute", op, input, input_bytes, output, output_bytes));
    const int threads = ctx ? dmls_pool_threads(ctx->pool) : 1;
    const uint64_t min_bytes = ctx ? ctx->parallel_min_bytes : 0;
    if (op->zero_fill) {
        const dmls_copy_plan *f = &op->fill;
        if (threads == 1 || f->count == 0 || f->count * (uint64_t)f->esize < min_bytes) {
            dmls_cpu_fill_zero(f, output);
        } else {
            dmls_mutex_lock(&ctx->turn);
            int tasks = cut(ctx->splits, f->count, dmls_cpu_fill_grain(f), dmls_pool_start(ctx->pool));
            const share_job job = {NULL, f, NULL, output, ctx->splits};
            dmls_pool_run(ctx->pool, run_share, &job, sizeof job, tasks);
            dmls_mutex_unlock(&ctx->turn);
        }
    }
    const dmls_cpu_prepared *cp = dmls_cpu_prepared_of(op);
    if (cp->items == 0) return DMLS_OK;
    if (threads == 1 || cp->traffic_bytes < min_bytes) {
        dmls_cpu_run_whole(cp, input, output);
        return DMLS_OK;
    }
    /* Shares start on a multiple of the plan's grain, so short rows are
     * never cut between threads. */
    dmls_mutex_lock(&ctx->turn);
    int tasks = cut(ctx->splits, cp->items, cp->split_grain, dmls_pool_start(ctx->pool));
    const share_job job = {cp, NULL, input, output, ctx->splits};
    dmls_pool_run(ctx->pool, run_share, &job, sizeof job, tasks);
    dmls_mutex_unlock(&ctx->turn);
    return DMLS_OK;
}

dmls_status dmls_execute(const dmls_operator *op, const void *input, uint64_t input_bytes, void *output,
                         uint64_t output_bytes) {
    return dmls_execute_on(op, NULL, input, input_bytes, output, output_bytes);
}
