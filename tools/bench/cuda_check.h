/* The CUDA benches' way out of a failed call (bench_cuda.c, for the cases,
 * and bench_batch_cuda.c, for the batch rows): a CUDA runtime call or a
 * dmlslice call that fails prints "dmlslice bench: " KIND NAME ": " and what
 * failed, then jumps to the calling function's `fail:` label, which frees
 * what it made. Include after <cuda_runtime_api.h>, <stdio.h> and
 * dmlslice.h. */
#ifndef DMLSLICE_TOOLS_BENCH_CUDA_CHECK_H
#define DMLSLICE_TOOLS_BENCH_CUDA_CHECK_H

#define BENCH_CU(kind, name, call)                                                                        \
    do {                                                                                                  \
        const cudaError_t e_ = (call);                                                                    \
        if (e_ != cudaSuccess) {                                                                          \
            fprintf(stderr, "dmlslice bench: %s%s: %s: %s\n", kind, name, #call, cudaGetErrorString(e_)); \
            goto fail;                                                                                    \
        }                                                                                                 \
    } while (0)

#define BENCH_DM(kind, name, call)                                                                        \
    do {                                                                                                  \
        if ((call) != DMLS_OK) {                                                                          \
            fprintf(stderr, "dmlslice bench: %s%s: %s\n", kind, name, dmls_last_error());                 \
            goto fail;                                                                                    \
        }                                                                                                 \
    } while (0)

#endif
