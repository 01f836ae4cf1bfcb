/* CU(call): a CUDA runtime call in a test, which ends the program with the
 * call, its place and the runtime's message when it fails (a test cannot go
 * on without its device memory). */
#ifndef DMLS_TEST_CUDA_CHECK_H
#define DMLS_TEST_CUDA_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

#define CU(call)                                                                                                       \
    do {                                                                                                               \
        cudaError_t e_ = (call);                                                                                       \
        if (e_ != cudaSuccess) {                                                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));                     \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

#endif
