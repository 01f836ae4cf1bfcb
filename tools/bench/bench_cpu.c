/* dmlslice bench on the CPU; see bench.h. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "platform.h"

/* A timed batch of back-to-back calls lasts at least this long (or is
 * BATCH_MAX calls). */
#define BATCH_SECONDS 0.02
#define BATCH_MAX 10000

struct bench_cpu {
    dmls_context *ctx;
};

void bench_fill(void *p, uint64_t bytes, uint64_t seed) {
    uint64_t x = seed | 1;
    unsigned char *b = p;
    for (uint64_t i = 0; i < bytes; i += 8) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        const uint64_t v = x * 0x2545F4914F6CDD1DULL;
        memcpy(b + i, &v, bytes - i < 8 ? bytes - i : 8);
    }
}

bench_cpu *bench_cpu_open(int threads) {
    bench_cpu *b = calloc(1, sizeof *b);
    if (b == NULL) {
        fprintf(stderr, "dmlslice bench: out of memory\n");
        return NULL;
    }
    if (dmls_context_create(threads, &b->ctx) != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: %s\n", dmls_last_error());
        free(b);
        return NULL;
    }
    return b;
}

int bench_cpu_threads(const bench_cpu *b) { return dmls_context_threads(b->ctx); }

dmls_context *bench_cpu_context(const bench_cpu *b) { return b->ctx; }

void bench_cpu_close(bench_cpu *b) {
    if (b == NULL) return;
    dmls_context_destroy(b->ctx);
    free(b);
}

static void pause_ms(long ms) { dmls_sleep_ms(ms); }

/* The copy: bytes as one packed axis of uint8, taken whole. */
static dmls_status create_copy(uint64_t bytes, dmls_operator **op) {
    const int64_t n = (int64_t)bytes, zero = 0, one = 1;
    const dmls_tensor t = {DMLS_UINT8, 1, &n, NULL, 0};
    const dmls_window w = {&zero, &n, &one};
    return dmls_create(&t, &t, &w, op);
}

typedef struct buffers {
    void *src, *dst, *csrc;
    uint64_t ib, ob;
} buffers;

/* Calls per timed batch: enough for BATCH_SECONDS after one untimed call. */
static int batch_size(bench_cpu *b, const dmls_operator *op, const buffers *m, dmls_status *s) {
    const double t0 = bench_now();
    *s = dmls_execute_on(op, b->ctx, m->src, m->ib, m->dst, m->ob);
    const double once = bench_now() - t0;
    return once * BATCH_MAX <= BATCH_SECONDS ? BATCH_MAX : (int)(BATCH_SECONDS / once) + 1;
}

/* One rep, in the steady state a library serves (a model's layers call it
 * back to back): the copy and then the slice each run one untimed call,
 * which wakes that side's threads, then a batch back to back. A pause
 * before each batch lets the other side's threads stop spinning, so the two
 * never compete for cores. */
static dmls_status time_rep(bench_cpu *b, const dmls_operator *op, const dmls_operator *copy, const buffers *m,
                            int batch, double *t_case, double *t_copy, double *t_one) {
    dmls_status s = DMLS_OK;
    pause_ms(2);
    s = dmls_execute_on(copy, b->ctx, m->csrc, m->ob, m->dst, m->ob);
    double t0 = bench_now();
    for (int i = 0; i < batch && s == DMLS_OK; i++) s = dmls_execute_on(copy, b->ctx, m->csrc, m->ob, m->dst, m->ob);
    *t_copy = (bench_now() - t0) / batch;
    pause_ms(2);
    if (s == DMLS_OK) s = dmls_execute_on(op, b->ctx, m->src, m->ib, m->dst, m->ob);
    t0 = bench_now();
    for (int i = 0; i < batch && s == DMLS_OK; i++) s = dmls_execute_on(op, b->ctx, m->src, m->ib, m->dst, m->ob);
    *t_case = (bench_now() - t0) / batch;
    t0 = bench_now();
    memcpy(m->dst, m->csrc, m->ob); /* one thread, for scale */
    *t_one = bench_now() - t0;
    return s;
}

/* The last output against the reference executor's; csrc takes the
 * reference's output. */
static bool check_output(bench_cpu *b, const dmls_operator *op, const buffers *m) {
    return dmls_execute_on(op, b->ctx, m->src, m->ib, m->dst, m->ob) == DMLS_OK &&
           dmls_execute_reference(op, m->src, m->ib, m->csrc, m->ob) == DMLS_OK && memcmp(m->dst, m->csrc, m->ob) == 0;
}

static void *alloc_aligned(uint64_t bytes) { return bytes > SIZE_MAX ? NULL : dmls_aligned_alloc(64, (size_t)bytes); }

bool bench_cpu_case(bench_cpu *b, const bench_case *c, int reps, uint64_t seed, bench_row *row) {
    memset(row, 0, sizeof *row);
    row->name = c->name;
    dmls_operator *op = NULL, *copy = NULL;
    buffers m = {NULL, NULL, NULL, 0, 0};
    double *t = malloc(3 * sizeof *t * (size_t)reps);
    bool ok = false;
    if (bench_create(c, &op) != DMLS_OK || create_copy(dmls_output_bytes(op), &copy) != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: case %s: %s\n", c->name, dmls_last_error());
        goto done;
    }
    m.ib = dmls_input_bytes(op), m.ob = dmls_output_bytes(op);
    m.src = alloc_aligned(m.ib), m.dst = alloc_aligned(m.ob), m.csrc = alloc_aligned(m.ob);
    if (!t || !m.src || !m.dst || !m.csrc) {
        fprintf(stderr, "dmlslice bench: case %s: cannot allocate %llu + 2 x %llu bytes\n", c->name,
                (unsigned long long)m.ib, (unsigned long long)m.ob);
        goto done;
    }
    bench_fill(m.src, m.ib, 0x9E3779B97F4A7C15ULL + seed);
    bench_fill(m.csrc, m.ob, 0xD1B54A32D192ED03ULL + seed);
    bench_fill(m.dst, m.ob, 1); /* fault the output in before timing */
    dmls_status s;
    const int batch = batch_size(b, op, &m, &s);
    for (int r = 0; r < reps && s == DMLS_OK; r++) s = time_rep(b, op, copy, &m, batch, &t[r], &t[reps + r], &t[2 * reps + r]);
    if (s != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: case %s: %s\n", c->name, dmls_last_error());
        goto done;
    }
    row->out_bytes = m.ob;
    row->batch = batch;
    row->ms = 1e3 * bench_median(t, reps);
    row->copy_ms = 1e3 * bench_median(t + reps, reps);
    row->memcpy1_ms = 1e3 * bench_median(t + 2 * reps, reps);
    row->correct = check_output(b, op, &m);
    row->timed = ok = true;
done:
    dmls_aligned_free(m.src), dmls_aligned_free(m.dst), dmls_aligned_free(m.csrc), free(t);
    dmls_destroy(op);
    dmls_destroy(copy);
    return ok;
}
