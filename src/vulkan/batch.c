/* A batch on Vulkan (batch_vulkan.h): the binding checks of every batch
 * executor on VkBuffer offsets (batch_bind.c's, each buffer a space of its
 * own), then every item's dispatches in one command buffer: a prepared
 * batch's groups (batch_table.c) as one dispatch each, the other items one
 * by one.
 *
 * Barriers: items' outputs never share a byte (R-B-OVERLAP), but the
 * shaders of 1- and 2-byte elements write whole 32-bit words, so two items
 * whose outputs meet inside one word must not run at once. An output whose
 * first and last bytes bound whole words (its offset and end multiples of
 * 4 in its buffer) writes only words of its own; those items are recorded
 * first, with no barrier between them, and each other item after a
 * barrier. SLICE_GRAD items' zero fills all come first, then one barrier,
 * then every item's copy. */
#include "../batch/batch.h"
#include "../error.h"
#include "batch_table.h"
#include "context.h"
#include "dmlslice/batch_vulkan.h"

typedef struct vk_batch_call {
    const dmls_batch *b;
    const dmls_vulkan_binding *in, *out;
    const dmls_vk_batch *table; /* the prepared groups these bindings can run, or NULL */
} vk_batch_call;

/* Each VkBuffer a space of its own: offsets compare only within one. */
static dmls_place vk_place(const dmls_batch *b, const void *inputs, const void *outputs, size_t s) {
    const dmls_vulkan_binding *in = inputs, *out = outputs;
    const dmls_vulkan_binding *v = s < b->in_slots ? &in[s] : &out[s - b->in_slots];
    return (dmls_place){dmls_vk_space_of(v->buffer), v->offset, v->bytes, v->buffer != VK_NULL_HANDLE};
}

/* The binding checks, then what the call records: c->table, the prepared
 * groups the bindings can run, or NULL. */
static dmls_status check(const char *who, const dmls_batch *b, const dmls_vulkan_context *ctx,
                         const dmls_vulkan_binding *inputs, uint32_t n_inputs, const dmls_vulkan_binding *outputs,
                         uint32_t n_outputs, vk_batch_call *c) {
    RETURN_IF_ERROR(dmls_batch_check_bound(who, b, inputs, n_inputs, outputs, n_outputs, vk_place, &dmls_vk_words));
    *c = (vk_batch_call){b, inputs, outputs, dmls_vk_batch_usable(b, ctx, inputs, outputs)};
    /* Starts bound at execute are read by the grouped shaders alone. */
    RETURN_IF(b->crops.on && c->table == NULL, DMLS_ERROR_UNSUPPORTED, NULL,
              "%s: these crops read their starts from input slot 1 at execute, which the Vulkan backend does only "
              "for a batch prepared with this context (dmls_batch_prepare_vulkan) and every slot bound at an offset "
              "that is a multiple of 16; or make the crops with host starts",
              who);
    return DMLS_OK;
}

/* Whether item i's output lies in whole words of its buffer. */
static bool owns_its_words(const vk_batch_call *c, size_t i) {
    uint64_t off, bytes;
    dmls_batch_out_range(c->b, i, &off, &bytes);
    const uint64_t lo = c->out[c->b->items[i].out_slot].offset + off;
    return bytes == 0 || (lo % 4 == 0 && (lo + bytes) % 4 == 0);
}

/* Records phase `phase` of item i; returns its dispatches. */
static int record_item(const vk_batch_call *c, const dmls_vulkan_context *ctx, VkCommandBuffer cmd, size_t i,
                       int phase) {
    const dmls_batch_entry *e = &c->b->items[i];
    const dmls_vulkan_binding *in = &c->in[e->in_slot], *out = &c->out[e->out_slot];
    return dmls_vk_record_phase(ctx, cmd, c->b->ops[e->op], phase, in->buffer, in->offset + e->in_offset, out->buffer,
                                out->offset + e->out_offset);
}

/* One phase: the prepared groups and the other items owning their words,
 * then each other one after a barrier. Returns the dispatches recorded. */
static int record_phase(const vk_batch_call *c, const dmls_vulkan_context *ctx, VkCommandBuffer cmd, int phase) {
    int n = c->table ? dmls_vk_batch_record_groups(c->table, ctx, cmd, c->in, c->out, phase) : 0;
    for (size_t i = 0; i < c->b->count; i++)
        if (owns_its_words(c, i) && !(c->table && dmls_vk_batch_grouped(c->table, i, phase)))
            n += record_item(c, ctx, cmd, i, phase);
    for (size_t i = 0; i < c->b->count; i++) {
        if (owns_its_words(c, i)) continue;
        if (n > 0) dmls_vk_barrier(cmd);
        n += record_item(c, ctx, cmd, i, phase);
    }
    return n;
}

/* The pipelines of the items recorded one by one (record_phase), made
 * before anything is recorded. */
static dmls_status make_item_pipelines(const vk_batch_call *c, const dmls_vulkan_context *ctx) {
    for (int phase = c->b->has_grad ? 0 : 1; phase < 2; phase++)
        for (size_t i = 0; i < c->b->count; i++) {
            if (c->table && dmls_vk_batch_grouped(c->table, i, phase)) continue;
            const dmls_batch_entry *e = &c->b->items[i];
            RETURN_IF_ERROR(dmls_vk_pipelines_for(ctx, c->b->ops[e->op], phase, c->in[e->in_slot].offset + e->in_offset,
                                                  c->out[e->out_slot].offset + e->out_offset));
        }
    return DMLS_OK;
}

static dmls_status record_checked(const void *arg, const dmls_vulkan_context *ctx, VkCommandBuffer cmd) {
    const vk_batch_call *c = arg;
    RETURN_IF_ERROR(make_item_pipelines(c, ctx));
    if (c->b->has_grad && record_phase(c, ctx, cmd, 0) > 0) dmls_vk_barrier(cmd);
    record_phase(c, ctx, cmd, 1);
    return DMLS_OK;
}

dmls_status dmls_batch_record_vulkan(const dmls_batch *b, const dmls_vulkan_context *ctx, VkCommandBuffer cmd,
                                     const dmls_vulkan_binding *inputs, uint32_t n_inputs,
                                     const dmls_vulkan_binding *outputs, uint32_t n_outputs) {
    const char *who = "batch_record_vulkan";
    dmls_clear_error();
    RETURN_IF(ctx == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "%s: Vulkan context is NULL", who);
    RETURN_IF(cmd == VK_NULL_HANDLE, DMLS_ERROR_INVALID_ARGUMENT, NULL, "%s: command buffer is VK_NULL_HANDLE", who);
    vk_batch_call c;
    RETURN_IF_ERROR(check(who, b, ctx, inputs, n_inputs, outputs, n_outputs, &c));
    return record_checked(&c, ctx, cmd);
}

dmls_status dmls_batch_execute_vulkan(const dmls_batch *b, dmls_vulkan_context *ctx, const dmls_vulkan_binding *inputs,
                                      uint32_t n_inputs, const dmls_vulkan_binding *outputs, uint32_t n_outputs) {
    const char *who = "batch_execute_vulkan";
    dmls_clear_error();
    RETURN_IF(ctx == NULL, DMLS_ERROR_INVALID_ARGUMENT, NULL, "%s: Vulkan context is NULL", who);
    /* Checked before the lock and the submit: a binding error submits nothing. */
    vk_batch_call c;
    RETURN_IF_ERROR(check(who, b, ctx, inputs, n_inputs, outputs, n_outputs, &c));
    return dmls_vk_submit(ctx, who, record_checked, &c);
}
