/* A context's VkPipelineCache and its file on disk (pipeline_cache.c). */
#ifndef DMLS_VULKAN_PIPELINE_CACHE_H
#define DMLS_VULKAN_PIPELINE_CACHE_H

#include <stdbool.h>

#include "context.h"

/* Where ctx's cache came from (ctx->cache_state): no file is read or
 * written (DMLSLICE_DISABLE_PIPELINE_CACHE, or no cache folder known), none
 * was usable (missing, damaged, foreign: ignored), or it was loaded. */
enum { DMLS_VK_CACHE_OFF, DMLS_VK_CACHE_EMPTY, DMLS_VK_CACHE_LOADED };

/* Whether DMLSLICE_DISABLE_PIPELINE_CACHE turns the file off (set, not
 * empty and not "0"). */
bool dmls_vk_cache_disabled(void);

/* Makes ctx->cache for ctx's device, from its file where that is valid;
 * ctx->cache stays VK_NULL_HANDLE (pipelines made without one) only when
 * the driver refuses even an empty cache. Never fails. */
void dmls_vk_cache_open(dmls_vulkan_context *ctx);

/* Writes ctx->cache to its file when pipelines were made and the driver's
 * data changed, then destroys it; ctx->device must still exist. */
void dmls_vk_cache_close(dmls_vulkan_context *ctx);

#endif
