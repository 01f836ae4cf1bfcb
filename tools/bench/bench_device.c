/* dmlslice bench on any device, through the device interface
 * (dmlslice/device.h): the canonical cases and the bandwidth-bound batch
 * rows, each beside the device's copy of the same bytes (dmls_device_copy)
 * timed in the same run, every output checked against the reference
 * executor. No backend is named here; how a device is timed is decided by
 * what it is (bench.h):
 *   the CPU  batches of back-to-back calls on the host clock, after a
 *            pause that lets the other side's threads stop spinning;
 *   a GPU    on its own clock, the timed runs after a warm-up burst, bursts
 *            repeated until one is no faster than the one before (the
 *            GPU's clock up). */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "dmlslice/device.h"
#include "platform.h"

/* A CPU batch of back-to-back calls lasts at least this long (or is
 * BATCH_MAX calls). */
#define BATCH_SECONDS 0.02
#define BATCH_MAX 10000
/* A GPU's timed sample spans about this much of its time (at least one
 * run): the clock's marks between samples (an event, a timestamp after a
 * barrier) cost about a microsecond, which a sample of one run of a few
 * microseconds would count as the run's (the KV gather read 9.9 us so
 * against 8.8 us by ten calls a sample, 2026-11-29). */
#define SAMPLE_SECONDS 100e-6
#define SAMPLE_MAX 1000

struct bench_device {
    dmls_device *dev;
    bool gpu;              /* not the CPU: timed on the device's clock, in bursts */
    bench_gpu_clock clock; /* a GPU's bursts */
};

bench_device *bench_device_open(const char *name, int threads, bool quick, bool verbose, char *desc,
                                size_t desc_size) {
    desc[0] = '\0';
    bench_device *b = calloc(1, sizeof *b);
    dmls_device_info info;
    if (b == NULL || dmls_device_open(name, &b->dev) != DMLS_OK ||
        (threads > 0 && dmls_device_set_threads(b->dev, threads) != DMLS_OK) ||
        dmls_device_describe(b->dev, &info) != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: --device %s: %s\n", name, b ? dmls_last_error() : "out of memory");
        bench_device_close(b);
        return NULL;
    }
    snprintf(desc, desc_size, "%s", info.description);
    b->gpu = strcmp(info.kind, "cpu") != 0;
    b->clock = bench_gpu_clock_of(quick, verbose);
    return b;
}

int bench_device_threads(const bench_device *b) { return b->gpu ? 0 : dmls_device_threads(b->dev); }

void bench_device_close(bench_device *b) {
    if (b == NULL) return;
    dmls_device_close(b->dev);
    free(b);
}

/* Seconds per call of n back-to-back calls of w after an untimed one, the
 * mean; < 0 on failure. */
static double host_batch(bench_device *b, const dmls_device_work *w, int n) {
    double t = -1;
    return dmls_device_time(b->dev, w, 1, 1, (uint32_t)n, &t) == DMLS_OK ? t : -1;
}

/* One burst of bench_steady on a GPU (seconds): estimate < 0 for one run
 * alone, else a warm-up and reps samples of about SAMPLE_SECONDS each. */
typedef struct gpu_burst {
    bench_device *b;
    const dmls_device_work *w;
} gpu_burst;

static bool gpu_burst_run(void *ctx, double estimate, int reps, double *t) {
    const gpu_burst *g = ctx;
    if (estimate < 0) return dmls_device_time(g->b->dev, g->w, 0, 1, 1, t) == DMLS_OK;
    const uint32_t per =
        estimate <= 0 || estimate * SAMPLE_MAX < SAMPLE_SECONDS ? SAMPLE_MAX : (uint32_t)(SAMPLE_SECONDS / estimate) + 1;
    const uint32_t warm = (uint32_t)bench_warm_runs(&g->b->clock, 1e3 * estimate);
    return dmls_device_time(g->b->dev, g->w, warm, (uint32_t)reps, per, t) == DMLS_OK;
}

/* Median seconds of reps runs of w on a GPU in the steady state
 * (bench_steady); < 0 on failure. */
static double gpu_steady(bench_device *b, const dmls_device_work *w, int reps, double *t) {
    gpu_burst g = {b, w};
    return bench_steady(&b->clock, gpu_burst_run, &g, 1e3, reps, t);
}

/* One case's buffers on the device: its input, its output and the copy's
 * source (the output's size); on the host the reference's output and the
 * device's, read back. */
typedef struct case_buffers {
    dmls_device_buffer *in, *out, *csrc;
    unsigned char *want, *got;
    uint64_t ib, ob;
} case_buffers;

static void case_free(bench_device *b, case_buffers *m) {
    dmls_device_free(b->dev, m->in), dmls_device_free(b->dev, m->out), dmls_device_free(b->dev, m->csrc);
    dmls_aligned_free(m->want), dmls_aligned_free(m->got);
}

static void *host_alloc(uint64_t bytes) {
    return bytes > SIZE_MAX - 64 ? NULL : dmls_aligned_alloc(64, (size_t)(bytes ? bytes : 1));
}

/* The buffers of op with random input (seeded), and the output checked:
 * false after saying why; *correct whether the device's output equals the
 * reference executor's, byte for byte. */
static bool case_setup(bench_device *b, const bench_case *c, const dmls_operator *op, uint64_t seed, case_buffers *m,
                       bool *correct) {
    m->ib = dmls_input_bytes(op), m->ob = dmls_output_bytes(op);
    unsigned char *host_in = host_alloc(m->ib);
    m->want = host_alloc(m->ob), m->got = host_alloc(m->ob);
    bool ok = host_in && m->want && m->got;
    if (!ok) fprintf(stderr, "dmlslice bench: case %s: out of host memory\n", c->name);
    ok = ok && dmls_device_alloc(b->dev, m->ib, &m->in) == DMLS_OK &&
         dmls_device_alloc(b->dev, m->ob, &m->out) == DMLS_OK && dmls_device_alloc(b->dev, m->ob, &m->csrc) == DMLS_OK;
    if (ok) {
        bench_fill(host_in, m->ib, 0x9E3779B97F4A7C15ULL + seed);
        bench_fill(m->want, m->ob, 0xD1B54A32D192ED03ULL + seed);
        bench_fill(m->got, m->ob, 1);
        ok = dmls_device_upload(b->dev, m->in, 0, host_in, m->ib) == DMLS_OK &&
             dmls_device_upload(b->dev, m->csrc, 0, m->want, m->ob) == DMLS_OK &&
             dmls_device_upload(b->dev, m->out, 0, m->got, m->ob) == DMLS_OK; /* faulted in before timing */
        const dmls_device_binding in = {m->in, 0, m->ib}, out = {m->out, 0, m->ob};
        ok = ok && dmls_device_execute(b->dev, op, in, out) == DMLS_OK &&
             dmls_device_download(b->dev, m->out, 0, m->got, m->ob) == DMLS_OK &&
             dmls_execute_reference(op, host_in, m->ib, m->want, m->ob) == DMLS_OK;
        if (!ok) fprintf(stderr, "dmlslice bench: case %s: %s\n", c->name, dmls_last_error());
    }
    *correct = ok && memcmp(m->got, m->want, m->ob) == 0;
    dmls_aligned_free(host_in);
    return ok;
}

/* The CPU's reps: each times the copy and then the slice in the steady
 * state a library serves (a model's layers, back to back), each side one
 * untimed call and then a batch, after a 2 ms pause that lets the other
 * side's threads stop spinning, so the two never compete for cores; then a
 * one-thread memcpy of the output's bytes, for scale. */
static bool cpu_reps(bench_device *b, const dmls_device_work *slice, const dmls_device_work *copy, case_buffers *m,
                     int reps, bench_row *row) {
    double once = 0;
    if (dmls_device_time(b->dev, slice, 0, 1, 1, &once) != DMLS_OK) return false;
    const int batch = once * BATCH_MAX <= BATCH_SECONDS ? BATCH_MAX : (int)(BATCH_SECONDS / once) + 1;
    double *t = malloc(sizeof *t * (size_t)(3 * reps));
    if (t == NULL) return false;
    bool ok = true;
    for (int r = 0; ok && r < reps; r++) {
        dmls_sleep_ms(2);
        t[reps + r] = host_batch(b, copy, batch);
        dmls_sleep_ms(2);
        t[r] = host_batch(b, slice, batch);
        const double t0 = bench_now();
        memcpy(m->got, m->want, (size_t)m->ob);
        t[2 * reps + r] = bench_now() - t0;
        ok = t[r] >= 0 && t[reps + r] >= 0;
    }
    if (ok) {
        row->ms = 1e3 * bench_median(t, reps);
        row->copy_ms = 1e3 * bench_median(t + reps, reps);
        row->memcpy1_ms = 1e3 * bench_median(t + 2 * reps, reps);
        row->batch = batch;
    }
    free(t);
    return ok;
}

bool bench_device_case(bench_device *b, const bench_case *c, int reps, uint64_t seed, bench_row *row) {
    memset(row, 0, sizeof *row);
    row->name = c->name;
    dmls_operator *op = NULL;
    case_buffers m;
    memset(&m, 0, sizeof m);
    bool ok = false;
    if (bench_create(c, &op) != DMLS_OK) {
        fprintf(stderr, "dmlslice bench: case %s: %s\n", c->name, dmls_last_error());
        goto done;
    }
    if (!case_setup(b, c, op, seed, &m, &row->correct)) goto done;
    const dmls_device_binding in = {m.in, 0, m.ib}, out = {m.out, 0, m.ob}, csrc = {m.csrc, 0, m.ob};
    const dmls_device_work slice = {op, NULL, &in, &out, 1, 1}, copy = {NULL, NULL, &csrc, &out, 1, 1};
    if (b->gpu) {
        double *t = malloc(sizeof *t * (size_t)reps);
        row->ms = t ? 1e3 * gpu_steady(b, &slice, reps, t) : -1;
        row->copy_ms = t ? 1e3 * gpu_steady(b, &copy, reps, t) : -1;
        row->batch = 1;
        free(t);
        ok = row->ms >= 0 && row->copy_ms >= 0;
    } else {
        ok = cpu_reps(b, &slice, &copy, &m, reps, row);
    }
    if (!ok) fprintf(stderr, "dmlslice bench: case %s: %s\n", c->name, dmls_last_error());
    row->out_bytes = m.ob;
    row->timed = ok;
done:
    case_free(b, &m);
    dmls_destroy(op);
    return ok;
}

/* ------------------------------------------------------------ batch rows */

/* g's slots on the device: its inputs uploaded, its parts in one output
 * buffer, and a buffer for the copy of the output's bytes. */
typedef struct batch_buffers {
    dmls_device_buffer *in[2], *out, *copy;
    dmls_device_binding bin[2], bout[8];
} batch_buffers;

static bool batch_setup(bench_device *b, const bench_gpu_case *g, batch_buffers *d) {
    const uint64_t part = g->out_bytes / (g->parts ? g->parts : 1);
    if (dmls_device_alloc(b->dev, g->out_bytes, &d->out) != DMLS_OK ||
        dmls_device_alloc(b->dev, g->out_bytes, &d->copy) != DMLS_OK)
        return false;
    for (uint32_t k = 0; k < g->n_in; k++) {
        if (dmls_device_alloc(b->dev, g->in_bytes[k], &d->in[k]) != DMLS_OK ||
            dmls_device_upload(b->dev, d->in[k], 0, g->in[k], g->in_bytes[k]) != DMLS_OK)
            return false;
        d->bin[k] = (dmls_device_binding){d->in[k], 0, g->in_bytes[k]};
    }
    for (uint32_t j = 0; j < g->parts; j++) d->bout[j] = (dmls_device_binding){d->out, j * part, part};
    return true;
}

/* The device's outputs against the CPU's batch on the host inputs. */
static bool batch_correct(bench_device *b, const bench_gpu_case *g, const batch_buffers *d) {
    const uint64_t part = g->out_bytes / (g->parts ? g->parts : 1);
    unsigned char *want = host_alloc(g->out_bytes), *got = host_alloc(g->out_bytes);
    dmls_batch_input hin[2];
    dmls_batch_output hout[8];
    for (uint32_t k = 0; k < g->n_in; k++) hin[k] = (dmls_batch_input){g->in[k], g->in_bytes[k]};
    for (uint32_t j = 0; want && j < g->parts; j++) hout[j] = (dmls_batch_output){want + j * part, part};
    const bool same = want && got && dmls_batch_execute(g->batch, NULL, hin, g->n_in, hout, g->parts) == DMLS_OK &&
                      dmls_device_download(b->dev, d->out, 0, got, g->out_bytes) == DMLS_OK &&
                      memcmp(got, want, (size_t)g->out_bytes) == 0;
    dmls_aligned_free(want), dmls_aligned_free(got);
    return same;
}

/* A bandwidth-bound case (bench.h: the KV gather, the split), prepared, in
 * the device's memory, against the device's copy of its output's bytes
 * from its first input (which holds at least as many), both on the
 * device's clock; its output checked against the CPU's. */
static int batch_row(bench_device *b, bool made, const bench_gpu_case *g, int reps, bench_batch_row *r) {
    memset(r, 0, sizeof *r);
    r->name = g->name, r->timing = "device clock", r->items = g->items, r->out_bytes = g->out_bytes;
    batch_buffers d;
    memset(&d, 0, sizeof d);
    double *t = malloc(sizeof *t * (size_t)reps);
    const dmls_status prepared = made ? dmls_device_batch_prepare(b->dev, g->batch) : DMLS_ERROR_INVALID_ARGUMENT;
    if (prepared == DMLS_ERROR_UNSUPPORTED) /* e.g. a cache beyond one of this device's bindings */
        snprintf(r->skipped, sizeof r->skipped, "%s", dmls_last_error());
    bool ok = t != NULL && prepared == DMLS_OK && batch_setup(b, g, &d) &&
              dmls_device_batch_execute(b->dev, g->batch, d.bin, g->n_in, d.bout, g->parts) == DMLS_OK;
    r->correct = ok && batch_correct(b, g, &d);
    if (ok) {
        const dmls_device_binding src = {d.in[0], 0, g->out_bytes}, dst = {d.copy, 0, g->out_bytes};
        const dmls_device_work run = {NULL, g->batch, d.bin, d.bout, g->n_in, g->parts};
        const dmls_device_work copy = {NULL, NULL, &src, &dst, 1, 1};
        r->us = 1e6 * gpu_steady(b, &run, reps, t);
        r->yard[0].name = "copy", r->yard[0].us = 1e6 * gpu_steady(b, &copy, reps, t);
        r->nyard = 1;
        r->timed = r->us >= 0 && r->yard[0].us >= 0;
    }
    if (made && !r->timed && !r->skipped[0]) fprintf(stderr, "dmlslice bench: the %s row: %s\n", r->name, dmls_last_error());
    for (int k = 0; k < 2; k++) dmls_device_free(b->dev, d.in[k]);
    dmls_device_free(b->dev, d.out), dmls_device_free(b->dev, d.copy);
    free(t);
    return 1;
}

int bench_device_batches(bench_device *b, int reps, bool quick, bench_batch_row *rows) {
    if (!b->gpu) return 0;
    bool (*const make[2])(bool, bench_gpu_case *) = {bench_kv_make, bench_split_make};
    for (int k = 0; k < 2; k++) {
        bench_gpu_case g;
        batch_row(b, make[k](quick, &g), &g, reps, &rows[k]);
        bench_gpu_case_free(&g);
    }
    return 2;
}
