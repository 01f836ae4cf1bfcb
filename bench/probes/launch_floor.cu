// Probe: the floor under a synchronized tiny execute on this GPU machine.
//
// `dmlslice bench --device cuda` measures the tiny op beside an empty kernel
// with the CUDA runtime's default synchronization (cudaDeviceScheduleAuto).
// This program measures, in one process per mode, an empty kernel launch +
// cudaStreamSynchronize and dmlslice's tiny op (DirectML's SLICE1 example 2)
// + cudaStreamSynchronize, taking turns, so the question "could a caller get
// under 5 us by choosing how the host waits?" has an answer.
// Build: a CUDA-enabled CMake build makes it (target launch_floor,
// bench/probes/CMakeLists.txt).
// Run: build/bench/probes/launch_floor auto|spin|yield|blocking
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dmlslice/dmlslice.h"
#include "dmlslice/dmlslice_cuda.h"

__global__ void empty_kernel() {}

static double now_us() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define CU(x)                                                                        \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            return 1;                                                                \
        }                                                                            \
    } while (0)

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "auto";
    unsigned flag = !strcmp(mode, "spin") ? cudaDeviceScheduleSpin
                    : !strcmp(mode, "yield") ? cudaDeviceScheduleYield
                    : !strcmp(mode, "blocking") ? cudaDeviceScheduleBlockingSync
                                                : cudaDeviceScheduleAuto;
    CU(cudaSetDeviceFlags(flag));
    cudaStream_t s;
    CU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int64_t in_shape[4] = {1, 1, 4, 4}, out_shape[4] = {1, 1, 2, 2};
    const int64_t off[4] = {0, 0, 0, 1}, size[4] = {1, 1, 4, 3}, step[4] = {1, 1, -2, 2};
    dmls_tensor in = {DMLS_FLOAT32, 4, in_shape, NULL, 0}, out = {DMLS_FLOAT32, 4, out_shape, NULL, 0};
    dmls_window w = {off, size, step};
    dmls_operator *op = NULL;
    if (dmls_create(&in, &out, &w, &op) != DMLS_OK) {
        fprintf(stderr, "%s\n", dmls_last_error());
        return 1;
    }
    float h_in[16], h_out[4];
    for (int i = 0; i < 16; i++) h_in[i] = (float)(i + 1);
    float *d_in, *d_out;
    CU(cudaMalloc(&d_in, sizeof h_in));
    CU(cudaMalloc(&d_out, sizeof h_out));
    CU(cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice));
    CU(cudaDeviceSynchronize());
    enum { ITERS = 20000 };
    static double t_empty[ITERS], t_tiny[ITERS];
    for (int i = 0; i < 200; i++) {
        empty_kernel<<<1, 1, 0, s>>>();
        dmls_execute_cuda(op, d_in, sizeof h_in, d_out, sizeof h_out, s);
    }
    CU(cudaStreamSynchronize(s));
    for (int i = 0; i < ITERS; i++) {
        double t0 = now_us();
        empty_kernel<<<1, 1, 0, s>>>();
        CU(cudaStreamSynchronize(s));
        double t1 = now_us();
        if (dmls_execute_cuda(op, d_in, sizeof h_in, d_out, sizeof h_out, s) != DMLS_OK) return 1;
        CU(cudaStreamSynchronize(s));
        double t2 = now_us();
        t_empty[i] = t1 - t0, t_tiny[i] = t2 - t1;
    }
    CU(cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost));
    const float want[4] = {14, 16, 6, 8};
    if (memcmp(h_out, want, sizeof want) != 0) {
        fprintf(stderr, "tiny op gave %g %g %g %g\n", h_out[0], h_out[1], h_out[2], h_out[3]);
        return 1;
    }
    qsort(t_empty, ITERS, sizeof(double), cmpd);
    qsort(t_tiny, ITERS, sizeof(double), cmpd);
    printf("sync mode %-8s  empty kernel + sync: median %.2f us (p10 %.2f)   tiny op + sync: median %.2f us (p10 %.2f)\n",
           mode, t_empty[ITERS / 2], t_empty[ITERS / 10], t_tiny[ITERS / 2], t_tiny[ITERS / 10]);
    dmls_destroy(op);
    return 0;
}
