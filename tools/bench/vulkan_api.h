/* The Vulkan API as the tool's own calls see it: the benchmark's
 * (vulkan_run.c, which vk_probe shares); the tool's other device work goes
 * through dmlslice/device.h. In a build
 * with volk (DMLS_TOOL_VOLK) those calls go through volk's pointers, which
 * vk_api_load fills once a context exists, as the library loads its own:
 * the tool does not link libvulkan.so.1, so it starts on a machine without
 * a Vulkan loader (where --device vulkan then fails, saying so). Builds
 * with the Vulkan backend only. */
#ifndef DMLSLICE_TOOLS_VULKAN_API_H
#define DMLSLICE_TOOLS_VULKAN_API_H

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

#endif
