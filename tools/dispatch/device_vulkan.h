/* The Vulkan side of `dmlslice dispatch --device vulkan[:N]`, with the
 * shape of device.h's CUDA side (device.c routes to it). */
#ifndef DMLSLICE_TOOLS_DISPATCH_DEVICE_VULKAN_H
#define DMLSLICE_TOOLS_DISPATCH_DEVICE_VULKAN_H

#include <stddef.h>
#include <stdint.h>

#include "dmlslice/dmlslice.h"

typedef struct vk_buffers vk_buffers;

/* As device_upload, on Vulkan device `device`. */
dmls_status vk_upload(int device, size_t n, unsigned char *const *host, const uint64_t *sizes, vk_buffers **out,
                      char *err);
/* As device_dispatch. */
dmls_status vk_dispatch(vk_buffers *d, const dmls_operator *op, size_t in, uint64_t in_off, size_t out,
                        uint64_t out_off, unsigned char *host, char *err);
void vk_free(vk_buffers *d);

#endif
