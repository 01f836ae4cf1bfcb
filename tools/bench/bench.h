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

/* The CPU: a context of `threads` threads (0 = DMLSLICE_THREADS or every
 * CPU); the copy is the library copying the same bytes whole (a 1-D
 * identity slice) on the same context, so both sides use the same threads
 * the same way. */
typedef struct bench_cpu bench_cpu;
bench_cpu *bench_cpu_open(int threads);
int bench_cpu_threads(const bench_cpu *b);
/* Times case c (reps medians); false with a message on stderr. */
bool bench_cpu_case(bench_cpu *b, const bench_case *c, int reps, uint64_t seed, bench_row *row);
void bench_cpu_close(bench_cpu *b);

/* CUDA, in builds with the backend: GPU 0, kernel and a device-to-device
 * cudaMemcpyAsync timed by CUDA events. bench_cuda_open names the GPU or
 * says why there is none. */
bool bench_cuda_built(void);
bool bench_cuda_open(char *gpu, size_t gpu_size, int *sm);
bool bench_cuda_case(const bench_case *c, int reps, bench_row *row);

/* Vulkan, in builds with the backend: device N (dmlslice info --devices),
 * the slice and the library's 16-byte copy shader over the same bytes in
 * device-local buffers, timed by timestamp queries (bench_vulkan.c).
 * bench_vulkan_floor prints the host cost of a tiny slice's record + submit
 * + wait beside an empty submission's. */
bool bench_vulkan_built(void);
bool bench_vulkan_open(int device, char *gpu, size_t gpu_size);
bool bench_vulkan_case(const bench_case *c, int reps, bench_row *row);
void bench_vulkan_floor(void);
void bench_vulkan_close(void);

/* Output: the table on stdout, and the JSON file. */
void bench_print_header(void);
void bench_print_row(const bench_row *r);
/* device: "cpu" or "cuda"; gpu: the GPU's name or NULL; threads 0 on cuda.
 * Non-finite numbers are written as null, strings escaped. */
bool bench_write_json(const char *path, const char *device, const char *gpu, int threads, int reps, bool quick,
                      const bench_row *rows, int n);

/* The seconds of a monotonic clock. */
double bench_now(void);
/* The median of v[0..n) (sorts v). */
double bench_median(double *v, int n);
/* Random bytes, never all zero, from seed. */
void bench_fill(void *p, uint64_t bytes, uint64_t seed);

#endif
