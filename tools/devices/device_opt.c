/* --device parsing: see device_opt.h. */
#include "device_opt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool device_parse(const char *prog, const char *value, device_choice *d) {
    d->index = 0;
    if (strcmp(value, "cpu") == 0) {
        d->kind = DEVICE_CPU;
        return true;
    }
    if (strcmp(value, "cuda") == 0) {
        d->kind = DEVICE_CUDA;
        return true;
    }
    if (strncmp(value, "vulkan", 6) == 0 && (value[6] == '\0' || value[6] == ':')) {
        d->kind = DEVICE_VULKAN;
        if (value[6] == '\0') return true;
        const char *digits = value + 7;
        char *end = NULL;
        errno = 0;
        const long n = strtol(digits, &end, 10);
        if (digits[0] >= '0' && digits[0] <= '9' && *end == '\0' && errno == 0 && n <= 1000000) {
            d->index = (int)n;
            return true;
        }
        fprintf(stderr, "%s: --device '%s': the Vulkan device number after 'vulkan:' is not a number from 0\n", prog,
                value);
        return false;
    }
    fprintf(stderr, "%s: unknown device '%s' (--device takes cpu, cuda, vulkan or vulkan:N)\n", prog, value);
    return false;
}

#ifdef DMLS_HAVE_CUDA
#include "dmlslice/dmlslice_cuda.h"
#endif
#include "dmlslice/dmlslice.h"
#include "vulkan_io.h"

static void list_cuda(FILE *f) {
#ifdef DMLS_HAVE_CUDA
    int n = 0;
    if (dmls_cuda_device_count(&n) != DMLS_OK) {
        fprintf(f, "  cuda: none (%s)\n", dmls_last_error());
        return;
    }
    for (int i = 0; i < n; i++) {
        char name[256] = "";
        int major = 0, minor = 0;
        if (dmls_cuda_device_name(i, name, sizeof name, &major, &minor) == DMLS_OK)
            fprintf(f, "  cuda:%d  %s  compute capability %d.%d%s\n", i, name, major, minor,
                    i == 0 ? " (--device cuda)" : "");
    }
#else
    fprintf(f, "  cuda: not built (rebuild where nvcc is found)\n");
#endif
}

void device_list(FILE *f) {
    fprintf(f, "devices:\n  cpu  this machine's processor (--device cpu, the default)\n");
    list_cuda(f);
    vulkan_io_list(f, "  ");
}
