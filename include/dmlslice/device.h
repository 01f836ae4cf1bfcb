/*
 * device.h: one interface to every device the library runs on.
 *
 * A device is opened by name -- "cpu", "cuda", "cuda:N", "vulkan",
 * "vulkan:N" (as the tool's --device spells them; "cuda" is "cuda:0") --
 * and everything above the library (the tool, its benchmark, `dispatch`,
 * the Python package) runs through the same few calls whatever the device:
 * allocate a buffer, upload, run an operator or a batch, synchronize,
 * download. The per-backend headers (dmlslice_cuda.h, dmlslice_vulkan.h,
 * batch_cuda.h, batch_vulkan.h) stay for callers that bring their own
 * streams, queues and memory; this header needs none of their types, and
 * its functions exist in every build (a backend that is not built in has
 * no devices: opening one is DMLS_ERROR_NO_DEVICE, saying so).
 *
 * Order: the calls on one device take effect in the order they are made.
 * Upload returns once src may be reused; execute and batch execute may
 * return before the work is done (CUDA enqueues on the device's own
 * stream); download and synchronize return once every earlier call's work
 * is done. A device is used by one thread at a time.
 */
#ifndef DMLSLICE_DEVICE_H
#define DMLSLICE_DEVICE_H

#include "batch.h"
#include "dmlslice.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct dmls_device dmls_device;
typedef struct dmls_device_buffer dmls_device_buffer;

/* What a device is. Strings are NUL-terminated (truncated to fit). */
typedef struct dmls_device_info {
    char name[32];          /* the name dmls_device_open takes: "cpu", "cuda:0", "vulkan:1" */
    char kind[16];          /* its backend: "cpu", "cuda", "vulkan" */
    char description[256];  /* "NVIDIA H100 80GB HBM3, compute capability 9.0" */
    uint64_t memory_bytes;  /* the device's memory; 0 where the backend cannot tell */
    char driver[64];        /* "CUDA driver 12.4", "Vulkan 1.3.238"; "" where none */
} dmls_device_info;

/* A buffer's bound range, as dmls_batch_input binds host memory. */
typedef struct dmls_device_binding {
    dmls_device_buffer *buffer; /* NULL only where bytes is 0 */
    uint64_t offset;            /* the range's first byte in buffer */
    uint64_t bytes;             /* bytes usable from there */
} dmls_device_binding;

/*
 * dmls_device_count: how many devices this machine has, over every backend
 * built in (the CPU is always device 0). Backends without a device (no
 * GPU, no driver) add none. Thread-safe.
 */
DMLS_API size_t dmls_device_count(void);

/*
 * dmls_device_info_at: what device `index` (0 .. dmls_device_count() - 1)
 * is, without opening it. DMLS_ERROR_INVALID_ARGUMENT for an index past
 * the end or a NULL info.
 */
DMLS_API dmls_status dmls_device_info_at(size_t index, dmls_device_info *info);

/*
 * dmls_device_open: the device `name` names. Returns DMLS_OK;
 * DMLS_ERROR_INVALID_ARGUMENT for a name of no backend or a malformed
 * number (the message quotes it); DMLS_ERROR_NO_DEVICE when the backend is
 * not built in or has no such device (the message says which and why);
 * DMLS_ERROR_DEVICE or DMLS_ERROR_OUT_OF_MEMORY. *dev is NULL on failure.
 */
DMLS_API dmls_status dmls_device_open(const char *name, dmls_device **dev);

/* Waits for the device's work and frees it; its buffers must be freed
 * first. NULL is a no-op. */
DMLS_API void dmls_device_close(dmls_device *dev);

/* What an open device is (as dmls_device_info_at). */
DMLS_API dmls_status dmls_device_describe(const dmls_device *dev, dmls_device_info *info);

/*
 * dmls_device_alloc: a buffer of `bytes` (0 allowed) in the device's
 * memory, its contents undefined. The buffer extends past `bytes` to the
 * next multiple of 16 bytes, as the Vulkan shaders need. Its start is
 * aligned as D3D12 places buffers (64 KiB), so that DirectML's base
 * alignment (R-X-ALIGN) holds exactly where the binding's offset meets it. Returns DMLS_OK,
 * DMLS_ERROR_OUT_OF_MEMORY or DMLS_ERROR_DEVICE; *buf is NULL on failure.
 */
DMLS_API dmls_status dmls_device_alloc(dmls_device *dev, uint64_t bytes, dmls_device_buffer **buf);

/* Frees a buffer of dev after its pending work. NULL is a no-op. */
DMLS_API void dmls_device_free(dmls_device *dev, dmls_device_buffer *buf);

/* The size a buffer was allocated (or wrapped) with. */
DMLS_API uint64_t dmls_device_buffer_bytes(const dmls_device_buffer *buf);

/* A buffer's first byte where the device's memory has addresses (the CPU:
 * a host pointer; CUDA: a device pointer); NULL where it has none (Vulkan)
 * and for an empty buffer. */
DMLS_API void *dmls_device_buffer_address(const dmls_device_buffer *buf);

/*
 * dmls_device_wrap: a buffer handle over `bytes` of memory the caller owns
 * at `address` (the CPU: host memory, as NumPy's; CUDA: device memory of
 * this device, as CuPy's, PyTorch's or a DLPack tensor's), for bindings
 * and executes like an allocated buffer's. Nothing is copied; the memory
 * must outlive the handle, and dmls_device_free releases the handle only,
 * never the memory. Unlike dmls_device_alloc's, the start is where the
 * caller's memory is (no 64 KiB placement) and nothing past `bytes` is
 * usable. Returns DMLS_OK; DMLS_ERROR_INVALID_ARGUMENT for a NULL address
 * with bytes > 0, or memory the device cannot reach (a host pointer for
 * CUDA, another GPU's memory: the message says which); DMLS_ERROR_UNSUPPORTED
 * where the device's memory has no addresses (Vulkan); DMLS_ERROR_OUT_OF_MEMORY.
 * *buf is NULL on failure.
 */
DMLS_API dmls_status dmls_device_wrap(dmls_device *dev, void *address, uint64_t bytes, dmls_device_buffer **buf);

/*
 * dmls_device_use_stream: enqueue dev's later work on the caller's own
 * queue, so that it is ordered with the caller's other work there.
 * `stream` points to the caller's native handle, read at once (CUDA: a
 * cudaStream_t, as CuPy's and PyTorch's current stream; 0 is CUDA's
 * default stream); NULL goes back to the device's own queue. Download and
 * synchronize then wait on that stream. DMLS_ERROR_INVALID_ARGUMENT for a
 * non-NULL stream on a device without streams (the CPU, Vulkan).
 */
DMLS_API dmls_status dmls_device_use_stream(dmls_device *dev, const void *stream);

/*
 * dmls_device_set_threads: the host threads dev's calls may share a copy
 * among, as dmls_context_create's num_threads (1..1024; 0: DMLSLICE_THREADS
 * or one per online CPU). Devices whose copies run elsewhere (CUDA,
 * Vulkan) ignore it. Not while another thread is using dev.
 * dmls_device_threads says how many there are (1 for those devices).
 */
DMLS_API dmls_status dmls_device_set_threads(dmls_device *dev, int num_threads);
DMLS_API int dmls_device_threads(const dmls_device *dev);

/*
 * dmls_device_upload / dmls_device_download: copy `bytes` between host
 * memory and the buffer's bytes [offset, offset + bytes).
 * DMLS_ERROR_INVALID_ARGUMENT (nothing copied) when that range leaves the
 * buffer or a pointer is NULL with bytes > 0; DMLS_ERROR_DEVICE when the
 * backend fails (its own message included). Download waits for the
 * device's earlier work.
 */
DMLS_API dmls_status dmls_device_upload(dmls_device *dev, dmls_device_buffer *dst, uint64_t offset, const void *src,
                                        uint64_t bytes);
DMLS_API dmls_status dmls_device_download(dmls_device *dev, const dmls_device_buffer *src, uint64_t offset,
                                          void *dst, uint64_t bytes);

/*
 * dmls_device_execute: run op with its input bound at `in` and its output
 * at `out`. A binding whose range leaves its buffer is
 * DMLS_ERROR_INVALID_ARGUMENT; then the backend's own checks apply, as
 * dmls_execute's (R-X-BOUNDS, R-X-ALIGN, R-X-OVERLAP when both bindings
 * share a buffer). Only the output tensor's elements are written.
 */
DMLS_API dmls_status dmls_device_execute(dmls_device *dev, const dmls_operator *op, dmls_device_binding in,
                                         dmls_device_binding out);

/*
 * dmls_device_batch_prepare: whatever the backend does once per batch
 * and device before running it (CUDA: the item table uploaded; Vulkan: the
 * items grouped into a few dispatches; the CPU: nothing). Optional:
 * dmls_device_batch_execute prepares an unprepared batch itself.
 */
DMLS_API dmls_status dmls_device_batch_prepare(dmls_device *dev, dmls_batch *batch);

/*
 * dmls_device_batch_execute: run every item of batch, one binding per
 * slot, with dmls_batch_execute's checks (R-B-… rules). The batch must
 * have been prepared for this device where the backend needs it (CUDA):
 * DMLS_ERROR_INVALID_ARGUMENT otherwise.
 */
DMLS_API dmls_status dmls_device_batch_execute(dmls_device *dev, const dmls_batch *batch,
                                               const dmls_device_binding *inputs, uint32_t n_inputs,
                                               const dmls_device_binding *outputs, uint32_t n_outputs);

/* Waits until the device's earlier work is done. DMLS_ERROR_DEVICE when
 * it failed. */
DMLS_API dmls_status dmls_device_synchronize(dmls_device *dev);

/*
 * dmls_device_copy: copy src's bound bytes into dst's, as the device moves
 * plain bytes fastest: the CPU and Vulkan by the library's own whole copy
 * (a 1-D identity slice of the bytes, on the device's threads or the
 * copy shader), CUDA by cudaMemcpyAsync on the device's stream. It is the
 * yardstick `dmlslice bench` sets each case beside. Ordered as an execute.
 * DMLS_ERROR_INVALID_ARGUMENT when a range leaves its buffer, the two sizes
 * differ, or the ranges overlap in one buffer (nothing copied).
 */
DMLS_API dmls_status dmls_device_copy(dmls_device *dev, dmls_device_binding dst, dmls_device_binding src);

/* What dmls_device_time runs: an execute of op over in[0] and out[0]; else
 * a batch execute of batch over in[0 .. n_in) and out[0 .. n_out) (prepared
 * where the backend needs it); else, both NULL, a dmls_device_copy of in[0]
 * into out[0]. */
typedef struct dmls_device_work {
    const dmls_operator *op;
    const dmls_batch *batch;
    const dmls_device_binding *in, *out;
    uint32_t n_in, n_out;
} dmls_device_work;

/*
 * dmls_device_time: run `work` warm times untimed and then `samples` x
 * `per_sample` times timed, all back to back, and write to seconds[i] the
 * mean seconds of a run in sample i (per_sample runs timed as one span, so
 * that the clock's own marks cost little beside runs of a few
 * microseconds). A GPU times on its own clock with the runs queued ahead
 * of it, so that it does not wait on the host between runs and its clock
 * stays up (CUDA: events on the device's stream between samples; Vulkan:
 * one command buffer, a barrier on the device after each run and a
 * timestamp after each sample); the CPU reads the host's monotonic clock
 * around each sample.
 * Returns when the runs are done. The work's arguments are checked once,
 * as its own call checks them; per_sample must be at least 1 and all the
 * runs at most 2^32 - 1.
 */
DMLS_API dmls_status dmls_device_time(dmls_device *dev, const dmls_device_work *work, uint32_t warm, uint32_t samples,
                                      uint32_t per_sample, double *seconds);

#ifdef __cplusplus
}
#endif

#endif /* DMLSLICE_DEVICE_H */
