/* dmlslice bench: the canonical cases (bench/cases.json, built in) on
 * random data, each beside a copy of the same bytes timed in the same run,
 * every output checked against the reference executor. The timing itself
 * is in bench_device.c (every device, through dmlslice/device.h) and the
 * backends' own floors in bench_batch_cuda.c and bench_vulkan.c, the table
 * and JSON in bench_report.c. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "bench.h"
#include "commands.h"
#include "device_opt.h"
#include "options.h"

/* --quick shrinks every case to at most this much input. */
#define QUICK_INPUT_BYTES (4u << 20)

static const option_def bench_options[] = {
    OPTION_DEVICE(" (cuda: device 0 only);\nbuilds with those backends"),
    {"--threads", NULL, "N", "cpu: threads, 0 = $DMLSLICE_THREADS or every CPU (default 0)"},
    {"--cases", NULL, "FILE", "a case list in bench/cases.json's format (default: the\ncanonical cases, built in)"},
    {"--reps", NULL, "N",
     "timed repetitions per case, median reported (default 7 on\ncpu, 30 on cuda and vulkan; 3 with --quick)"},
    {"--quick", NULL, NULL, "a first look in seconds: each case shrunk to at most 4 MiB\nof input (halving its widest axes)"},
    {"--json", NULL, "FILE", "also write the results as JSON"},
    {"--verbose", "-v", NULL, "vulkan: each warm-up burst's median on stderr (how fast\nthe GPU's clock rose)"},
    {NULL, NULL, NULL, NULL},
};

static void bench_memory_help(FILE *f);

const command_def cmd_bench_def = {
    "bench",
    "[--device cpu|cuda|vulkan[:N]] [--threads N] [--cases FILE] [--reps N] [--quick] [--json FILE] [-v]",
    "Time each case on random data beside a copy of the same bytes timed in the\n"
    "same run, and check every output against the reference executor (a wrong\n"
    "output fails the run). GB/s counts 2 x output bytes (read + written).",
    {{"options", bench_options, NULL}, {"", options_common, NULL}},
    "Every device runs the cases through the device interface (dmlslice/device.h):\n"
    "  cpu   the copy is the library copying the output's bytes whole on the same\n"
    "        threads; each side runs in batches of back-to-back calls (batch =\n"
    "        calls per batch) after an untimed one; memcpy1 is a one-thread memcpy,\n"
    "        for scale\n"
    "  cuda, vulkan  timed on the GPU's clock (CUDA events, timestamp queries),\n"
    "        the runs back to back after ~200 ms of untimed ones (the clock up),\n"
    "        until a burst is no faster than the one before; the copy is\n"
    "        cudaMemcpyAsync on cuda, the library's copy shader on vulkan; exit 1\n"
    "        with the reason when no GPU is usable, 2 in builds without the backend\n"
    "Then the batch rows (many slices in one call), each beside its yardsticks\n"
    "in the same run, in us per call (ratio = yardstick / batch):\n"
    "  cpu   1,024 crops of 3x4x4 float32 from a 3x512x512 image in one\n"
    "        dmls_batch_execute, against loops of dmls_execute_on and dmls_execute\n"
    "        and a memcpy of the same bytes\n"
    "  gpus  a KV-cache gather (512 pages of 16x8x128 float16 from 4,096, page\n"
    "        numbers on the device) and a split of 1 GiB float32 into 8 along\n"
    "        axis 1, against the device's copy of the same bytes (device clock);\n"
    "        then the backend's own floors:\n"
    "  cuda  the crops with launch + sync, against a loop of dmls_execute_cuda,\n"
    "        that loop as a CUDA graph and an empty kernel's launch + sync; the\n"
    "        batch replayed as a graph against an empty graph; a tiny slice's\n"
    "        execute + sync against a 4-byte memset's and an empty kernel's\n"
    "  vulkan the crops as one recorded batch (timestamps) against the crops\n"
    "        recorded one by one and the copy shader over the same bytes;\n"
    "        dmls_batch_execute_vulkan (record + submit + wait, host clock) against\n"
    "        a loop of dmls_vulkan_execute and an empty submit + wait\n"
    "  The developer benchmark (bench/devbench.c, not installed) adds the\n"
    "  library-internal CPU baselines.",
    "dmlslice bench --quick",
    cmd_bench,
    bench_memory_help,
    NULL,
    false,
    false,
};

typedef struct bench_opts {
    bool cuda, vulkan, quick, verbose;
    char device[32]; /* the name --device gave, as dmls_device_open takes it */
    int vulkan_device;
    int threads, reps; /* reps 0: the device's default */
    const char *cases_path, *json_path;
} bench_opts;

static bool int_option(const option_def *o, const char *value, int lo, int hi, int *out) {
    int64_t v;
    if (!args_int64(o->name, value, &v)) return false;
    if (v < lo || v > hi) {
        fprintf(stderr, "%s: %s %s is outside %d to %d\n", args_prog, o->name, value, lo, hi);
        return false;
    }
    *out = (int)v;
    return true;
}

static bool bench_option(void *ctx, const option_def *o, const char *value) {
    bench_opts *b = ctx;
    if (option_is(o, "--threads")) return int_option(o, value, 0, 1024, &b->threads);
    if (option_is(o, "--reps")) return int_option(o, value, 1, 100000, &b->reps);
    if (option_is(o, "--quick")) b->quick = true;
    else if (option_is(o, "--verbose")) b->verbose = true;
    else if (option_is(o, "--cases")) b->cases_path = value;
    else b->json_path = value; /* --json */
    return true;
}

/* Returns -1 to go on, else the exit status. */
static int parse_options(int argc, char **argv, bench_opts *b) {
    memset(b, 0, sizeof *b);
    common_options c;
    const int parsed = options_parse(&cmd_bench_def, argc, argv, &c, bench_option, b);
    if (parsed >= 0) return parsed;
    b->cuda = c.device.kind == DEVICE_CUDA, b->vulkan = c.device.kind == DEVICE_VULKAN;
    b->vulkan_device = c.device.index;
    snprintf(b->device, sizeof b->device, "%s", c.device.name);
    if (b->cuda && c.device.index != 0) { /* bench's CUDA timing runs on the current device, 0 */
        fprintf(stderr, "%s: --device %s: bench times CUDA device 0 only (--device cuda)\n", args_prog, c.device.name);
        return 2;
    }
    if (b->cuda && !bench_cuda_built()) {
        fprintf(stderr, "%s: this build has no CUDA backend (--device cuda)\n", args_prog);
        return 2;
    }
    if (b->vulkan && !bench_vulkan_built()) {
        fprintf(stderr, "%s: this build has no Vulkan backend (--device vulkan)\n", args_prog);
        return 2;
    }
    if ((b->cuda || b->vulkan) && b->threads != 0) {
        fprintf(stderr, "%s: --threads applies to --device cpu only\n", args_prog);
        return 2;
    }
    if (b->reps == 0) b->reps = b->quick ? 3 : b->cuda || b->vulkan ? 30 : 7;
    return -1;
}

static bool load_cases(const char *path, bool quick, bench_case **cases, int *n) {
    char err[256];
    if ((path ? bench_read_cases(path, cases, n, err, sizeof err) : bench_builtin_cases(cases, n, err, sizeof err))) {
        fprintf(stderr, "%s: %s\n", args_prog, err);
        return false;
    }
    for (int k = 0; quick && k < *n; k++) bench_case_shrink(&(*cases)[k], QUICK_INPUT_BYTES);
    return true;
}

/* The most any one case holds at once: its input, its output and the copy's
 * source. */
static uint64_t peak_bytes(const bench_case *cases, int n) {
    uint64_t peak = 0, in, out;
    for (int k = 0; k < n; k++) {
        const uint64_t b = bench_case_bytes(&cases[k], &in, &out);
        if (b > peak) peak = b;
    }
    return peak;
}

static void bench_memory_help(FILE *f) {
    bench_case *cases = NULL;
    int n = 0;
    char err[256];
    if (bench_builtin_cases(&cases, &n, err, sizeof err)) return;
    const uint64_t full = peak_bytes(cases, n);
    for (int k = 0; k < n; k++) bench_case_shrink(&cases[k], QUICK_INPUT_BYTES);
    fprintf(f,
            "\nPeak memory with the built-in cases (host memory on cpu, GPU memory on\n"
            "cuda, where the host also holds one case): %.1f GiB; with --quick %.1f MiB.\n",
            (double)full / (1u << 30), (double)peak_bytes(cases, n) / (1u << 20));
    free(cases);
}

/* The batch rows after the cases; false when one failed or was wrong. */
static bool print_batches(const bench_batch_row *rows, int n) {
    if (n > 0) printf("\nbatches (us per call, median; yardsticks timed in the same run, ratio = yardstick / batch)\n");
    bool ok = true;
    for (int k = 0; k < n; k++) {
        if (rows[k].skipped[0]) {
            printf("%-26s not run on this device: %s\n", rows[k].name, rows[k].skipped);
            continue;
        }
        if (rows[k].timed) bench_print_batch_row(&rows[k]);
        ok = ok && rows[k].timed && rows[k].correct;
    }
    return ok;
}

/* Each case timed on dev under the table's header, its row printed as it
 * comes (the CPU's seeded by its number): 1 when one failed or gave a
 * wrong output, else 0. */
static int run_cases(const bench_opts *b, bench_device *dev, const bench_case *cases, int n, bench_row *rows) {
    bench_print_header();
    int status = 0;
    for (int k = 0; k < n; k++) {
        if (!bench_device_case(dev, &cases[k], b->reps, (uint64_t)k, &rows[k]))
            status = 1;
        else
            bench_print_row(&rows[k]);
        if (rows[k].timed && !rows[k].correct) status = 1;
    }
    return status;
}

/* The device's line above the table. */
static void print_device(const bench_opts *b, const char *desc, int threads) {
    const char *how = b->cuda     ? "median times on the GPU's clock (CUDA events)"
                      : b->vulkan ? "median times on the GPU's clock (timestamp queries)"
                                  : "median times";
    printf("device %s: %s", b->device, desc);
    if (threads > 0) printf(", %d thread%s", threads, threads == 1 ? "" : "s");
    printf(", %d reps%s, %s", b->reps, b->quick ? ", quick (shrunk cases)" : "", how);
    if (b->cuda || b->vulkan)
        printf(", after ~%.0f ms of untimed runs (the clock up)", b->quick ? BENCH_GPU_QUICK_WARM_MS : BENCH_GPU_WARM_MS);
    printf("; GB/s = 2 x output bytes / time;\ncopy = %s\n",
           b->cuda ? "cudaMemcpyAsync of the output's bytes"
                   : "the library's whole copy of the output's bytes (dmls_device_copy)");
}

/* The cases and the device's batch rows through the device interface,
 * then the backend's own floors. */
static int run(const bench_opts *b, const bench_case *cases, int n, bench_row *rows, char *desc, size_t desc_size,
               int *threads, bench_batch_row *batch_rows, int *nbatch) {
    bench_device *dev = bench_device_open(b->device, b->threads, b->quick, b->verbose, desc, desc_size);
    if (dev == NULL) return 1;
    *threads = bench_device_threads(dev);
    print_device(b, desc, *threads);
    int status = run_cases(b, dev, cases, n, rows);
    int got = bench_device_batches(dev, b->reps, b->quick, batch_rows);
    bench_device_close(dev);
    if (b->cuda) {
        got += bench_cuda_batches(b->reps, batch_rows + got);
    } else if (b->vulkan) {
        if (bench_vulkan_open(b->vulkan_device, b->quick, b->verbose)) {
            bench_vulkan_floor();
            got += bench_vulkan_batches(b->reps, batch_rows + got);
        } else {
            status = 1;
        }
        bench_vulkan_close();
    } else {
        bench_cpu *cpu = bench_cpu_open(b->threads);
        if (cpu == NULL) return 1;
        got += bench_cpu_batches(cpu, b->reps, batch_rows + got);
        bench_cpu_close(cpu);
    }
    *nbatch = got;
    return print_batches(batch_rows, got) ? status : 1;
}

int cmd_bench(int argc, char **argv) {
    args_prog = "dmlslice bench";
    bench_opts b;
    const int rc = parse_options(argc, argv, &b);
    if (rc >= 0) return rc;
    bench_case *cases = NULL;
    int n = 0;
    if (!load_cases(b.cases_path, b.quick, &cases, &n)) return 1;
    bench_row *rows = calloc((size_t)n, sizeof *rows);
    if (rows == NULL) {
        fprintf(stderr, "%s: out of memory\n", args_prog);
        free(cases);
        return 1;
    }
    char desc[256] = "";
    int threads = 0, nbatch = 0;
    bench_batch_row batch_rows[BENCH_BATCH_ROWS];
    int status = run(&b, cases, n, rows, desc, sizeof desc, &threads, batch_rows, &nbatch);
    /* No device, no results: no file either. */
    const bool gpu_side = b.cuda || b.vulkan;
    if (b.json_path && desc[0] != '\0' &&
        !bench_write_json(b.json_path,
                          b.cuda     ? "cuda"
                          : b.vulkan ? "vulkan"
                                     : "cpu",
                          gpu_side ? desc : NULL, threads, b.reps, b.quick, rows, n, batch_rows, nbatch))
        status = 1;
    free(rows);
    free(cases);
    return status;
}
