/*
 * dmlslice_cuda.h: run a planned slice operator on an NVIDIA GPU.
 *
 * The same dmls_operator that dmls_execute runs on the CPU runs here on
 * device memory: plan once with dmls_create / dmls_create_grad /
 * dmls_create_dml, then call dmls_execute_cuda with device pointers. These
 * functions exist only in builds with the CUDA backend (DMLS_HAVE_CUDA is
 * defined for users of the CMake target then); this header needs no CUDA
 * header itself: a stream is passed as void *.
 *
 * Device: the calling thread's current CUDA device (cudaSetDevice). The
 * buffers must be device memory of that device (or memory it can address,
 * e.g. managed memory); this is not checked, because asking the driver costs
 * more than the whole launch of a small slice.
 */
#ifndef DMLSLICE_CUDA_H
#define DMLSLICE_CUDA_H

#include "dmlslice.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * dmls_cuda_device_count: the number of CUDA devices the runtime sees.
 * Returns DMLS_OK with *count >= 1, or DMLS_ERROR_NO_DEVICE (with
 * dmls_last_error() saying why: no GPU, no driver, driver too old) and
 * *count = 0. The answer is asked once per process and cached. Thread-safe.
 */
DMLS_API dmls_status dmls_cuda_device_count(int *count);

/* 1 when dmls_cuda_device_count would succeed, else 0. Thread-safe. */
DMLS_API int dmls_cuda_available(void);

/*
 * dmls_cuda_device_name: the name of CUDA device `device` ("NVIDIA H100 80GB
 * HBM3") and its compute capability, written to name (truncated to
 * name_size, always NUL-terminated when name_size > 0). major/minor may be
 * NULL. Returns DMLS_ERROR_NO_DEVICE when there is no such device.
 */
DMLS_API dmls_status dmls_cuda_device_name(int device, char *name, size_t name_size, int *major,
                                           int *minor);

/*
 * dmls_execute_cuda: enqueue op on a CUDA stream.
 *   d_in, in_bytes    the bound input buffer (device memory) and its size.
 *   d_out, out_bytes  the bound output buffer (device memory) and its size.
 *   stream            a cudaStream_t, or NULL for the default stream.
 * Checks before enqueuing anything, as dmls_execute does: pointers non-NULL
 * unless the tensor needs 0 bytes, sizes (R-X-BOUNDS), DirectML's binding
 * alignment for operators made from DirectML descriptors (R-X-ALIGN), no
 * overlap of the two tensors' byte ranges (R-X-OVERLAP); then the GPU is
 * checked (DMLS_ERROR_NO_DEVICE). A native operator takes any
 * element-aligned base; 16-byte-aligned bases get the widest accesses.
 *
 * Asynchronous: returns once the work is enqueued. The output is complete
 * when the stream reaches this point; the input must stay unchanged and both
 * buffers allocated until then. SLICE_GRAD enqueues the zero fill and then
 * the scatter on the same stream. Only the output tensor's elements are
 * written; padding between strided elements keeps its bytes.
 *
 * Returns DMLS_OK, a binding error (nothing enqueued), DMLS_ERROR_NO_DEVICE,
 * or DMLS_ERROR_DEVICE when the CUDA runtime refuses the launch (the message
 * carries the runtime's own; sticky errors of earlier asynchronous work on
 * the device can surface here too). The runtime's last-error state
 * (cudaGetLastError) is left as it was on success and cleared after a
 * refused launch. Apart from the device count, asked once per process, the
 * only CUDA runtime calls are the launches themselves (one per call, at most
 * two for SLICE_GRAD, none when nothing is written). Thread-safe: one
 * operator may be enqueued from many threads at once, on distinct outputs.
 */
DMLS_API dmls_status dmls_execute_cuda(const dmls_operator *op, const void *d_in, uint64_t in_bytes,
                                       void *d_out, uint64_t out_bytes, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* DMLSLICE_CUDA_H */
