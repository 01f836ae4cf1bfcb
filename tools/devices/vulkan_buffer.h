/* A host-visible, coherent Vulkan storage buffer, mapped: how the tool puts
 * a file's bytes on a Vulkan device and reads them back with plain memcpy
 * (devices/vulkan_io.c, dispatch/device_vulkan.c). Builds with the Vulkan
 * backend only. */
#ifndef DMLSLICE_TOOLS_VULKAN_BUFFER_H
#define DMLSLICE_TOOLS_VULKAN_BUFFER_H

#include <stdint.h>

#include "dmlslice/dmlslice_vulkan.h"

typedef struct vk_host_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *map;
} vk_host_buffer;

/* A buffer of at least bytes, rounded up past a whole word (the shaders
 * access whole 32-bit words: dmlslice_vulkan.h), into *b, which starts
 * zeroed. On failure returns the VkResult (VK_ERROR_FEATURE_NOT_PRESENT:
 * no host-visible coherent memory) with what was made in *b for
 * vk_host_buffer_free. */
VkResult vk_host_buffer_make(VkPhysicalDevice phys, VkDevice dev, uint64_t bytes, vk_host_buffer *b);

/* Frees what vk_host_buffer_make made (any part of it). */
void vk_host_buffer_free(VkDevice dev, vk_host_buffer *b);

#endif
