/* Vulkan contexts: the library's own instance and device
 * (dmls_vulkan_context_create), or the caller's (..._create_from), and the
 * device queries. Pipelines and submit objects: pipelines.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../error.h"
#include "batch_table.h"
#include "context.h"

#define VK_TRY(call, who)                                                                                              \
    do {                                                                                                               \
        VkResult r_ = (call);                                                                                          \
        RETURN_IF(r_ != VK_SUCCESS,                                                                                    \
                  r_ == VK_ERROR_INITIALIZATION_FAILED || r_ == VK_ERROR_INCOMPATIBLE_DRIVER ? DMLS_ERROR_NO_DEVICE    \
                                                                                             : DMLS_ERROR_DEVICE,      \
                  NULL, "%s: %s failed: %s", who, #call, dmls_vk_result_name(r_));                                     \
    } while (0)


#ifdef DMLS_VULKAN_VOLK
static dmls_once load_once = DMLS_ONCE_INIT;
static VkResult loaded = VK_ERROR_INITIALIZATION_FAILED;
static _Atomic int instance_state; /* 0: none loaded, 1: loading, 2: loaded */

static void load(void) { loaded = volkInitialize(); }

dmls_status dmls_vk_load(void) {
    dmls_once_run(&load_once, load);
    RETURN_IF(loaded != VK_SUCCESS, DMLS_ERROR_NO_DEVICE, NULL,
              "vulkan: no Vulkan loader (libvulkan.so.1, vulkan-1.dll) could be loaded: install one (Debian: "
              "libvulkan1)");
    return DMLS_OK;
}

void dmls_vk_load_instance(VkInstance instance) {
    int expected = 0;
    if (atomic_compare_exchange_strong(&instance_state, &expected, 1)) {
        volkLoadInstance(instance);
        atomic_store(&instance_state, 2);
    }
    while (atomic_load(&instance_state) != 2) continue; /* another thread is loading them */
}
#else
dmls_status dmls_vk_load(void) { return DMLS_OK; }
void dmls_vk_load_instance(VkInstance instance) { (void)instance; }
#endif

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *data, void *user) {
    (void)severity, (void)type;
    dmls_vulkan_context *ctx = user;
    atomic_fetch_add_explicit(&ctx->messages, 1, memory_order_relaxed);
    fprintf(stderr, "dmlslice: Vulkan validation: %s\n", data->pMessage);
    return VK_FALSE;
}

static const VkDebugUtilsMessengerCreateInfoEXT *messenger_info(dmls_vulkan_context *ctx) {
    static DMLS_THREAD_LOCAL VkDebugUtilsMessengerCreateInfoEXT info;
    memset(&info, 0, sizeof info);
    info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    info.messageSeverity =
        VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    info.pfnUserCallback = on_message;
    info.pUserData = ctx;
    return &info;
}

/* An instance for Vulkan 1.1; with validation, the layer and a messenger. */
static dmls_status make_instance(dmls_vulkan_context *ctx, bool validation, VkInstance *out) {
    VkApplicationInfo app = {
        VK_STRUCTURE_TYPE_APPLICATION_INFO, NULL, "dmlslice", 0, "dmlslice", 0, VK_API_VERSION_1_1};
    static const char *layers[] = {"VK_LAYER_KHRONOS_validation"};
    static const char *exts[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME};
    VkInstanceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    info.pApplicationInfo = &app;
    if (validation) {
        info.pNext = messenger_info(ctx); /* messages of vkCreateInstance itself */
        info.enabledLayerCount = 1, info.ppEnabledLayerNames = layers;
        info.enabledExtensionCount = 1, info.ppEnabledExtensionNames = exts;
    }
    RETURN_IF_ERROR(dmls_vk_load());
    VK_TRY(vkCreateInstance(&info, NULL, out), "vulkan");
    dmls_vk_load_instance(*out);
    if (validation && ctx != NULL) {
        PFN_vkCreateDebugUtilsMessengerEXT create =
            (PFN_vkCreateDebugUtilsMessengerEXT)vkGetInstanceProcAddr(*out, "vkCreateDebugUtilsMessengerEXT");
        if (create == NULL) vkDestroyInstance(*out, NULL);
        RETURN_IF(create == NULL, DMLS_ERROR_DEVICE, NULL, "vulkan: no vkCreateDebugUtilsMessengerEXT");
        VK_TRY(create(*out, messenger_info(ctx), NULL, &ctx->messenger), "vulkan");
    }
    return DMLS_OK;
}

/* Physical device `index` of instance, or DMLS_ERROR_NO_DEVICE. */
static dmls_status physical_device(VkInstance instance, int index, VkPhysicalDevice *out, int *total) {
    VkPhysicalDevice devs[16];
    uint32_t n = 16;
    VkResult r = vkEnumeratePhysicalDevices(instance, &n, devs);
    RETURN_IF(r != VK_SUCCESS && r != VK_INCOMPLETE, DMLS_ERROR_NO_DEVICE, NULL,
              "vulkan: vkEnumeratePhysicalDevices failed: %s", dmls_vk_result_name(r));
    if (total != NULL) *total = (int)n;
    RETURN_IF(n == 0, DMLS_ERROR_NO_DEVICE, NULL, "vulkan: the instance sees no physical device");
    RETURN_IF(index < 0 || (uint32_t)index >= n, DMLS_ERROR_NO_DEVICE, NULL,
              "vulkan: device %d does not exist (%u devices)", index, n);
    *out = devs[index];
    return DMLS_OK;
}

dmls_status dmls_vulkan_device_count(int *count) {
    dmls_clear_error();
    RETURN_IF(count == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "vulkan_device_count: count is NULL");
    *count = 0;
    VkInstance instance;
    RETURN_IF_ERROR(make_instance(NULL, false, &instance));
    VkPhysicalDevice dev;
    dmls_status s = physical_device(instance, 0, &dev, count);
    vkDestroyInstance(instance, NULL);
    if (s != DMLS_OK) *count = 0;
    return s;
}

dmls_status dmls_vulkan_device_name(int device, char *name, size_t name_size, int *type, uint32_t *api_version) {
    dmls_clear_error();
    VkInstance instance;
    RETURN_IF_ERROR(make_instance(NULL, false, &instance));
    VkPhysicalDevice dev;
    dmls_status s = physical_device(instance, device, &dev, NULL);
    if (s == DMLS_OK) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(dev, &p);
        if (name != NULL && name_size > 0) snprintf(name, name_size, "%s", p.deviceName);
        if (type != NULL) *type = (int)p.deviceType;
        if (api_version != NULL) *api_version = p.apiVersion;
    }
    vkDestroyInstance(instance, NULL);
    return s;
}

/* The first queue family of dev with compute. */
static dmls_status compute_family(VkPhysicalDevice dev, uint32_t *family) {
    VkQueueFamilyProperties props[32];
    uint32_t n = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(dev, &n, props);
    for (uint32_t i = 0; i < n; i++)
        if (props[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            *family = i;
            return DMLS_OK;
        }
    return dmls_fail(DMLS_ERROR_NO_DEVICE, NULL, "vulkan: the device has no compute queue family");
}

static dmls_status has_push_descriptor(VkPhysicalDevice dev) {
    VkExtensionProperties props[512];
    uint32_t n = 512;
    VkResult r = vkEnumerateDeviceExtensionProperties(dev, NULL, &n, props);
    RETURN_IF(r != VK_SUCCESS && r != VK_INCOMPLETE, DMLS_ERROR_DEVICE, NULL,
              "vulkan: vkEnumerateDeviceExtensionProperties failed: %s", dmls_vk_result_name(r));
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(props[i].extensionName, VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME) == 0) return DMLS_OK;
    return dmls_fail(DMLS_ERROR_NO_DEVICE, NULL, "vulkan: the device lacks %s, which dmlslice needs",
                     VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME);
}

static dmls_status make_device(dmls_vulkan_context *ctx) {
    RETURN_IF_ERROR(has_push_descriptor(ctx->physical));
    RETURN_IF_ERROR(compute_family(ctx->physical, &ctx->family));
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo q = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    q.queueFamilyIndex = ctx->family, q.queueCount = 1, q.pQueuePriorities = &priority;
    static const char *exts[] = {VK_KHR_PUSH_DESCRIPTOR_EXTENSION_NAME};
    VkDeviceCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    info.queueCreateInfoCount = 1, info.pQueueCreateInfos = &q;
    info.enabledExtensionCount = 1, info.ppEnabledExtensionNames = exts;
    VK_TRY(vkCreateDevice(ctx->physical, &info, NULL, &ctx->device), "vulkan_context_create");
    vkGetDeviceQueue(ctx->device, ctx->family, 0, &ctx->queue);
    return DMLS_OK;
}

static dmls_status create_owned(int device, unsigned flags, dmls_vulkan_context *ctx) {
    RETURN_IF(flags & ~(unsigned)DMLS_VULKAN_VALIDATION, DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "vulkan_context_create: unknown flags 0x%x", flags);
    RETURN_IF_ERROR(make_instance(ctx, (flags & DMLS_VULKAN_VALIDATION) != 0, &ctx->instance));
    RETURN_IF_ERROR(physical_device(ctx->instance, device, &ctx->physical, NULL));
    RETURN_IF_ERROR(make_device(ctx));
    return dmls_vk_build(ctx);
}

dmls_status dmls_vulkan_context_create(int device, unsigned flags, dmls_vulkan_context **ctx) {
    dmls_clear_error();
    RETURN_IF(ctx == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "vulkan_context_create: ctx is NULL");
    dmls_vulkan_context *c = calloc(1, sizeof *c);
    *ctx = NULL;
    RETURN_IF(c == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "vulkan_context_create: out of memory");
    c->owns_device = 1;
    dmls_status s = create_owned(device, flags, c);
    if (s != DMLS_OK) {
        dmls_vulkan_context_destroy(c);
        return s;
    }
    *ctx = c;
    return DMLS_OK;
}

dmls_status dmls_vulkan_context_create_from(VkInstance instance, VkPhysicalDevice physical_device, VkDevice device,
                                            uint32_t queue_family, uint32_t queue_index, dmls_vulkan_context **ctx) {
    dmls_clear_error();
    RETURN_IF(ctx == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "vulkan_context_create_from: ctx is NULL");
    *ctx = NULL;
    RETURN_IF(instance == VK_NULL_HANDLE || physical_device == VK_NULL_HANDLE || device == VK_NULL_HANDLE,
              DMLS_ERROR_INVALID_ARGUMENT, NULL, "vulkan_context_create_from: a handle is VK_NULL_HANDLE");
    RETURN_IF_ERROR(dmls_vk_load());
    dmls_vk_load_instance(instance);
    VkQueueFamilyProperties props[32];
    uint32_t n = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(physical_device, &n, props);
    RETURN_IF(queue_family >= n || !(props[queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT) ||
                  queue_index >= props[queue_family].queueCount,
              DMLS_ERROR_INVALID_ARGUMENT, NULL,
              "vulkan_context_create_from: queue family %u (index %u) is not a compute queue of the device (%u "
              "families)",
              queue_family, queue_index, n);
    RETURN_IF_ERROR(has_push_descriptor(physical_device));
    dmls_vulkan_context *c = calloc(1, sizeof *c);
    RETURN_IF(c == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "vulkan_context_create_from: out of memory");
    c->instance = instance, c->physical = physical_device, c->device = device, c->family = queue_family;
    vkGetDeviceQueue(device, queue_family, queue_index, &c->queue);
    dmls_status s = dmls_vk_build(c);
    if (s != DMLS_OK) {
        dmls_vulkan_context_destroy(c);
        return s;
    }
    *ctx = c;
    return DMLS_OK;
}

void dmls_vulkan_context_destroy(dmls_vulkan_context *ctx) {
    if (ctx == NULL) return;
    dmls_vk_batches_release(ctx);
    dmls_vk_release(ctx);
    if (ctx->owns_device) {
        if (ctx->device != VK_NULL_HANDLE) vkDestroyDevice(ctx->device, NULL);
        if (ctx->messenger != VK_NULL_HANDLE) {
            PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)vkGetInstanceProcAddr(
                ctx->instance, "vkDestroyDebugUtilsMessengerEXT");
            if (destroy != NULL) destroy(ctx->instance, ctx->messenger, NULL);
        }
        if (ctx->instance != VK_NULL_HANDLE) vkDestroyInstance(ctx->instance, NULL);
    }
    free(ctx);
}

void dmls_vulkan_context_handles(const dmls_vulkan_context *ctx, VkInstance *instance,
                                 VkPhysicalDevice *physical_device, VkDevice *device, uint32_t *queue_family,
                                 VkQueue *queue) {
    if (instance != NULL) *instance = ctx->instance;
    if (physical_device != NULL) *physical_device = ctx->physical;
    if (device != NULL) *device = ctx->device;
    if (queue_family != NULL) *queue_family = ctx->family;
    if (queue != NULL) *queue = ctx->queue;
}

uint64_t dmls_vulkan_context_messages(const dmls_vulkan_context *ctx) {
    return atomic_load_explicit(&((dmls_vulkan_context *)ctx)->messages, memory_order_relaxed);
}
