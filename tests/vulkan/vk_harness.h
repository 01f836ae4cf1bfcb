/* The Vulkan tests' own device: an instance with the Khronos validation
 * layer (when installed) and a debug-utils messenger that counts every
 * message, a device with VK_KHR_push_descriptor, and host-visible buffers
 * the tests fill and read through a mapping. The library gets this device
 * through dmls_vulkan_context_create_from, the path of an engine that owns
 * its device. Include src/vulkan/context.h first (the API loaded at run time
 * in a build with volk). */
#ifndef DMLS_TEST_VK_HARNESS_H
#define DMLS_TEST_VK_HARNESS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>
#if defined(__linux__)
#include <dlfcn.h>
#include <link.h>
#endif

typedef struct vk_harness {
    VkInstance instance;
    VkPhysicalDevice physical;
    VkDevice device;
    uint32_t family;
    VkQueue queue;
    VkCommandPool pool;
    VkCommandBuffer cmd;
    VkFence fence;
    VkDebugUtilsMessengerEXT messenger;
    bool validation;
    char name[256];
} vk_harness;

typedef struct vk_buf {
    VkBuffer buffer;
    VkDeviceMemory memory;
    unsigned char *map;
    uint64_t size;
} vk_buf;

static unsigned long vk_messages;

static VKAPI_ATTR VkBool32 VKAPI_CALL vk_on_message(VkDebugUtilsMessageSeverityFlagBitsEXT s,
                                                    VkDebugUtilsMessageTypeFlagsEXT t,
                                                    const VkDebugUtilsMessengerCallbackDataEXT *d, void *u) {
    (void)s, (void)t, (void)u;
    vk_messages++;
    fprintf(stderr, "VALIDATION: %s\n", d->pMessage);
    return VK_FALSE;
}

#define VKT(call)                                                                                                      \
    do {                                                                                                               \
        VkResult r_ = (call);                                                                                          \
        if (r_ != VK_SUCCESS) {                                                                                        \
            fprintf(stderr, "%s:%d: %s returned %d\n", __FILE__, __LINE__, #call, (int)r_);                            \
            exit(1);                                                                                                   \
        }                                                                                                              \
    } while (0)

static bool vk_has_layer(const char *name) {
    VkLayerProperties props[64];
    uint32_t n = 64;
    if (vkEnumerateInstanceLayerProperties(&n, props) < 0) return false;
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(props[i].layerName, name) == 0) return true;
    return false;
}

#if defined(__linux__)
static int vk_pin_one(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size, (void)data;
    const char *n = info->dlpi_name;
    if (n != NULL && (strstr(n, "vulkan_") != NULL || strstr(n, "VkLayer") != NULL || strstr(n, "LLVM") != NULL))
        (void)dlopen(n, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    return 0;
}
#endif

/* Keeps the driver and layer libraries the loader opened (and lavapipe's
 * LLVM) mapped after vkDestroyInstance, so that LeakSanitizer can name them
 * in the stacks of their own leaks, which tests/vulkan/lsan.supp then
 * suppresses by library; unloaded, they show as "<unknown module>". */
static void vk_pin_drivers(void) {
#if defined(__linux__)
    dl_iterate_phdr(vk_pin_one, NULL);
#endif
}

/* 0 on success; non-zero when there is no Vulkan device (the test skips). */
static int vk_harness_open(vk_harness *h, int device_index) {
    /* A build with volk loads the API at run time (src/vulkan/context.h). */
    memset(h, 0, sizeof *h);
    if (dmls_vk_load() != DMLS_OK) return 1;
    static const char *layer = "VK_LAYER_KHRONOS_validation", *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
    h->validation = vk_has_layer(layer) && getenv("DMLS_TEST_NO_VALIDATION") == NULL;
    VkDebugUtilsMessengerCreateInfoEXT mi = {.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
    mi.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    mi.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
    mi.pfnUserCallback = vk_on_message;
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_1};
    VkInstanceCreateInfo ii = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    if (h->validation) {
        ii.pNext = &mi;
        ii.enabledLayerCount = 1, ii.ppEnabledLayerNames = &layer;
        ii.enabledExtensionCount = 1, ii.ppEnabledExtensionNames = &ext;
    }
    if (vkCreateInstance(&ii, NULL, &h->instance) != VK_SUCCESS) return 1;
    dmls_vk_load_instance(h->instance);
    vk_pin_drivers();
    if (h->validation) {
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(h->instance, "vkCreateDebugUtilsMessengerEXT");
        VKT(create(h->instance, &mi, NULL, &h->messenger));
    }
    VkPhysicalDevice devs[16];
    uint32_t n = 16;
    if (vkEnumeratePhysicalDevices(h->instance, &n, devs) < 0 || (uint32_t)device_index >= n) return 1;
    h->physical = devs[device_index];
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(h->physical, &p);
    snprintf(h->name, sizeof h->name, "%s", p.deviceName);
    VkQueueFamilyProperties qf[32];
    uint32_t nq = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(h->physical, &nq, qf);
    for (h->family = 0; h->family < nq && !(qf[h->family].queueFlags & VK_QUEUE_COMPUTE_BIT); h->family++) continue;
    if (h->family == nq) return 1;
    const float prio = 1.0f;
    VkDeviceQueueCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                  .queueFamilyIndex = h->family,
                                  .queueCount = 1,
                                  .pQueuePriorities = &prio};
    const char *dext = VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME;
    VkDeviceCreateInfo di = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                             .queueCreateInfoCount = 1,
                             .pQueueCreateInfos = &qi,
                             .enabledExtensionCount = 1,
                             .ppEnabledExtensionNames = &dext};
    if (vkCreateDevice(h->physical, &di, NULL, &h->device) != VK_SUCCESS) return 1;
    vkGetDeviceQueue(h->device, h->family, 0, &h->queue);
    VkCommandPoolCreateInfo pi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                  .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                  .queueFamilyIndex = h->family};
    VKT(vkCreateCommandPool(h->device, &pi, NULL, &h->pool));
    VkCommandBufferAllocateInfo ci = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                      .commandPool = h->pool,
                                      .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                      .commandBufferCount = 1};
    VKT(vkAllocateCommandBuffers(h->device, &ci, &h->cmd));
    VkFenceCreateInfo fi = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VKT(vkCreateFence(h->device, &fi, NULL, &h->fence));
    return 0;
}

/* Begins recording into h's command buffer (reset first). */
static void vk_harness_begin(vk_harness *h) {
    VKT(vkResetCommandBuffer(h->cmd, 0));
    VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VKT(vkBeginCommandBuffer(h->cmd, &bi));
}

/* Ends h's command buffer after a barrier that makes shader writes visible
 * to the host, submits it and waits: mapped outputs read right after. */
static void vk_harness_submit(vk_harness *h) {
    VkMemoryBarrier host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                            .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                            .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(h->cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &host, 0, NULL,
                         0, NULL);
    VKT(vkEndCommandBuffer(h->cmd));
    VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &h->cmd};
    VKT(vkQueueSubmit(h->queue, 1, &si, h->fence));
    VKT(vkWaitForFences(h->device, 1, &h->fence, VK_TRUE, UINT64_MAX));
    VKT(vkResetFences(h->device, 1, &h->fence));
}

static void vk_harness_close(vk_harness *h) {
    vkDestroyFence(h->device, h->fence, NULL);
    vkDestroyCommandPool(h->device, h->pool, NULL);
    vkDestroyDevice(h->device, NULL);
    if (h->messenger) {
        PFN_vkDestroyDebugUtilsMessengerEXT destroy =
            (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(h->instance, "vkDestroyDebugUtilsMessengerEXT");
        destroy(h->instance, h->messenger, NULL);
    }
    vkDestroyInstance(h->instance, NULL);
}

/* A host-visible, coherent storage buffer of size bytes (a multiple of 4). */
static vk_buf vk_buf_make(VkPhysicalDevice physical, VkDevice device, uint64_t size) {
    vk_buf b = {0};
    b.size = size;
    VkBufferCreateInfo bi = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
                             .size = size,
                             .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
                                      VK_BUFFER_USAGE_TRANSFER_SRC_BIT,
                             .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
    VKT(vkCreateBuffer(device, &bi, NULL, &b.buffer));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, b.buffer, &req);
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(physical, &mp);
    const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t type = 0;
    while (type < mp.memoryTypeCount &&
           (!(req.memoryTypeBits & (1u << type)) || (mp.memoryTypes[type].propertyFlags & want) != want))
        type++;
    if (type == mp.memoryTypeCount) {
        fprintf(stderr, "no host-visible coherent memory type\n");
        exit(1);
    }
    VkMemoryAllocateInfo ai = {
        .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = req.size, .memoryTypeIndex = type};
    VKT(vkAllocateMemory(device, &ai, NULL, &b.memory));
    VKT(vkBindBufferMemory(device, b.buffer, b.memory, 0));
    VKT(vkMapMemory(device, b.memory, 0, VK_WHOLE_SIZE, 0, (void **)&b.map));
    return b;
}

static void vk_buf_free(VkDevice device, vk_buf *b) {
    vkUnmapMemory(device, b->memory);
    vkDestroyBuffer(device, b->buffer, NULL);
    vkFreeMemory(device, b->memory, NULL);
}

#endif
