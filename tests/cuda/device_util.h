/* Device helpers for test_cuda's large cases: fill a buffer with a hash of
 * each byte's offset on the GPU (no multi-GiB host transfer), and read
 * sampled bytes back. Plain C interface; device_util.cu implements it. */
#ifndef DMLS_TEST_DEVICE_UTIL_H
#define DMLS_TEST_DEVICE_UTIL_H

#include <stdint.h>

/* The value of byte b of a hash-filled buffer; the same function on the
 * host and on the device. Every bit of b moves the result. */
static inline
#ifdef __CUDACC__
    __host__ __device__
#endif
    uint8_t
    test_hash_byte(uint64_t b) {
    uint64_t x = (b + 1) * 0x9E3779B97F4A7C15ull;
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 32;
    return (uint8_t)x;
}

#ifdef __cplusplus
extern "C" {
#endif

/* Byte i of d (bytes long, 8-byte aligned) = test_hash_byte(i), on stream;
 * returns the CUDA error code of the launch. */
int test_dev_fill_hash(void *d, uint64_t bytes, void *stream);

/* For k < n: bytes [k * width, (k + 1) * width) of d_samples = bytes
 * [offsets[k], offsets[k] + width) of d_base. d_offsets is device memory.
 * Returns the CUDA error code of the launch. */
int test_dev_gather(const void *d_base, const int64_t *d_offsets, int n, int width, void *d_samples, void *stream);

#ifdef __cplusplus
}
#endif

#endif
