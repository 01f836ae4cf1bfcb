/* CUDA devices through the device interface (dmlslice/device.h): each
 * open device owns a stream, every call is made current on its device
 * first (the runtime's current device is per thread), and work is
 * enqueued in call order; download and synchronize wait on the stream. */
#include <cuda.h> /* the driver's types and names only: its one function here comes through the runtime */
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../device/device_ops.h"
#include "../error.h"
#include "../platform/platform.h"
#include "dmlslice/batch_cuda.h"
#include "dmlslice/dmlslice_cuda.h"

static dmls_status cuda_failed(const char *what, cudaError_t e) {
    return dmls_fail(DMLS_ERROR_DEVICE, NULL, "CUDA: %s: %s", what, cudaGetErrorString(e));
}

static int cuda_count(void) {
    int n = 0;
    return dmls_cuda_device_count(&n) == DMLS_OK ? n : 0;
}

static dmls_status cuda_info(int index, dmls_device_info *info) {
    struct cudaDeviceProp p;
    const cudaError_t e = cudaGetDeviceProperties(&p, index);
    if (e != cudaSuccess) return cuda_failed("cudaGetDeviceProperties", e);
    snprintf(info->description, sizeof info->description, "%.200s, compute capability %d.%d", p.name, p.major, p.minor);
    info->memory_bytes = (uint64_t)p.totalGlobalMem;
    int driver = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess)
        snprintf(info->driver, sizeof info->driver, "CUDA driver %d.%d", driver / 1000, driver % 1000 / 10);
    return DMLS_OK;
}

/* The stream dev's work goes on: the caller's (dmls_device_use_stream)
 * or the device's own. */
static cudaStream_t stream_of(const dmls_device *dev) {
    return dev->caller_stream ? (cudaStream_t)dev->stream : (cudaStream_t)dev->state;
}

/* Makes dev's device current on the calling thread. */
static dmls_status current(const dmls_device *dev) {
    const cudaError_t e = cudaSetDevice(dev->index);
    return e == cudaSuccess ? DMLS_OK : cuda_failed("cudaSetDevice", e);
}

/* The same for one call that then puts the caller's current device back
 * (leave): a library called under a framework (CuPy, PyTorch) must not
 * move the device the framework's next call runs on. */
static dmls_status enter(const dmls_device *dev, int *prev) {
    cudaError_t e = cudaGetDevice(prev);
    if (e == cudaSuccess && *prev != dev->index) e = cudaSetDevice(dev->index);
    return e == cudaSuccess ? DMLS_OK : cuda_failed("cudaSetDevice", e);
}

static dmls_status leave(const dmls_device *dev, int prev, dmls_status s) {
    if (prev != dev->index) cudaSetDevice(prev);
    return s;
}

static dmls_status cuda_open(dmls_device *dev) {
    RETURN_IF_ERROR(current(dev));
    cudaStream_t stream = NULL;
    const cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (e != cudaSuccess) return cuda_failed("cudaStreamCreate", e);
    dev->state = stream;
    return DMLS_OK;
}

static void cuda_close(dmls_device *dev) {
    if (current(dev) != DMLS_OK) return;
    cudaStreamSynchronize(dev->state);
    cudaStreamDestroy(dev->state);
}

/* A buffer's memory as cudaMalloc gave it; head.address is raw rounded up
 * to DMLS_DEVICE_ALIGN. */
typedef struct cuda_buffer {
    dmls_device_buffer head;
    void *raw;
} cuda_buffer;

static dmls_status cuda_alloc(dmls_device *dev, uint64_t bytes, dmls_device_buffer **buf) {
    RETURN_IF_ERROR(current(dev));
    cuda_buffer *b = calloc(1, sizeof *b);
    RETURN_IF(b == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "no memory for a buffer's record");
    b->head.bytes = bytes;
    /* Empty buffers hold no memory: cudaMalloc(0) is not portable. */
    const cudaError_t e = bytes ? cudaMalloc(&b->raw, (size_t)((bytes + 15) / 16 * 16 + DMLS_DEVICE_ALIGN)) : cudaSuccess;
    if (e != cudaSuccess) {
        free(b);
        cudaGetLastError(); /* not sticky: clear it for the next call */
        return dmls_fail(e == cudaErrorMemoryAllocation ? DMLS_ERROR_OUT_OF_MEMORY : DMLS_ERROR_DEVICE, NULL,
                         "CUDA: cudaMalloc of %llu bytes: %s", (unsigned long long)bytes, cudaGetErrorString(e));
    }
    if (b->raw != NULL)
        b->head.address = (unsigned char *)b->raw + (DMLS_DEVICE_ALIGN - (uintptr_t)b->raw % DMLS_DEVICE_ALIGN) %
                                                        DMLS_DEVICE_ALIGN;
    *buf = &b->head;
    return DMLS_OK;
}

static void cuda_free(dmls_device *dev, dmls_device_buffer *buf) {
    if (current(dev) == DMLS_OK) {
        cudaStreamSynchronize(stream_of(dev));
        cudaFree(((cuda_buffer *)buf)->raw);
    }
    free(buf);
}

/* Copies on the device's stream, then waits: the host memory may be
 * pageable and reused as soon as the call returns. */
static dmls_status copy_and_wait(dmls_device *dev, void *dst, const void *src, uint64_t bytes,
                                 enum cudaMemcpyKind kind) {
    RETURN_IF_ERROR(current(dev));
    cudaError_t e = cudaMemcpyAsync(dst, src, (size_t)bytes, kind, stream_of(dev));
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream_of(dev));
    return e == cudaSuccess ? DMLS_OK : cuda_failed("cudaMemcpyAsync", e);
}

static dmls_status cuda_upload(dmls_device *dev, dmls_device_buffer *dst, uint64_t offset, const void *src,
                               uint64_t bytes) {
    return copy_and_wait(dev, (unsigned char *)dst->address + offset, src, bytes, cudaMemcpyHostToDevice);
}

static dmls_status cuda_download(dmls_device *dev, const dmls_device_buffer *src, uint64_t offset, void *dst,
                                 uint64_t bytes) {
    return copy_and_wait(dev, dst, (const unsigned char *)src->address + offset, bytes, cudaMemcpyDeviceToHost);
}

static dmls_status cuda_execute(dmls_device *dev, const dmls_operator *op, const dmls_device_binding *in,
                                const dmls_device_binding *out) {
    int prev;
    RETURN_IF_ERROR(enter(dev, &prev));
    return leave(dev, prev,
                 dmls_execute_cuda(op, dmls_device_binding_address(in), in->bytes, dmls_device_binding_address(out),
                                   out->bytes, stream_of(dev)));
}

static dmls_status cuda_batch_prepare(dmls_device *dev, dmls_batch *batch) {
    int prev;
    RETURN_IF_ERROR(enter(dev, &prev));
    return leave(dev, prev, dmls_batch_prepare_cuda(batch));
}

static dmls_status cuda_run_batch(dmls_device *dev, const dmls_batch *batch, const dmls_batch_input *in,
                                  uint32_t n_in, const dmls_batch_output *out, uint32_t n_out) {
    return dmls_batch_execute_cuda(batch, in, n_in, out, n_out, stream_of(dev));
}

static dmls_status cuda_batch_execute(dmls_device *dev, const dmls_batch *batch, const dmls_device_binding *inputs,
                                      uint32_t n_inputs, const dmls_device_binding *outputs, uint32_t n_outputs) {
    int prev;
    RETURN_IF_ERROR(enter(dev, &prev));
    return leave(dev, prev,
                 dmls_device_batch_by_address(dev, batch, inputs, n_inputs, outputs, n_outputs, cuda_run_batch));
}

static dmls_status cuda_synchronize(dmls_device *dev) {
    int prev;
    RETURN_IF_ERROR(enter(dev, &prev));
    const cudaError_t e = cudaStreamSynchronize(stream_of(dev));
    return leave(dev, prev, e == cudaSuccess ? DMLS_OK : cuda_failed("cudaStreamSynchronize", e));
}

/* What a pointer is, as cudaPointerGetAttributes says it. */
typedef struct pointer_kind {
    enum cudaMemoryType type;
    int device;
} pointer_kind;

/* The driver's cuPointerGetAttributes, handed over by the runtime once; NULL
 * where it cannot be (a runtime before 12.5, or a driver without it). A wrap
 * asks it for the three attributes the check reads, in about 0.12 us against
 * the runtime's 0.18 us for its whole record (H200, bench/RESULTS.md,
 * 2026-11-29), which the Python binding pays for every array of a call. */
typedef CUresult (*pointer_attributes_fn)(unsigned, CUpointer_attribute *, void **, CUdeviceptr);
static pointer_attributes_fn driver_attributes;
static dmls_once driver_once = DMLS_ONCE_INIT;

static void find_driver_attributes(void) {
#if CUDART_VERSION >= 12050
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult found;
    if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &fn, 12000, cudaEnableDefault, &found) ==
            cudaSuccess &&
        found == cudaDriverEntryPointSuccess)
        driver_attributes = (pointer_attributes_fn)fn;
    else
        cudaGetLastError(); /* not sticky: clear it for the next call */
#endif
}

static dmls_status pointer_kind_of(const void *address, pointer_kind *k) {
    dmls_once_run(&driver_once, find_driver_attributes);
    if (driver_attributes != NULL) {
        /* An address the driver does not know reads as type 0 (no error). */
        unsigned type = 0, managed = 0;
        int device = -1;
        CUpointer_attribute which[3] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                        CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
        void *into[3] = {&type, &managed, &device};
        const CUresult r = driver_attributes(3, which, into, (CUdeviceptr)(uintptr_t)address);
        RETURN_IF(r != CUDA_SUCCESS, DMLS_ERROR_DEVICE, NULL, "CUDA: cuPointerGetAttributes returned %d", (int)r);
        k->type = managed                        ? cudaMemoryTypeManaged
                  : type == CU_MEMORYTYPE_DEVICE ? cudaMemoryTypeDevice
                  : type == CU_MEMORYTYPE_HOST   ? cudaMemoryTypeHost
                                                 : cudaMemoryTypeUnregistered;
        k->device = device;
        return DMLS_OK;
    }
    struct cudaPointerAttributes a;
    const cudaError_t e = cudaPointerGetAttributes(&a, address);
    if (e != cudaSuccess) {
        cudaGetLastError(); /* not sticky: clear it for the next call */
        return cuda_failed("cudaPointerGetAttributes", e);
    }
    k->type = a.type, k->device = a.device;
    return DMLS_OK;
}

/* Only this device's memory (or managed memory) is the device's: a host
 * pointer, or another GPU's, would fault in the kernel. */
static dmls_status cuda_check_wrap(dmls_device *dev, const void *address, uint64_t bytes) {
    pointer_kind a = {cudaMemoryTypeUnregistered, -1};
    RETURN_IF_ERROR(pointer_kind_of(address, &a));
    RETURN_IF(a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "cuda:%d: %llu bytes at %p are %s memory, not the device's", dev->index, (unsigned long long)bytes,
              address, a.type == cudaMemoryTypeHost ? "pinned host" : "unregistered host");
    RETURN_IF(a.type == cudaMemoryTypeDevice && a.device != dev->index, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "cuda:%d: %llu bytes at %p are on CUDA device %d", dev->index, (unsigned long long)bytes, address,
              a.device);
    return DMLS_OK;
}

static dmls_status cuda_copy(dmls_device *dev, const dmls_device_binding *dst, const dmls_device_binding *src) {
    int prev;
    RETURN_IF_ERROR(enter(dev, &prev));
    const cudaError_t e = cudaMemcpyAsync(dmls_device_binding_address(dst), dmls_device_binding_address(src),
                                          (size_t)dst->bytes, cudaMemcpyDeviceToDevice, stream_of(dev));
    return leave(dev, prev, e == cudaSuccess ? DMLS_OK : cuda_failed("cudaMemcpyAsync", e));
}

/* Events between the samples, all enqueued before the first wait: event k
 * closes sample k - 1 and opens sample k, so a sample's time is the GPU's
 * time from the end of the one before to its own end. */
static dmls_status time_events(dmls_device *dev, const dmls_device_work *w, uint32_t warm, uint32_t samples,
                               uint32_t per_sample, double *seconds, cudaEvent_t *ev) {
    cudaError_t e = cudaSuccess;
    dmls_status s = DMLS_OK;
    const uint64_t runs = warm + (uint64_t)samples * per_sample;
    for (uint64_t i = 0; i < runs && s == DMLS_OK && e == cudaSuccess; i++) {
        if (i >= warm && (i - warm) % per_sample == 0) e = cudaEventRecord(ev[(i - warm) / per_sample], stream_of(dev));
        if (e == cudaSuccess) s = dmls_device_run_work(dev, w);
    }
    if (s == DMLS_OK && e == cudaSuccess && samples > 0) e = cudaEventRecord(ev[samples], stream_of(dev));
    if (s == DMLS_OK && e == cudaSuccess) e = cudaStreamSynchronize(stream_of(dev));
    for (uint32_t k = 0; k < samples && s == DMLS_OK && e == cudaSuccess; k++) {
        float ms = 0;
        e = cudaEventElapsedTime(&ms, ev[k], ev[k + 1]);
        seconds[k] = ms * 1e-3 / per_sample;
    }
    if (s != DMLS_OK) return s;
    return e == cudaSuccess ? DMLS_OK : cuda_failed("timing by events", e);
}

static dmls_status cuda_time(dmls_device *dev, const dmls_device_work *w, uint32_t warm, uint32_t samples,
                             uint32_t per_sample, double *seconds) {
    int prev;
    RETURN_IF_ERROR(enter(dev, &prev));
    cudaEvent_t *ev = calloc((size_t)samples + 1, sizeof *ev);
    dmls_status s = ev != NULL ? DMLS_OK
                               : dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "no memory for %u events", samples + 1);
    uint32_t made = 0;
    for (; s == DMLS_OK && made < samples + 1; made++) {
        const cudaError_t e = cudaEventCreate(&ev[made]);
        if (e != cudaSuccess) s = cuda_failed("cudaEventCreate", e);
    }
    if (s == DMLS_OK) s = time_events(dev, w, warm, samples, per_sample, seconds, ev);
    for (uint32_t i = 0; i < made; i++)
        if (ev[i] != NULL) cudaEventDestroy(ev[i]);
    free(ev);
    return leave(dev, prev, s);
}

const dmls_device_ops dmls_cuda_device = {cuda_count,      cuda_info,          cuda_open,          cuda_close,
                                          cuda_alloc,      cuda_free,          cuda_upload,        cuda_download,
                                          cuda_execute,    cuda_batch_prepare, cuda_batch_execute, cuda_synchronize,
                                          cuda_check_wrap, 1 /* streams */,   NULL,               NULL,
                                          cuda_copy,       cuda_time};
