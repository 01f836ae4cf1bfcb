/* Timing of the CUDA backend on one canonical case, behind a small C API,
 * with the library's internals (which launch ran, the compact and general
 * parameter blocks, the launch floors): the developer benchmark
 * (devbench.c) calls it in builds with the CUDA backend. Cases come from
 * tools/cases.h, the one reader of bench/cases.json. */
#ifndef DMLS_BENCH_CUDA_H
#define DMLS_BENCH_CUDA_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>

#include "cases.h"

typedef struct dmls_bench_cuda_result {
    uint64_t out_bytes;
    double slice_ms;    /* median of reps, CUDA events around one dmls_execute_cuda */
    double copy_ms;     /* the same for cudaMemcpyAsync of out_bytes, device to device */
    double slice_gbps;  /* 2 * out_bytes / slice time */
    double copy_gbps;
    double ratio;       /* slice_gbps / copy_gbps */
    int kernel;         /* dmls_cuda_kernel of the launch that ran */
    int unit, vec;      /* its access widths in bytes */
    char launch[32];    /* the three as "gather/4/16", for tables (the enum is internal);
                         * "/c" appended when it ran from the compact parameter block */
    int correct;        /* 1: the GPU output equals the CPU executor's, byte for byte */
} dmls_bench_cuda_result;

/* Times case c over reps runs after 3 warm-ups, on random (never zero)
 * input. Returns 0, or -1 with a message in err. */
int dmls_bench_cuda_case(const bench_case *c, int reps, dmls_bench_cuda_result *r, char *err,
                         size_t err_size);

/* The empty kernels dmls_bench_cuda_tiny launches beside the tiny op. */
#define DMLS_BENCH_CUDA_PROBES 3

/* Host cost of a tiny op, in microseconds; medians are of single
 * launch-and-synchronize times, means of calls timed in bursts of 100. */
typedef struct dmls_bench_cuda_tiny_result {
    double sync_us;        /* execute + cudaStreamSynchronize, median */
    double call_us;        /* inside dmls_execute_cuda alone, mean */
    double memset_sync_us; /* 4-byte cudaMemsetAsync + synchronize, median */
    char launch[32];       /* the launch the tiny op runs, as in dmls_bench_cuda_result */
    /* The same operator with its compact forms switched off (the general
     * parameter block), when the tiny op has one; else 0 and "". */
    double general_sync_us, general_call_us;
    char general_launch[32];
    /* The floor: an empty kernel (1 block of 1 thread) launched as the
     * library launches, with no parameters, the compact kernels' and the
     * general kernels'. */
    struct {
        int param_bytes;
        double sync_us; /* launch + cudaStreamSynchronize, median */
        double call_us; /* cudaLaunchKernel alone, mean */
    } probe[DMLS_BENCH_CUDA_PROBES];
} dmls_bench_cuda_tiny_result;

/* Times a tiny op (DirectML's SLICE1 example 2 of examples/worked_examples.h:
 * a 1x1x4x4 float32 input, window offsets {0,0,0,1}, sizes {1,1,4,3},
 * strides {1,1,-2,2}) over
 * iters iterations, the floors interleaved with it, on a non-blocking
 * stream of GPU 0; checks its output. Returns 0, or -1 with a message in err. */
int dmls_bench_cuda_tiny(int iters, dmls_bench_cuda_tiny_result *r, char *err, size_t err_size);

/* The result as one text line (ending in a newline) for the bench table,
 * and as JSON members ("tiny_us": {...}, ...; no leading or trailing comma). */
void dmls_bench_cuda_tiny_print(FILE *f, const dmls_bench_cuda_tiny_result *r);
void dmls_bench_cuda_tiny_json(FILE *f, const dmls_bench_cuda_tiny_result *r);

#endif
