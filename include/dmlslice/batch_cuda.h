/*
 * batch_cuda.h: run a planned batch (<dmlslice/batch.h>) on an NVIDIA GPU.
 *
 * These functions exist only in builds with the CUDA backend (DMLS_HAVE_CUDA
 * is defined for users of the CMake target then); like dmlslice_cuda.h this
 * header needs no CUDA header: a stream is passed as void *. Device: the
 * calling thread's current CUDA device, as for dmls_execute_cuda.
 */
#ifndef DMLSLICE_BATCH_CUDA_H
#define DMLSLICE_BATCH_CUDA_H

#include "batch.h"
#include "dmlslice_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * dmls_batch_prepare_cuda: copy the batch's packed item table to the
 * calling thread's current CUDA device, once (later calls return at once).
 * Allocates device memory and synchronizes; do it before capturing a
 * dmls_batch_execute_cuda in a CUDA graph. At most DMLS_BATCH_CUDA_MAX_SLOTS
 * slots in all (the bases travel in the kernel's parameters) and fewer than
 * 2^32 - 1 items (the block map numbers them in 32 bits). Returns
 * DMLS_OK, DMLS_ERROR_NO_DEVICE, DMLS_ERROR_UNSUPPORTED (too many slots or items),
 * DMLS_ERROR_OUT_OF_MEMORY or DMLS_ERROR_DEVICE. Thread-safe.
 */
#define DMLS_BATCH_CUDA_MAX_SLOTS 128
DMLS_API dmls_status dmls_batch_prepare_cuda(dmls_batch *batch);

/*
 * dmls_batch_execute_cuda: enqueue every item on a CUDA stream: one kernel
 * launch (two when an item is a SLICE_GRAD: the zero fills, then the
 * copies), whatever the number of items. The slots hold device memory of
 * the device the batch was prepared for (bound starts of crops too). Checks
 * as dmls_batch_execute, before enqueuing anything; the batch must be
 * prepared (DMLS_ERROR_INVALID_ARGUMENT otherwise). Nothing is allocated,
 * copied or synchronized: the call can be captured in a CUDA graph.
 * Asynchronous, with the same return values and thread safety as
 * dmls_execute_cuda.
 */
DMLS_API dmls_status dmls_batch_execute_cuda(const dmls_batch *batch, const dmls_batch_input *inputs, uint32_t n_inputs,
                                             const dmls_batch_output *outputs, uint32_t n_outputs, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* DMLSLICE_BATCH_CUDA_H */
