/* See device.h. Compiled in every build; without the CUDA backend it only
 * reports that. The Vulkan side is device_vulkan.c; the functions of
 * device.h (at the end) route to one or the other. */
#include "device.h"

#include <stdio.h>
#include <stdlib.h>

#include "device_vulkan.h"

#ifdef DMLS_HAVE_CUDA
#include <cuda_runtime_api.h>

#include "dmlslice/dmlslice_cuda.h"

/* Buffers start on 64 KiB boundaries, as D3D12 places them, so a binding
 * offset is exactly as aligned on the device as on the host (R-X-ALIGN). */
#define DEVICE_ALIGN 65536u

typedef struct cuda_buffers {
    size_t n;
    void **raw;
    unsigned char **base;
    uint64_t *sizes;
    cudaStream_t stream;
} cuda_buffers;

static void cuda_free(cuda_buffers *d);

static dmls_status cuda_fail(cudaError_t e, char *err) {
    snprintf(err, 256, "CUDA: %s", cudaGetErrorString(e));
    return DMLS_ERROR_DEVICE;
}

static dmls_status cuda_upload(size_t n, unsigned char *const *host, const uint64_t *sizes, cuda_buffers **out,
                               char *err) {
    *out = NULL;
    err[0] = '\0';
    int count = 0;
    dmls_status s = dmls_cuda_device_count(&count);
    if (s != DMLS_OK) {
        snprintf(err, 256, "%s", dmls_last_error());
        return s;
    }
    cuda_buffers *d = calloc(1, sizeof *d);
    if (d) {
        d->raw = calloc(n + 1, sizeof *d->raw);
        d->base = calloc(n + 1, sizeof *d->base);
        d->sizes = calloc(n + 1, sizeof *d->sizes);
    }
    if (!d || !d->raw || !d->base || !d->sizes) {
        cuda_free(d);
        snprintf(err, 256, "out of memory");
        return DMLS_ERROR_OUT_OF_MEMORY;
    }
    d->n = n;
    cudaError_t e = cudaStreamCreate(&d->stream);
    for (size_t i = 0; i < n && e == cudaSuccess; i++) {
        d->sizes[i] = sizes[i];
        e = cudaMalloc(&d->raw[i], sizes[i] + DEVICE_ALIGN);
        if (e != cudaSuccess) break;
        d->base[i] = (unsigned char *)d->raw[i] + (DEVICE_ALIGN - (uintptr_t)d->raw[i] % DEVICE_ALIGN) % DEVICE_ALIGN;
        e = cudaMemcpyAsync(d->base[i], host[i], sizes[i], cudaMemcpyHostToDevice, d->stream);
    }
    if (e == cudaSuccess) e = cudaStreamSynchronize(d->stream);
    if (e != cudaSuccess) {
        cuda_free(d);
        return cuda_fail(e, err);
    }
    *out = d;
    return DMLS_OK;
}

static dmls_status cuda_dispatch(cuda_buffers *d, const dmls_operator *op, size_t in, uint64_t in_off, size_t out,
                                 uint64_t out_off, unsigned char *host, char *err) {
    err[0] = '\0';
    dmls_status s = dmls_execute_cuda(op, d->base[in] + in_off, d->sizes[in] - in_off, d->base[out] + out_off,
                                      d->sizes[out] - out_off, d->stream);
    if (s != DMLS_OK) {
        snprintf(err, 256, "%s", dmls_last_error());
        return s;
    }
    cudaError_t e = cudaMemcpyAsync(host, d->base[out], d->sizes[out], cudaMemcpyDeviceToHost, d->stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(d->stream);
    return e == cudaSuccess ? DMLS_OK : cuda_fail(e, err);
}

static void cuda_free(cuda_buffers *d) {
    if (!d) return;
    for (size_t i = 0; d->raw && i < d->n; i++) cudaFree(d->raw[i]);
    if (d->stream) cudaStreamDestroy(d->stream);
    free(d->raw);
    free(d->base);
    free(d->sizes);
    free(d);
}

#else

typedef struct cuda_buffers {
    int unused;
} cuda_buffers;

static dmls_status cuda_upload(size_t n, unsigned char *const *host, const uint64_t *sizes, cuda_buffers **out,
                               char *err) {
    (void)n, (void)host, (void)sizes;
    *out = NULL;
    snprintf(err, 256, "this build has no CUDA backend (rebuild where nvcc is found)");
    return DMLS_ERROR_NO_DEVICE;
}

static dmls_status cuda_dispatch(cuda_buffers *d, const dmls_operator *op, size_t in, uint64_t in_off, size_t out,
                                 uint64_t out_off, unsigned char *host, char *err) {
    (void)d, (void)op, (void)in, (void)in_off, (void)out, (void)out_off, (void)host;
    snprintf(err, 256, "this build has no CUDA backend");
    return DMLS_ERROR_NO_DEVICE;
}

static void cuda_free(cuda_buffers *d) { (void)d; }

#endif

/* ---------------------------------------------------------- routing */

struct device_buffers {
    cuda_buffers *cuda;
    vk_buffers *vk;
};

/* -1: CUDA device 0 (the default); N: Vulkan device N. */
static int vulkan_device = -1;

void device_select_vulkan(int index) { vulkan_device = index; }

dmls_status device_upload(size_t n, unsigned char *const *host, const uint64_t *sizes, device_buffers **out,
                          char *err) {
    *out = NULL;
    err[0] = '\0';
    device_buffers *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, 256, "out of memory");
        return DMLS_ERROR_OUT_OF_MEMORY;
    }
    const dmls_status s = vulkan_device >= 0 ? vk_upload(vulkan_device, n, host, sizes, &d->vk, err)
                                             : cuda_upload(n, host, sizes, &d->cuda, err);
    if (s != DMLS_OK) {
        free(d);
        return s;
    }
    *out = d;
    return DMLS_OK;
}

dmls_status device_dispatch(device_buffers *d, const dmls_operator *op, size_t in, uint64_t in_off, size_t out,
                            uint64_t out_off, unsigned char *host, char *err) {
    err[0] = '\0';
    return d->vk ? vk_dispatch(d->vk, op, in, in_off, out, out_off, host, err)
                 : cuda_dispatch(d->cuda, op, in, in_off, out, out_off, host, err);
}

void device_free(device_buffers *d) {
    if (!d) return;
    vk_free(d->vk);
    cuda_free(d->cuda);
    free(d);
}
