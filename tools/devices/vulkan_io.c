/* The tool's Vulkan path. Compiled in every build; without the Vulkan
 * backend it only reports that. Buffers are host-visible, so the copies in
 * and out are plain memcpy through a mapping: the tool moves a file's bytes
 * once, where a staging copy would buy nothing. */
#include "vulkan_io.h"

#include <string.h>

#ifdef DMLS_HAVE_VULKAN
#include "dmlslice/dmlslice_vulkan.h"

bool vulkan_io_built(void) { return true; }

typedef struct host_buffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    void *map;
} host_buffer;

/* A host-visible, coherent storage buffer of at least bytes (rounded up to
 * a whole word, as dmlslice_vulkan.h asks). */
static VkResult make_buffer(VkPhysicalDevice phys, VkDevice dev, uint64_t bytes, host_buffer *b) {
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

static void free_buffer(VkDevice dev, host_buffer *b) {
    if (b->map != NULL) vkUnmapMemory(dev, b->memory);
    if (b->buffer != VK_NULL_HANDLE) vkDestroyBuffer(dev, b->buffer, NULL);
    if (b->memory != VK_NULL_HANDLE) vkFreeMemory(dev, b->memory, NULL);
}

dmls_status vulkan_io_run(const dmls_operator *op, int device, const void *in, uint64_t in_bytes, void *out,
                          uint64_t out_bytes, char *err) {
    err[0] = '\0';
    dmls_vulkan_context *ctx = NULL;
    dmls_status s = dmls_vulkan_context_create(device, 0, &ctx);
    if (s != DMLS_OK) return s;
    VkPhysicalDevice phys;
    VkDevice dev;
    dmls_vulkan_context_handles(ctx, NULL, &phys, &dev, NULL, NULL);
    host_buffer bin = {0}, bout = {0};
    VkResult r = make_buffer(phys, dev, in_bytes, &bin);
    if (r == VK_SUCCESS) r = make_buffer(phys, dev, out_bytes, &bout);
    if (r != VK_SUCCESS) {
        snprintf(err, 256, "Vulkan: no host-visible buffer of %llu bytes (VkResult %d)",
                 (unsigned long long)(in_bytes > out_bytes ? in_bytes : out_bytes), (int)r);
        s = DMLS_ERROR_DEVICE;
    } else {
        if (in_bytes) memcpy(bin.map, in, (size_t)in_bytes);
        if (out_bytes) memcpy(bout.map, out, (size_t)out_bytes); /* padding keeps the file's bytes */
        s = dmls_vulkan_execute(op, ctx, bin.buffer, 0, in_bytes, bout.buffer, 0, out_bytes);
        if (s == DMLS_OK && out_bytes) memcpy(out, bout.map, (size_t)out_bytes);
    }
    free_buffer(dev, &bin);
    free_buffer(dev, &bout);
    dmls_vulkan_context_destroy(ctx);
    return s;
}

void vulkan_io_list(FILE *f, const char *indent) {
    int count = 0;
    if (dmls_vulkan_device_count(&count) != DMLS_OK) {
        fprintf(f, "%svulkan: none (%s)\n", indent, dmls_last_error());
        return;
    }
    static const char *types[] = {"other", "integrated GPU", "discrete GPU", "virtual GPU", "cpu"};
    for (int i = 0; i < count; i++) {
        char name[256] = "";
        int type = 0;
        uint32_t v = 0;
        if (dmls_vulkan_device_name(i, name, sizeof name, &type, &v) != DMLS_OK) continue;
        fprintf(f, "%svulkan:%d  %s  %s, Vulkan %u.%u.%u\n", indent, i, name,
                type >= 0 && type <= 4 ? types[type] : "?", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v),
                VK_API_VERSION_PATCH(v));
    }
}

#else

bool vulkan_io_built(void) { return false; }

dmls_status vulkan_io_run(const dmls_operator *op, int device, const void *in, uint64_t in_bytes, void *out,
                          uint64_t out_bytes, char *err) {
    (void)op, (void)device, (void)in, (void)in_bytes, (void)out, (void)out_bytes;
    snprintf(err, 256, "this build has no Vulkan backend (rebuild where libvulkan-dev and glslc are found)");
    return DMLS_ERROR_NO_DEVICE;
}

void vulkan_io_list(FILE *f, const char *indent) {
    fprintf(f, "%svulkan: not built (rebuild where libvulkan-dev and glslc are found)\n", indent);
}

#endif
