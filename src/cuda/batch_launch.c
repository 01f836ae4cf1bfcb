/* A batch on CUDA, the host side: dmls_batch_prepare_cuda uploads the
 * tables of batch_prepare.c once; dmls_batch_execute_cuda checks the
 * bindings and enqueues one launch per phase (batch_kernels.cu) with the
 * slots' bases in the kernel's parameters: nothing allocated, copied or
 * synchronized, so a CUDA graph can capture it. */
#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

#include "../batch/batch.h"
#include "../error.h"
#include "batch_kernels.h"
#include "batch_prepare.h"
#include "dmlslice/batch_cuda.h"

/* The host tables and their device copies (same layout, device pointers). */
typedef struct cuda_batch {
    dmls_cuda_batch_plan host, dev;
} cuda_batch;

static void free_device(dmls_cuda_batch_plan *dev) {
    cudaFree(dev->ops);
    for (int p = 0; p < 2; p++) cudaFree(dev->entries[p]), cudaFree(dev->map[p]);
}

/* Allocates and fills one device table; false on failure. */
static bool upload(void **to, const void *from, size_t bytes) {
    if (cudaMalloc(to, bytes ? bytes : 1) != cudaSuccess) return false;
    return bytes == 0 || cudaMemcpy(*to, from, bytes, cudaMemcpyHostToDevice) == cudaSuccess;
}

static dmls_status upload_plan(cuda_batch *cb) {
    const dmls_cuda_batch_plan *h = &cb->host;
    dmls_cuda_batch_plan *d = &cb->dev;
    *d = *h;
    d->ops = NULL, d->entries[0] = d->entries[1] = NULL, d->map[0] = d->map[1] = NULL;
    bool ok = upload((void **)&d->ops, h->ops, h->n_ops * sizeof *h->ops);
    for (int p = 0; p < 2 && ok; p++)
        ok = upload((void **)&d->entries[p], h->entries[p], (h->n_entries[p] + 1) * sizeof *h->entries[p]) &&
             upload((void **)&d->map[p], h->map[p], (h->blocks[p] + 1) * sizeof *h->map[p]);
    if (ok) return DMLS_OK;
    cudaError_t e = cudaGetLastError();
    free_device(d);
    return dmls_fail(e == cudaErrorMemoryAllocation ? DMLS_ERROR_OUT_OF_MEMORY : DMLS_ERROR_DEVICE, NULL,
                     "batch_prepare_cuda: uploading the batch's tables failed: %s", cudaGetErrorString(e));
}

dmls_status dmls_batch_prepare_cuda(dmls_batch *b) {
    dmls_clear_error();
    RETURN_IF(b == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "batch_prepare_cuda: batch is NULL");
    int n;
    RETURN_IF_ERROR(dmls_cuda_device_count(&n));
    dmls_mutex_lock(&b->device_lock);
    dmls_status s = DMLS_OK;
    if (atomic_load_explicit(&b->device[DMLS_BACKEND_CUDA], memory_order_relaxed) == NULL) {
        cuda_batch *cb = calloc(1, sizeof *cb);
        s = cb ? dmls_cuda_batch_plan_build(b, &cb->host)
               : dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "batch_prepare_cuda: out of memory");
        if (s == DMLS_OK) {
            s = upload_plan(cb);
            if (s != DMLS_OK) dmls_cuda_batch_plan_free(&cb->host);
        }
        if (s == DMLS_OK)
            atomic_store_explicit(&b->device[DMLS_BACKEND_CUDA], cb, memory_order_release);
        else
            free(cb);
    }
    dmls_mutex_unlock(&b->device_lock);
    return s;
}

/* The backend table's release_batch (backend.c). */
void dmls_batch_cuda_release(dmls_batch *b) {
    cuda_batch *cb = atomic_exchange_explicit(&b->device[DMLS_BACKEND_CUDA], NULL, memory_order_acquire);
    if (cb == NULL) return;
    free_device(&cb->dev);
    dmls_cuda_batch_plan_free(&cb->host);
    free(cb);
}

dmls_status dmls_batch_execute_cuda(const dmls_batch *b, const dmls_batch_input *inputs, uint32_t n_inputs,
                                    const dmls_batch_output *outputs, uint32_t n_outputs, void *stream) {
    RETURN_IF_ERROR(dmls_batch_check_bindings("batch_execute_cuda", b, inputs, n_inputs, outputs, n_outputs));
    const cuda_batch *cb = atomic_load_explicit(&b->device[DMLS_BACKEND_CUDA], memory_order_acquire);
    RETURN_IF(cb == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "batch_execute_cuda: the batch is not prepared for CUDA (dmls_batch_prepare_cuda)");
    char *bases[DMLS_BATCH_CUDA_MAX_SLOTS];
    for (uint32_t s = 0; s < b->in_slots; s++) bases[s] = (char *)(uintptr_t)inputs[s].data;
    for (uint32_t s = 0; s < b->out_slots; s++) bases[b->in_slots + s] = (char *)outputs[s].data;
    const void *starts = b->crops.on ? inputs[1].data : NULL;
    for (int phase = b->has_grad ? 0 : 1; phase < 2; phase++) {
        int e = dmls_cuda_batch_enqueue(&cb->host, &cb->dev, phase, bases, starts, stream);
        RETURN_IF(e != cudaSuccess, DMLS_ERROR_DEVICE, NULL, "batch_execute_cuda: CUDA %s launch failed: %s",
                  phase == 0 ? "zero fill" : "copy", cudaGetErrorString((cudaError_t)e));
    }
    return DMLS_OK;
}
