/* A context's VkPipelineCache, kept on disk between processes, so that a
 * run's pipelines come from the driver's cache instead of its compiler.
 *
 * The file, $XDG_CACHE_HOME/dmlslice/vulkan-UUID.bin (else
 * ~/.cache/dmlslice/...), one per device UUID, is this library's header
 * (file_header: the device UUID, the driver version and the library version
 * it was made with, and the length and checksum of what follows) and then
 * the driver's cache data as vkGetPipelineCacheData gave it, whose own
 * header (VkPipelineCacheHeaderVersionOne) names the vendor, device and
 * pipelineCacheUUID. A file is a hint, never trusted: one that is damaged,
 * truncated, of another device, driver or library version, or too large is
 * ignored and the cache starts empty; drivers are not required to survive
 * bad data, so it never reaches vkCreatePipelineCache. Nothing here fails a
 * context: without a usable folder or file the pipelines are compiled, as
 * they are with DMLSLICE_DISABLE_PIPELINE_CACHE set. The file is written at
 * context destroy when the driver's data changed, atomically
 * (dmls_file_replace), so concurrent processes each leave a whole file. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "dmlslice/dmlslice_version.h"
#include "pipeline_cache.h"

#define MAGIC         "dmlsVKpc"
#define FORMAT        1u
#define MAX_DATA      ((uint64_t)64 << 20) /* a cache of a few dozen pipelines is well below */
#define VK_HEADER_MIN 32u                  /* sizeof(VkPipelineCacheHeaderVersionOne) in Vulkan 1.0 */

typedef struct file_header {
    char magic[8];
    uint32_t format;
    uint32_t driver_version;
    uint8_t device_uuid[16];
    char library[16]; /* DMLS_VERSION_STRING, NUL-padded */
    uint64_t data_bytes;
    uint64_t checksum; /* of the data: FNV-1a, 64 bits */
} file_header;
_Static_assert(sizeof(file_header) == 64, "file_header has no padding");

static uint64_t fnv1a(const unsigned char *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

bool dmls_vk_cache_disabled(void) {
    const char *off = getenv("DMLSLICE_DISABLE_PIPELINE_CACHE");
    return off != NULL && off[0] != '\0' && strcmp(off, "0") != 0;
}

/* This device's header, as a file made now would carry it. */
static bool expected_header(const dmls_vulkan_context *ctx, file_header *h) {
    memset(h, 0, sizeof *h);
    VkPhysicalDeviceIDProperties id = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES};
    VkPhysicalDeviceProperties2 p = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &id};
#ifdef DMLS_VULKAN_VOLK
    if (vkGetPhysicalDeviceProperties2 == NULL) return false; /* a Vulkan 1.0 instance: no device UUID */
#endif
    vkGetPhysicalDeviceProperties2(ctx->physical, &p);
    memcpy(h->magic, MAGIC, 8);
    h->format = FORMAT;
    h->driver_version = p.properties.driverVersion;
    memcpy(h->device_uuid, id.deviceUUID, 16);
    snprintf(h->library, sizeof h->library, "%s", DMLS_VERSION_STRING);
    return true;
}

/* The file's path for this device, or NULL (no cache folder known). */
static char *cache_path(const file_header *want) {
    char *base = dmls_user_cache_dir();
    if (base == NULL) return NULL;
    const size_t n = strlen(base) + sizeof "/dmlslice/vulkan-.bin" + 32;
    char *path = malloc(n);
    if (path != NULL) {
        int at = snprintf(path, n, "%s/dmlslice/vulkan-", base);
        for (int i = 0; i < 16; i++) at += snprintf(path + at, n - (size_t)at, "%02x", want->device_uuid[i]);
        snprintf(path + at, n - (size_t)at, ".bin");
    }
    free(base);
    return path;
}

/* Whether data, the driver's part of a file, is for this device: Vulkan's
 * own header (VkPipelineCacheHeaderVersionOne, little-endian words). */
static bool vulkan_header_fits(const dmls_vulkan_context *ctx, const unsigned char *data, uint64_t bytes) {
    uint32_t w[4];
    for (int i = 0; i < 4; i++)
        w[i] = (uint32_t)data[4 * i] | (uint32_t)data[4 * i + 1] << 8 | (uint32_t)data[4 * i + 2] << 16 |
               (uint32_t)data[4 * i + 3] << 24;
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(ctx->physical, &p);
    return w[0] >= VK_HEADER_MIN && w[0] <= bytes && w[1] == (uint32_t)VK_PIPELINE_CACHE_HEADER_VERSION_ONE &&
           w[2] == p.vendorID && w[3] == p.deviceID && memcmp(data + 16, p.pipelineCacheUUID, VK_UUID_SIZE) == 0;
}

/* The driver's data of the file at path when every check passes; else NULL. */
static unsigned char *read_valid(const dmls_vulkan_context *ctx, const char *path, const file_header *want,
                                 size_t *bytes) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    file_header h;
    unsigned char *data = NULL;
    bool ok = fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, want->magic, 8) == 0 && h.format == want->format &&
              h.driver_version == want->driver_version && memcmp(h.device_uuid, want->device_uuid, 16) == 0 &&
              memcmp(h.library, want->library, sizeof h.library) == 0 && h.data_bytes >= VK_HEADER_MIN &&
              h.data_bytes <= MAX_DATA;
    if (ok) data = malloc((size_t)h.data_bytes);
    ok = ok && data != NULL && fread(data, 1, (size_t)h.data_bytes, f) == h.data_bytes && fgetc(f) == EOF &&
         fnv1a(data, (size_t)h.data_bytes) == h.checksum && vulkan_header_fits(ctx, data, h.data_bytes);
    fclose(f);
    if (!ok) {
        free(data);
        return NULL;
    }
    *bytes = (size_t)h.data_bytes;
    return data;
}

void dmls_vk_cache_open(dmls_vulkan_context *ctx) {
    file_header want;
    size_t bytes = 0;
    unsigned char *data = NULL;
    ctx->cache_state = DMLS_VK_CACHE_OFF;
    if (!dmls_vk_cache_disabled() && expected_header(ctx, &want) && (ctx->cache_path = cache_path(&want)) != NULL) {
        data = read_valid(ctx, ctx->cache_path, &want, &bytes);
        ctx->cache_state = data != NULL ? DMLS_VK_CACHE_LOADED : DMLS_VK_CACHE_EMPTY;
        ctx->cache_sum = data != NULL ? fnv1a(data, bytes) : 0;
        ctx->cache_bytes = bytes;
    }
    VkPipelineCacheCreateInfo info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    info.initialDataSize = bytes, info.pInitialData = data;
    if (vkCreatePipelineCache(ctx->device, &info, NULL, &ctx->cache) != VK_SUCCESS && data != NULL) {
        /* Refused as it came: the pipelines are compiled, and the file replaced. */
        info.initialDataSize = 0, info.pInitialData = NULL;
        ctx->cache_state = DMLS_VK_CACHE_EMPTY, ctx->cache_bytes = 0;
        if (vkCreatePipelineCache(ctx->device, &info, NULL, &ctx->cache) != VK_SUCCESS) ctx->cache = VK_NULL_HANDLE;
    }
    free(data);
}

/* Writes the driver's data after this device's header, when it changed. */
static void save(dmls_vulkan_context *ctx) {
    file_header h;
    size_t bytes = 0;
    if (!expected_header(ctx, &h) || vkGetPipelineCacheData(ctx->device, ctx->cache, &bytes, NULL) != VK_SUCCESS ||
        bytes < VK_HEADER_MIN || bytes > MAX_DATA)
        return;
    unsigned char *file = malloc(sizeof h + bytes);
    if (file == NULL) return;
    if (vkGetPipelineCacheData(ctx->device, ctx->cache, &bytes, file + sizeof h) == VK_SUCCESS) {
        h.data_bytes = bytes, h.checksum = fnv1a(file + sizeof h, bytes);
        memcpy(file, &h, sizeof h);
        const bool same = ctx->cache_state == DMLS_VK_CACHE_LOADED && bytes == ctx->cache_bytes &&
                          h.checksum == ctx->cache_sum;
        const char *slash = strrchr(ctx->cache_path, '/');
        char *dir = slash != NULL ? malloc((size_t)(slash - ctx->cache_path) + 1) : NULL;
        if (!same && dir != NULL) {
            memcpy(dir, ctx->cache_path, (size_t)(slash - ctx->cache_path));
            dir[slash - ctx->cache_path] = '\0';
            if (dmls_dirs_make(dir) == 0) (void)dmls_file_replace(ctx->cache_path, file, sizeof h + bytes);
        }
        free(dir);
    }
    free(file);
}

void dmls_vk_cache_close(dmls_vulkan_context *ctx) {
    if (ctx->cache != VK_NULL_HANDLE) {
        if (ctx->cache_path != NULL && atomic_load(&ctx->made) > 0) save(ctx);
        vkDestroyPipelineCache(ctx->device, ctx->cache, NULL);
        ctx->cache = VK_NULL_HANDLE;
    }
    free(ctx->cache_path);
    ctx->cache_path = NULL;
}
