/* The backend interface, for backend authors: what the core asks of a
 * backend, and nothing of how one works inside.
 *
 * A backend lives in its own folder (src/cpu/, src/cuda/, src/vulkan/). At create, the
 * core hands it the planned operator once, and the backend derives its own
 * form of op->copy and op->fill (the CPU: the kernel choice; CUDA: the
 * launch data) into memory it owns; the core keeps that pointer in
 * op->prepared[id] without looking into it, and gives it back to destroy.
 * Executing is the backend's own public call (dmls_execute_on in src/cpu/,
 * dmls_execute_cuda in src/cuda/): each takes different bindings (host
 * pointers and a context, device pointers and a stream), so it is not an
 * entry of the table; it checks the bindings (bindings.h) and reads its
 * data through dmls_operator_prepared (operator.h).
 *
 * Adding a backend: one enumerator below, its entry declared below and
 * defined in its folder (with its device table, device.c there), one line
 * in backends.c. */
#ifndef DMLS_BACKEND_H
#define DMLS_BACKEND_H

#include "dmlslice/dmlslice.h"

struct dmls_batch;
struct dmls_device_ops;

typedef enum dmls_backend_id { DMLS_BACKEND_CPU, DMLS_BACKEND_CUDA, DMLS_BACKEND_VULKAN, DMLS_BACKEND_COUNT } dmls_backend_id;

typedef struct dmls_backend {
    const char *name; /* "cpu", "cuda", "vulkan": for messages and tests */
    /* Derives the backend's data from a planned operator (op->copy,
     * op->fill, op->zero_fill, op->problem; not other backends' data) into
     * *prepared. Returns DMLS_OK, or an error with its message set
     * (DMLS_ERROR_OUT_OF_MEMORY), leaving nothing allocated. */
    dmls_status (*prepare)(const dmls_operator *op, void **prepared);
    /* Frees what prepare made; never given NULL. */
    void (*destroy)(void *prepared);
    /* At batch create, once the core has packed the batch (batch.h):
     * derives the backend's fields of it (the CPU: its work prefix), or
     * NULL where a backend derives nothing then (CUDA uploads its tables at
     * dmls_batch_prepare_cuda, which needs a device). Returns DMLS_OK or an
     * error with its message set. */
    dmls_status (*prepare_batch)(struct dmls_batch *batch);
    /* At batch destroy: frees what the backend's own batch prepare call
     * (dmls_batch_prepare_cuda, dmls_batch_prepare_vulkan) kept in
     * batch->device[its id], or NULL where a backend keeps nothing there.
     * Called whether or not the batch was prepared. */
    void (*release_batch)(struct dmls_batch *batch);
    /* The backend's devices as everything above the library sees them
     * (dmlslice/device.h; the entries in src/device/device_ops.h). */
    const struct dmls_device_ops *device;
} dmls_backend;

/* Every backend, indexed by dmls_backend_id; NULL where one is not built
 * in (backends.c). */
extern const dmls_backend *const dmls_backends[DMLS_BACKEND_COUNT];

/* Every backend's name, built in or not, indexed by dmls_backend_id
 * (backends.c): a device name of a backend this build lacks is "not built",
 * any other an unknown name. */
extern const char *const dmls_backend_names[DMLS_BACKEND_COUNT];

/* The entries, each defined in its backend's folder (backend.c there). */
extern const dmls_backend dmls_cpu_backend;
extern const dmls_backend dmls_cuda_backend;   /* only where DMLS_HAVE_CUDA */
extern const dmls_backend dmls_vulkan_backend; /* only where DMLS_HAVE_VULKAN */

#endif
