/* See vulkan_api.h. In a build with volk, volk's implementation too:
 * the tool's own copy of its pointers (the library's are hidden inside it
 * under other names). */
#ifdef DMLS_TOOL_VOLK
#define VOLK_IMPLEMENTATION
#endif
#include "vulkan_api.h"

#include <stdio.h>

bool vk_api_load(const dmls_vulkan_context *ctx, char *err) {
#ifdef DMLS_TOOL_VOLK
    static VkResult opened = VK_NOT_READY;
    if (opened != VK_SUCCESS) opened = volkInitialize(); /* the loader the library has opened already */
    if (opened != VK_SUCCESS) {
        snprintf(err, 256, "Vulkan: the tool cannot open the Vulkan loader (libvulkan.so.1): VkResult %d", (int)opened);
        return false;
    }
    VkInstance instance;
    dmls_vulkan_context_handles(ctx, &instance, NULL, NULL, NULL, NULL);
    volkLoadInstance(instance); /* each context has its own instance */
#else
    (void)ctx, (void)err;
#endif
    return true;
}
