/*
 * dmlslice_vulkan.h: run a planned slice operator on any Vulkan device.
 *
 * The same dmls_operator that dmls_execute runs on the CPU runs here on
 * VkBuffers: plan once with dmls_create / dmls_create_grad /
 * dmls_create_dml, make a context for a device, then either record the
 * operator into your own command buffer (dmls_vulkan_record, as DirectML
 * records into a command list) or let the library submit it and wait
 * (dmls_vulkan_execute). These functions exist only in builds with the
 * Vulkan backend (DMLS_HAVE_VULKAN is defined for users of the CMake target
 * then). The shaders are SPIR-V compiled at build time and embedded; nothing
 * is compiled at run time.
 *
 * What a device must offer: Vulkan 1.1 and VK_KHR_push_descriptor (the
 * buffers are bound without allocating descriptor sets). 8- and 16-bit
 * storage is not needed: 1- and 2-byte elements are moved inside whole
 * 32-bit words. Device limits are respected, never a reason to refuse a
 * tensor: work larger than maxStorageBufferRange is split across dispatches
 * with bindings that fit, and dispatches stay within
 * maxComputeWorkGroupCount.
 *
 * Buffers: a tensor is bound as a VkBuffer, a byte offset into it and a
 * byte count from that offset (the CPU path's pointer and size). The
 * buffers need VK_BUFFER_USAGE_STORAGE_BUFFER_BIT. The shaders access whole
 * 32-bit words, so the buffer must extend to the next multiple of 4 bytes
 * past offset + bytes (Vulkan buffer sizes usually are multiples of 4), and
 * output bytes that share a word with the output tensor but lie outside it
 * are read and written back unchanged: no other work may write them while
 * the operator runs. Overlap of the two tensors' byte ranges is checked when
 * both are in one VkBuffer (R-X-OVERLAP); two distinct VkBuffers that alias
 * the same memory cannot be seen and must not be bound together.
 */
#ifndef DMLSLICE_VULKAN_H
#define DMLSLICE_VULKAN_H

#include <vulkan/vulkan.h>

#include "dmlslice.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A device the library runs operators on, with its pipelines. */
typedef struct dmls_vulkan_context dmls_vulkan_context;

/* dmls_vulkan_context_create flags. */
enum {
    /* Enable the Khronos validation layer (VK_LAYER_KHRONOS_validation) and
     * a debug-utils messenger: each message is printed to stderr and counted
     * (dmls_vulkan_context_messages). For tests and debugging. */
    DMLS_VULKAN_VALIDATION = 1
};

/*
 * dmls_vulkan_device_count: the physical devices a Vulkan instance sees.
 * Returns DMLS_OK with *count >= 1, or DMLS_ERROR_NO_DEVICE (no loader, no
 * driver, no device; dmls_last_error() says which) with *count = 0.
 * Creates and destroys an instance each call. Thread-safe.
 */
DMLS_API dmls_status dmls_vulkan_device_count(int *count);

/*
 * dmls_vulkan_device_name: the name of physical device `device` in
 * enumeration order ("llvmpipe (LLVM 15.0.6, 256 bits)"), truncated to
 * name_size and NUL-terminated when name_size > 0, and its
 * VkPhysicalDeviceType and API version (each may be NULL). Returns
 * DMLS_ERROR_NO_DEVICE when there is no such device.
 */
DMLS_API dmls_status dmls_vulkan_device_name(int device, char *name, size_t name_size, int *type,
                                             uint32_t *api_version);

/*
 * dmls_vulkan_context_create: a context on physical device `device`
 * (enumeration order) with an instance, a device and a compute queue the
 * library creates and owns. flags: 0 or DMLS_VULKAN_VALIDATION. Returns
 * DMLS_OK, DMLS_ERROR_NO_DEVICE (no such device, no compute queue, or
 * VK_KHR_push_descriptor missing), DMLS_ERROR_DEVICE (a Vulkan call failed;
 * its VkResult is in the message) or DMLS_ERROR_OUT_OF_MEMORY; *ctx is NULL
 * on failure.
 * No pipeline is compiled here: each is made the first time a record needs
 * it, through a VkPipelineCache that the library keeps on disk, one file per
 * device in $XDG_CACHE_HOME/dmlslice (else ~/.cache/dmlslice), loaded here
 * when valid for this device, driver and library version (a damaged or
 * foreign file is ignored) and written when the context is destroyed.
 * DMLSLICE_DISABLE_PIPELINE_CACHE=1 in the environment turns the file off.
 */
DMLS_API dmls_status dmls_vulkan_context_create(int device, unsigned flags, dmls_vulkan_context **ctx);

/*
 * dmls_vulkan_context_create_from: a context on the caller's own device, as
 * DirectML takes the caller's D3D12 device. device must have been created
 * from physical_device with VK_KHR_push_descriptor enabled and a queue of
 * queue_family, which must support compute (queue_index names the queue
 * dmls_vulkan_execute submits to; dmls_vulkan_record never submits). The
 * library creates its pipelines (as records first need them), its pipeline
 * cache, and a command pool and fence for dmls_vulkan_execute, on that
 * device; it never destroys the caller's objects. The caller keeps them alive until dmls_vulkan_context_destroy.
 * Returns as dmls_vulkan_context_create.
 */
DMLS_API dmls_status dmls_vulkan_context_create_from(VkInstance instance, VkPhysicalDevice physical_device,
                                                     VkDevice device, uint32_t queue_family, uint32_t queue_index,
                                                     dmls_vulkan_context **ctx);

/* Destroys what the library created (everything, for dmls_vulkan_context_create).
 * No work recorded from ctx may still be pending. NULL is a no-op. */
DMLS_API void dmls_vulkan_context_destroy(dmls_vulkan_context *ctx);

/* The context's device and queue (those it was given, or those it created),
 * for callers that allocate buffers on a library-created context. Any
 * pointer may be NULL. */
DMLS_API void dmls_vulkan_context_handles(const dmls_vulkan_context *ctx, VkInstance *instance,
                                          VkPhysicalDevice *physical_device, VkDevice *device, uint32_t *queue_family,
                                          VkQueue *queue);

/* Validation messages seen so far on a context made with
 * DMLS_VULKAN_VALIDATION (0 otherwise). Thread-safe. */
DMLS_API uint64_t dmls_vulkan_context_messages(const dmls_vulkan_context *ctx);

/*
 * dmls_vulkan_record: record op into the caller's command buffer.
 *   cmd                a command buffer of ctx's device in the recording
 *                      state, from a pool of a compute-capable family.
 *   in, in_offset, in_bytes     the bound input: buffer, offset, bytes usable.
 *   out, out_offset, out_bytes  the bound output.
 * Checks before recording anything, as dmls_execute does: buffers not
 * VK_NULL_HANDLE unless the tensor needs 0 bytes, sizes (R-X-BOUNDS),
 * DirectML's binding alignment on the offsets for operators made from
 * DirectML descriptors (R-X-ALIGN), no overlap of the two tensors' byte
 * ranges when in == out (R-X-OVERLAP).
 * Records compute dispatches (with push descriptors and push constants),
 * and compute-to-compute barriers between its own dispatches (SLICE_GRAD's
 * fill before its scatter). Synchronisation with the caller's other work is
 * the caller's: a barrier before (the input written) and after (the output
 * read). The bound compute pipeline, descriptors and push constants of cmd
 * are changed. The first record that needs one of ctx's pipelines makes it
 * (under a lock of ctx); nothing else is allocated, so many threads may
 * record at once (each into its own command buffer).
 * Returns DMLS_OK, a binding error, or DMLS_ERROR_DEVICE when a pipeline
 * cannot be made (its VkResult in the message; a later record tries
 * again); nothing is recorded on an error.
 */
DMLS_API dmls_status dmls_vulkan_record(const dmls_operator *op, const dmls_vulkan_context *ctx, VkCommandBuffer cmd,
                                        VkBuffer in, uint64_t in_offset, uint64_t in_bytes, VkBuffer out,
                                        uint64_t out_offset, uint64_t out_bytes);

/*
 * dmls_vulkan_execute: record op into the context's own command buffer,
 * submit it to the context's queue and wait on a fence: the output is
 * complete on return. The caller's earlier work that writes the input must
 * be complete (or submitted to the same queue before). Calls on one context
 * are serialised (a mutex); the queue must not be used by other threads
 * during the call (Vulkan's external synchronisation of a queue). Returns
 * DMLS_OK, a binding error (nothing submitted) or DMLS_ERROR_DEVICE.
 */
DMLS_API dmls_status dmls_vulkan_execute(const dmls_operator *op, dmls_vulkan_context *ctx, VkBuffer in,
                                         uint64_t in_offset, uint64_t in_bytes, VkBuffer out, uint64_t out_offset,
                                         uint64_t out_bytes);

#ifdef __cplusplus
}
#endif

#endif /* DMLSLICE_VULKAN_H */
