/*
 * run.c: a copy run where its arrays live: on the calling thread or the
 * shared CPU pool, or on the array's GPU on the given stream. A lowered slice
 * compiled for packed arrays runs its operator straight away when the
 * arrays are those packed arrays (an input with the packed strides, a
 * C-contiguous result: one this call made, or out=); any other pair is
 * bound by layout.c.
 */
#include "ext.h"

#include <dmlslice/dmlslice.h>
#ifdef DMLS_HAVE_CUDA
#include <cuda_runtime_api.h>
#include <dmlslice/dmlslice_cuda.h>
#endif

#include "dlpack.h"

/* Copies below this many output bytes keep the GIL: releasing and taking it
 * back costs more than the copy. */
#define GIL_FREE_BYTES 65536
/* Copies of at most this many output bytes run on the calling thread
 * without the pool: their traffic (at most a 64-byte line read per byte
 * written) is below what the library would share out among threads. */
#define CALLER_ONLY_BYTES 4096

const char *run_library_version(void) { return dmls_version(); }

int run_cuda_built(void) {
#ifdef DMLS_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

int run_cuda_check(int device) {
#ifdef DMLS_HAVE_CUDA
    int count = 0;
    dmls_status st = dmls_cuda_device_count(&count);
    if (st != DMLS_OK) {
        ext_raise_status(st);
        return -1;
    }
    if (device < 0 || device >= count) {
        ext_raise(ERR_DEVICE, "DMLS_ERROR_NO_DEVICE", "R-PY-DEVICE",
                  "the array is on CUDA device %d; the runtime sees %d device(s)", device, count);
        return -1;
    }
    return 0;
#else
    ext_raise(ERR_DEVICE, "DMLS_ERROR_NO_DEVICE", "R-PY-DEVICE",
              "the array is on CUDA device %d, but this dmlslice was built without the CUDA "
              "backend (no nvcc at build time); only CPU arrays can be sliced",
              device);
    return -1;
#endif
}

int run_cuda_available(void) {
#ifdef DMLS_HAVE_CUDA
    return dmls_cuda_available();
#else
    return 0;
#endif
}

static int run_cpu(const bound_copy *b) {
    dmls_status st;
    if (b->out_bytes <= CALLER_ONLY_BYTES) {
        st = dmls_execute(b->op, b->in_base, b->in_bytes, b->out_base, b->out_bytes);
    } else {
        pool_ref *r = pool_enter();
        if (!r) return -1;
        dmls_context *ctx = pool_context(r);
        if (b->out_bytes >= GIL_FREE_BYTES) {
            Py_BEGIN_ALLOW_THREADS st = dmls_execute_on(b->op, ctx, b->in_base, b->in_bytes, b->out_base, b->out_bytes);
            Py_END_ALLOW_THREADS
        } else {
            st = dmls_execute_on(b->op, ctx, b->in_base, b->in_bytes, b->out_base, b->out_bytes);
        }
        pool_leave(r);
    }
    if (st != DMLS_OK) {
        ext_raise_status(st);
        return -1;
    }
    return 0;
}

static int run_cuda(const bound_copy *b, int device, uintptr_t stream, int sync) {
#ifdef DMLS_HAVE_CUDA
    dmls_status st = DMLS_OK;
    cudaError_t err = cudaSuccess;
    const char *what = "";
    Py_BEGIN_ALLOW_THREADS int prev = -1;
    err = cudaGetDevice(&prev);
    if (err == cudaSuccess && prev != device) err = cudaSetDevice(device);
    if (err != cudaSuccess) what = "selecting the array's device";
    if (err == cudaSuccess) {
        st = dmls_execute_cuda(b->op, b->in_base, b->in_bytes, b->out_base, b->out_bytes, (void *)stream);
        if (st == DMLS_OK && sync) {
            err = cudaStreamSynchronize((cudaStream_t)stream);
            if (err != cudaSuccess) what = "waiting for the copy";
        }
        if (prev >= 0 && prev != device) cudaSetDevice(prev);
    }
    Py_END_ALLOW_THREADS if (st != DMLS_OK) {
        ext_raise_status(st);
        return -1;
    }
    if (err != cudaSuccess) {
        ext_raise(ERR_DEVICE, "DMLS_ERROR_DEVICE", "R-PY-DEVICE", "CUDA device %d: %s failed: %s", device, what,
                  cudaGetErrorString(err));
        return -1;
    }
    return 0;
#else
    (void)b, (void)stream, (void)sync;
    ext_raise(ERR_DEVICE, "DMLS_ERROR_NO_DEVICE", "R-PY-DEVICE",
              "the array is on CUDA device %d, but this dmlslice was built without the CUDA "
              "backend (no nvcc at build time); only CPU arrays can be sliced",
              device);
    return -1;
#endif
}

int run_copy(const lowered *p, const compiled *c, const array_view *in, const array_view *out, uintptr_t stream,
             int sync) {
    bound_copy b;
    if (c && layout_is_packed_input(c, in) && (out->source == SRC_FRESH_NUMPY || layout_is_packed_output(c, out)))
        b = (bound_copy){c->packed_op, 0, in->data, out->data, c->in_bytes, c->out_bytes};
    else if (layout_bind(p, c, in, out, &b) < 0)
        return -1;
    int rc = 0;
    if (b.out_bytes)
        rc = in->device_type == DL_CUDA || in->device_type == DL_CUDA_MANAGED
                 ? run_cuda(&b, in->device_id, stream, sync)
                 : run_cpu(&b);
    layout_unbind(&b);
    return rc;
}
