/* How a Vulkan context comes by its pipelines (issue 35 item 9):
 *   - none is made with the context: each is made the first time a
 *     recording needs it, so a run compiles only what it records;
 *   - a pipeline that cannot be made is an error of the record (or
 *     execute) that needed it, not of the context, and the next record
 *     tries again (a build with volk: the test replaces the library's
 *     vkCreateComputePipelines pointer with one that fails);
 *   - the pipeline cache on disk, under $XDG_CACHE_HOME/dmlslice (a folder
 *     of this test's own): written when a context ends, loaded by the next,
 *     not read or written with DMLSLICE_DISABLE_PIPELINE_CACHE, and ignored
 *     when damaged, truncated or foreign (another library version, another
 *     device in Vulkan's own header), with the slices still right.
 * Without a Vulkan device the program exits 77 (CTest: skipped). */
#if defined(__linux__)
#define _GNU_SOURCE /* dl_iterate_phdr, RTLD_NODELETE: vk_harness.h; mkdtemp */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dmlslice/dmlslice_vulkan.h"
#include "../../src/platform/platform.h" /* dmls_env_set */
#include "support/test.h"
#include "vulkan/context.h" /* first: in a build with volk, the Vulkan functions the harness calls */
#include "vulkan/pipeline_cache.h"
#include "vk_harness.h"

#define N 64 /* float32 elements reversed */

static vk_harness H;
static vk_buf in_buf, out_buf;
static dmls_operator *flip;
static char cache_file[4096];

static dmls_vulkan_context *make_context(void) {
    dmls_vulkan_context *c = NULL;
    CHECK_STATUS(dmls_vulkan_context_create_from(H.instance, H.physical, H.device, H.family, 0, &c), DMLS_OK);
    return c;
}

static int made_pipelines(const dmls_vulkan_context *c) {
    int n = 0;
    for (int i = 0; i < DMLS_VK_SHADERS; i++)
        n += (c->pipelines[i] != VK_NULL_HANDLE) + (c->narrow[i] != VK_NULL_HANDLE);
    return n;
}

/* Runs flip on c through dmls_vulkan_execute; whether the output is right. */
static bool flip_runs(dmls_vulkan_context *c, const char *label) {
    memset(out_buf.map, 0xAB, N * 4);
    const dmls_status s = dmls_vulkan_execute(flip, c, in_buf.buffer, 0, N * 4, out_buf.buffer, 0, N * 4);
    CHECK_STATUS(s, DMLS_OK);
    float got[N];
    memcpy(got, out_buf.map, sizeof got);
    for (int i = 0; i < N; i++)
        if (got[i] != (float)(N - 1 - i)) {
            CHECK(false, "%s: element %d is %g, expected %d", label, i, got[i], N - 1 - i);
            return false;
        }
    return s == DMLS_OK;
}

static void test_first_use(void) {
    dmls_vulkan_context *c = make_context();
    if (c == NULL) return;
    CHECK(made_pipelines(c) == 0 && atomic_load(&c->made) == 0, "a new context holds %d pipelines", made_pipelines(c));
    CHECK(flip_runs(c, "first use"), "first use");
    const int after = made_pipelines(c);
    CHECK(after >= 1 && after <= 2, "one slice made %d pipelines (1 or 2 expected)", after);
    CHECK(flip_runs(c, "second use") && made_pipelines(c) == after, "a second run made pipelines again");
    dmls_vulkan_context_destroy(c);
}

#ifdef DMLS_VULKAN_VOLK
static int refusals;
static VKAPI_ATTR VkResult VKAPI_CALL refuse(VkDevice d, VkPipelineCache cache, uint32_t n,
                                             const VkComputePipelineCreateInfo *info,
                                             const VkAllocationCallbacks *alloc, VkPipeline *out) {
    (void)d, (void)cache, (void)info, (void)alloc;
    refusals++;
    for (uint32_t i = 0; i < n; i++) out[i] = VK_NULL_HANDLE;
    return VK_ERROR_OUT_OF_DEVICE_MEMORY;
}

/* The library's own pointer (vk.h's name for it) replaced while a
 * context is made and a slice recorded. */
static void test_failure_at_record(void) {
    PFN_vkCreateComputePipelines real = vkCreateComputePipelines;
    vkCreateComputePipelines = refuse;
    dmls_vulkan_context *c = make_context();
    CHECK(refusals == 0, "the context asked for %d pipelines when made", refusals);
    if (c != NULL) {
        vk_harness_begin(&H);
        const dmls_status s =
            dmls_vulkan_record(flip, c, H.cmd, in_buf.buffer, 0, N * 4, out_buf.buffer, 0, N * 4);
        CHECK_STATUS(s, DMLS_ERROR_DEVICE);
        CHECK(strstr(dmls_last_error(), "vkCreateComputePipelines") != NULL &&
                  strstr(dmls_last_error(), "VK_ERROR_OUT_OF_DEVICE_MEMORY") != NULL,
              "message: %s", dmls_last_error());
        vk_harness_submit(&H); /* nothing was recorded: an empty submit */
        CHECK_STATUS(dmls_vulkan_execute(flip, c, in_buf.buffer, 0, N * 4, out_buf.buffer, 0, N * 4),
                     DMLS_ERROR_DEVICE);
        CHECK(refusals >= 2 && made_pipelines(c) == 0, "%d refusals, %d pipelines", refusals, made_pipelines(c));
    }
    vkCreateComputePipelines = real;
    if (c != NULL) CHECK(flip_runs(c, "after the failures"), "the pipeline is made once it can be");
    dmls_vulkan_context_destroy(c);
}

static VKAPI_ATTR VkResult VKAPI_CALL refuse_module(VkDevice d, const VkShaderModuleCreateInfo *info,
                                                    const VkAllocationCallbacks *alloc, VkShaderModule *out) {
    (void)d, (void)info, (void)alloc;
    *out = VK_NULL_HANDLE;
    return VK_ERROR_OUT_OF_HOST_MEMORY;
}

/* A shader module that cannot be made: the message names that call, not
 * the pipeline's, and the pipeline is made once the module can be. */
static void test_module_failure_at_record(void) {
    PFN_vkCreateShaderModule real = vkCreateShaderModule;
    dmls_vulkan_context *c = make_context();
    vkCreateShaderModule = refuse_module;
    if (c != NULL) {
        CHECK_STATUS(dmls_vulkan_execute(flip, c, in_buf.buffer, 0, N * 4, out_buf.buffer, 0, N * 4),
                     DMLS_ERROR_DEVICE);
        CHECK(strstr(dmls_last_error(), "vulkan: vkCreateShaderModule (shader") != NULL &&
                  strstr(dmls_last_error(), "VK_ERROR_OUT_OF_HOST_MEMORY") != NULL,
              "message: %s", dmls_last_error());
    }
    vkCreateShaderModule = real;
    if (c != NULL) CHECK(flip_runs(c, "after the module failure"), "the pipeline is made once the module can be");
    dmls_vulkan_context_destroy(c);
}
#endif

/* ---------------------------------------------------------- disk cache */

static long file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return -1;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    fclose(f);
    return n;
}

/* The file as it is; *n its length (at most cap). */
static size_t read_file(const char *path, unsigned char *buf, size_t cap) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) return 0;
    const size_t n = fread(buf, 1, cap, f);
    fclose(f);
    return n;
}

static void write_file(const char *path, const unsigned char *buf, size_t n) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL && fwrite(buf, 1, n, f) == n, "cannot write %s", path);
    if (f != NULL) fclose(f);
}

/* A context's cache state after one slice; the file written at its end. */
static int cycle(const char *label) {
    dmls_vulkan_context *c = make_context();
    if (c == NULL) return -1;
    const int state = c->cache_state;
    CHECK(flip_runs(c, label), "%s", label);
    dmls_vulkan_context_destroy(c);
    return state;
}

static uint64_t fnv1a(const unsigned char *p, size_t n) { /* pipeline_cache.c's checksum, recomputed */
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3u;
    return h;
}

/* Each damage, then a clean run that rewrites the file. */
static void test_damaged(const unsigned char *good, size_t n) {
    unsigned char bad[1 << 16];
    memcpy(bad, good, n);
    bad[n - 1] ^= 0x55; /* the driver's data: the checksum no longer fits */
    write_file(cache_file, bad, n);
    CHECK(cycle("damaged data") == DMLS_VK_CACHE_EMPTY, "a damaged file was loaded");
    CHECK(cycle("rewritten") == DMLS_VK_CACHE_LOADED, "the damaged file was not replaced");
    write_file(cache_file, good, n - 1); /* truncated */
    CHECK(cycle("truncated") == DMLS_VK_CACHE_EMPTY, "a truncated file was loaded");
    write_file(cache_file, good, 40); /* inside the library's header */
    CHECK(cycle("truncated header") == DMLS_VK_CACHE_EMPTY, "a file of 40 bytes was loaded");
    memcpy(bad, good, n);
    bad[32] ^= 1; /* the library version */
    write_file(cache_file, bad, n);
    CHECK(cycle("another library version") == DMLS_VK_CACHE_EMPTY, "another library's file was loaded");
    memcpy(bad, good, n);
    bad[64 + 8] ^= 1; /* Vulkan's header: vendorID; the checksum made to fit */
    const uint64_t sum = fnv1a(bad + 64, n - 64);
    memcpy(bad + 56, &sum, 8);
    write_file(cache_file, bad, n);
    CHECK(cycle("another vendor") == DMLS_VK_CACHE_EMPTY, "another vendor's cache data was loaded");
    memcpy(bad, good, n);
    memset(bad + 64, 0, n - 64); /* headerSize 0 */
    const uint64_t zero_sum = fnv1a(bad + 64, n - 64);
    memcpy(bad + 56, &zero_sum, 8);
    write_file(cache_file, bad, n);
    CHECK(cycle("zeroed data") == DMLS_VK_CACHE_EMPTY, "zeroed cache data was loaded");
    CHECK(cycle("clean again") == DMLS_VK_CACHE_LOADED, "the file was not replaced");
}

static void test_disk_cache(void) {
    char dir[] = "/tmp/dmls-pipeline-cache-XXXXXX";
    if (mkdtemp(dir) == NULL) {
        CHECK(false, "mkdtemp failed");
        return;
    }
    dmls_env_set("XDG_CACHE_HOME", dir);
    dmls_env_set("DMLSLICE_DISABLE_PIPELINE_CACHE", "1");
    CHECK(cycle("cache off") == DMLS_VK_CACHE_OFF, "DMLSLICE_DISABLE_PIPELINE_CACHE did not turn the file off");
    char sub[4200];
    snprintf(sub, sizeof sub, "%s/dmlslice", dir);
    CHECK(access(sub, F_OK) != 0, "a file was written with DMLSLICE_DISABLE_PIPELINE_CACHE");
    dmls_env_set("DMLSLICE_DISABLE_PIPELINE_CACHE", "0");
    CHECK(cycle("no file yet") == DMLS_VK_CACHE_EMPTY, "a cache was loaded from nowhere");
    dmls_vulkan_context *c = make_context();
    if (c != NULL) {
        CHECK(c->cache_state == DMLS_VK_CACHE_LOADED, "the file the first context wrote was not loaded");
        CHECK(c->cache_path != NULL && strncmp(c->cache_path, sub, strlen(sub)) == 0, "cache at %s, not under %s",
              c->cache_path ? c->cache_path : "(none)", sub);
        snprintf(cache_file, sizeof cache_file, "%s", c->cache_path ? c->cache_path : "");
        dmls_vulkan_context_destroy(c);
    }
    unsigned char good[1 << 16];
    const size_t n = read_file(cache_file, good, sizeof good);
    CHECK(n >= 96 && (long)n == file_size(cache_file) && memcmp(good, "dmlsVKpc", 8) == 0,
          "the cache file %s (%zu bytes) is not the library's", cache_file, n);
    if (n >= 96 && (long)n == file_size(cache_file)) test_damaged(good, n);
    dmls_env_set("XDG_CACHE_HOME", "relative/folder"); /* ignored, as the XDG rules say: $HOME/.cache */
    dmls_env_set("HOME", dir);
    CHECK(cycle("relative XDG_CACHE_HOME") == DMLS_VK_CACHE_EMPTY, "relative XDG_CACHE_HOME");
    snprintf(sub, sizeof sub, "%s/.cache/dmlslice", dir);
    CHECK(access(sub, F_OK) == 0, "no cache under $HOME/.cache with a relative XDG_CACHE_HOME");
    printf("disk cache: %zu bytes in %s\n", n, cache_file);
    /* The test's folder goes: the two files and their folders. */
    const char *base = strrchr(cache_file, '/');
    char other[4400];
    snprintf(other, sizeof other, "%s/%s", sub, base ? base + 1 : "");
    remove(other), remove(cache_file);
    rmdir(sub);
    snprintf(sub, sizeof sub, "%s/.cache", dir), rmdir(sub);
    snprintf(sub, sizeof sub, "%s/dmlslice", dir), rmdir(sub);
    CHECK(rmdir(dir) == 0, "%s is not empty at the end", dir);
}

int main(void) {
    const int device = getenv("DMLS_TEST_VULKAN_DEVICE") ? atoi(getenv("DMLS_TEST_VULKAN_DEVICE")) : 0;
    if (vk_harness_open(&H, device) != 0) {
        printf("no Vulkan device %d: skipped\n", device);
        TEST_MAIN_END_SKIP();
    }
    printf("device: %s\n", H.name);
    in_buf = vk_buf_make(H.physical, H.device, N * 4);
    out_buf = vk_buf_make(H.physical, H.device, N * 4);
    for (int i = 0; i < N; i++) ((float *)(void *)in_buf.map)[i] = (float)i;
    const int64_t shape[1] = {N}, off[1] = {0}, step[1] = {-1};
    const dmls_tensor t = {DMLS_FLOAT32, 1, shape, NULL, 0};
    const dmls_window w = {off, shape, step};
    CHECK_STATUS(dmls_create(&t, &t, &w, &flip), DMLS_OK);
    if (flip != NULL) {
        test_disk_cache(); /* first: its own XDG_CACHE_HOME before any context */
        test_first_use();
#ifdef DMLS_VULKAN_VOLK
        test_failure_at_record();
        test_module_failure_at_record();
#else
        printf("failure at record: needs a build with volk (the library's vkCreateComputePipelines pointer)\n");
#endif
    }
    dmls_destroy(flip);
    vk_buf_free(H.device, &in_buf);
    vk_buf_free(H.device, &out_buf);
    vk_harness_close(&H);
    CHECK(vk_messages == 0, "%lu validation messages", vk_messages);
    TEST_MAIN_END();
}
