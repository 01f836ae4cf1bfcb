/* dmlslice bench, the shipped benchmark: each canonical case beside a copy
 * of the same bytes timed in the same run, its output checked against the
 * reference executor. Public API only; the developer benchmark with the
 * library's internals (copy baseline on its own pool, CUDA launch choices,
 * tiny-operator floors) is bench/devbench.c. */
#ifndef DMLSLICE_TOOLS_BENCH_H
#define DMLSLICE_TOOLS_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cases.h"
#include "dmlslice/batch.h"
#include "dmlslice/dmlslice.h"

/* One case's result. GB/s counts 2 x output bytes (read + written). */
typedef struct bench_row {
    const char *name;
    uint64_t out_bytes;
    double ms, copy_ms; /* median time of one call */
    double memcpy1_ms;  /* cpu: one-thread memcpy of the output's bytes, for scale; 0 elsewhere */
    int batch;          /* cpu: calls per timed batch; 1 on cuda */
    bool correct;       /* the output equals the reference executor's, byte for byte */
    bool timed;         /* false: the case failed (its message was printed) */
} bench_row;

/* A batch row (docs/spec.md section 7; issue 24's cases): one call of a
 * batch beside its yardsticks, each timed in the same run, in microseconds
 * per call (medians). */
#define BENCH_YARDSTICKS 4
#define BENCH_BATCH_ROWS 5
typedef struct bench_batch_row {
    const char *name;    /* "crops_1024_3x4x4_f32" */
    const char *timing;  /* what one call includes: "launch+sync", "kernel (events)", "call" */
    uint64_t items;      /* windows (crops, pages, parts) per call */
    uint64_t out_bytes;  /* for GB/s */
    double us;
    int nyard;
    struct {
        const char *name; /* "loop", "loop_graph", "empty_launch", "empty_graph", "copy" */
        double us;
    } yard[BENCH_YARDSTICKS];
    bool correct; /* the batch's output equals the items run one by one */
    bool timed;
    char skipped[480]; /* not run, and why: a limit of this device the library reports, not a failure */
} bench_batch_row;

/* Any device through dmlslice/device.h (bench_device.c), by the name
 * --device gives ("cpu", "cuda:0", "vulkan:1"): the canonical cases, each
 * beside the device's copy of the output's bytes (dmls_device_copy: the
 * CPU and Vulkan the library's whole copy, CUDA cudaMemcpyAsync), and on
 * GPUs the bandwidth-bound batch rows. The CPU (threads: 0 = DMLSLICE_THREADS
 * or every CPU) runs batches of back-to-back calls on the host clock; a GPU
 * is timed on its own clock after a warm-up burst of about
 * BENCH_GPU_WARM_MS, bursts repeated (at most BENCH_GPU_BURSTS) until one
 * is no faster than the one before (quick: one burst of about
 * BENCH_GPU_QUICK_WARM_MS, a first look); verbose: each burst's median on
 * stderr, to see how slow a GPU's clock rose. bench_device_open says why on
 * stderr and returns NULL when the device cannot be opened; desc gets its
 * description. */
#define BENCH_GPU_WARM_MS       200.0
#define BENCH_GPU_QUICK_WARM_MS 20.0
#define BENCH_GPU_BURSTS        6
#define BENCH_GPU_QUICK_BURSTS  1
/* The most runs a warm-up burst may hold (a tiny case is launch-bound: its
 * burst is capped). */
#define BENCH_GPU_WARM_MAX      20000
typedef struct bench_device bench_device;
bench_device *bench_device_open(const char *name, int threads, bool quick, bool verbose, char *desc,
                                size_t desc_size);
int bench_device_threads(const bench_device *b); /* the CPU's threads; 0 on a GPU */
/* Times case c (reps medians; seed: the input's); false with a message on stderr. */
bool bench_device_case(bench_device *b, const bench_case *c, int reps, uint64_t seed, bench_row *row);
/* A GPU's bandwidth-bound batch rows into rows (two: the KV gather and the
 * split of bench_kv_make and bench_split_make, each against the device's
 * copy of its output's bytes); the CPU has none (0). */
int bench_device_batches(bench_device *b, int reps, bool quick, bench_batch_row *rows);
void bench_device_close(bench_device *b);

/* The CPU's crops rows (bench_batch.c) run on a context of their own:
 * `threads` threads as the device's. */
typedef struct bench_cpu bench_cpu;
bench_cpu *bench_cpu_open(int threads);
dmls_context *bench_cpu_context(const bench_cpu *b);
void bench_cpu_close(bench_cpu *b);
/* The CPU's batch row into rows: 1,024 tiny crops as one
 * dmls_batch_execute on the context against a loop of dmls_execute_on and
 * a loop of dmls_execute. Returns how many rows were filled; a failure is
 * said on stderr and leaves its row untimed. */
int bench_cpu_batches(bench_cpu *b, int reps, bench_batch_row *rows);

/* The backends' own floors, beside the device rows: what a launch or a
 * submission costs through each backend's API, which the device interface
 * does not show. bench_cuda_built and bench_vulkan_built say whether the
 * build has the backend. */
bool bench_cuda_built(void);
/* CUDA, GPU 0 (bench_batch_cuda.c): the crops with launch + sync against
 * a loop of dmls_execute_cuda, that loop as a CUDA graph and an empty
 * kernel's launch + sync; the crops replayed in a graph against an empty
 * graph's launch; a tiny slice's execute + sync against a 4-byte memset's
 * and an empty kernel's. */
int bench_cuda_batches(int reps, bench_batch_row *rows);

/* Vulkan device N (bench_vulkan.c, bench_batch_vulkan.c, their device and
 * timing in vulkan_run.h): the host cost of a tiny slice's record + submit
 * + wait beside an empty submission's (bench_vulkan_floor); the 1,024
 * crops as one recorded batch by timestamps, against the crops recorded one
 * by one in the same command buffer and the copy shader over the same
 * bytes; by the host clock, dmls_batch_execute_vulkan (record + submit +
 * wait) against a loop of dmls_vulkan_execute and an empty submit + wait
 * (bench_vulkan_batches: two rows). */
bool bench_vulkan_built(void);
bool bench_vulkan_open(int device, bool quick, bool verbose);
int bench_vulkan_batches(int reps, bench_batch_row *rows);
void bench_vulkan_floor(void);
void bench_vulkan_close(void);

/* The crops case of the batch rows, on the host: 1,024 windows of 3x4x4
 * float32 at random places of a 3x512x512 image (fixed seed). */
#define BENCH_CROPS 1024
#define BENCH_CROP_FLOATS 48
#define BENCH_IMAGE_FLOATS (3 * 512 * 512)
typedef struct bench_crops {
    float *image;
    int64_t starts[BENCH_CROPS * 3];
    uint64_t offsets[BENCH_CROPS]; /* bytes from the image to each crop's first element */
    dmls_batch *batch;             /* the crops, host starts */
    dmls_operator *one;            /* one crop through the image's strides, based at its offset */
} bench_crops;
/* False after saying why on stderr; bench_crops_free releases either way. */
bool bench_crops_make(bench_crops *c);
void bench_crops_free(bench_crops *c);

/* The GPUs' bandwidth-bound batch cases, on the host: a KV-cache gather of
 * 512 pages of 16x8x128 float16 from a 4,096-page cache (quick: 512), by
 * page numbers bound at execute (crops with bound starts); and a split of
 * 1 GiB float32 (4096 x 65536; quick: 4096 x 1024) into 8 along axis 1.
 * in[k] of in_bytes[k] are the batch's input slots (the KV's: the cache,
 * the page numbers as int32 starts rows), filled with random data; its
 * outputs are `parts` slots of out_bytes / parts each. False after saying
 * why on stderr; bench_gpu_case_free releases either way. */
typedef struct bench_gpu_case {
    const char *name;
    dmls_batch *batch;
    void *in[2];
    uint64_t in_bytes[2];
    uint32_t n_in, parts;
    uint64_t items, out_bytes;
} bench_gpu_case;
bool bench_kv_make(bool quick, bench_gpu_case *g);
bool bench_split_make(bool quick, bench_gpu_case *g);
void bench_gpu_case_free(bench_gpu_case *g);

/* Output: the table on stdout, and the JSON file. */
void bench_print_header(void);
void bench_print_row(const bench_row *r);
void bench_print_batch_row(const bench_batch_row *r);
/* device: "cpu" or "cuda"; gpu: the GPU's name or NULL; threads 0 on cuda.
 * Non-finite numbers are written as null, strings escaped. */
bool bench_write_json(const char *path, const char *device, const char *gpu, int threads, int reps, bool quick,
                      const bench_row *rows, int n, const bench_batch_row *batch_rows, int nbatch);

/* The seconds of a monotonic clock. */
double bench_now(void);

/* A GPU's steady state, the one rule both GPU timers follow (bench_device.c
 * through dmlslice/device.h, vulkan_run.c for what that interface does not
 * show): burst(ctx, estimate, reps, times) runs one burst, a warm-up of
 * bench_warm_runs runs (of the estimate in ms) then reps timed ones into
 * times (with estimate < 0: one timed run alone, no warm-up), and returns
 * false on failure; times and the estimate are in the burst's own unit,
 * which ms_per_unit converts for the verbose lines. */
typedef bool (*bench_burst_fn)(void *ctx, double estimate, int reps, double *times);
typedef struct bench_gpu_clock {
    double warm_ms; /* a warm-up burst's length */
    int bursts;     /* the most bursts until two agree */
    bool quick, verbose;
} bench_gpu_clock;
/* The clock of a GPU bench, quick or full (BENCH_GPU_*). */
bench_gpu_clock bench_gpu_clock_of(bool quick, bool verbose);
/* Runs of a warm-up burst: about warm_ms by one run's ms (0: unknown, the
 * most), at least 3 (1 when quick), at most BENCH_GPU_WARM_MAX. */
int bench_warm_runs(const bench_gpu_clock *c, double run_ms);
/* The median of reps timed runs in the steady state, in the burst's unit:
 * one run estimates the time (at whatever clock the idle GPU has, so an
 * overestimate, which only shortens the burst), then bursts until one is
 * no faster than the one before within 2%, at most c->bursts: after a few
 * seconds of host work (a large case's reference run) the H100 took more
 * than one ~200 ms burst to raise its clock, and the first case timed read
 * ~2x slow (bench/RESULTS.md, 2026-11-24). < 0 on failure. */
double bench_steady(const bench_gpu_clock *c, bench_burst_fn burst, void *ctx, double ms_per_unit, int reps,
                    double *times);
/* The median of v[0..n) (sorts v). */
double bench_median(double *v, int n);
/* Random bytes, never all zero, from seed. */
void bench_fill(void *p, uint64_t bytes, uint64_t seed);

#endif
