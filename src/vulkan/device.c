/* Vulkan devices through the device interface (dmlslice/device.h): each
 * open device is a library-made context (dmls_vulkan_context_create) and
 * its buffers are in device-local memory, mapped where the host reads that
 * memory as fast as its own, else reached through a staging buffer
 * (device_state.h). Execute submits and waits (dmls_vulkan_execute), so
 * every call is complete on return. Timing is device_time.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "device_state.h"
#include "dmlslice/batch_vulkan.h"

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

static void free_buffer(const dmls_vulkan_context *ctx, vk_buffer *b) {
    if (b->map != NULL) vkUnmapMemory(ctx->device, b->memory);
    if (b->buffer != VK_NULL_HANDLE) vkDestroyBuffer(ctx->device, b->buffer, NULL);
    if (b->memory != VK_NULL_HANDLE) vkFreeMemory(ctx->device, b->memory, NULL);
    memset(b, 0, sizeof *b);
}

static void vk_free(dmls_device *dev, dmls_device_buffer *buf) {
    free_buffer(((vk_device *)dev->state)->ctx, (vk_buffer *)buf);
    free(buf);
}

#define HOST_FLAGS (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)

/* The first memory type of `bits` with every flag of `want`; -1: none. */
static int memory_type(const dmls_vulkan_context *ctx, uint32_t bits, VkMemoryPropertyFlags want,
                       VkMemoryPropertyFlags *has) {
    VkPhysicalDeviceMemoryProperties m;
    vkGetPhysicalDeviceMemoryProperties(ctx->physical, &m);
    for (uint32_t t = 0; t < m.memoryTypeCount; t++)
        if ((bits >> t & 1u) && (m.memoryTypes[t].propertyFlags & want) == want) {
            if (has != NULL) *has = m.memoryTypes[t].propertyFlags;
            return (int)t;
        }
    return -1;
}

/* Fills b's buffer, memory and (host) mapping; on failure b holds what was
 * made. host: the staging buffer, in host-visible memory; else device-local
 * memory, mapped where d->mapped. */
static dmls_status make(const vk_device *d, uint64_t bytes, bool host, vk_buffer *b) {
    const dmls_vulkan_context *ctx = d->ctx;
    /* Whole 16-byte units past bytes: the shaders access whole words. */
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = (bytes + 15) / 16 * 16 + 16,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkResult r = vkCreateBuffer(ctx->device, &bi, NULL, &b->buffer);
    RETURN_IF(r != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "Vulkan: vkCreateBuffer of %llu bytes: %s",
              (unsigned long long)bytes, dmls_vk_result_name(r));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx->device, b->buffer, &req);
    int type = memory_type(ctx, req.memoryTypeBits,
                           host ? HOST_FLAGS | VK_MEMORY_PROPERTY_HOST_CACHED_BIT : VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                           NULL);
    if (type < 0) type = memory_type(ctx, req.memoryTypeBits, HOST_FLAGS, NULL); /* no such type: any mappable */
    RETURN_IF(type < 0, DMLS_ERROR_DEVICE, NULL, "Vulkan: no %s memory for %llu bytes",
              host ? "host-visible coherent" : "device-local or host-visible", (unsigned long long)bytes);
    VkMemoryAllocateInfo ai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    ai.allocationSize = req.size, ai.memoryTypeIndex = (uint32_t)type;
    r = vkAllocateMemory(ctx->device, &ai, NULL, &b->memory);
    RETURN_IF(r != VK_SUCCESS,
              r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? DMLS_ERROR_OUT_OF_MEMORY
                                                                                     : DMLS_ERROR_DEVICE,
              NULL, "Vulkan: vkAllocateMemory of %llu bytes: %s", (unsigned long long)req.size,
              dmls_vk_result_name(r));
    r = vkBindBufferMemory(ctx->device, b->buffer, b->memory, 0);
    if (r == VK_SUCCESS && (host || d->mapped))
        r = vkMapMemory(ctx->device, b->memory, 0, VK_WHOLE_SIZE, 0, (void **)&b->map);
    RETURN_IF(r != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "Vulkan: binding or mapping a buffer: %s",
              dmls_vk_result_name(r));
    return DMLS_OK;
}

/* Whether the device-local memory a buffer gets is one the host reads and
 * writes as its own (mapped transfers), or a staging buffer is needed. */
static int maps_device_memory(const vk_device *d) {
    const dmls_vulkan_context *ctx = d->ctx;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = 16,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VkBuffer probe = VK_NULL_HANDLE;
    if (vkCreateBuffer(ctx->device, &bi, NULL, &probe) != VK_SUCCESS) return 1;
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(ctx->device, probe, &req);
    vkDestroyBuffer(ctx->device, probe, NULL);
    VkMemoryPropertyFlags has = 0;
    const VkMemoryPropertyFlags host = HOST_FLAGS | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
    return memory_type(ctx, req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, &has) < 0 || (has & host) == host;
}

/* DMLSLICE_VK_STAGE_BYTES (device_state.h), where set: the stage's most. */
static dmls_status stage_setting(uint64_t *max, int *forced) {
    const char *env = getenv("DMLSLICE_VK_STAGE_BYTES");
    *max = DMLS_VK_STAGE_BYTES, *forced = 0;
    if (env == NULL || *env == '\0') return DMLS_OK;
    unsigned long long n = 0;
    char end = 0;
    RETURN_IF(sscanf(env, "%llu%c", &n, &end) != 1 || n < 1 || n > DMLS_VK_STAGE_BYTES, DMLS_ERROR_INVALID_ARGUMENT,
              NULL, "vulkan: DMLSLICE_VK_STAGE_BYTES is \"%s\", not a number of bytes from 1 to %llu", env,
              (unsigned long long)DMLS_VK_STAGE_BYTES);
    *max = n, *forced = 1;
    return DMLS_OK;
}

static dmls_status vk_open(dmls_device *dev) {
    vk_device *d = calloc(1, sizeof *d);
    RETURN_IF(d == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "vulkan:%d: no memory for the device's record", dev->index);
    int forced = 0;
    dmls_status s = stage_setting(&d->stage_max, &forced);
    if (s == DMLS_OK) s = dmls_vulkan_context_create(dev->index, 0, &d->ctx);
    if (s != DMLS_OK) {
        free(d);
        return s;
    }
    d->mapped = !forced && maps_device_memory(d);
    dev->state = d;
    return DMLS_OK;
}

static void vk_close(dmls_device *dev) {
    vk_device *d = dev->state;
    free_buffer(d->ctx, &d->stage);
    dmls_vk_device_time_release(d);
    dmls_vulkan_context_destroy(d->ctx);
    free(d);
}

static dmls_status vk_alloc(dmls_device *dev, uint64_t bytes, dmls_device_buffer **buf) {
    vk_buffer *b = calloc(1, sizeof *b);
    RETURN_IF(b == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "no memory for a buffer's record");
    b->head.bytes = bytes;
    const dmls_status s = make(dev->state, bytes, false, b);
    if (s != DMLS_OK) {
        vk_free(dev, &b->head);
        return s;
    }
    *buf = &b->head;
    return DMLS_OK;
}

/* The staging buffer, made at the size of the first transfer (at most
 * d->stage_max) and made again larger when a transfer needs it. */
static dmls_status stage_for(vk_device *d, uint64_t bytes) {
    const uint64_t want = bytes < d->stage_max ? bytes : d->stage_max;
    if (d->stage.buffer != VK_NULL_HANDLE && d->stage_bytes >= want) return DMLS_OK;
    free_buffer(d->ctx, &d->stage);
    d->stage_bytes = 0;
    const dmls_status s = make(d, want, true, &d->stage);
    if (s != DMLS_OK) {
        free_buffer(d->ctx, &d->stage);
        return s;
    }
    d->stage_bytes = want;
    return DMLS_OK;
}

/* A transfer through the stage, in chunks: from host memory `up` into
 * the buffer, or (up NULL) from the buffer into `down`. */
static dmls_status staged(vk_device *d, VkBuffer buffer, uint64_t offset, const unsigned char *up,
                          unsigned char *down, uint64_t bytes) {
    RETURN_IF_ERROR(stage_for(d, bytes));
    for (uint64_t done = 0; done < bytes;) {
        const uint64_t n = bytes - done < d->stage_bytes ? bytes - done : d->stage_bytes;
        if (up != NULL) {
            memcpy(d->stage.map, up + done, (size_t)n);
            RETURN_IF_ERROR(dmls_vk_copy_buffer(d->ctx, "device upload", d->stage.buffer, 0, buffer, offset + done, n));
        } else {
            RETURN_IF_ERROR(dmls_vk_copy_buffer(d->ctx, "device download", buffer, offset + done, d->stage.buffer, 0, n));
            memcpy(down + done, d->stage.map, (size_t)n);
        }
        done += n;
    }
    return DMLS_OK;
}

static dmls_status vk_upload(dmls_device *dev, dmls_device_buffer *dst, uint64_t offset, const void *src,
                             uint64_t bytes) {
    vk_device *d = dev->state;
    vk_buffer *b = (vk_buffer *)dst;
    if (b->map == NULL) return staged(d, b->buffer, offset, src, NULL, bytes);
    memcpy(b->map + offset, src, (size_t)bytes);
    return DMLS_OK;
}

static dmls_status vk_download(dmls_device *dev, const dmls_device_buffer *src, uint64_t offset, void *dst,
                               uint64_t bytes) {
    vk_device *d = dev->state;
    const vk_buffer *b = (const vk_buffer *)src;
    if (b->map == NULL) return staged(d, b->buffer, offset, NULL, dst, bytes);
    memcpy(dst, b->map + offset, (size_t)bytes);
    return DMLS_OK;
}

static dmls_vulkan_binding binding_of(const dmls_device_binding *b) {
    const dmls_vulkan_binding v = {dmls_vk_buffer_of(b), b->offset, b->bytes};
    return v;
}

static dmls_status vk_execute(dmls_device *dev, const dmls_operator *op, const dmls_device_binding *in,
                              const dmls_device_binding *out) {
    const dmls_vulkan_binding i = binding_of(in), o = binding_of(out);
    return dmls_vulkan_execute(op, ((vk_device *)dev->state)->ctx, i.buffer, i.offset, i.bytes, o.buffer, o.offset,
                               o.bytes);
}

static dmls_status vk_batch_prepare(dmls_device *dev, dmls_batch *batch) {
    return dmls_batch_prepare_vulkan(batch, ((vk_device *)dev->state)->ctx);
}

static dmls_status vk_batch_execute(dmls_device *dev, const dmls_batch *batch, const dmls_device_binding *inputs,
                                    uint32_t n_inputs, const dmls_device_binding *outputs, uint32_t n_outputs) {
    dmls_vulkan_binding fixed[16];
    const uint64_t n = (uint64_t)n_inputs + n_outputs;
    dmls_vulkan_binding *all = n <= 16 ? fixed : malloc((size_t)n * sizeof *all);
    RETURN_IF(all == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "no memory for %llu batch slots", (unsigned long long)n);
    for (uint32_t k = 0; k < n_inputs; k++) all[k] = binding_of(&inputs[k]);
    for (uint32_t k = 0; k < n_outputs; k++) all[n_inputs + k] = binding_of(&outputs[k]);
    const dmls_status s =
        dmls_batch_execute_vulkan(batch, ((vk_device *)dev->state)->ctx, all, n_inputs, all + n_inputs, n_outputs);
    if (all != fixed) free(all);
    return s;
}

static dmls_status vk_synchronize(dmls_device *dev) {
    (void)dev;
    return DMLS_OK;
}

/* No addresses to wrap, no caller streams, no host threads; copy is the
 * core's (the library's whole copy, the copy shader). */
const dmls_device_ops dmls_vulkan_device = {vk_count,   vk_info,          vk_open,          vk_close,
                                            vk_alloc,   vk_free,          vk_upload,        vk_download,
                                            vk_execute, vk_batch_prepare, vk_batch_execute, vk_synchronize,
                                            NULL,       0,                NULL,             NULL,
                                            NULL,       dmls_vk_device_time};
