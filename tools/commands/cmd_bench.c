/* dmlslice bench: the canonical cases (bench/cases.json, built in) on
 * random data, each beside a copy of the same bytes timed in the same run,
 * every output checked against the reference executor. The timing itself
 * is in bench_cpu.c, bench_cuda.c and bench_vulkan.c, the table and JSON in bench_report.c. */
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
    {"--device", NULL, "D", "cpu (default), cuda (GPU 0) or vulkan[:N] (Vulkan device N);\nbuilds with those backends"},
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
    "  cpu   the copy is the library copying the output's bytes whole on the same\n"
    "        threads; each side runs in batches of back-to-back calls (batch =\n"
    "        calls per batch) after an untimed one; memcpy1 is a one-thread memcpy,\n"
    "        for scale\n"
    "  cuda  the slice and a device-to-device cudaMemcpyAsync timed by CUDA events;\n"
    "        exit 1 with the reason when no GPU is usable, 2 in builds without\n"
    "        the CUDA backend\n"
    "Then the batch rows (many slices in one call), each beside its yardsticks\n"
    "in the same run, in us per call (ratio = yardstick / batch):\n"
    "  cpu   1,024 crops of 3x4x4 float32 from a 3x512x512 image in one\n"
    "        dmls_batch_execute, against loops of dmls_execute_on and dmls_execute\n"
    "        and a memcpy of the same bytes\n"
    "  cuda  those crops with launch + sync, against a loop of dmls_execute_cuda,\n"
    "        that loop as a CUDA graph and an empty kernel's launch + sync; the\n"
    "        batch replayed as a graph against an empty graph; a KV-cache gather\n"
    "        (512 pages of 16x8x128 float16 from 4,096, page numbers on the device)\n"
    "        and a split of 1 GiB float32 into 8 along axis 1 against a device copy\n"
    "        of the same bytes; a tiny slice's execute + sync against a 4-byte\n"
    "        memset's and an empty kernel's\n"
    "  vulkan those crops as one recorded batch (timestamps) against the crops\n"
    "        recorded one by one and the copy shader over the same bytes;\n"
    "        dmls_batch_execute_vulkan (record + submit + wait, host clock) against\n"
    "        a loop of dmls_vulkan_execute and an empty submit + wait; and cuda's\n"
    "        KV-cache gather and split against the copy shader (timestamps)\n"
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

/* Each case timed on b's device (cpu: on the pool cpu, seeded by its number)
 * under the table's header, its row printed as it comes: 1 when one failed
 * or gave a wrong output, else 0. */
static int run_cases(const bench_opts *b, bench_cpu *cpu, const bench_case *cases, int n, bench_row *rows) {
    bench_print_header();
    int status = 0;
    for (int k = 0; k < n; k++) {
        const bool timed = b->cuda     ? bench_cuda_case(&cases[k], b->reps, &rows[k])
                           : b->vulkan ? bench_vulkan_case(&cases[k], b->reps, &rows[k])
                                       : bench_cpu_case(cpu, &cases[k], b->reps, (uint64_t)k, &rows[k]);
        if (!timed)
            status = 1;
        else
            bench_print_row(&rows[k]);
        if (rows[k].timed && !rows[k].correct) status = 1;
    }
    return status;
}

static int run_cpu(const bench_opts *b, const bench_case *cases, int n, bench_row *rows, int *threads,
                   bench_batch_row *batch_rows, int *nbatch) {
    bench_cpu *cpu = bench_cpu_open(b->threads);
    if (cpu == NULL) return 1;
    *threads = bench_cpu_threads(cpu);
    printf("device cpu, %d thread%s, %d reps%s, median times; GB/s = 2 x output bytes / time\n", *threads,
           *threads == 1 ? "" : "s", b->reps, b->quick ? ", quick (shrunk cases)" : "");
    int status = run_cases(b, cpu, cases, n, rows);
    *nbatch = bench_cpu_batches(cpu, b->reps, batch_rows);
    bench_cpu_close(cpu);
    return print_batches(batch_rows, *nbatch) ? status : 1;
}

static int run_cuda(const bench_opts *b, const bench_case *cases, int n, bench_row *rows, char *gpu, size_t gpu_size,
                    bench_batch_row *batch_rows, int *nbatch) {
    int sm = 0;
    if (!bench_cuda_open(gpu, gpu_size, &sm)) return 1;
    printf("device cuda: %s (sm_%d), %d reps%s, median times by CUDA events; GB/s = 2 x output bytes / time\n", gpu, sm,
           b->reps, b->quick ? ", quick (shrunk cases)" : "");
    int status = run_cases(b, NULL, cases, n, rows);
    *nbatch = bench_cuda_batches(b->reps, b->quick, batch_rows);
    return print_batches(batch_rows, *nbatch) ? status : 1;
}

static int run_vulkan(const bench_opts *b, const bench_case *cases, int n, bench_row *rows, char *gpu,
                      size_t gpu_size, bench_batch_row *batch_rows, int *nbatch) {
    if (!bench_vulkan_open(b->vulkan_device, b->quick, b->verbose, gpu, gpu_size)) return 1;
    printf("device vulkan:%d: %s, %d reps%s, median times by timestamp queries, the reps back to back in one "
           "command buffer after ~%.0f ms of untimed runs (the clock up); GB/s = 2 x output bytes / time;\n"
           "copy = the library's 16-byte copy shader over the output's bytes\n",
           b->vulkan_device, gpu, b->reps, b->quick ? ", quick (shrunk cases)" : "",
           b->quick ? BENCH_VK_QUICK_WARM_MS : BENCH_VK_WARM_MS);
    int status = run_cases(b, NULL, cases, n, rows);
    bench_vulkan_floor();
    *nbatch = bench_vulkan_batches(b->reps, b->quick, batch_rows);
    bench_vulkan_close();
    return print_batches(batch_rows, *nbatch) ? status : 1;
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
    char gpu[256] = "";
    int threads = 0, nbatch = 0;
    bench_batch_row batch_rows[BENCH_BATCH_ROWS];
    int status = b.cuda     ? run_cuda(&b, cases, n, rows, gpu, sizeof gpu, batch_rows, &nbatch)
                 : b.vulkan ? run_vulkan(&b, cases, n, rows, gpu, sizeof gpu, batch_rows, &nbatch)
                            : run_cpu(&b, cases, n, rows, &threads, batch_rows, &nbatch);
    /* No device, no results: no file either. */
    const bool gpu_side = b.cuda || b.vulkan;
    const bool ran = gpu_side ? gpu[0] != '\0' : threads > 0;
    if (b.json_path && ran &&
        !bench_write_json(b.json_path,
                          b.cuda     ? "cuda"
                          : b.vulkan ? "vulkan"
                                     : "cpu",
                          gpu_side ? gpu : NULL, threads, b.reps, b.quick, rows, n, batch_rows, nbatch))
        status = 1;
    free(rows);
    free(cases);
    return status;
}
