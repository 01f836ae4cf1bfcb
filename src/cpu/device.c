/* The CPU as a device (dmlslice/device.h): buffers are host memory, copies
 * are memcpy, and work runs at once on a context of the machine's threads
 * (DMLSLICE_THREADS, else one per online CPU), so every call is complete
 * on return and synchronize has nothing to wait for. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../device/device_ops.h"
#include "../error.h"
#include "../platform/platform.h"

static int cpu_count(void) { return 1; }

static dmls_status cpu_info(int index, dmls_device_info *info) {
    (void)index;
    snprintf(info->description, sizeof info->description, "this machine's processor");
    return DMLS_OK;
}

static dmls_status cpu_open(dmls_device *dev) {
    dmls_context *ctx = NULL;
    RETURN_IF_ERROR(dmls_context_create(0, &ctx));
    dev->state = ctx;
    return DMLS_OK;
}

static void cpu_close(dmls_device *dev) { dmls_context_destroy(dev->state); }

static dmls_status cpu_alloc(dmls_device *dev, uint64_t bytes, dmls_device_buffer **buf) {
    (void)dev;
    const uint64_t padded = (bytes + 15) / 16 * 16;
    RETURN_IF(padded > SIZE_MAX / 2 || padded != (size_t)padded, DMLS_ERROR_OUT_OF_MEMORY, NULL,
              "cpu: a buffer of %llu bytes exceeds the address space", (unsigned long long)bytes);
    dmls_device_buffer *b = calloc(1, sizeof *b);
    void *data = b != NULL ? dmls_aligned_alloc(DMLS_DEVICE_ALIGN, padded ? (size_t)padded : 16) : NULL;
    if (data == NULL) {
        free(b);
        return dmls_fail(DMLS_ERROR_OUT_OF_MEMORY, NULL, "cpu: no memory for a buffer of %llu bytes",
                         (unsigned long long)bytes);
    }
    b->bytes = bytes;
    b->address = data;
    *buf = b;
    return DMLS_OK;
}

static void cpu_free(dmls_device *dev, dmls_device_buffer *buf) {
    (void)dev;
    dmls_aligned_free(buf->address);
    free(buf);
}

static dmls_status cpu_upload(dmls_device *dev, dmls_device_buffer *dst, uint64_t offset, const void *src,
                              uint64_t bytes) {
    (void)dev;
    memcpy((unsigned char *)dst->address + offset, src, (size_t)bytes);
    return DMLS_OK;
}

static dmls_status cpu_download(dmls_device *dev, const dmls_device_buffer *src, uint64_t offset, void *dst,
                                uint64_t bytes) {
    (void)dev;
    memcpy(dst, (const unsigned char *)src->address + offset, (size_t)bytes);
    return DMLS_OK;
}

static dmls_status cpu_execute(dmls_device *dev, const dmls_operator *op, const dmls_device_binding *in,
                               const dmls_device_binding *out) {
    return dmls_execute_on(op, dev->state, dmls_device_binding_address(in), in->bytes,
                           dmls_device_binding_address(out), out->bytes);
}

static dmls_status cpu_run_batch(dmls_device *dev, const dmls_batch *batch, const dmls_batch_input *in, uint32_t n_in,
                                 const dmls_batch_output *out, uint32_t n_out) {
    return dmls_batch_execute(batch, dev->state, in, n_in, out, n_out);
}

static dmls_status cpu_batch_execute(dmls_device *dev, const dmls_batch *batch, const dmls_device_binding *inputs,
                                     uint32_t n_inputs, const dmls_device_binding *outputs, uint32_t n_outputs) {
    return dmls_device_batch_by_address(dev, batch, inputs, n_inputs, outputs, n_outputs, cpu_run_batch);
}

static dmls_status cpu_synchronize(dmls_device *dev) {
    (void)dev;
    return DMLS_OK;
}

/* Any host memory is the CPU's. */
static dmls_status cpu_check_wrap(dmls_device *dev, const void *address, uint64_t bytes) {
    (void)dev, (void)address, (void)bytes;
    return DMLS_OK;
}

/* A new context of that many threads replaces the old one (whose workers
 * are joined): the caller has no copy running on it. */
static dmls_status cpu_set_threads(dmls_device *dev, int num_threads) {
    dmls_context *ctx = NULL;
    RETURN_IF_ERROR(dmls_context_create(num_threads, &ctx));
    dmls_context_destroy(dev->state);
    dev->state = ctx;
    return DMLS_OK;
}

static int cpu_threads(const dmls_device *dev) { return dmls_context_threads(dev->state); }

/* No batch_prepare (nothing to prepare), no streams; copy and time are
 * the core's (the library's whole copy on this context, the host clock). */
const dmls_device_ops dmls_cpu_device = {
    cpu_count,    cpu_info,          cpu_open,        cpu_close,      cpu_alloc, cpu_free,
    cpu_upload,   cpu_download,      cpu_execute,     NULL,           cpu_batch_execute,
    cpu_synchronize, cpu_check_wrap, 0 /* no streams */, cpu_set_threads, cpu_threads,
    NULL, NULL};
