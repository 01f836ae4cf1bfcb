// The yardstick of a launch's fixed cost for dmlslice bench --device cuda:
// a kernel that does nothing, one block of one thread, no parameters.
#include <cuda_runtime_api.h>

__global__ void bench_empty_kernel() {}

extern "C" int bench_empty_launch(void *stream) {
    bench_empty_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>();
    return static_cast<int>(cudaGetLastError());
}
