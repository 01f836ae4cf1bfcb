/* Running a planned operator or batch on a Vulkan device for the dmlslice
 * tool: the input goes into a buffer of that device, the work runs there
 * (dmls_vulkan_execute, dmls_batch_execute_vulkan), the outputs come back. */
#ifndef DMLSLICE_TOOLS_VULKAN_IO_H
#define DMLSLICE_TOOLS_VULKAN_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dmlslice/batch.h"
#include "dmlslice/dmlslice.h"

/* True when this build has the Vulkan backend. */
bool vulkan_io_built(void);

/* Runs op on Vulkan device `device`: in_bytes of in go to the device, the
 * output's out_bytes (its padding keeps out's bytes) come back into out.
 * On failure returns the status with dmls_last_error() or a message in err
 * (256 bytes), and out is left untouched. */
dmls_status vulkan_io_run(const dmls_operator *op, int device, const void *in, uint64_t in_bytes, void *out,
                          uint64_t out_bytes, char *err);

/* Runs batch (one input slot) on Vulkan device `device`: in_bytes of in
 * go to the device, output slot k's out_bytes[k] come back into outs[k]
 * (its padding keeps outs[k]'s bytes). On failure returns the status with
 * dmls_last_error() or a message in err (256 bytes), the outputs untouched. */
dmls_status vulkan_io_run_batch(dmls_batch *batch, int device, const void *in, uint64_t in_bytes, void *const *outs,
                                const uint64_t *out_bytes, uint32_t n, char *err);

/* One line per Vulkan device ("vulkan:0  llvmpipe (...)  cpu, Vulkan 1.3.238"),
 * or why there is none, each line starting with indent. */
void vulkan_io_list(FILE *f, const char *indent);

#endif
