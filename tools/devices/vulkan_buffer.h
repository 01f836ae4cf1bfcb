/* A host-visible, coherent Vulkan storage buffer, mapped: how the tool puts
 * a file's bytes on a Vulkan device and reads them back with plain memcpy
 * (bench/vulkan_run.c); and the Vulkan API as
 * the tool's own calls see it (here and bench/vulkan_run.c). In a build
 * with volk (DMLS_TOOL_VOLK) those calls go through volk's pointers, which
 * vk_api_load fills once a context exists, as the library loads its own:
 * the tool does not link libvulkan.so.1, so it starts on a machine without
 * a Vulkan loader (where --device vulkan then fails, saying so). Builds
 * with the Vulkan backend only. */
#ifndef DMLSLICE_TOOLS_VULKAN_BUFFER_H
#define DMLSLICE_TOOLS_VULKAN_BUFFER_H

#include <stdbool.h>
#include <stdint.h>

#ifdef DMLS_TOOL_VOLK
#include <volk.h> /* before the public header: VK_NO_PROTOTYPES, the functions as pointers */
#endif
#include "dmlslice/dmlslice_vulkan.h"

/* Makes the Vulkan functions the tool calls usable with ctx's instance
 * and device: after each dmls_vulkan_context_create, before any other
 * Vulkan call of the tool. False (the loader cannot be opened) after
 * writing why into err[256]; always true without volk. */
bool vk_api_load(const dmls_vulkan_context *ctx, char *err);

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
