/* The tool's GPU path. Compiled in every build; without the CUDA backend
 * it only reports that. */
#include "cuda_io.h"

#include <stdio.h>

#include "args.h"

#ifdef DMLS_HAVE_CUDA
#include <cuda_runtime_api.h>

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

#endif
