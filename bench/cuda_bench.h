/* Timing of the CUDA backend on one canonical case, behind a small C API:
 * dmlslice bench --device cuda calls it (linked into the CLI only in builds
 * with the CUDA backend). Cases come from tools/cases.h, the one reader of
 * bench/cases.json. */
#ifndef DMLS_BENCH_CUDA_H
#define DMLS_BENCH_CUDA_H

#include <stddef.h>
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
    char launch[32];    /* the three as "gather/4/16", for tables: the enum is internal */
    int correct;        /* 1: the GPU output equals the CPU executor's, byte for byte */
} dmls_bench_cuda_result;

/* Times case c over reps runs after 3 warm-ups, on random (never zero)
 * input. Returns 0, or -1 with a message in err. */
int dmls_bench_cuda_case(const bench_case *c, int reps, dmls_bench_cuda_result *r, char *err,
                         size_t err_size);

/* Host cost of a tiny op (SLICE1 on a 1x1x4x4 float32 input, offsets
 * {0,0,0,1}, sizes {1,1,4,3}, strides {1,1,-2,2}): median microseconds of
 * one execute followed by a stream synchronize (*sync_us), and the mean
 * microseconds spent inside dmls_execute_cuda alone (*call_us), and the
 * median of a 4-byte cudaMemsetAsync plus synchronize (*floor_us: what any
 * launch-and-wait costs on this machine). */
int dmls_bench_cuda_tiny(int iters, double *sync_us, double *call_us, double *floor_us, char *err,
                         size_t err_size);

#endif
