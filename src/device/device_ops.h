/* The device interface (dmlslice/device.h), for backend authors: the
 * entries a backend fills so that everything above the library runs on
 * its devices. The core (src/device/device.c) parses names, checks every
 * range against its buffer and clears the error before calling an entry;
 * an entry sees only valid arguments and sets a message on failure.
 *
 * A backend's table lives in its folder (device.c there) and is reached
 * through its line of the backend table (backend.h's `device` field). */
#ifndef DMLS_DEVICE_OPS_H
#define DMLS_DEVICE_OPS_H

#include "dmlslice/device.h"

/* Where a backend's memory has addresses, a buffer's first byte is a
 * multiple of this, as D3D12 places buffers: a DirectML operator's base
 * alignment (R-X-ALIGN) then holds on the device exactly when the
 * binding's offset meets it, as on Vulkan, whose checks see offsets. */
#define DMLS_DEVICE_ALIGN 65536u

/* What every backend's buffer starts with (a backend that needs more, as
 * Vulkan's VkBuffer, puts it first in its own struct): the core checks
 * ranges against bytes. */
struct dmls_device_buffer {
    uint64_t bytes;
    void *address; /* where the backend's memory has addresses (CPU, CUDA): the first byte; else NULL */
    int wrapped;   /* made by dmls_device_wrap over the caller's memory: the core frees the record only */
};

typedef struct dmls_device_ops dmls_device_ops;

/* An open device: its entries, its number within its backend, and what
 * the backend keeps for it (a stream, a Vulkan context). */
struct dmls_device {
    const dmls_device_ops *ops;
    int index;
    void *state;
    void *stream;      /* the caller's queue (dmls_device_use_stream) where caller_stream */
    int caller_stream;
    dmls_operator *copy_op; /* the last whole copy made (dmls_device_copy_op), of copy_bytes */
    uint64_t copy_bytes;
};

struct dmls_device_ops {
    /* How many devices the backend sees (0 with no driver or GPU: not an
     * error); never fails. */
    int (*count)(void);
    /* Fills info->description, memory_bytes and driver of device index
     * (the core fills name and kind). */
    dmls_status (*info)(int index, dmls_device_info *info);
    /* Sets dev->state for dev->index; close undoes it (after waiting). */
    dmls_status (*open)(dmls_device *dev);
    void (*close)(dmls_device *dev);
    /* A buffer of at least bytes rounded up to 16 (bytes itself recorded
     * in the header); free takes what alloc made. */
    dmls_status (*alloc)(dmls_device *dev, uint64_t bytes, dmls_device_buffer **buf);
    void (*free)(dmls_device *dev, dmls_device_buffer *buf);
    dmls_status (*upload)(dmls_device *dev, dmls_device_buffer *dst, uint64_t offset, const void *src,
                          uint64_t bytes);
    dmls_status (*download)(dmls_device *dev, const dmls_device_buffer *src, uint64_t offset, void *dst,
                            uint64_t bytes);
    dmls_status (*execute)(dmls_device *dev, const dmls_operator *op, const dmls_device_binding *in,
                           const dmls_device_binding *out);
    /* NULL where a backend needs no preparing (the CPU). */
    dmls_status (*batch_prepare)(dmls_device *dev, dmls_batch *batch);
    dmls_status (*batch_execute)(dmls_device *dev, const dmls_batch *batch, const dmls_device_binding *inputs,
                                 uint32_t n_inputs, const dmls_device_binding *outputs, uint32_t n_outputs);
    dmls_status (*synchronize)(dmls_device *dev);
    /* Whether the caller's memory at [address, address + bytes) is the
     * device's to read and write (a message saying why not); NULL where
     * the backend's memory has no addresses. The core makes the record. */
    dmls_status (*check_wrap)(dmls_device *dev, const void *address, uint64_t bytes);
    /* Whether the backend has streams (the core sets dev->stream). */
    int has_streams;
    /* NULL where copies run off the host; else sets and says the number
     * of host threads (dmls_device_set_threads). */
    dmls_status (*set_threads)(dmls_device *dev, int num_threads);
    int (*threads)(const dmls_device *dev);
    /* A copy of src's bytes into dst's (same sizes, not overlapping, more
     * than 0); NULL: the core executes the library's whole copy
     * (dmls_device_copy_op). */
    dmls_status (*copy)(dmls_device *dev, const dmls_device_binding *dst, const dmls_device_binding *src);
    /* Runs and times work (checked) as dmls_device_time says; NULL: the
     * core times each run on the host's clock, synchronizing after it. */
    dmls_status (*time)(dmls_device *dev, const dmls_device_work *work, uint32_t warm, uint32_t samples,
                        uint32_t per_sample, double *seconds);
};

/* The library's whole copy of `bytes` (> 0): a 1-D identity slice of that
 * many uint8, made once per size and device and kept until the next size
 * or dmls_device_close. */
dmls_status dmls_device_copy_op(dmls_device *dev, uint64_t bytes, const dmls_operator **op);

/* Runs checked work once through the backend's entries (no timing). */
dmls_status dmls_device_run_work(dmls_device *dev, const dmls_device_work *work);

/* For backends whose buffers have addresses: the bindings turned into
 * dmls_batch_input/output slots (a binding without a buffer: NULL), then
 * run(dev, batch, ...) called with them. */
typedef dmls_status (*dmls_device_batch_fn)(dmls_device *dev, const dmls_batch *batch, const dmls_batch_input *in,
                                            uint32_t n_in, const dmls_batch_output *out, uint32_t n_out);
dmls_status dmls_device_batch_by_address(dmls_device *dev, const dmls_batch *batch, const dmls_device_binding *inputs,
                                         uint32_t n_inputs, const dmls_device_binding *outputs, uint32_t n_outputs,
                                         dmls_device_batch_fn run);

/* A binding's first byte by address; NULL for one without a buffer. */
static inline void *dmls_device_binding_address(const dmls_device_binding *b) {
    return b->buffer != NULL && b->buffer->address != NULL ? (unsigned char *)b->buffer->address + b->offset : NULL;
}

/* Each backend's table, defined in its folder (device.c there). */
extern const dmls_device_ops dmls_cpu_device;
extern const dmls_device_ops dmls_cuda_device;   /* only where DMLS_HAVE_CUDA */
extern const dmls_device_ops dmls_vulkan_device; /* only where DMLS_HAVE_VULKAN */

#endif
