/* The CUDA backend's public calls: device queries and its execute,
 * dmls_execute_cuda. Host code in C over the runtime API; the kernels are
 * in kernels.cu. */
#include <cuda_runtime_api.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "../bindings.h"
#include "../error.h"
#include "dmlslice/dmlslice_cuda.h"
#include "batch_rules.h" /* dmls_cuda_batch_choose */
#include "launch.h"

/* Device presence is asked once: cudaGetDeviceCount costs microseconds and
 * would double a small slice's host time. 0 = not asked yet, 1 = present,
 * -1 = absent (the reason kept for later messages). A race only asks twice. */
static atomic_int device_state;
static atomic_int device_total;
static char device_reason[256];

/* Why the runtime has no device, in words: the runtime calls a missing
 * driver "insufficient", as it calls one too old, so the two are told
 * apart by the driver's version (0 when no driver is installed). */
static void explain_no_device(cudaError_t e) {
    int driver = 0, runtime = 0;
    if (e == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0) {
        snprintf(device_reason, sizeof device_reason, "no NVIDIA driver is installed (libcuda was not found)");
    } else if (e == cudaErrorInsufficientDriver && cudaRuntimeGetVersion(&runtime) == cudaSuccess) {
        snprintf(device_reason, sizeof device_reason,
                 "the NVIDIA driver supports CUDA %d.%d, older than the CUDA %d.%d this build needs", driver / 1000,
                 driver % 1000 / 10, runtime / 1000, runtime % 1000 / 10);
    } else {
        snprintf(device_reason, sizeof device_reason, "%s",
                 e != cudaSuccess ? cudaGetErrorString(e) : "the CUDA runtime sees no GPU");
    }
}

static void ask_devices(void) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n <= 0) {
        explain_no_device(e);
        (void)cudaGetLastError(); /* clear it, so it does not surface in a later call */
        atomic_store_explicit(&device_total, 0, memory_order_relaxed);
        atomic_store_explicit(&device_state, -1, memory_order_release);
        return;
    }
    atomic_store_explicit(&device_total, n, memory_order_relaxed);
    atomic_store_explicit(&device_state, 1, memory_order_release);
}

static dmls_status need_device(const char *who) {
    int state = atomic_load_explicit(&device_state, memory_order_acquire);
    if (state == 0) {
        ask_devices();
        state = atomic_load_explicit(&device_state, memory_order_acquire);
    }
    RETURN_IF(state < 0, DMLS_ERROR_NO_DEVICE, NULL, "%s: no CUDA device: %s", who, device_reason);
    return DMLS_OK;
}

dmls_status dmls_cuda_device_count(int *count) {
    dmls_clear_error();
    RETURN_IF(count == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "cuda_device_count: count is NULL");
    *count = 0;
    RETURN_IF_ERROR(need_device("cuda_device_count"));
    *count = atomic_load_explicit(&device_total, memory_order_relaxed);
    return DMLS_OK;
}

int dmls_cuda_available(void) {
    int n;
    return dmls_cuda_device_count(&n) == DMLS_OK;
}

dmls_status dmls_cuda_device_name(int device, char *name, size_t name_size, int *major, int *minor) {
    int n;
    RETURN_IF_ERROR(dmls_cuda_device_count(&n));
    RETURN_IF(device < 0 || device >= n, DMLS_ERROR_NO_DEVICE, NULL,
              "cuda_device_name: device %d does not exist (%d devices)", device, n);
    struct cudaDeviceProp prop;
    cudaError_t e = cudaGetDeviceProperties(&prop, device);
    RETURN_IF(e != cudaSuccess, DMLS_ERROR_DEVICE, NULL, "cuda_device_name: cudaGetDeviceProperties(%d): %s",
              device, cudaGetErrorString(e));
    if (name != NULL && name_size > 0) snprintf(name, name_size, "%s", prop.name);
    if (major != NULL) *major = prop.major;
    if (minor != NULL) *minor = prop.minor;
    return DMLS_OK;
}

/* The first launch whose alignment needs the bound bases meet; the last
 * choice (byte-wise) needs none, so there is always one. */
/* The rule has one home, batch_rules.h, where the batch kernel's device
 * code uses it too. */
int dmls_cuda_choose(const dmls_cuda_launch *choices, const void *src, const void *dst) {
    return dmls_cuda_batch_choose(choices, (uint64_t)(uintptr_t)src, (uint64_t)(uintptr_t)dst);
}

static dmls_status enqueue(const dmls_operator *op, const dmls_cuda_launch *choices, const dmls_cuda_compact *compact,
                           const void *src, void *dst, void *stream, const char *what) {
    const int i = dmls_cuda_choose(choices, src, dst);
    int e = dmls_cuda_enqueue(&choices[i], choices[i].compact ? &compact[i] : NULL, src, dst, stream);
    RETURN_IF(e != cudaSuccess, DMLS_ERROR_DEVICE, NULL, "%s: CUDA %s launch failed: %s", op->problem.name, what,
              cudaGetErrorString((cudaError_t)e));
    return DMLS_OK;
}

dmls_status dmls_execute_cuda(const dmls_operator *op, const void *d_in, uint64_t in_bytes, void *d_out,
                              uint64_t out_bytes, void *stream) {
    RETURN_IF_ERROR(dmls_check_bindings("execute_cuda", op, d_in, in_bytes, d_out, out_bytes));
    RETURN_IF_ERROR(need_device(op->problem.name));
    const dmls_cuda_state *cs = dmls_cuda_state_of(op);
    if (op->zero_fill) RETURN_IF_ERROR(enqueue(op, cs->fill, cs->fill_compact, d_out, d_out, stream, "zero fill"));
    return enqueue(op, cs->copy, cs->copy_compact, d_in, d_out, stream, "copy");
}
