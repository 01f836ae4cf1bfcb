/*
 * batch_vulkan.h: run a planned batch (<dmlslice/batch.h>) on a Vulkan
 * device, with the caller's VkBuffers.
 *
 * These functions exist only in builds with the Vulkan backend
 * (DMLS_HAVE_VULKAN is defined for users of the CMake target then). As
 * DirectML records many dispatches into one command list, a batch is
 * recorded into one command buffer, with barriers only where two items'
 * outputs share a 32-bit word (an output that starts or ends inside a word)
 * and, for SLICE_GRAD items, between all the zero fills and all the
 * scatters. A batch prepared for the context (dmls_batch_prepare_vulkan)
 * runs its items in a few dispatches, each over a table of items in device
 * memory; otherwise every item is a dispatch of its own.
 */
#ifndef DMLSLICE_BATCH_VULKAN_H
#define DMLSLICE_BATCH_VULKAN_H

#include "batch.h"
#include "dmlslice_vulkan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One slot's binding: a buffer of the context's device, the slot's first
 * byte in it, and the bytes usable from there. Several slots may share a
 * buffer at different offsets. */
typedef struct dmls_vulkan_binding {
    VkBuffer buffer;
    uint64_t offset;
    uint64_t bytes;
} dmls_vulkan_binding;

/*
 * dmls_batch_prepare_vulkan: group the batch's items into a few dispatches
 * for ctx, once (later calls with the same context return at once): at most
 * one per shader, phase and pair of slots, whatever the number of items.
 * Allocates the table in ctx's device memory, freed by dmls_batch_destroy
 * or by dmls_vulkan_context_destroy, whichever comes first (the batch then
 * runs unprepared; either order is safe, not both at once), makes the
 * shaders' batch pipelines, and submits the table's upload on ctx's queue
 * and waits for it. A prepared batch records its groups when every slot is
 * bound at an offset that is a multiple of 16; items whose output starts or
 * ends inside a 32-bit word, items of the byte shader (bytes.comp) and
 * items beyond one binding are recorded one by one, as unprepared ones.
 * Crops whose starts are bound at execute (dmls_batch_create_crops with
 * starts NULL: boxes or page numbers a shader just wrote) run only
 * prepared: the grouped shaders read each crop's starts from input slot 1
 * and clamp them as the CPU does (R-CROP-BOUNDS: to [0, dim - size]);
 * such crops must all group (DMLS_ERROR_UNSUPPORTED otherwise, e.g. an
 * output that shares a word). Returns DMLS_OK;
 * DMLS_ERROR_INVALID_ARGUMENT (NULL, or a batch prepared for another
 * context), DMLS_ERROR_UNSUPPORTED, DMLS_ERROR_OUT_OF_MEMORY or
 * DMLS_ERROR_DEVICE.
 * Thread-safe; not to be called while another thread destroys the batch.
 */
DMLS_API dmls_status dmls_batch_prepare_vulkan(dmls_batch *batch, dmls_vulkan_context *ctx);

/*
 * dmls_batch_record_vulkan: record every item of batch into the caller's
 * command buffer (as dmls_vulkan_record does one operator).
 *   inputs, n_inputs    one binding per input slot, in slot order.
 *   outputs, n_outputs  one binding per output slot.
 * Checks before recording anything, as dmls_batch_execute does, on the
 * offsets and byte counts: slot counts, VK_NULL_HANDLE where a slot holds
 * bytes, sizes (R-X-BOUNDS), DirectML's binding alignment on the offsets
 * (R-X-ALIGN), and no output byte shared with an input or another output of
 * the same VkBuffer (R-B-OVERLAP; an error names the items). Crops whose
 * starts are bound at execute (dmls_batch_create_crops with starts NULL)
 * need the batch prepared with ctx and every slot at an offset that is a
 * multiple of 16: DMLS_ERROR_UNSUPPORTED otherwise.
 * Synchronisation with the caller's other work, and the command buffer's
 * state, are as for dmls_vulkan_record. Nothing is allocated but a table of
 * the slots' bindings for the checks, past 128 slots. Returns DMLS_OK or an
 * error with nothing recorded.
 */
DMLS_API dmls_status dmls_batch_record_vulkan(const dmls_batch *batch, const dmls_vulkan_context *ctx,
                                              VkCommandBuffer cmd, const dmls_vulkan_binding *inputs,
                                              uint32_t n_inputs, const dmls_vulkan_binding *outputs,
                                              uint32_t n_outputs);

/*
 * dmls_batch_execute_vulkan: record the batch into the context's own
 * command buffer, submit it and wait on a fence: every output is complete
 * on return. Checks, return values and thread safety as
 * dmls_batch_record_vulkan and dmls_vulkan_execute (DMLS_ERROR_DEVICE when
 * a Vulkan call fails).
 */
DMLS_API dmls_status dmls_batch_execute_vulkan(const dmls_batch *batch, dmls_vulkan_context *ctx,
                                               const dmls_vulkan_binding *inputs, uint32_t n_inputs,
                                               const dmls_vulkan_binding *outputs, uint32_t n_outputs);

#ifdef __cplusplus
}
#endif

#endif /* DMLSLICE_BATCH_VULKAN_H */
