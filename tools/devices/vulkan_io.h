/* Running a planned operator on a Vulkan device for the dmlslice tool:
 * the input goes into a buffer of that device, the operator runs there
 * (dmls_vulkan_execute), the output comes back. */
#ifndef DMLSLICE_TOOLS_VULKAN_IO_H
#define DMLSLICE_TOOLS_VULKAN_IO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dmlslice/dmlslice.h"

/* True when this build has the Vulkan backend. */
bool vulkan_io_built(void);

/* Runs op on Vulkan device `device`: in_bytes of in go to the device, the
 * output's out_bytes (its padding keeps out's bytes) come back into out.
 * On failure returns the status with dmls_last_error() or a message in err
 * (256 bytes), and out is left untouched. */
dmls_status vulkan_io_run(const dmls_operator *op, int device, const void *in, uint64_t in_bytes, void *out,
                          uint64_t out_bytes, char *err);

/* One line per Vulkan device ("vulkan:0  llvmpipe (...)  cpu, Vulkan 1.3.238"),
 * or why there is none, each line starting with indent. */
void vulkan_io_list(FILE *f, const char *indent);

#endif
