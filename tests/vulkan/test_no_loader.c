/* A machine without a Vulkan loader, in a build with volk (the library
 * loads the API at run time): the first Vulkan call of the library fails
 * with DMLS_ERROR_NO_DEVICE and says that no loader could be loaded, and
 * nothing else breaks. The program stands in for that machine by defining
 * dlopen itself (the library's call binds to it in the static link),
 * refusing the loader and passing anything else on. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <string.h>

#include "dmlslice/dmlslice_vulkan.h"
#include "support/test.h"

static int refused;

void *dlopen(const char *file, int mode) {
    if (file != NULL && strstr(file, "vulkan") != NULL) {
        refused++;
        return NULL;
    }
    void *(*next)(const char *, int) = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
    return next != NULL ? next(file, mode) : NULL;
}

int main(void) {
    int count = -1;
    CHECK_STATUS(dmls_vulkan_device_count(&count), DMLS_ERROR_NO_DEVICE);
    CHECK(strstr(dmls_last_error(), "no Vulkan loader") != NULL, "message: %s", dmls_last_error());
    CHECK(count == 0, "device count %d after the failure", count);
    dmls_vulkan_context *ctx = (dmls_vulkan_context *)1;
    CHECK_STATUS(dmls_vulkan_context_create(0, 0, &ctx), DMLS_ERROR_NO_DEVICE);
    CHECK(strstr(dmls_last_error(), "no Vulkan loader (libvulkan.so.1") != NULL, "message: %s", dmls_last_error());
    CHECK(ctx == NULL, "a failed create left *ctx set");
    CHECK(refused >= 1, "the library never asked for the loader");
    /* The CPU path is untouched. */
    static const int64_t shape[1] = {8}, offs[1] = {2}, sizes[1] = {4}, steps[1] = {1};
    dmls_tensor in = {DMLS_UINT8, 1, shape, NULL, 0}, out = {DMLS_UINT8, 1, sizes, NULL, 0};
    dmls_window w = {offs, sizes, steps};
    dmls_operator *op = NULL;
    CHECK_STATUS(dmls_create(&in, &out, &w, &op), DMLS_OK);
    unsigned char a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[4] = {0};
    CHECK_STATUS(dmls_execute(op, a, 8, b, 4), DMLS_OK);
    CHECK(b[0] == 3 && b[3] == 6, "CPU slice gave %u..%u", b[0], b[3]);
    dmls_destroy(op);
    TEST_MAIN_END();
}
