/* The tool's GPU path. Compiled in every build; without the CUDA backend
 * it only reports that. */
#include "cuda_io.h"

#include <stdio.h>

#include "args.h"

#ifdef DMLS_HAVE_CUDA
#include <cuda_runtime_api.h>

#include <stdlib.h>

#include "dmlslice/batch_cuda.h"
#include "dmlslice/dmlslice_cuda.h"

bool cuda_io_built(void) { return true; }

bool cuda_io_use(bool asked) {
    if (!asked || dmls_cuda_available()) return asked;
    fprintf(stderr, "%s: --device cuda: %s; running on the CPU\n", args_prog, dmls_last_error());
    return false;
}

dmls_status cuda_io_run(const dmls_operator *op, const void *in, uint64_t in_bytes, void *out, uint64_t out_bytes,
                        char *err) {
    err[0] = '\0';
    int count = 0;
    dmls_status s = dmls_cuda_device_count(&count);
    if (s != DMLS_OK) return s;
    void *d_in = NULL, *d_out = NULL;
    cudaStream_t stream = NULL;
    cudaError_t e = cudaStreamCreate(&stream);
    /* Empty tensors need no device memory; cudaMalloc(0) is not portable. */
    if (e == cudaSuccess && in_bytes) e = cudaMalloc(&d_in, in_bytes);
    if (e == cudaSuccess && out_bytes) e = cudaMalloc(&d_out, out_bytes);
    if (e == cudaSuccess && in_bytes) e = cudaMemcpyAsync(d_in, in, in_bytes, cudaMemcpyHostToDevice, stream);
    /* The output's padding keeps the file's bytes, as on the CPU. */
    if (e == cudaSuccess && out_bytes) e = cudaMemcpyAsync(d_out, out, out_bytes, cudaMemcpyHostToDevice, stream);
    if (e != cudaSuccess) {
        snprintf(err, 256, "CUDA: %s", cudaGetErrorString(e));
        s = DMLS_ERROR_DEVICE;
    } else {
        s = dmls_execute_cuda(op, d_in, in_bytes, d_out, out_bytes, stream);
        /* Copy back only after a successful launch, so a failure leaves out as it was. */
        if (s == DMLS_OK && out_bytes) e = cudaMemcpyAsync(out, d_out, out_bytes, cudaMemcpyDeviceToHost, stream);
        if (s == DMLS_OK && e == cudaSuccess) e = cudaStreamSynchronize(stream);
        if (s == DMLS_OK && e != cudaSuccess) {
            snprintf(err, 256, "CUDA: %s", cudaGetErrorString(e));
            s = DMLS_ERROR_DEVICE;
        }
    }
    cudaFree(d_in);
    cudaFree(d_out);
    if (stream) cudaStreamDestroy(stream);
    return s;
}

/* Device buffers of a batch run: the input, then one per output slot. */
typedef struct batch_buffers {
    void *in;
    void **out;
    uint32_t n;
} batch_buffers;

static cudaError_t batch_upload(batch_buffers *d, const void *in, uint64_t in_bytes, void *const *outs,
                                const uint64_t *out_bytes, cudaStream_t stream) {
    cudaError_t e = in_bytes ? cudaMalloc(&d->in, in_bytes) : cudaSuccess;
    if (e == cudaSuccess && in_bytes) e = cudaMemcpyAsync(d->in, in, in_bytes, cudaMemcpyHostToDevice, stream);
    for (uint32_t k = 0; e == cudaSuccess && k < d->n; k++) {
        if (out_bytes[k] == 0) continue;
        e = cudaMalloc(&d->out[k], out_bytes[k]);
        /* The outputs' padding keeps the files' bytes, as on the CPU. */
        if (e == cudaSuccess) e = cudaMemcpyAsync(d->out[k], outs[k], out_bytes[k], cudaMemcpyHostToDevice, stream);
    }
    return e;
}

dmls_status cuda_io_run_batch(dmls_batch *batch, const void *in, uint64_t in_bytes, void *const *outs,
                              const uint64_t *out_bytes, uint32_t n, char *err) {
    err[0] = '\0';
    int count = 0;
    dmls_status s = dmls_cuda_device_count(&count);
    if (s == DMLS_OK) s = dmls_batch_prepare_cuda(batch);
    if (s != DMLS_OK) return s;
    batch_buffers d = {NULL, calloc(n ? n : 1, sizeof(void *)), n};
    dmls_batch_output *slots = calloc(n ? n : 1, sizeof *slots);
    cudaStream_t stream = NULL;
    cudaError_t e = d.out && slots ? cudaStreamCreate(&stream) : cudaErrorMemoryAllocation;
    if (e == cudaSuccess) e = batch_upload(&d, in, in_bytes, outs, out_bytes, stream);
    if (e == cudaSuccess) {
        const dmls_batch_input input = {d.in, in_bytes};
        for (uint32_t k = 0; k < n; k++) slots[k].data = d.out[k], slots[k].bytes = out_bytes[k];
        s = dmls_batch_execute_cuda(batch, &input, 1, slots, n, stream);
        /* Copy back only after a successful launch, so a failure leaves the outputs as they were. */
        for (uint32_t k = 0; s == DMLS_OK && e == cudaSuccess && k < n; k++)
            if (out_bytes[k]) e = cudaMemcpyAsync(outs[k], d.out[k], out_bytes[k], cudaMemcpyDeviceToHost, stream);
        if (s == DMLS_OK && e == cudaSuccess) e = cudaStreamSynchronize(stream);
    }
    if (s == DMLS_OK && e != cudaSuccess) {
        snprintf(err, 256, "CUDA: %s", cudaGetErrorString(e));
        s = DMLS_ERROR_DEVICE;
    }
    cudaFree(d.in);
    for (uint32_t k = 0; d.out && k < n; k++) cudaFree(d.out[k]);
    free(d.out);
    free(slots);
    if (stream) cudaStreamDestroy(stream);
    return s;
}

#else

bool cuda_io_built(void) { return false; }

bool cuda_io_use(bool asked) {
    if (asked) fprintf(stderr, "%s: --device cuda: this build has no CUDA backend; running on the CPU\n", args_prog);
    return false;
}

dmls_status cuda_io_run(const dmls_operator *op, const void *in, uint64_t in_bytes, void *out, uint64_t out_bytes,
                        char *err) {
    (void)op, (void)in, (void)in_bytes, (void)out, (void)out_bytes;
    snprintf(err, 256, "this build has no CUDA backend (rebuild where nvcc is found)");
    return DMLS_ERROR_NO_DEVICE;
}

dmls_status cuda_io_run_batch(dmls_batch *batch, const void *in, uint64_t in_bytes, void *const *outs,
                              const uint64_t *out_bytes, uint32_t n, char *err) {
    (void)batch, (void)in, (void)in_bytes, (void)outs, (void)out_bytes, (void)n;
    snprintf(err, 256, "this build has no CUDA backend (rebuild where nvcc is found)");
    return DMLS_ERROR_NO_DEVICE;
}

#endif
