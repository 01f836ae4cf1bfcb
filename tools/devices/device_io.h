/* Running a planned operator or batch on a --device other than the CPU,
 * whatever its backend, through the library's device interface
 * (dmlslice/device.h): the input goes into a buffer of the device, the
 * work runs there, the outputs come back. */
#ifndef DMLSLICE_TOOLS_DEVICE_IO_H
#define DMLSLICE_TOOLS_DEVICE_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "device_opt.h"
#include "dmlslice/batch.h"
#include "dmlslice/dmlslice.h"

/* Whether the command runs on d. --device cuda without a device it can
 * use (no CUDA backend in this build, no GPU, no driver) runs on the CPU
 * instead: this prints "PROG: --device cuda: WHY; running on the CPU" to
 * stderr and sets d to the CPU, so the result never depends on the machine,
 * only where it ran. Other devices fail when run (docs/cli.md). */
void device_io_fallback(device_choice *d);

/* Runs op on d: in_bytes of in go to the device, the output's out_bytes
 * (its padding keeps out's bytes) come back into out. On failure returns
 * the status with its message in err (256 bytes), out untouched. */
dmls_status device_io_run(const device_choice *d, const dmls_operator *op, const void *in, uint64_t in_bytes,
                          void *out, uint64_t out_bytes, char *err);

/* Runs batch (one input slot, n output slots) on d, prepared there: in_bytes
 * of in go to the device, output slot k's out_bytes[k] come back into
 * outs[k] (its padding keeps outs[k]'s bytes). On failure returns the
 * status with its message in err (256 bytes), the outputs untouched. */
dmls_status device_io_run_batch(const device_choice *d, dmls_batch *batch, const void *in, uint64_t in_bytes,
                                void *const *outs, const uint64_t *out_bytes, uint32_t n, char *err);

#endif
