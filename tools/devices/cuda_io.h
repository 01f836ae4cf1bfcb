/* Running a planned operator on the GPU for the dmlslice tool: copy the
 * input to the device, slice there, copy the output back. */
#ifndef DMLSLICE_TOOLS_CUDA_IO_H
#define DMLSLICE_TOOLS_CUDA_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlslice/batch.h"
#include "dmlslice/dmlslice.h"

/* True when this build has the CUDA backend. */
bool cuda_io_built(void);

/* Whether `--device cuda` (asked true) runs on CUDA device 0. Where no
 * device can be used (a build without the CUDA backend, no GPU, no driver)
 * the command runs on the CPU instead: this prints
 * "PROG: --device cuda: WHY; running on the CPU" to stderr and returns
 * false, so the result never depends on the machine, only where it ran. */
bool cuda_io_use(bool asked);

/* Runs op on CUDA device 0: in_bytes of in go to the device, the output's
 * out_bytes come back into out. On failure returns the status with
 * dmls_last_error() or a message in err (256 bytes) explaining it, and out
 * is left untouched. */
dmls_status cuda_io_run(const dmls_operator *op, const void *in, uint64_t in_bytes, void *out, uint64_t out_bytes,
                        char *err);

/* Runs a batch of one input slot and n output slots on CUDA device 0 in one
 * launch: in_bytes of in go to the device, output slot k's out_bytes[k]
 * come back into outs[k]. Prepares the batch for the device first. On
 * failure returns the status with dmls_last_error() or a message in err
 * (256 bytes), and the outputs are left untouched. */
dmls_status cuda_io_run_batch(dmls_batch *batch, const void *in, uint64_t in_bytes, void *const *outs,
                              const uint64_t *out_bytes, uint32_t n, char *err);

#endif
