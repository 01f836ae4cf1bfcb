// See device_util.h.
#include <cuda_runtime.h>

#include "device_util.h"

namespace {

__global__ void fill_hash(uint64_t *d, uint64_t words, uint8_t *tail, uint64_t tail_bytes, uint64_t tail_at) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t w = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; w < words; w += stride) {
        uint64_t v = 0;
        for (int j = 0; j < 8; j++) v |= (uint64_t)test_hash_byte(w * 8 + j) << (8 * j); // little-endian
        d[w] = v;
    }
    if (blockIdx.x == 0 && threadIdx.x < tail_bytes) tail[threadIdx.x] = test_hash_byte(tail_at + threadIdx.x);
}

__global__ void gather(const uint8_t *base, const int64_t *offsets, int n, int width, uint8_t *out) {
    for (int k = blockIdx.x * blockDim.x + threadIdx.x; k < n; k += gridDim.x * blockDim.x)
        for (int j = 0; j < width; j++) out[(int64_t)k * width + j] = base[offsets[k] + j];
}

} // namespace

extern "C" int test_dev_fill_hash(void *d, uint64_t bytes, void *stream) {
    const uint64_t words = bytes / 8;
    uint8_t *bytes_at = static_cast<uint8_t *>(d);
    fill_hash<<<4096, 256, 0, static_cast<cudaStream_t>(stream)>>>(static_cast<uint64_t *>(d), words,
                                                                     bytes_at + words * 8, bytes % 8, words * 8);
    return cudaGetLastError();
}

extern "C" int test_dev_gather(const void *d_base, const int64_t *d_offsets, int n, int width, void *d_samples,
                               void *stream) {
    if (n <= 0) return cudaSuccess;
    gather<<<(n + 255) / 256, 256, 0, static_cast<cudaStream_t>(stream)>>>(
        static_cast<const uint8_t *>(d_base), d_offsets, n, width, static_cast<uint8_t *>(d_samples));
    return cudaGetLastError();
}
