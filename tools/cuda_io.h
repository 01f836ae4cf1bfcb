/* Running a planned operator on the GPU for the dmlslice tool: copy the
 * input to the device, slice there, copy the output back. */
#ifndef DMLSLICE_TOOLS_CUDA_IO_H
#define DMLSLICE_TOOLS_CUDA_IO_H

#include <stdbool.h>
#include <stdint.h>

#include "dmlslice/dmlslice.h"

/* True when this build has the CUDA backend. */
bool cuda_io_built(void);

/* Runs op on CUDA device 0: in_bytes of in go to the device, the output's
 * out_bytes come back into out. On failure returns the status with
 * dmls_last_error() or a message in err (256 bytes) explaining it, and out
 * is left untouched. */
dmls_status cuda_io_run(const dmls_operator *op, const void *in, uint64_t in_bytes, void *out, uint64_t out_bytes,
                        char *err);

#endif
