/* `dmlslice dispatch --device vulkan[:N]`: every resource in a
 * host-visible buffer of its own on Vulkan device N, each dispatch run by
 * dmls_vulkan_execute, the output resource read back through its mapping.
 * Reached through device.c's functions once device_select_vulkan has
 * chosen the device. Compiled in every build; without the Vulkan backend it
 * only reports that. */
#include "device_vulkan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef DMLS_HAVE_VULKAN
#include "dmlslice/dmlslice_vulkan.h"

struct vk_buffers {
    size_t n;
    dmls_vulkan_context *ctx;
    VkDevice dev;
    VkBuffer *buffer;
    VkDeviceMemory *memory;
    unsigned char **map;
    uint64_t *sizes;
};

/* Resource i: a host-visible, coherent storage buffer, rounded up to a word. */
static VkResult make_resource(vk_buffers *d, VkPhysicalDevice phys, size_t i) {
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = (d->sizes[i] + 3) / 4 * 4 + 4,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = vkCreateBuffer(d->dev, &bi, NULL, &d->buffer[i]);
    if (r != VK_SUCCESS) return r;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(d->dev, d->buffer[i], &req);
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
    r = vkAllocateMemory(d->dev, &ai, NULL, &d->memory[i]);
    if (r == VK_SUCCESS) r = vkBindBufferMemory(d->dev, d->buffer[i], d->memory[i], 0);
    if (r == VK_SUCCESS) r = vkMapMemory(d->dev, d->memory[i], 0, VK_WHOLE_SIZE, 0, (void **)&d->map[i]);
    return r;
}

dmls_status vk_upload(int device, size_t n, unsigned char *const *host, const uint64_t *sizes, vk_buffers **out,
                      char *err) {
    *out = NULL;
    vk_buffers *d = calloc(1, sizeof *d);
    if (d) {
        d->buffer = calloc(n + 1, sizeof *d->buffer), d->memory = calloc(n + 1, sizeof *d->memory);
        d->map = calloc(n + 1, sizeof *d->map), d->sizes = calloc(n + 1, sizeof *d->sizes);
    }
    if (!d || !d->buffer || !d->memory || !d->map || !d->sizes) {
        vk_free(d);
        snprintf(err, 256, "out of memory");
        return DMLS_ERROR_OUT_OF_MEMORY;
    }
    d->n = n;
    dmls_status s = dmls_vulkan_context_create(device, 0, &d->ctx);
    if (s != DMLS_OK) {
        snprintf(err, 256, "%s", dmls_last_error());
        vk_free(d);
        return s;
    }
    VkPhysicalDevice phys;
    dmls_vulkan_context_handles(d->ctx, NULL, &phys, &d->dev, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        d->sizes[i] = sizes[i];
        const VkResult r = make_resource(d, phys, i);
        if (r != VK_SUCCESS) {
            snprintf(err, 256, "Vulkan: no host-visible buffer of %llu bytes (VkResult %d)",
                     (unsigned long long)sizes[i], (int)r);
            vk_free(d);
            return DMLS_ERROR_DEVICE;
        }
        memcpy(d->map[i], host[i], (size_t)sizes[i]);
    }
    *out = d;
    return DMLS_OK;
}

dmls_status vk_dispatch(vk_buffers *d, const dmls_operator *op, size_t in, uint64_t in_off, size_t out,
                        uint64_t out_off, unsigned char *host, char *err) {
    const dmls_status s = dmls_vulkan_execute(op, d->ctx, d->buffer[in], in_off, d->sizes[in] - in_off, d->buffer[out],
                                              out_off, d->sizes[out] - out_off);
    if (s != DMLS_OK) {
        snprintf(err, 256, "%s", dmls_last_error());
        return s;
    }
    memcpy(host, d->map[out], (size_t)d->sizes[out]);
    return DMLS_OK;
}

void vk_free(vk_buffers *d) {
    if (!d) return;
    for (size_t i = 0; d->ctx && i < d->n; i++) {
        if (d->map[i]) vkUnmapMemory(d->dev, d->memory[i]);
        if (d->buffer[i]) vkDestroyBuffer(d->dev, d->buffer[i], NULL);
        if (d->memory[i]) vkFreeMemory(d->dev, d->memory[i], NULL);
    }
    dmls_vulkan_context_destroy(d->ctx);
    free(d->buffer), free(d->memory), free(d->map), free(d->sizes);
    free(d);
}

#else

struct vk_buffers {
    int unused;
};

dmls_status vk_upload(int device, size_t n, unsigned char *const *host, const uint64_t *sizes, vk_buffers **out,
                      char *err) {
    (void)device, (void)n, (void)host, (void)sizes;
    *out = NULL;
    snprintf(err, 256, "this build has no Vulkan backend (rebuild where libvulkan-dev and glslc are found)");
    return DMLS_ERROR_NO_DEVICE;
}

dmls_status vk_dispatch(vk_buffers *d, const dmls_operator *op, size_t in, uint64_t in_off, size_t out,
                        uint64_t out_off, unsigned char *host, char *err) {
    (void)d, (void)op, (void)in, (void)in_off, (void)out, (void)out_off, (void)host;
    snprintf(err, 256, "this build has no Vulkan backend");
    return DMLS_ERROR_NO_DEVICE;
}

void vk_free(vk_buffers *d) { (void)d; }

#endif
