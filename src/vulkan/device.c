/* Vulkan devices through the device interface (dmlslice/device.h): each
 * open device is a library-made context (dmls_vulkan_context_create), its
 * buffers host-visible and coherent, so that upload and download are
 * memcpy through a mapping (no staging copy: the interface's callers move
 * each byte once). Execute submits and waits (dmls_vulkan_execute), so
 * every call is complete on return. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../device/device_ops.h"
#include "../error.h"
#include "context.h"
#include "dmlslice/batch_vulkan.h"

typedef struct vk_buffer {
    dmls_device_buffer head;
    VkBuffer buffer;
    VkDeviceMemory memory;
    unsigned char *map;
} vk_buffer;

static int vk_count(void) {
    int n = 0;
    return dmls_vulkan_device_count(&n) == DMLS_OK ? n : 0;
}

static dmls_status vk_info(int index, dmls_device_info *info) {
    static const char *const types[] = {"other", "integrated GPU", "discrete GPU", "virtual GPU", "cpu"};
    char name[200] = "";
    int type = 0;
    uint32_t v = 0;
    RETURN_IF_ERROR(dmls_vulkan_device_name(index, name, sizeof name, &type, &v));
    snprintf(info->description, sizeof info->description, "%s, %s", name,
             type >= 0 && type <= 4 ? types[type] : "?");
    snprintf(info->driver, sizeof info->driver, "Vulkan %u.%u.%u", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
             VK_API_VERSION_PATCH(v));
    return DMLS_OK;
}

static dmls_status vk_open(dmls_device *dev) {
    dmls_vulkan_context *ctx = NULL;
    RETURN_IF_ERROR(dmls_vulkan_context_create(dev->index, 0, &ctx));
    dev->state = ctx;
    return DMLS_OK;
}

static void vk_close(dmls_device *dev) { dmls_vulkan_context_destroy(dev->state); }

static void vk_free(dmls_device *dev, dmls_device_buffer *buf) {
    const dmls_vulkan_context *ctx = dev->state;
    vk_buffer *b = (vk_buffer *)buf;
    if (b->map != NULL) vkUnmapMemory(ctx->device, b->memory);
    if (b->buffer != VK_NULL_HANDLE) vkDestroyBuffer(ctx->device, b->buffer, NULL);
    if (b->memory != VK_NULL_HANDLE) vkFreeMemory(ctx->device, b->memory, NULL);
    free(b);
}

static int host_memory_type(const dmls_vulkan_context *ctx, uint32_t bits) {
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    VkPhysicalDeviceMemoryProperties m;
    vkGetPhysicalDeviceMemoryProperties(ctx->physical, &m);
    for (uint32_t t = 0; t < m.memoryTypeCount; t++)
        if ((bits >> t & 1u) && (m.memoryTypes[t].propertyFlags & want) == want) return (int)t;
    return -1;
}

/* Fills b's buffer, memory and mapping; on failure b holds what was made. */
static dmls_status make(const dmls_vulkan_context *ctx, uint64_t bytes, vk_buffer *b) {
    /* Whole 16-byte units past bytes: the shaders access whole words. */
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = (bytes + 15) / 16 * 16 + 16,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = vkCreateBuffer(ctx->device, &bi, NULL, &b->buffer);
    RETURN_IF(r != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "Vulkan: vkCreateBuffer of %llu bytes: %s",
              (unsigned long long)bytes, dmls_vk_result_name(r));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx->device, b->buffer, &req);
    const int type = host_memory_type(ctx, req.memoryTypeBits);
    RETURN_IF(type < 0, DMLS_ERROR_DEVICE, NULL, "Vulkan: no host-visible coherent memory for %llu bytes",
              (unsigned long long)bytes);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size, ai.memoryTypeIndex = (uint32_t)type;
    r = vkAllocateMemory(ctx->device, &ai, NULL, &b->memory);
    RETURN_IF(r != VK_SUCCESS,
              r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? DMLS_ERROR_OUT_OF_MEMORY
                                                                                     : DMLS_ERROR_DEVICE,
              NULL, "Vulkan: vkAllocateMemory of %llu bytes: %s", (unsigned long long)req.size,
              dmls_vk_result_name(r));
    r = vkBindBufferMemory(ctx->device, b->buffer, b->memory, 0);
    if (r == VK_SUCCESS) r = vkMapMemory(ctx->device, b->memory, 0, VK_WHOLE_SIZE, 0, (void **)&b->map);
    RETURN_IF(r != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "Vulkan: binding or mapping a buffer: %s",
              dmls_vk_result_name(r));
    return DMLS_OK;
}

static dmls_status vk_alloc(dmls_device *dev, uint64_t bytes, dmls_device_buffer **buf) {
    vk_buffer *b = calloc(1, sizeof *b);
    RETURN_IF(b == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "no memory for a buffer's record");
    b->head.bytes = bytes;
    const dmls_status s = make(dev->state, bytes, b);
    if (s != DMLS_OK) {
        vk_free(dev, &b->head);
        return s;
    }
    *buf = &b->head;
    return DMLS_OK;
}

static dmls_status vk_upload(dmls_device *dev, dmls_device_buffer *dst, uint64_t offset, const void *src,
                             uint64_t bytes) {
    (void)dev;
    memcpy(((vk_buffer *)dst)->map + offset, src, (size_t)bytes);
    return DMLS_OK;
}

static dmls_status vk_download(dmls_device *dev, const dmls_device_buffer *src, uint64_t offset, void *dst,
                               uint64_t bytes) {
    (void)dev;
    memcpy(dst, ((const vk_buffer *)src)->map + offset, (size_t)bytes);
    return DMLS_OK;
}

static dmls_vulkan_binding binding_of(const dmls_device_binding *b) {
    const dmls_vulkan_binding v = {b->buffer != NULL ? ((const vk_buffer *)b->buffer)->buffer : VK_NULL_HANDLE,
                                   b->offset, b->bytes};
    return v;
}

static dmls_status vk_execute(dmls_device *dev, const dmls_operator *op, const dmls_device_binding *in,
                              const dmls_device_binding *out) {
    const dmls_vulkan_binding i = binding_of(in), o = binding_of(out);
    return dmls_vulkan_execute(op, dev->state, i.buffer, i.offset, i.bytes, o.buffer, o.offset, o.bytes);
}

static dmls_status vk_batch_prepare(dmls_device *dev, dmls_batch *batch) {
    return dmls_batch_prepare_vulkan(batch, dev->state);
}

static dmls_status vk_batch_execute(dmls_device *dev, const dmls_batch *batch, const dmls_device_binding *inputs,
                                    uint32_t n_inputs, const dmls_device_binding *outputs, uint32_t n_outputs) {
    dmls_vulkan_binding fixed[16];
    const uint64_t n = (uint64_t)n_inputs + n_outputs;
    dmls_vulkan_binding *all = n <= 16 ? fixed : malloc((size_t)n * sizeof *all);
    RETURN_IF(all == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "no memory for %llu batch slots", (unsigned long long)n);
    for (uint32_t k = 0; k < n_inputs; k++) all[k] = binding_of(&inputs[k]);
    for (uint32_t k = 0; k < n_outputs; k++) all[n_inputs + k] = binding_of(&outputs[k]);
    const dmls_status s = dmls_batch_execute_vulkan(batch, dev->state, all, n_inputs, all + n_inputs, n_outputs);
    if (all != fixed) free(all);
    return s;
}

static dmls_status vk_synchronize(dmls_device *dev) {
    (void)dev;
    return DMLS_OK;
}

const dmls_device_ops dmls_vulkan_device = {vk_count,   vk_info,          vk_open,          vk_close,
                                            vk_alloc,   vk_free,          vk_upload,        vk_download,
                                            vk_execute, vk_batch_prepare, vk_batch_execute, vk_synchronize,
                                            NULL /* no addresses to wrap */, 0 /* no caller streams */,
                                            NULL /* no host threads */, NULL};
