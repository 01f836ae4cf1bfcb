/* The tool's Vulkan path. Compiled in every build; without the Vulkan
 * backend it only reports that. Buffers are host-visible, so the copies in
 * and out are plain memcpy through a mapping: the tool moves a file's bytes
 * once, where a staging copy would buy nothing. */
#include "vulkan_io.h"

#include <string.h>

#ifdef DMLS_HAVE_VULKAN
#include <stdlib.h>

#include "dmlslice/batch_vulkan.h"
#include "dmlslice/dmlslice_vulkan.h"
#include "vulkan_buffer.h"

bool vulkan_io_built(void) { return true; }

/* A context on device and host-visible buffers of in_bytes and out_bytes,
 * the input copied in and the output buffer filled from out (its padding
 * keeps out's bytes). DMLS_OK, or the status with a message. */
typedef struct vk_run {
    dmls_vulkan_context *ctx;
    VkDevice dev;
    vk_host_buffer in, out;
} vk_run;

static dmls_status run_open(vk_run *r, int device, const void *in, uint64_t in_bytes, uint64_t out_bytes, char *err) {
    memset(r, 0, sizeof *r);
    dmls_status s = dmls_vulkan_context_create(device, 0, &r->ctx);
    if (s != DMLS_OK) return s;
    if (!vk_api_load(r->ctx, err)) return DMLS_ERROR_NO_DEVICE;
    VkPhysicalDevice phys;
    dmls_vulkan_context_handles(r->ctx, NULL, &phys, &r->dev, NULL, NULL);
    VkResult e = vk_host_buffer_make(phys, r->dev, in_bytes, &r->in);
    if (e == VK_SUCCESS) e = vk_host_buffer_make(phys, r->dev, out_bytes, &r->out);
    if (e != VK_SUCCESS) {
        snprintf(err, 256, "Vulkan: no host-visible buffer of %llu bytes (VkResult %d)",
                 (unsigned long long)(in_bytes > out_bytes ? in_bytes : out_bytes), (int)e);
        return DMLS_ERROR_DEVICE;
    }
    if (in_bytes) memcpy(r->in.map, in, (size_t)in_bytes);
    return DMLS_OK;
}

static void run_close(vk_run *r) {
    if (r->ctx == NULL) return;
    vk_host_buffer_free(r->dev, &r->in);
    vk_host_buffer_free(r->dev, &r->out);
    dmls_vulkan_context_destroy(r->ctx);
}

dmls_status vulkan_io_run(const dmls_operator *op, int device, const void *in, uint64_t in_bytes, void *out,
                          uint64_t out_bytes, char *err) {
    err[0] = '\0';
    vk_run r;
    dmls_status s = run_open(&r, device, in, in_bytes, out_bytes, err);
    if (s == DMLS_OK) {
        if (out_bytes) memcpy(r.out.map, out, (size_t)out_bytes); /* padding keeps the file's bytes */
        s = dmls_vulkan_execute(op, r.ctx, r.in.buffer, 0, in_bytes, r.out.buffer, 0, out_bytes);
        if (s == DMLS_OK && out_bytes) memcpy(out, r.out.map, (size_t)out_bytes);
    }
    run_close(&r);
    return s;
}

dmls_status vulkan_io_run_batch(dmls_batch *batch, int device, const void *in, uint64_t in_bytes, void *const *outs,
                                const uint64_t *out_bytes, uint32_t n, char *err) {
    err[0] = '\0';
    /* Every output in one buffer, each at a multiple of 16 bytes: whole
     * words apart, so the items run with no barrier between them. */
    dmls_vulkan_binding *slots = calloc(n ? n : 1, sizeof *slots);
    if (slots == NULL) {
        snprintf(err, 256, "no memory for %u output slots", n);
        return DMLS_ERROR_OUT_OF_MEMORY;
    }
    uint64_t total = 0;
    for (uint32_t k = 0; k < n; k++) {
        slots[k].offset = total, slots[k].bytes = out_bytes[k];
        total += (out_bytes[k] + 15) / 16 * 16;
    }
    vk_run r;
    dmls_status s = run_open(&r, device, in, in_bytes, total, err);
    if (s == DMLS_OK) {
        for (uint32_t k = 0; k < n; k++) {
            slots[k].buffer = r.out.buffer;
            if (out_bytes[k]) memcpy((unsigned char *)r.out.map + slots[k].offset, outs[k], (size_t)out_bytes[k]);
        }
        const dmls_vulkan_binding input = {r.in.buffer, 0, in_bytes};
        /* Grouped into a few dispatches (the slots lie at multiples of 16);
         * the table goes with the context, at run_close. */
        s = dmls_batch_prepare_vulkan(batch, r.ctx);
        if (s == DMLS_OK) s = dmls_batch_execute_vulkan(batch, r.ctx, &input, 1, slots, n);
        for (uint32_t k = 0; s == DMLS_OK && k < n; k++)
            if (out_bytes[k]) memcpy(outs[k], (unsigned char *)r.out.map + slots[k].offset, (size_t)out_bytes[k]);
    }
    run_close(&r);
    free(slots);
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

dmls_status vulkan_io_run_batch(dmls_batch *batch, int device, const void *in, uint64_t in_bytes, void *const *outs,
                                const uint64_t *out_bytes, uint32_t n, char *err) {
    (void)batch, (void)device, (void)in, (void)in_bytes, (void)outs, (void)out_bytes, (void)n;
    snprintf(err, 256, "this build has no Vulkan backend (rebuild where libvulkan-dev and glslc are found)");
    return DMLS_ERROR_NO_DEVICE;
}

void vulkan_io_list(FILE *f, const char *indent) {
    fprintf(f, "%svulkan: not built (rebuild where libvulkan-dev and glslc are found)\n", indent);
}

#endif
