/* --device parsing and the device list: see device_opt.h. */
#include "device_opt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dmlslice/device.h"

void device_default(device_choice *d) {
    memset(d, 0, sizeof *d);
    d->kind = DEVICE_CPU;
    snprintf(d->name, sizeof d->name, "cpu");
}

static bool parse_number(const char *prog, const char *value, const char *digits, int *index) {
    char *end = NULL;
    errno = 0;
    const long n = strtol(digits, &end, 10);
    if (digits[0] >= '0' && digits[0] <= '9' && *end == '\0' && errno == 0 && n <= 1000000) {
        *index = (int)n;
        return true;
    }
    fprintf(stderr, "%s: --device '%s': the device number after ':' is not a number from 0\n", prog, value);
    return false;
}

bool device_parse(const char *prog, const char *value, device_choice *d) {
    static const struct {
        const char *name;
        device_kind kind;
    } kinds[] = {{"cuda", DEVICE_CUDA}, {"vulkan", DEVICE_VULKAN}};
    device_default(d);
    if (strcmp(value, "cpu") == 0) return true;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        const size_t len = strlen(kinds[k].name);
        if (strncmp(value, kinds[k].name, len) != 0 || (value[len] != '\0' && value[len] != ':')) continue;
        d->kind = kinds[k].kind;
        if (value[len] == ':' && !parse_number(prog, value, value + len + 1, &d->index)) return false;
        snprintf(d->name, sizeof d->name, "%s:%d", kinds[k].name, d->index);
        return true;
    }
    fprintf(stderr, "%s: unknown device '%s' (--device takes cpu, cuda[:N] or vulkan[:N])\n", prog, value);
    return false;
}

/* "  cuda: none (WHY)" where a backend shows no device. */
static void list_none(FILE *f, const char *kind, size_t seen) {
    if (seen) return;
    dmls_device *dev = NULL;
    if (dmls_device_open(kind, &dev) == DMLS_OK) {
        dmls_device_close(dev);
        return;
    }
    fprintf(f, "  %s: none (%s)\n", kind, dmls_last_error());
}

void device_list(FILE *f) {
    fprintf(f, "devices:\n");
    size_t cuda = 0, vulkan = 0;
    const size_t n = dmls_device_count();
    for (size_t k = 0; k < n; k++) {
        dmls_device_info info;
        if (dmls_device_info_at(k, &info) != DMLS_OK) continue;
        const bool first_cuda = strcmp(info.name, "cuda:0") == 0, cpu = strcmp(info.kind, "cpu") == 0;
        cuda += strcmp(info.kind, "cuda") == 0, vulkan += strcmp(info.kind, "vulkan") == 0;
        fprintf(f, "  %s  %s%s%s%s\n", info.name, info.description, info.driver[0] ? ", " : "", info.driver,
                cpu ? " (--device cpu, the default)" : first_cuda ? " (--device cuda)" : "");
    }
    list_none(f, "cuda", cuda);
    list_none(f, "vulkan", vulkan);
}
