/* The device side of `dmlslice dispatch --device D`: every resource lives
 * in the device's memory, as it does on DirectML's GPU; each dispatch runs
 * there and the output resource is copied back so print and writeFile see
 * it. One body for every device, through dmlslice/device.h. */
#ifndef DMLSLICE_TOOLS_DISPATCH_DEVICE_H
#define DMLSLICE_TOOLS_DISPATCH_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "dmlslice/dmlslice.h"

typedef struct device_buffers device_buffers;

/* Opens device `name` (as --device spells it) and copies n host buffers
 * (sizes[i] bytes each) there. On failure returns the status with a
 * message in err (256 bytes): no such device, or the backend's own error. */
dmls_status device_upload(const char *name, size_t n, unsigned char *const *host, const uint64_t *sizes,
                          device_buffers **out, char *err);

/* Runs op with the input at byte in_off of buffer in and the output at
 * out_off of buffer out (the bound sizes reach each buffer's end), then
 * copies buffer out back into host (its whole size). On failure host is
 * untouched. */
dmls_status device_dispatch(device_buffers *d, const dmls_operator *op, size_t in, uint64_t in_off, size_t out,
                            uint64_t out_off, unsigned char *host, char *err);

void device_free(device_buffers *d);

#endif
