/*
 * devices.h: the devices the extension's copies run on, every one through
 * the library's device interface (<dmlslice/device.h>): the caller's
 * arrays wrapped where they lie (no copy), work ordered on the array
 * library's stream. Errors become the package's exceptions (errors.c).
 */
#ifndef DMLSLICE_PY_DEVICES_H
#define DMLSLICE_PY_DEVICES_H

#include <stdint.h>

#include <dmlslice/device.h>

/* Where a copy runs: the array's DLPack device (kDLCPU and kDLCUDAHost run
 * on the CPU), and for a GPU the stream its library orders work on (sync:
 * wait for it before returning, for producers whose streams are not
 * visible). */
typedef struct run_where {
    int dl_type, dl_id;
    int sync;
    uintptr_t stream;
} run_where;

/* Whether w is a GPU's (its work is enqueued, not done on return). */
int devices_is_gpu(int dl_type);
/* 0 when arrays of DLPack device (dl_type, dl_id) can be sliced, else -1
 * with the library's error (no such backend in this build, no device). */
int devices_check(int dl_type, int dl_id);
/* Runs op from [in, in + in_bytes) into [out, out + out_bytes). 0, or -1
 * with an exception. */
int devices_execute(const run_where *w, const dmls_operator *op, void *in, uint64_t in_bytes, void *out,
                    uint64_t out_bytes);
/* Runs a batch over host or device slots; the CPU lets the GIL go where
 * the outputs hold out_bytes >= 64 KiB. 0, or -1 with an exception. */
int devices_batch(const run_where *w, dmls_batch *b, const dmls_batch_input *in, uint32_t n_in,
                  const dmls_batch_output *out, uint32_t n_out, uint64_t out_bytes);
/* The CPU's thread count: set (0: the library's default), read. */
int devices_set_threads(int n);
int devices_threads(void);
/* Whether a device of DLPack type dl_type is present. */
int devices_available(int dl_type);
/* In a forked child: forget the parent's devices (its threads and GPU
 * contexts are not here). */
void devices_after_fork_child(void);

#endif /* DMLSLICE_PY_DEVICES_H */
