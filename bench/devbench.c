/* dmlslice_devbench, the developer benchmark (built, not installed): the
 * canonical cases of bench/cases.json (built in; --cases FILE overrides) on
 * random data, each beside a plain copy of the same bytes by the same number
 * of threads,
 * measured in the same run and interleaved (copy, case, copy, case, ...) so
 * both see the same machine state; then the four worked examples of
 * DirectML's docs as tiny planned operators, in ns per execute.
 *
 * A host-timed device is one table entry (alloc, fill, execute, copy,
 * timer). The GPU has one benchmark, the shipped `dmlslice bench --device
 * cuda` (tools/bench/bench_device.c, bench_batch_cuda.c): its cases, the
 * batch rows and the launch floors (a tiny slice, a 4-byte memset, an empty
 * kernel).
 *
 * Unlike the shipped `dmlslice bench` (tools/commands/cmd_bench.c, public
 * API only), this program uses the library's internals: the copy baseline
 * runs on a pool of the library's own kind. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../examples/worked_examples.h"
#include "cases.h"
#include "cpu/execute.h" /* internal: a tiled copy's cut between threads, forced for timing */
#include "cpu/pool.h"    /* internal: the pool, for the copy baseline */
#include "dmlslice/dmlslice.h"
#include "platform/platform.h"

/* ------------------------------------------------------------ devices */

typedef struct bench_device {
    const char *name;
    /* Prepares the device with `threads` threads (0 = the library's default). */
    int (*open)(int threads);
    void (*close)(void);
    int (*threads)(void);
    void *(*alloc)(uint64_t bytes);
    void (*release)(void *p);
    void (*fill)(void *p, uint64_t bytes, uint64_t seed); /* random, never all zeros */
    dmls_status (*execute)(const dmls_operator *op, const void *in, uint64_t in_bytes, void *out,
                           uint64_t out_bytes);
    void (*copy)(void *dst, const void *src, uint64_t bytes); /* the same threads as execute */
    double (*now)(void);                                      /* seconds, after the device is idle */
} bench_device;

/* CPU: execute on a context; the copy is glibc's memcpy cut into one share
 * per thread, run on a second pool of the library's kind (src/cpu/pool.c), so
 * both sides wake, spin and wait for their threads the same way and the
 * baseline's bytes owe nothing to the library's kernels. */
static dmls_context *cpu_ctx;
static dmls_pool *copy_pool;
static int cpu_nthreads;
typedef struct copy_job {
    unsigned char *dst;
    const unsigned char *src;
    uint64_t bytes;
} copy_job;

static void copy_share(const void *args, int i) {
    const copy_job *job = args;
    uint64_t per = job->bytes / (uint64_t)cpu_nthreads / 64 * 64;
    uint64_t from = per * (uint64_t)i, len = i == cpu_nthreads - 1 ? job->bytes - from : per;
    memcpy(job->dst + from, job->src + from, len);
}

static int cpu_open(int threads) {
    dmls_status s = dmls_context_create(threads, &cpu_ctx);
    if (s != DMLS_OK) {
        fprintf(stderr, "devbench: %s\n", dmls_last_error());
        return -1;
    }
    cpu_nthreads = dmls_context_threads(cpu_ctx);
    copy_pool = dmls_pool_create(cpu_nthreads, cpu_nthreads);
    if (!copy_pool) {
        fprintf(stderr, "devbench: cannot start %d copy threads\n", cpu_nthreads);
        dmls_context_destroy(cpu_ctx);
        return -1;
    }
    return 0;
}

static void cpu_close(void) {
    dmls_pool_destroy(copy_pool);
    dmls_context_destroy(cpu_ctx);
}

static int cpu_threads(void) { return cpu_nthreads; }
static void *cpu_alloc(uint64_t bytes) { return bytes > SIZE_MAX ? NULL : dmls_aligned_alloc(64, (size_t)bytes); }
static void cpu_release(void *p) { dmls_aligned_free(p); }

static void cpu_fill(void *p, uint64_t bytes, uint64_t seed) {
    uint64_t x = seed | 1;
    unsigned char *b = p;
    for (uint64_t i = 0; i < bytes; i += 8) {
        x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
        uint64_t v = x * 0x2545F4914F6CDD1DULL;
        memcpy(b + i, &v, bytes - i < 8 ? bytes - i : 8);
    }
}

static dmls_status cpu_execute(const dmls_operator *op, const void *in, uint64_t in_bytes, void *out,
                               uint64_t out_bytes) {
    return dmls_execute_on(op, cpu_ctx, in, in_bytes, out, out_bytes);
}

static void cpu_copy(void *dst, const void *src, uint64_t bytes) {
    const copy_job job = {dst, src, bytes};
    dmls_pool_run(copy_pool, copy_share, &job, sizeof job, cpu_nthreads);
}

static double cpu_now(void) { return 1e-9 * (double)dmls_monotonic_ns(); }

static const bench_device devices[] = {
    {"cpu", cpu_open, cpu_close, cpu_threads, cpu_alloc, cpu_release, cpu_fill, cpu_execute, cpu_copy, cpu_now},
};

/* ------------------------------------------------------------ helpers */

static int parse_int(const char *s, const char *what, int lo, int hi, int *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) {
        fprintf(stderr, "devbench: %s '%s' is not an integer from %d to %d\n", what, s, lo, hi);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static const char usage[] =
    "usage: dmlslice_devbench [--device cpu] [--threads N] [--cases FILE] [--reps N] [--json FILE]\n"
    "\n"
    "Times the canonical slice cases on random data beside a plain copy of the\n"
    "same bytes (same run), then tiny operators.\n"
    "GB/s counts 2 x output bytes (read + written) per second.\n"
    "\n"
    "  cpu   the copy is memcpy by the same number of threads, interleaved with\n"
    "        the slice; each side runs back to back in batches of at least 20 ms\n"
    "        (batch = calls per batch); a one-thread memcpy is shown for scale\n"
    "        (memcpy1); each output is checked against the reference executor;\n"
    "        tiny: the four examples of DirectML's docs, ns per execute\n"
    "  (the GPU: dmlslice bench --device cuda)\n"
    "\n"
    "  --device NAME   cpu (the default and only one)\n"
    "  --threads N     cpu: threads, 0 = DMLSLICE_THREADS or all cores (default 0)\n"
    "  --cases FILE    case list (default: bench/cases.json, built in)\n"
    "  --reps N        timed repetitions per case, median reported\n"
    "                  (default 7)\n"
    "  --json FILE     also write the results as JSON\n"
    "\n"
    "  DMLS_DEVBENCH_TILED_SPLIT=input|output forces how the transposed (tiled)\n"
    "  cases are cut between threads: bands of the input's rows or of the\n"
    "  output's (unset: the library's choice), to time both in one session\n";

/* The forced cut of tiled copies: -1 the library's, 0 by output rows, 1 by
 * input rows (DMLS_DEVBENCH_TILED_SPLIT, read once by main). */
static int tiled_split = -1;

static int read_tiled_split(void) {
    const char *v = getenv("DMLS_DEVBENCH_TILED_SPLIT");
    if (!v || !*v) return 0;
    if (strcmp(v, "input") && strcmp(v, "output")) {
        fprintf(stderr, "devbench: DMLS_DEVBENCH_TILED_SPLIT is '%s', not 'input' or 'output'\n", v);
        return -1;
    }
    tiled_split = strcmp(v, "input") == 0;
    printf("tiled copies cut by %s rows (DMLS_DEVBENCH_TILED_SPLIT)\n", v);
    return 0;
}

/* ------------------------------------------------------------ tiny */

/* The tiny operators: the worked examples of DirectML's SLICE and SLICE1
 * pages (examples/worked_examples.h, their one home), each as a native
 * SLICE1 window over their 1x1x4x4 float32 input (SLICE's Sizes count
 * outputs; its window spans (Sizes - 1) * Strides + 1). */
#define TINY_CASES DMLS_WORKED_EXAMPLE_COUNT

static void tiny_window(const dmls_worked_example *e, int64_t *offsets, int64_t *sizes, int64_t *strides,
                        int64_t *out) {
    for (int i = 0; i < 4; i++) {
        const bool slice = e->type == DML_OPERATOR_SLICE;
        offsets[i] = e->offsets[i];
        strides[i] = e->strides[i];
        sizes[i] = slice ? ((int64_t)e->sizes[i] - 1) * e->strides[i] + 1 : e->sizes[i];
        out[i] = e->out_sizes[i];
    }
}

/* ------------------------------------------------------------ main */

typedef struct row {
    const char *name;
    uint64_t out_bytes;
    double ms, copy_ms, memcpy1_ms;
    int batch;    /* calls per timed batch */
    bool correct; /* the output matched the reference executor */
} row;

/* A timed batch of back-to-back calls lasts at least this long (or is
 * BATCH_MAX calls). */
#define BATCH_SECONDS 0.02
#define BATCH_MAX 10000

static void pause_ms(long ms) { dmls_sleep_ms(ms); }

/* Times one case in the steady state a library serves (a model's layers call
 * it back to back) and in which peers.py times the peers: per rep, the copy
 * and then the slice each run one untimed call, which wakes that side's
 * threads, then a batch of calls back to back, long enough (BATCH_SECONDS)
 * for the clock. A pause before each batch lets the other side's threads
 * stop spinning, so the two never compete for cores. Then the last output is
 * checked against the reference executor, byte for byte. */
static dmls_status time_case(const bench_device *dev, const dmls_operator *op, void *src, void *dst, void *csrc,
                             uint64_t seed, int reps, row *w, double *t_case, double *t_copy, double *t_one) {
    const uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
    dev->fill(src, ib, 0x9E3779B97F4A7C15ULL + seed);
    dev->fill(csrc, ob, 0xD1B54A32D192ED03ULL + seed);
    dev->fill(dst, ob, 1); /* fault the output in before timing */
    double t0 = dev->now();
    dmls_status s = dev->execute(op, src, ib, dst, ob);
    double once = dev->now() - t0;
    int batch = once * BATCH_MAX <= BATCH_SECONDS ? BATCH_MAX : (int)(BATCH_SECONDS / once) + 1;
    for (int r = 0; r < reps && s == DMLS_OK; r++) {
        pause_ms(2);
        dev->copy(dst, csrc, ob);
        t0 = dev->now();
        for (int i = 0; i < batch; i++) dev->copy(dst, csrc, ob);
        t_copy[r] = (dev->now() - t0) / batch;
        pause_ms(2);
        s = dev->execute(op, src, ib, dst, ob);
        t0 = dev->now();
        for (int i = 0; i < batch && s == DMLS_OK; i++) s = dev->execute(op, src, ib, dst, ob);
        t_case[r] = (dev->now() - t0) / batch;
        t0 = dev->now();
        memcpy(dst, csrc, ob); /* one thread, for scale */
        t_one[r] = dev->now() - t0;
    }
    if (s != DMLS_OK) return s;
    w->out_bytes = ob;
    w->batch = batch;
    w->ms = 1e3 * median(t_case, reps);
    w->copy_ms = 1e3 * median(t_copy, reps);
    w->memcpy1_ms = 1e3 * median(t_one, reps);
    /* csrc is free now: it takes the reference's output. */
    w->correct = dev->execute(op, src, ib, dst, ob) == DMLS_OK &&
                 dmls_execute_reference(op, src, ib, csrc, ob) == DMLS_OK && memcmp(dst, csrc, ob) == 0;
    return DMLS_OK;
}

typedef struct options {
    const char *device_name, *cases_path, *json_path;
    int threads, reps; /* 0: the device's default */
} options;

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, options *o) {
    *o = (options){"cpu", NULL, NULL, 0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (strcmp(a, "--device") == 0 && has_value) {
            o->device_name = argv[++i];
        } else if (strcmp(a, "--threads") == 0 && has_value) {
            if (parse_int(argv[++i], "--threads", 0, 1024, &o->threads)) return 2;
        } else if (strcmp(a, "--reps") == 0 && has_value) {
            if (parse_int(argv[++i], "--reps", 1, 100000, &o->reps)) return 2;
        } else if (strcmp(a, "--cases") == 0 && has_value) {
            o->cases_path = argv[++i];
        } else if (strcmp(a, "--json") == 0 && has_value) {
            o->json_path = argv[++i];
        } else {
            fprintf(stderr, "devbench: unknown or incomplete option '%s'\n%s", a, usage);
            return 2;
        }
    }
    return -1;
}

/* The device by name; an unknown one is 2 after the message. */
static int find_device(const options *o, const bench_device **dev) {
    *dev = NULL;
    for (size_t d = 0; d < sizeof devices / sizeof devices[0]; d++)
        if (strcmp(devices[d].name, o->device_name) == 0) *dev = &devices[d];
    if (strcmp(o->device_name, "cuda") == 0) {
        fprintf(stderr, "devbench: the GPU's benchmark is dmlslice bench --device cuda\n");
        return 2;
    }
    if (*dev == NULL) {
        fprintf(stderr, "devbench: unknown device '%s'\n", o->device_name);
        return 2;
    }
    return -1;
}

/* Every case on a host-timed device, one table row each; 1 if any failed. */
static int run_cases(const bench_device *dev, const bench_case *cases, int ncases, int reps, row *rows) {
    double *t_case = malloc((size_t)reps * sizeof *t_case), *t_copy = malloc((size_t)reps * sizeof *t_copy),
           *t_one = malloc((size_t)reps * sizeof *t_one);
    int status = t_case && t_copy && t_one ? 0 : 1;
    for (int k = 0; k < ncases && t_case && t_copy && t_one; k++) {
        const bench_case *c = &cases[k];
        dmls_operator *op = NULL;
        if (bench_create(c, &op) != DMLS_OK) {
            fprintf(stderr, "devbench: case %s: %s\n", c->name, dmls_last_error());
            status = 1;
            continue;
        }
        if (tiled_split >= 0) /* the operator's own CPU data, made writable by create */
            dmls_cpu_split_tiled((dmls_cpu_prepared *)dmls_cpu_prepared_of(op), tiled_split == 1);
        uint64_t ib = dmls_input_bytes(op), ob = dmls_output_bytes(op);
        void *src = dev->alloc(ib), *dst = dev->alloc(ob), *csrc = dev->alloc(ob);
        row *w = &rows[k];
        if (!src || !dst || !csrc) {
            fprintf(stderr, "devbench: case %s: cannot allocate %llu + 2 x %llu bytes\n", c->name,
                    (unsigned long long)ib, (unsigned long long)ob);
            status = 1;
        } else if (time_case(dev, op, src, dst, csrc, (uint64_t)k, reps, w, t_case, t_copy, t_one) != DMLS_OK) {
            fprintf(stderr, "devbench: case %s: %s\n", c->name, dmls_last_error());
            status = 1;
        } else {
            w->name = c->name;
            double gbs = 2.0 * (double)ob / (w->ms * 1e6), cgbs = 2.0 * (double)ob / (w->copy_ms * 1e6);
            printf("%-14s %10.1f %10.3f %9.1f %10.3f %9.1f %7.2f %9.1f %6d%s\n", c->name, (double)ob / 1048576.0,
                   w->ms, gbs, w->copy_ms, cgbs, gbs / cgbs, 2.0 * (double)ob / (w->memcpy1_ms * 1e6), w->batch,
                   w->correct ? "" : "  WRONG OUTPUT");
            if (!w->correct) status = 1;
            fflush(stdout);
        }
        dev->release(src);
        dev->release(dst);
        dev->release(csrc);
        dmls_destroy(op);
    }
    free(t_case);
    free(t_copy);
    free(t_one);
    return status;
}

/* Tiny operators: per-call cost of a planned operator on the calling
 * thread (a 24-byte copy never wakes a worker). */
static int run_tiny(const bench_device *dev, double *tiny_ns) {
    int status = 0;
    printf("\n%-18s %10s\n", "tiny (1x1x4x4)", "ns/exec");
    for (int k = 0; k < TINY_CASES; k++) {
        const dmls_worked_example *e = &dmls_worked_examples[k];
        const int64_t in_shape[4] = {1, 1, 4, 4};
        int64_t offsets[4], sizes[4], strides[4], out_shape[4];
        tiny_window(e, offsets, sizes, strides, out_shape);
        dmls_tensor in = {DMLS_FLOAT32, 4, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 4, out_shape, NULL, 0};
        dmls_window win = {offsets, sizes, strides};
        dmls_operator *op = NULL;
        float dst[16];
        tiny_ns[k] = 0;
        if (dmls_create(&in, &out, &win, &op) != DMLS_OK) {
            fprintf(stderr, "devbench: %s: %s\n", e->name, dmls_last_error());
            status = 1;
            continue;
        }
        const int calls = 200000;
        double best[5];
        for (int r = 0; r < 5; r++) {
            double t0 = dev->now();
            for (int i = 0; i < calls; i++)
                dev->execute(op, dmls_worked_input, sizeof dmls_worked_input, dst, sizeof dst);
            best[r] = (dev->now() - t0) * 1e9 / calls;
        }
        tiny_ns[k] = median(best, 5);
        if (memcmp(dst, e->expected, dmls_output_bytes(op)) != 0) {
            fprintf(stderr, "devbench: %s: the output differs from the documented one\n", e->name);
            status = 1;
        }
        printf("%-18s %10.1f\n", e->name, tiny_ns[k]);
        dmls_destroy(op);
    }
    return status;
}

static int write_json(const char *path, const bench_device *dev, int nthreads, int reps, const row *rows, int ncases,
                      const double *tiny_ns) {
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "devbench: %s: %s\n", path, strerror(errno));
        return 1;
    }
    fprintf(f, "{\n \"device\": \"%s\", \"threads\": %d, \"reps\": %d, \"version\": \"%s\",\n \"cases\": [\n", dev->name,
            nthreads, reps, dmls_version());
    bool first = true;
    for (int k = 0; k < ncases; k++) {
        const row *w = &rows[k];
        if (!w->name) continue;
        double gbs = 2.0 * (double)w->out_bytes / (w->ms * 1e6);
        double cgbs = 2.0 * (double)w->out_bytes / (w->copy_ms * 1e6);
        fprintf(f,
                "%s  {\"case\": \"%s\", \"out_bytes\": %llu, \"ms\": %.6f, \"GBps\": %.3f, \"copy_ms\": %.6f, "
                "\"copy_GBps\": %.3f, \"ratio\": %.4f, \"memcpy1_GBps\": %.3f, \"batch\": %d, \"correct\": %s}",
                first ? "" : ",\n", w->name, (unsigned long long)w->out_bytes, w->ms, gbs, w->copy_ms, cgbs, gbs / cgbs,
                2.0 * (double)w->out_bytes / (w->memcpy1_ms * 1e6), w->batch, w->correct ? "true" : "false");
        first = false;
    }
    fprintf(f, "\n ],\n \"tiny_ns_per_execute\": {");
    for (int k = 0; k < TINY_CASES; k++)
        fprintf(f, "%s\"%s\": %.2f", k ? ", " : "", dmls_worked_examples[k].name, tiny_ns[k]);
    fprintf(f, "}\n}\n");
    if (fclose(f)) {
        fprintf(stderr, "devbench: %s: write failed\n", path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    options o;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0) return rc;
    const bench_device *dev;
    if ((rc = find_device(&o, &dev)) >= 0) return rc;
    if (read_tiled_split()) return 2;
    const int reps = o.reps ? o.reps : 7;
    bench_case *cases = NULL;
    int ncases = 0;
    char err[256];
    if (o.cases_path ? bench_read_cases(o.cases_path, &cases, &ncases, err, sizeof err)
                     : bench_builtin_cases(&cases, &ncases, err, sizeof err)) {
        fprintf(stderr, "devbench: %s\n", err);
        return 1;
    }
    if (dev->open(o.threads)) {
        free(cases);
        return 1;
    }
    const int nthreads = dev->threads();
    printf("device %s, %d thread%s, %d reps, median times; GB/s = 2 x output bytes / time\n", dev->name, nthreads,
           nthreads == 1 ? "" : "s", reps);
    printf("%-14s %10s %10s %9s %10s %9s %7s %9s %6s\n", "case", "out MiB", "slice ms", "GB/s", "copy ms", "GB/s",
           "ratio", "memcpy1", "batch");
    row *rows = calloc((size_t)ncases, sizeof *rows);
    double tiny_ns[TINY_CASES];
    int status = rows ? run_cases(dev, cases, ncases, reps, rows) : 1;
    status |= run_tiny(dev, tiny_ns);
    if (o.json_path && rows) status |= write_json(o.json_path, dev, nthreads, reps, rows, ncases, tiny_ns);
    free(rows);
    free(cases);
    dev->close();
    return status;
}
