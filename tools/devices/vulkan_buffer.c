/* See vulkan_buffer.h. In a build with volk, volk's implementation too:
 * the tool's own copy of its pointers (the library's are hidden inside it
 * under other names). */
#ifdef DMLS_TOOL_VOLK
#define VOLK_IMPLEMENTATION
#endif
#include "vulkan_buffer.h"

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

VkResult vk_host_buffer_make(VkPhysicalDevice phys, VkDevice dev, uint64_t bytes, vk_host_buffer *b) {
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = (bytes + 3) / 4 * 4 + 4,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = vkCreateBuffer(dev, &bi, NULL, &b->buffer);
    if (r != VK_SUCCESS) return r;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(dev, b->buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(phys, &mp);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = 0;
    while (type < mp.memoryTypeCount &&
           (!(req.memoryTypeBits & (1u << type)) || (mp.memoryTypes[type].propertyFlags & want) != want))
        type++;
    if (type == mp.memoryTypeCount) return VK_ERROR_FEATURE_NOT_PRESENT;
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    r = vkAllocateMemory(dev, &ai, NULL, &b->memory);
    if (r == VK_SUCCESS) r = vkBindBufferMemory(dev, b->buffer, b->memory, 0);
    if (r == VK_SUCCESS) r = vkMapMemory(dev, b->memory, 0, VK_WHOLE_SIZE, 0, &b->map);
    return r;
}

void vk_host_buffer_free(VkDevice dev, vk_host_buffer *b) {
    if (b->map != NULL) vkUnmapMemory(dev, b->memory);
    if (b->buffer != VK_NULL_HANDLE) vkDestroyBuffer(dev, b->buffer, NULL);
    if (b->memory != VK_NULL_HANDLE) vkFreeMemory(dev, b->memory, NULL);
}
