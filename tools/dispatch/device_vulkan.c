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
#include "vulkan_buffer.h" /* the tool compiles it in (tools/devices/) */

struct vk_buffers {
    size_t n;
    dmls_vulkan_context *ctx;
    VkDevice dev;
    vk_host_buffer *res; /* resource i */
    uint64_t *sizes;
};

dmls_status vk_upload(int device, size_t n, unsigned char *const *host, const uint64_t *sizes, vk_buffers **out,
                      char *err) {
    *out = NULL;
    vk_buffers *d = calloc(1, sizeof *d);
    if (d) {
        d->res = calloc(n + 1, sizeof *d->res), d->sizes = calloc(n + 1, sizeof *d->sizes);
    }
    if (!d || !d->res || !d->sizes) {
        vk_free(d);
        snprintf(err, 256, "out of memory");
        return DMLS_ERROR_OUT_OF_MEMORY;
    }
    d->n = n;
    dmls_status s = dmls_vulkan_context_create(device, 0, &d->ctx);
    if (s != DMLS_OK || !vk_api_load(d->ctx, err)) {
        if (s != DMLS_OK) snprintf(err, 256, "%s", dmls_last_error());
        vk_free(d);
        return s != DMLS_OK ? s : DMLS_ERROR_NO_DEVICE;
    }
    VkPhysicalDevice phys;
    dmls_vulkan_context_handles(d->ctx, NULL, &phys, &d->dev, NULL, NULL);
    for (size_t i = 0; i < n; i++) {
        d->sizes[i] = sizes[i];
        const VkResult r = vk_host_buffer_make(phys, d->dev, sizes[i], &d->res[i]);
        if (r != VK_SUCCESS) {
            snprintf(err, 256, "Vulkan: no host-visible buffer of %llu bytes (VkResult %d)",
                     (unsigned long long)sizes[i], (int)r);
            vk_free(d);
            return DMLS_ERROR_DEVICE;
        }
        memcpy(d->res[i].map, host[i], (size_t)sizes[i]);
    }
    *out = d;
    return DMLS_OK;
}

dmls_status vk_dispatch(vk_buffers *d, const dmls_operator *op, size_t in, uint64_t in_off, size_t out,
                        uint64_t out_off, unsigned char *host, char *err) {
    const dmls_status s = dmls_vulkan_execute(op, d->ctx, d->res[in].buffer, in_off, d->sizes[in] - in_off,
                                              d->res[out].buffer, out_off, d->sizes[out] - out_off);
    if (s != DMLS_OK) {
        snprintf(err, 256, "%s", dmls_last_error());
        return s;
    }
    memcpy(host, d->res[out].map, (size_t)d->sizes[out]);
    return DMLS_OK;
}

void vk_free(vk_buffers *d) {
    if (!d) return;
    for (size_t i = 0; d->ctx && i < d->n; i++) vk_host_buffer_free(d->dev, &d->res[i]);
    dmls_vulkan_context_destroy(d->ctx);
    free(d->res), free(d->sizes);
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
