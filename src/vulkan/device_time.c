/* dmls_device_time on a Vulkan device: the warm-up runs and the timed runs
 * recorded back to back in one command buffer, a barrier after each run
 * (the next starts when it has finished; device_state.h) and a timestamp
 * after each sample, then one submit and wait. Timed one submission at a time, the GPU
 * would idle between runs and drop its clock (the H100 to ~345 MHz,
 * halving every figure, copies included: bench/RESULTS.md, 2026-11-24). */
#include <stdlib.h>

#include "../error.h"
#include "device_state.h"
#include "dmlslice/batch_vulkan.h"

/* Makes d's query pool hold at least n timestamps. */
static dmls_status queries_for(vk_device *d, uint32_t n) {
    if (d->query_count >= n) return DMLS_OK;
    dmls_vk_device_time_release(d);
    VkQueryPoolCreateInfo qi = {
        .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = n};
    const VkResult r = vkCreateQueryPool(d->ctx->device, &qi, NULL, &d->queries);
    RETURN_IF(r != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "Vulkan: vkCreateQueryPool of %u timestamps: %s", n,
              dmls_vk_result_name(r));
    d->query_count = n;
    return DMLS_OK;
}

void dmls_vk_device_time_release(vk_device *d) {
    if (d->queries != VK_NULL_HANDLE) vkDestroyQueryPool(d->ctx->device, d->queries, NULL);
    d->queries = VK_NULL_HANDLE, d->query_count = 0;
}

typedef struct burst {
    const dmls_device_work *w;
    const dmls_operator *copy; /* the work's operator where it is a copy */
    uint32_t warm, samples, per_sample;
    VkQueryPool queries;
} burst;

static dmls_status record_work(const burst *b, const dmls_vulkan_context *ctx, VkCommandBuffer cmd) {
    const dmls_device_work *w = b->w;
    if (w->batch == NULL) {
        const dmls_operator *op = w->op != NULL ? w->op : b->copy;
        const dmls_device_binding *i = &w->in[0], *o = &w->out[0];
        return dmls_vulkan_record(op, ctx, cmd, dmls_vk_buffer_of(i), i->offset, i->bytes, dmls_vk_buffer_of(o),
                                  o->offset, o->bytes);
    }
    dmls_vulkan_binding fixed[16];
    const uint64_t n = (uint64_t)w->n_in + w->n_out;
    dmls_vulkan_binding *all = n <= 16 ? fixed : malloc((size_t)n * sizeof *all);
    RETURN_IF(all == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "no memory for %llu batch slots", (unsigned long long)n);
    for (uint32_t k = 0; k < w->n_in; k++)
        all[k] = (dmls_vulkan_binding){dmls_vk_buffer_of(&w->in[k]), w->in[k].offset, w->in[k].bytes};
    for (uint32_t k = 0; k < w->n_out; k++)
        all[w->n_in + k] = (dmls_vulkan_binding){dmls_vk_buffer_of(&w->out[k]), w->out[k].offset, w->out[k].bytes};
    const dmls_status s = dmls_batch_record_vulkan(w->batch, ctx, cmd, all, w->n_in, all + w->n_in, w->n_out);
    if (all != fixed) free(all);
    return s;
}

static dmls_status record_burst(const void *arg, const dmls_vulkan_context *ctx, VkCommandBuffer cmd) {
    const burst *b = arg;
    dmls_vk_device_barrier(cmd); /* earlier submissions' writes (an upload) before, outside the timed span */
    if (b->samples > 0) vkCmdResetQueryPool(cmd, b->queries, 0, b->samples + 1);
    const uint32_t runs = b->warm + b->samples * b->per_sample; /* checked by the core */
    for (uint32_t i = 0; i < runs; i++) {
        if (i == b->warm && b->samples > 0) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b->queries, 0);
        RETURN_IF_ERROR(record_work(b, ctx, cmd));
        if (i + 1 < runs) dmls_vk_runs_barrier(cmd);
        else dmls_vk_device_barrier(cmd); /* the results visible to the next submission (a download) */
        if (i >= b->warm && (i - b->warm + 1) % b->per_sample == 0)
            vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b->queries,
                                (i - b->warm + 1) / b->per_sample);
    }
    return DMLS_OK;
}

/* The device's timestamp period (ns a tick), and whether its queue has them. */
static dmls_status tick_ns(const dmls_vulkan_context *ctx, double *ns) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(ctx->physical, &p);
    uint32_t n = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical, &n, NULL);
    VkQueueFamilyProperties *f = calloc(n ? n : 1, sizeof *f);
    RETURN_IF(f == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "no memory for %u queue families", n);
    vkGetPhysicalDeviceQueueFamilyProperties(ctx->physical, &n, f);
    const uint32_t bits = ctx->family < n ? f[ctx->family].timestampValidBits : 0;
    free(f);
    RETURN_IF(bits == 0 || p.limits.timestampPeriod <= 0, DMLS_ERROR_UNSUPPORTED, NULL,
              "Vulkan: %s's queue family %u has no timestamps to time work with", p.deviceName, ctx->family);
    *ns = p.limits.timestampPeriod;
    return DMLS_OK;
}

dmls_status dmls_vk_device_time(dmls_device *dev, const dmls_device_work *w, uint32_t warm, uint32_t samples,
                                uint32_t per_sample, double *seconds) {
    vk_device *d = dev->state;
    burst b = {w, NULL, warm, samples, per_sample, VK_NULL_HANDLE};
    double ns = 0;
    if (samples > 0) {
        RETURN_IF_ERROR(tick_ns(d->ctx, &ns));
        RETURN_IF_ERROR(queries_for(d, samples + 1));
        b.queries = d->queries;
    }
    if (w->op == NULL && w->batch == NULL) {
        if (w->out[0].bytes == 0) { /* an empty copy: nothing to run */
            for (uint32_t i = 0; i < samples; i++) seconds[i] = 0;
            return DMLS_OK;
        }
        RETURN_IF_ERROR(dmls_device_copy_op(dev, w->out[0].bytes, &b.copy));
    }
    RETURN_IF_ERROR(dmls_vk_submit(d->ctx, "device_time", record_burst, &b));
    if (samples == 0) return DMLS_OK;
    uint64_t *t = malloc(sizeof *t * ((size_t)samples + 1));
    RETURN_IF(t == NULL, DMLS_ERROR_OUT_OF_MEMORY, NULL, "no memory for %u timestamps", samples + 1);
    const VkResult r = vkGetQueryPoolResults(d->ctx->device, d->queries, 0, samples + 1,
                                             sizeof *t * ((size_t)samples + 1), t, sizeof t[0],
                                             VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    for (uint32_t i = 0; r == VK_SUCCESS && i < samples; i++)
        seconds[i] = (double)(t[i + 1] - t[i]) * ns * 1e-9 / per_sample;
    free(t);
    RETURN_IF(r != VK_SUCCESS, DMLS_ERROR_DEVICE, NULL, "Vulkan: vkGetQueryPoolResults: %s", dmls_vk_result_name(r));
    return DMLS_OK;
}
